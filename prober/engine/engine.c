/*
 * engine.c -- probes in flight: admission of paths, the run loop that
 * moves each path through the stages (engine_int.h), and the hand-over of
 * results.  See engine.h for the model.
 *
 * engine.c is the top of the engine's files: it calls the match of
 * replies (engine_match.c), the stages through their table, the paid
 * output (engine_out.c) and the slots (engine_slot.c); none of them calls
 * back into it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "log.h"

/* --- lifecycle ----------------------------------------------------------- */

static uint64_t engine_default_burst(uint64_t rate);
static uint64_t packets_sent(const struct engine *e);
static void flow_admit(struct engine *e, const struct engine_path *p, int f,
    struct flow_group *g, uint64_t now);

struct engine *
engine_new(const struct engine_config *cfg, const struct engine_ops *ops)
{
	static const struct stage_ops *const order[STAGE_COUNT] = {
		[STAGE_HANDSHAKE] = &stage_handshake_ops,
		[STAGE_WINDOW] = &stage_window_ops,
		[STAGE_TRACE] = &stage_trace_ops,
	};
	struct engine *e;
	size_t want;
	char err[160];

	if (cfg->nvariants < 1 || cfg->nvariants > SEND_MAX_VARIANTS ||
	    cfg->rate < 1 || cfg->max_inflight < 1)
		return NULL;
	e = xcalloc(1, sizeof(*e));
	e->cfg = *cfg;
	e->ops = *ops;
	if (e->cfg.flows < 1)
		e->cfg.flows = 1;
	if (portplan_init(&e->plan, cfg->port_lo, e->cfg.flows, ENGINE_PLAN_VARIANTS,
	    err, sizeof(err)) != 0) {
		log_warnx("engine: %s", err);
		free(e);
		return NULL;
	}
	/* --rate is a ceiling over every second, not an average: a bucket of
	 * depth b refilled at rate - b grants at most b + (rate - b) packets
	 * in any second, however the run idles and resumes */
	e->burst = cfg->burst ? cfg->burst : engine_default_burst(cfg->rate);
	if (e->burst >= cfg->rate)
		e->burst = cfg->rate > 1 ? cfg->rate - 1 : 1;
	if (ratelimit_init(&e->rl, cfg->rate > e->burst ? cfg->rate - e->burst : 1,
	    e->burst) != 0) {
		free(e);
		return NULL;
	}
	cookie_key_init(&e->key, cfg->key);
	want = cfg->max_inflight * 2;
	for (e->nbuckets = 64; e->nbuckets < want; e->nbuckets <<= 1)
		;
	e->buckets = xcalloc(e->nbuckets, sizeof(*e->buckets));
	/* the RST records of about max-inflight finished paths */
	rst_memo_init(&e->rst_memo, cfg->max_inflight * (size_t)cfg->nvariants);
	/* a path's flows are admitted together: room for one at least */
	if (e->cfg.max_inflight < (size_t)e->cfg.flows)
		e->cfg.max_inflight = (size_t)e->cfg.flows;
	for (int i = 0; i < STAGE_COUNT; i++)
		e->stages[i].ops = order[i];
	e->stages[STAGE_HANDSHAKE].limit = cfg->max_inflight;
	e->stages[STAGE_WINDOW].limit = cfg->max_windows > 0 ? cfg->max_windows : 1;
	e->stages[STAGE_TRACE].limit = cfg->max_traces > 0 ? cfg->max_traces : 1;
	/* each stage's state of a path after the variants, aligned for its
	 * widest member (ENGINE_STATE_ALIGN); its state of the engine in a
	 * block of its own */
	e->path_slot_bytes = sizeof(struct path_slot) + (size_t)cfg->nvariants * sizeof(struct vstate);
	for (int i = 0; i < STAGE_COUNT; i++) {
		const struct stage_ops *o = e->stages[i].ops;
		size_t align = ENGINE_STATE_ALIGN;

		e->path_slot_bytes = (e->path_slot_bytes + align - 1) / align * align;
		e->stages[i].path_slot_off = e->path_slot_bytes;
		e->path_slot_bytes += o->path_slot_state_bytes;
		if (o->engine_state_bytes > 0)
			e->stages[i].state = xcalloc(1, o->engine_state_bytes);
	}
	for (int i = 0; i < STAGE_COUNT; i++)
		if (e->stages[i].ops->init != NULL && !e->stages[i].ops->init(e)) {
			engine_free(e);
			return NULL;
		}
	return e;
}

