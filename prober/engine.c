/*
 * engine.c -- probes in flight: admission, pacing, timeouts, retries and
 * the stateless matching of replies to paths.  See engine.h for the model.
 *
 * A path lives in a slot from admission to its result.  A slot is on at
 * most one of two lists: the send queue (variants still to send this
 * round) or the deadline list (all sent, waiting for replies).  Both are
 * FIFOs and, because every round waits the same timeout, the deadline list
 * stays sorted by appending.  Replies find their slot through a hash of
 * (family, destination, port) once the ISN cookie has proved they answer a
 * probe of ours.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "log.h"

static uint32_t all_variants(const struct engine *e)
{
	return e->cfg.nvariants >= 32 ? UINT32_MAX :
	    (uint32_t)((1u << e->cfg.nvariants) - 1);
}

/* --- lists --------------------------------------------------------------- */

void
slot_list_remove(struct slot *s)
{
	struct slot_list *l = s->on;

	if (l == NULL)
		return;
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		l->head = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	else
		l->tail = s->prev;
	s->prev = s->next = NULL;
	s->on = NULL;
}

void
slot_list_append(struct slot_list *l, struct slot *s)
{
	slot_list_remove(s);
	s->prev = l->tail;
	s->next = NULL;
	if (l->tail != NULL)
		l->tail->next = s;
	else
		l->head = s;
	l->tail = s;
	s->on = l;
}

/* --- the path table ------------------------------------------------------ */

static size_t
path_hash(const struct engine *e, const struct addr *dst, uint16_t port)
{
	/* FNV-1a: the key needs no secrecy, replies are validated first */
	uint64_t h = 1469598103934665603ull;
	size_t n = addr_len(dst);

	h = (h ^ dst->family) * 1099511628211ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ dst->bytes[i]) * 1099511628211ull;
	h = (h ^ (port >> 8)) * 1099511628211ull;
	h = (h ^ (port & 0xff)) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32)) & (e->nbuckets - 1);
}

struct slot *
engine_path_find(const struct engine *e, const struct addr *dst, uint16_t port)
{
	struct slot *s = e->buckets[path_hash(e, dst, port)];

	for (; s != NULL; s = s->hnext)
		if (s->path.port == port && addr_equal(&s->path.dst, dst))
			return s;
	return NULL;
}

static void
path_unlink(struct engine *e, struct slot *s)
{
	struct slot **pp = &e->buckets[path_hash(e, &s->path.dst, s->path.port)];

	for (; *pp != NULL; pp = &(*pp)->hnext)
		if (*pp == s) {
			*pp = s->hnext;
			return;
		}
}

/* --- lifecycle ----------------------------------------------------------- */

struct engine *
engine_new(const struct engine_config *cfg, const struct engine_ops *ops)
{
	struct engine *e;
	size_t want;

	if (cfg->nvariants < 1 || cfg->nvariants > SEND_MAX_VARIANTS ||
	    cfg->rate < 1 || cfg->max_inflight < 1)
		return NULL;
	e = xcalloc(1, sizeof(*e));
	e->cfg = *cfg;
	e->ops = *ops;
	if (ratelimit_init(&e->rl, cfg->rate, cfg->burst) != 0) {
		free(e);
		return NULL;
	}
	cookie_key_init(&e->key, cfg->key);
	want = cfg->max_inflight * 2;
	for (e->nbuckets = 64; e->nbuckets < want; e->nbuckets <<= 1)
		;
	e->buckets = xcalloc(e->nbuckets, sizeof(*e->buckets));
	return e;
}

static void
slot_free(struct engine *e, struct slot *s)
{
	trace_free(s->tr);
	ewindow_free(s, e->cfg.nvariants);
	free(s);
}

void
engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->nbuckets; i++) {
		struct slot *s = e->buckets[i], *next;
		for (; s != NULL; s = next) {
			next = s->hnext;
			slot_free(e, s);
		}
	}
	free(e->buckets);
	free(e);
}