static size_t
path_slot_bytes(const struct engine *e)
{
	return e->path_slot_bytes;
}

/* Whether stage id has packets of running paths waiting for tokens. */
static bool
stage_sending(const struct engine *e, enum stage_id id)
{
	const struct stage_ops *o = e->stages[id].ops;

	return o->sending != NULL && o->sending(e);
}

/* One flow of the group handed over (or dropped, drop: the engine is
 * freed): the group goes with its last, and when dropped what the caller
 * kept of the flows handed over (malloc'd, path_result.group_user). */
static void
group_leave(struct flow_group *g, bool drop)
{
	if (g == NULL || --g->left > 0)
		return;
	if (drop)
		free(g->user);
	free(g);
}

static void
path_slot_free(struct engine *e, struct path_slot *s)
{
	for (int i = 0; i < STAGE_COUNT; i++)
		if (e->stages[i].ops->free != NULL)
			e->stages[i].ops->free(e, s);
	engine_mem(e, -(int64_t)(path_slot_bytes(e) + evidence_bytes(s->ev)));
	evidence_free(&s->ev);
	free(s);
}

void
engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->nbuckets; i++) {
		struct path_slot *s = e->buckets[i], *next;
		for (; s != NULL; s = next) {
			next = s->hnext;
			group_leave(s->group, true);
			path_slot_free(e, s);
		}
	}
	engine_out_free(e);
	for (int i = 0; i < STAGE_COUNT; i++)
		free(e->stages[i].state);
	free(e->buckets);
	free(e);
}

bool
engine_finished(const struct engine *e)
{
	return e->no_more_paths && e->inflight == 0 && !engine_out_rsts_owed(e);
}

bool
engine_idle(const struct engine *e)
{
	return e->inflight == 0 && !engine_out_rsts_owed(e);
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
	out->mem_now = e->mem;
}

/* The flows a path starts with: all of them, or one under flows_auto. */
static size_t
first_flows(const struct engine *e)
{
	return e->cfg.flows_auto ? 1 : (size_t)e->plan.flows;
}

/* Any flow of (dst, port) in flight: they end one by one. */
static const struct path_slot *
engine_any_flow(const struct engine *e, const struct addr *dst, uint16_t port)
{
	const struct path_slot *s = NULL;

	for (int f = 0; f < e->plan.flows && s == NULL; f++)
		s = engine_path_find(e, dst, port, f);
	return s;
}

bool
engine_has_path(const struct engine *e, const struct addr *dst, uint16_t port)
{
	return engine_any_flow(e, dst, port) != NULL;
}

const void *
engine_path_tag(const struct engine *e, const struct addr *dst, uint16_t port)
{
	const struct path_slot *s = engine_any_flow(e, dst, port);

	return s != NULL ? s->path.tag : NULL;
}

void
engine_paths_ready(struct engine *e)
{
	e->paths_later = false;
	e->wants_run = true;
}

bool
engine_wants_run(const struct engine *e)
{
	return e->wants_run;
}

/* The bucket's depth: 10 ms of the rate, and at low rates up to 10 packets
 * (a tenth of the rate at most, which the refill gives up), so that the
 * packets of one exchange (a window test's SYNs, then its ACKs and
 * request) leave together. */
static uint64_t
engine_default_burst(uint64_t rate)
{
	uint64_t b = rate / 10 < 10 ? rate / 10 : 10;

	if (rate / 100 > b)
		b = rate / 100;
	return b > 0 ? b : 1;
}

uint64_t
engine_burst(const struct engine *e)
{
	return e->burst;
}

/* --- stages -------------------------------------------------------------- */

/* The SYNs as sent beside the replies kept: per variant, the handshake's
 * (its latest attempt) and, when traced, the trace's at TTL 1 (a quote's
 * fields say what its SYN had otherwise).  Rendered only now, so a path in
 * flight holds only what it received. */
static void
evidence_syns(struct engine *e, struct path_slot *s)
{
	uint8_t buf[128];
	char fields[EVIDENCE_FIELDS];
	size_t len;

	size_t before = evidence_bytes(s->ev);

	if (s->ev == NULL || e->ops.render_syn == NULL)
		return;
	for (int v = 0; v < e->cfg.nvariants; v++) {
		struct send_syn syn;

		if (s->v[v].obs.attempts > 0) {
			engine_make_syn(e, s, v, COOKIE_TAG_HANDSHAKE,
			    (uint32_t)(s->v[v].sent_at / 1000000u), &syn);
			if ((len = e->ops.render_syn(e->ops.arg, &syn, buf, sizeof(buf))) > 0) {
				snprintf(fields, sizeof(fields), "attempts=%d", s->v[v].obs.attempts);
				evidence_add(&s->ev, v - 1, 0, EVIDENCE_SYN, fields, buf, len);
			}
		}
		for (int i = STAGE_HANDSHAKE + 1; i < STAGE_COUNT; i++) {
			const struct stage_ops *o = e->stages[i].ops;
			int ttl;

			if (o->evidence_syn == NULL ||
			    (ttl = o->evidence_syn(e, s, v, &syn, fields, sizeof(fields))) == 0)
				continue;
			if ((len = e->ops.render_syn(e->ops.arg, &syn, buf, sizeof(buf))) > 0)
				evidence_add(&s->ev, v - 1, ttl, EVIDENCE_SYN, fields, buf, len);
		}
	}
	engine_mem(e, (int64_t)evidence_bytes(s->ev) - (int64_t)before);
}

/* The flows the caller asked to add to s's path (flows_auto): admitted
 * on the next flows' ports, up to the plan's; the number added. */
static int
flows_add(struct engine *e, struct path_slot *s, int more, uint64_t now)
{
	struct flow_group *g = s->group;
	int n = 0;

	if (!e->cfg.flows_auto || g == NULL || more <= 0)
		return 0;
	for (; n < more && g->started < e->plan.flows; n++) {
		g->left++;
		flow_admit(e, &s->path, g->started++, g, now);
	}
	return n;
}

/* Hands the finished path to the caller and frees its slot; under
 * flows_auto the flows the caller asks for start now. */
static void
path_finish(struct engine *e, struct path_slot *s, uint64_t now)
{
	struct path_result *r = &e->result;
	uint64_t drops = e->ops.capture_drops ? e->ops.capture_drops(e->ops.arg) : 0;

	memset(r, 0, sizeof(*r));
	r->target = s->path.target;
	r->tag = s->path.tag;
	r->dst = s->path.dst;
	r->src = s->path.src;
	r->port = s->path.port;
	r->time = s->path.wall;
	r->control = s->v[0].obs;
	r->nscales = e->cfg.nvariants - 1;
	for (int i = 1; i < e->cfg.nvariants; i++)
		r->scales[i - 1] = s->v[i].obs;
	r->capture_drops = drops - s->drops_at_start;
	if (e->ops.send_failures != NULL)
		r->send_failures = e->ops.send_failures(e->ops.arg) - s->fails_at_start;
	if (e->ops.capture_failure != NULL) {
		const char *why = e->ops.capture_failure(e->ops.arg, s->path.capture);

		if (why != NULL)
			snprintf(r->capture_error, sizeof(r->capture_error), "%s", why);
	}
	for (int i = 0; i < STAGE_COUNT; i++)
		if (e->stages[i].ops->result != NULL)
			e->stages[i].ops->result(e, s, r);
	evidence_syns(e, s);
	r->evidence = s->ev;
	r->flow = s->path.flow;
	r->flows = e->plan.flows;
	r->group_user = s->group != NULL ? &s->group->user : NULL;
	r->group_last = s->group == NULL || s->group->left == 1;

	path_slot_list_remove(s);
	engine_path_unlink(e, s);
	e->inflight--;
	engine_out_retire(e, s);
	e->ops.done(e->ops.arg, r);
	if (flows_add(e, s, r->group_last ? r->flows_more : 0, now) == 0 && r->group_last)
		e->n.paths_done++;
	group_leave(s->group, false);
	path_slot_free(e, s);
}

/* Moves every path that is over with a stage to the next stage that wants
 * it, or to its result.  The only place a path changes stage. */
static void
move_on(struct engine *e, enum stage_id from, struct path_slot *s, uint64_t now)
{
	for (int i = (int)from + 1; i < STAGE_COUNT; i++) {
		const struct stage_ops *ops = e->stages[i].ops;

		if (ops->wanted != NULL && !ops->wanted(e, s))
			continue;
		s->stage = (enum stage_id)i;
		s->running = false;
		path_slot_list_append(&e->stages[i].waiting, s);
		return;
	}
	path_finish(e, s, now);
}