bool
engine_finished(const struct engine *e)
{
	return e->no_more_paths && e->inflight == 0;
}

size_t
engine_inflight(const struct engine *e)
{
	return e->inflight;
}

void
engine_counters(const struct engine *e, struct engine_counters *out)
{
	*out = e->n;
}

uint16_t
engine_variant_sport(const struct engine *e, int v)
{
	return (uint16_t)(e->cfg.port_lo + v);
}

/* Hands the finished path to the caller and frees its slot. */
void
engine_path_finish(struct engine *e, struct slot *s)
{
	struct path_result *r = &e->result;
	uint64_t drops = e->ops.capture_drops ? e->ops.capture_drops(e->ops.arg) : 0;

	memset(r, 0, sizeof(*r));
	r->target = s->path.target;
	r->dst = s->path.dst;
	r->src = s->path.src;
	r->port = s->path.port;
	r->time = s->path.wall;
	r->control = s->v[0].obs;
	r->nscales = e->cfg.nvariants - 1;
	for (int i = 1; i < e->cfg.nvariants; i++)
		r->scales[i - 1] = s->v[i].obs;
	r->capture_drops = drops - s->drops_at_start;
	if (s->tr != NULL)
		for (int v = 0; v < e->cfg.nvariants; v++)
			r->trace[v] = trace_result(s->tr, v);
	if (s->wobs != NULL)
		for (int v = 1; v < e->cfg.nvariants; v++)
			r->window[v - 1] = s->wobs[v];

	slot_list_remove(s);
	path_unlink(e, s);
	e->inflight--;
	e->n.paths_done++;
	e->ops.done(e->ops.arg, r);
	slot_free(e, s);
}

/* Takes the next path from the caller into a new slot on the send queue. */
static bool
path_admit(struct engine *e)
{
	struct engine_path p;
	struct slot *s;

	if (e->no_more_paths || e->inflight >= e->cfg.max_inflight)
		return false;
	if (e->ops.next_path(e->ops.arg, &p) != 1) {
		e->no_more_paths = true;
		return false;
	}
	if (engine_path_find(e, &p.dst, p.port) != NULL) {
		/* the same 4-tuples are in flight: the caller de-duplicates,
		 * so this is a second name for one address; skip it */
		log_debug("engine: duplicate path %s skipped", p.target);
		return true;
	}
	s = xcalloc(1, sizeof(*s) + (size_t)e->cfg.nvariants * sizeof(s->v[0]));
	s->path = p;
	s->pending = all_variants(e);
	s->drops_at_start = e->ops.capture_drops ? e->ops.capture_drops(e->ops.arg) : 0;
	for (int i = 0; i < e->cfg.nvariants; i++) {
		s->v[i].obs.scale = e->cfg.variant_scale[i];
		s->v[i].obs.sa.wscale = -1;
		s->v[i].obs.sa.mss = -1;
	}
	size_t b = path_hash(e, &p.dst, p.port);
	s->hnext = e->buckets[b];
	e->buckets[b] = s;
	e->inflight++;
	e->n.paths_started++;
	slot_list_append(&e->sendq, s);
	return true;
}

/* The IPv6 flow label of a 4-tuple: constant whatever the TTL, so ECMP
 * keeps one path for the handshake, every step of the trace, and our RSTs. */
static uint32_t
flow_label(const struct engine *e, const struct addr *src, const struct addr *dst,
    uint16_t sport, uint16_t dport)
{
	return cookie_isn(&e->key, src, dst, sport, dport, 0) >> 12;
}

void
engine_make_syn(const struct engine *e, const struct slot *s, int v, int ttl,
    uint32_t tsval, struct send_syn *syn)
{
	uint16_t sport = engine_variant_sport(e, v);

	memset(syn, 0, sizeof(*syn));
	syn->variant = v;
	syn->src = &s->path.src;
	syn->dst = &s->path.dst;
	syn->sport = sport;
	syn->dport = s->path.port;
	syn->ttl = ttl > 0 ? (uint8_t)ttl : e->cfg.ttl;
	syn->isn = cookie_isn(&e->key, &s->path.src, &s->path.dst, sport,
	    s->path.port, (unsigned)ttl);
	syn->tsval = tsval;
	syn->flow_label = flow_label(e, &s->path.src, &s->path.dst, sport, s->path.port);
}

static int
send_variant(struct engine *e, struct slot *s, int v, uint64_t now)
{
	struct send_syn syn;

	engine_make_syn(e, s, v, 0, (uint32_t)(now / 1000000u), &syn);
	if (s->v[v].obs.attempts > 0)
		e->n.retries_sent++;
	s->v[v].obs.attempts++;
	s->v[v].sent_at = now;
	if (e->ops.send_syn(e->ops.arg, &syn) != 0) {
		e->n.send_errors++;
		return -1;
	}
	e->n.syns_sent++;
	return 0;
}



/* The handshake of s is complete: trace it, queue it for a trace, or
 * hand its result over. */
static void
handshake_done(struct engine *e, struct slot *s, uint64_t now)
{
	if (ewindow_wanted(e, s)) {
		ewindow_begin(e, s, now);
		return;
	}
	engine_stage_after_window(e, s, now);
}

void
engine_stage_after_window(struct engine *e, struct slot *s, uint64_t now)
{
	if (!etrace_wanted(e, s)) {
		engine_path_finish(e, s);
		return;
	}
	etrace_begin(e, s, now);
}

/* Decides, at a path's deadline, what its silent variants do next. */
static void
path_expire(struct engine *e, struct slot *s, uint64_t now)
{
	uint32_t again = 0;

	for (int v = 0; v < e->cfg.nvariants; v++) {
		if (s->answered & (1u << v))
			continue;
		if (s->v[v].obs.attempts <= e->cfg.retries)
			again |= 1u << v;
	}
	if (again == 0) {
		handshake_done(e, s, now);
		return;
	}
	s->pending = again;
	slot_list_append(&e->sendq, s);
}

/* Sends the handshake SYNs queued, as far as the tokens go. */
static bool
send_handshakes(struct engine *e, uint64_t now)
{
	bool sent = false;
	struct slot *s;

	while ((s = e->sendq.head) != NULL) {
		if (ratelimit_take(&e->rl, now, 1) == 0)
			break;
		int v = __builtin_ctz(s->pending);
		s->pending &= ~(1u << v);
		send_variant(e, s, v, now);
		sent = true;
		if (s->pending == 0) {
			s->deadline = now + e->cfg.timeout_ns;
			slot_list_append(&e->waitq, s);
		}
	}
	return sent;
}

uint64_t
engine_run(struct engine *e, uint64_t now)
{
	bool drained = false;
	bool sent = false;

	/* timeouts first: their retries go ahead of new paths */
	while (e->waitq.head != NULL && e->waitq.head->deadline <= now) {
		if (!drained && e->ops.drain != NULL) {
			/* a reply may sit in the capture ring: read it before
			 * calling anything silent (it may finish the head) */
			e->ops.drain(e->ops.arg);
			drained = true;
			continue;
		}
		path_expire(e, e->waitq.head, now);
	}

	/* handshakes already started first, then traces, then new paths */
	sent |= send_handshakes(e, now);
	if (e->windowing.head != NULL)
		sent |= ewindow_run(e, now);
	if (e->tracing.head != NULL)
		sent |= etrace_run(e, now);
	while (e->sendq.head == NULL && path_admit(e))
		sent |= send_handshakes(e, now);
	if (sent && e->ops.flush != NULL)
		e->ops.flush(e->ops.arg);

	if (engine_finished(e))
		return ENGINE_NEVER;
	uint64_t next = ENGINE_NEVER;
	if (e->waitq.head != NULL)
		next = e->waitq.head->deadline;
	next = etrace_wake(e, now, next);
	next = ewindow_wake(e, next);
	if (e->sendq.head != NULL ||
	    (!e->no_more_paths && e->inflight < e->cfg.max_inflight)) {
		uint64_t t = now + ratelimit_next(&e->rl, now);
		if (t < next)
			next = t;
	}
	return next;
}