static void
move_all(struct engine *e, uint64_t now)
{
	struct path_slot *s;

	while ((s = e->moving.head) != NULL) {
		path_slot_list_remove(s);
		move_on(e, s->left, s, now);
	}
}

/* The free tokens stage i needs to start its next waiting path now;
 * ENGINE_NEVER when none waits, it has no room, or something other than
 * tokens holds it back. */
static uint64_t
start_need(struct engine *e, int i)
{
	const struct stage *st = &e->stages[i];

	if (st->waiting.head == NULL || st->running >= st->limit)
		return ENGINE_NEVER;
	return st->ops->start_need != NULL ? st->ops->start_need(e) : 1;
}

/* Starts waiting paths of every stage while it has room and the tokens of
 * their first packets are there; a path that is over at once moves on. */
static void
admit_waiting(struct engine *e, uint64_t now)
{
	for (int i = STAGE_HANDSHAKE + 1; i < STAGE_COUNT; i++) {
		struct stage *st = &e->stages[i];
		uint64_t need;
		struct path_slot *s;

		while ((need = start_need(e, i)) != ENGINE_NEVER &&
		    engine_out_tokens(e, now) >= (need > 0 ? need : 1)) {
			s = st->waiting.head;
			path_slot_list_remove(s);
			s->running = true;
			st->running++;
			st->ops->start(e, s, now);
			move_all(e, now);
		}
	}
}

/* Whether a path waits for a stage that has room and only tokens to come:
 * it goes before new paths (a path started is memory held until its
 * result). */
static bool
stage_backlog(struct engine *e)
{
	for (int i = STAGE_HANDSHAKE + 1; i < STAGE_COUNT; i++)
		if (start_need(e, i) != ENGINE_NEVER)
			return true;
	return false;
}

/* Whether the later stages have as many paths waiting as they run at
 * once: a new path's handshake would only add one more to wait, holding
 * its slot the while, so the list's size would become the memory's. */
static bool
stages_full(const struct engine *e)
{
	for (int i = STAGE_HANDSHAKE + 1; i < STAGE_COUNT; i++)
		if (e->stages[i].waiting.n >= e->stages[i].limit)
			return true;
	return false;
}

/* Flow f of path p into a new slot of the handshake. */
static void
flow_admit(struct engine *e, const struct engine_path *p, int f,
    struct flow_group *g, uint64_t now)
{
	struct stage *hs = &e->stages[STAGE_HANDSHAKE];
	struct path_slot *s;

	s = xcalloc(1, path_slot_bytes(e));
	s->path = *p;
	s->path.flow = f;
	s->group = g;
	s->drops_at_start = e->ops.capture_drops ? e->ops.capture_drops(e->ops.arg) : 0;
	s->fails_at_start = e->ops.send_failures ? e->ops.send_failures(e->ops.arg) : 0;
	for (int i = 0; i < e->cfg.nvariants; i++) {
		s->v[i].obs.scale = e->cfg.variant_scale[i];
		s->v[i].obs.sa.wscale = -1;
		s->v[i].obs.sa.mss = -1;
	}
	engine_path_insert(e, s);
	e->inflight++;
	if (e->inflight > e->n.inflight_peak)
		e->n.inflight_peak = e->inflight;
	engine_mem(e, (int64_t)path_slot_bytes(e));
	s->stage = STAGE_HANDSHAKE;
	s->running = true;
	hs->running++;
	hs->ops->start(e, s, now);
}

/* Takes the next path from the caller: a slot of the handshake per flow,
 * each flow its own source ports (the port plan). */
static bool
path_admit(struct engine *e, uint64_t now)
{
	struct engine_path p;
	struct flow_group *g = NULL;
	int rc;

	if (e->no_more_paths || e->paths_later ||
	    e->inflight + first_flows(e) > e->cfg.max_inflight || stages_full(e))
		return false;
	if ((rc = e->ops.next_path(e->ops.arg, &p)) != 1) {
		if (rc == ENGINE_PATH_LATER)
			e->paths_later = true;
		else
			e->no_more_paths = true;
		return false;
	}
	if (engine_any_flow(e, &p.dst, p.port) != NULL) {
		/* the same 4-tuples are in flight: the caller de-duplicates,
		 * so this is a second name for one address; skip it */
		log_debug("engine: duplicate path %s skipped", p.target);
		return true;
	}
	e->n.paths_started++;
	if (e->plan.flows > 1) {
		g = xcalloc(1, sizeof(*g));
		g->left = g->started = (int)first_flows(e);
	}
	for (int f = 0; f < (int)first_flows(e); f++)
		flow_admit(e, &p, f, g, now);
	return true;
}