/* --- replies ------------------------------------------------------------- */

static void
send_rst(struct engine *e, const struct reply *r)
{
	struct send_segment seg;

	memset(&seg, 0, sizeof(seg));
	seg.src = &r->dst;
	seg.dst = &r->src;
	seg.sport = r->dport;
	seg.dport = r->sport;
	seg.seq = r->ack;
	seg.flags = REPLY_TCP_RST;
	seg.ttl = e->cfg.ttl;
	seg.flow_label = flow_label(e, seg.src, seg.dst, seg.sport, seg.dport);
	if (e->ops.send_segment(e->ops.arg, &seg) != 0)
		e->n.send_errors++;
	else
		e->n.rsts_sent++;
}

/* Records what answered variant v; a path with every variant answered is
 * done at once. */
static void
record(struct engine *e, struct slot *s, int v, const struct reply *r,
    enum reply_kind kind, uint64_t now)
{
	struct vstate *vs = &s->v[v];

	if (vs->answered) {
		if (vs->obs.reply != kind)
			vs->obs.mixed = true;
		return;
	}
	vs->answered = true;
	vs->obs.reply = kind;
	vs->obs.rtt_us = (uint32_t)((now - vs->sent_at) / 1000u);
	if (kind == REPLY_SYNACK)
		vs->obs.sa = r->opts;
	if (kind == REPLY_ICMP_UNREACH) {
		vs->obs.icmp_type = r->icmp_type;
		vs->obs.icmp_code = r->icmp_code;
		vs->obs.icmp_from = r->src;
	}
	s->answered |= 1u << v;
	s->pending &= ~(1u << v);
	if (s->answered == all_variants(e))
		handshake_done(e, s, now);
	else if (s->pending == 0 && s->on == &e->sendq) {
		s->deadline = now + e->cfg.timeout_ns;
		slot_list_append(&e->waitq, s);
	}
}

/* The path in flight from ours to theirs:port, or NULL. */
static struct slot *
slot_for(const struct engine *e, const struct addr *theirs, uint16_t port,
    const struct addr *ours)
{
	struct slot *s = engine_path_find(e, theirs, port);

	return s != NULL && addr_equal(&s->path.src, ours) ? s : NULL;
}

static int
our_variant(const struct engine *e, uint16_t port)
{
	if (port < e->cfg.port_lo || port >= e->cfg.port_lo + e->cfg.nvariants)
		return -1;
	return port - e->cfg.port_lo;
}

/* TTL bits a reply may carry: 0 for the handshake, 1..max for the trace. */
bool
engine_ttl_valid(const struct engine *e, int ttl)
{
	if (ttl == 0)
		return true;
	if (ttl == COOKIE_TTL_MAX)
		return e->cfg.window_test;
	return e->cfg.trace != ENGINE_TRACE_NEVER && ttl >= 1 &&
	    ttl <= e->cfg.trace_max_ttl;
}