static uint64_t next_wake(struct engine *e, uint64_t now);

/*
 * One turn of the loop.  Packets go out in this order, each paid with a
 * token: RSTs owed, then what running window tests, traces and handshakes
 * have due (a test already running must not starve, or its server times
 * out and spoils the measurement), then new window tests and traces
 * within what is left, then new paths.
 */
uint64_t
engine_run(struct engine *e, uint64_t now)
{
	static const enum stage_id run_order[] = {
		STAGE_WINDOW, STAGE_TRACE, STAGE_HANDSHAKE,
	};
	uint64_t sent = packets_sent(e), drained_at = sent;
	e->wants_run = false;
	move_all(e, now);
	engine_out_rsts(e, now);
	for (size_t i = 0; i < sizeof(run_order) / sizeof(run_order[0]); i++) {
		e->stages[run_order[i]].ops->run(e, now);
		move_all(e, now);
	}
	admit_waiting(e, now);
	while (!stage_sending(e, STAGE_HANDSHAKE) && !stage_backlog(e) && engine_out_can(e, now) &&
	    path_admit(e, now)) {
		e->stages[STAGE_HANDSHAKE].ops->run(e, now);
		move_all(e, now);
		/* a fast link answers while we send: read the capture every
		 * ENGINE_DRAIN_EVERY packets, here where no stage is between
		 * two steps, so a burst never outgrows the capture ring */
		if (e->ops.drain != NULL && packets_sent(e) - drained_at >= ENGINE_DRAIN_EVERY) {
			if (e->ops.flush != NULL)
				e->ops.flush(e->ops.arg);
			e->ops.drain(e->ops.arg);
			move_all(e, now);
			/* the RSTs the replies drew go now, as at the top of a
			 * run: a burst over a whole list is one run, and its
			 * RSTs waited for its end (a ring of 131,072 at 65,536
			 * paths flat out, 6 MiB, and the server resent its
			 * SYN-ACKs meanwhile) */
			engine_out_rsts(e, now);
			drained_at = packets_sent(e);
		}
	}
	if (e->ops.flush != NULL && sent != packets_sent(e))
		e->ops.flush(e->ops.arg);

	if (engine_finished(e))
		return ENGINE_NEVER;
	return next_wake(e, now);
}

static uint64_t
packets_sent(const struct engine *e)
{
	return e->n.syns_sent + e->n.rsts_sent + e->n.window_sent + e->n.trace_sent;
}

/* When the loop is next needed: the stages' timers, and for what waits for
 * tokens, the time they will be there.  Nothing that only an event (a
 * reply, a test ending) can unblock asks for a wake. */
static uint64_t
next_wake(struct engine *e, uint64_t now)
{
	uint64_t next = ENGINE_NEVER;
	bool one = engine_out_rsts_owed(e) || e->moving.head != NULL;

	for (int i = 0; i < STAGE_COUNT; i++) {
		uint64_t t = e->stages[i].ops->wake(e, now);
		uint64_t need = i > STAGE_HANDSHAKE ? start_need(e, i) : ENGINE_NEVER;

		if (t < next)
			next = t;
		if (need != ENGINE_NEVER) {
			t = engine_out_when(e, now, need > 0 ? need : 1);
			if (t < next)
				next = t;
		}
	}
	if (!e->no_more_paths && !e->paths_later &&
	    e->inflight + first_flows(e) <= e->cfg.max_inflight &&
	    !stage_sending(e, STAGE_HANDSHAKE) && !stage_backlog(e) && !stages_full(e))
		one = true;
	if (one) {
		uint64_t t = engine_out_when(e, now, 1);

		if (t < next)
			next = t;
	}
	/* never the same instant again: what is due now was done */
	if (next <= now)
		next = now + 1000;
	return next;
}

void
engine_input(struct engine *e, uint64_t now, const uint8_t *pkt, size_t len)
{
	engine_input_at(e, now, now, pkt, len);
}

void
engine_input_at(struct engine *e, uint64_t now, uint64_t at, const uint8_t *pkt,
    size_t len)
{
	e->in_at = at < now ? at : now;
	engine_match_input(e, pkt, len, now);
}