static void
input_tcp(struct engine *e, const struct reply *r, uint64_t now)
{
	int v = our_variant(e, r->dport);
	enum reply_kind kind;
	bool valid;
	int ttl = -1;

	if (v < 0) {
		e->n.ignored++;
		return;
	}
	/* a connection of the window test: its machine judges every segment
	 * but a SYN-ACK, which must carry the test's TTL bits to be its own */
	struct slot *ws = slot_for(e, &r->src, r->sport, &r->dst);
	if (ws != NULL && ws->win != NULL && v < e->cfg.nvariants && ws->win[v] != NULL) {
		bool synack = (r->flags & (REPLY_TCP_SYN | REPLY_TCP_ACK)) ==
		    (REPLY_TCP_SYN | REPLY_TCP_ACK);
		if (!synack || (cookie_check_synack(&e->key, &r->dst, &r->src, r->dport,
		    r->sport, r->ack, &ttl) && ttl == COOKIE_TTL_MAX)) {
			ewindow_input(e, ws, v, r, now);
			return;
		}
	}
	/* the reply travels the other way: our probe was (dst -> src) */
	if ((r->flags & (REPLY_TCP_SYN | REPLY_TCP_ACK)) ==
	    (REPLY_TCP_SYN | REPLY_TCP_ACK)) {
		valid = cookie_check_synack(&e->key, &r->dst, &r->src, r->dport,
		    r->sport, r->ack, &ttl);
		kind = REPLY_SYNACK;
	} else if (r->flags & REPLY_TCP_RST) {
		valid = cookie_check_rst(&e->key, &r->dst, &r->src, r->dport,
		    r->sport, r->ack, r->flags & REPLY_TCP_ACK, &ttl);
		kind = REPLY_RST;
	} else {
		e->n.ignored++;
		return;
	}
	/* an ack landing on TTL bits no probe of this run used answers
	 * nothing that was sent */
	if (!valid || !engine_ttl_valid(e, ttl)) {
		e->n.rejected++;
		return;
	}
	if (kind == REPLY_SYNACK)
		send_rst(e, r);

	struct slot *s = slot_for(e, &r->src, r->sport, &r->dst);
	/* a window test's after the test is over, a trace's after the trace */
	if (s == NULL || ttl == COOKIE_TTL_MAX || (ttl > 0 && s->tr == NULL)) {
		e->n.late++;
		return;
	}
	if (ttl > 0) {
		/* a trace probe reached the destination */
		e->n.trace_dest++;
		trace_dest(s->tr, v, ttl);
		return;
	}
	if (kind == REPLY_SYNACK)
		e->n.synacks++;
	else
		e->n.rsts++;
	record(e, s, v, r, kind, now);
}

static void
input_icmp(struct engine *e, const struct reply *r, uint64_t now)
{
	int v = our_variant(e, r->q_sport);
	struct slot *s = NULL;
	int ttl = -1;

	if (v >= 0 && cookie_check_quote(&e->key, &r->q_src, &r->q_dst, r->q_sport,
	    r->q_dport, r->q_seq, &ttl) && engine_ttl_valid(e, ttl)) {
		s = slot_for(e, &r->q_dst, r->q_dport, &r->q_src);
	} else if ((s = etrace_match_translated(e, r, &v, &ttl)) == NULL) {
		if (v >= 0)
			e->n.rejected++;
		else
			e->n.ignored++;
		return;
	}
	if (s == NULL || (ttl > 0 && s->tr == NULL)) {
		e->n.late++;
		return;
	}
	if (ttl > 0) {
		etrace_quote(e, s, v, ttl, r, now);
		if (r->unreach)
			trace_refused(s->tr, v, ttl);
		return;
	}
	if (!r->unreach) {
		/* a time-exceeded for a handshake SYN means a routing loop or
		 * a path longer than its TTL: not an answer, keep waiting */
		e->n.ignored++;
		return;
	}
	e->n.icmp_errors++;
	record(e, s, v, r, REPLY_ICMP_UNREACH, now);
}

void
engine_input(struct engine *e, uint64_t now, const uint8_t *pkt, size_t len)
{
	struct reply r;

	switch (reply_decode(pkt, len, &r)) {
	case REPLY_T_TCP:
		input_tcp(e, &r, now);
		break;
	case REPLY_T_ICMP:
		input_icmp(e, &r, now);
		break;
	default:
		e->n.ignored++;
		break;
	}
}
