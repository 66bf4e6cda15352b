/*
 * stage_window.c -- the window-test stage: after the handshake, each scale
 * variant that drew a SYN-ACK opens one real connection from the raw
 * socket (window.c decides every segment), on the variant's own 4-tuple,
 * its ISN tagged COOKIE_TAG_WINDOW so that its SYN-ACK is told apart from
 * the handshake's and the trace's without state.  A path whose port has no
 * request (no window test there) never enters the stage.  Every segment a
 * machine asks for leaves when --rate grants it a token; until then it
 * waits in the machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "log.h"
#include "window.h"

/* The stage's own state: the tests running and their connections open,
 * and per path its machines. */
struct win_engine {
	struct path_slot_list running;
	size_t conns;			/* connections open */
};

struct win_slot {
	struct window **win;		/* a machine per variant, then the ids
					   of their latest SYNs (syn_ids), then
					   the request */
	uint8_t *window_tokens;			/* tokens set aside per variant's test */
	uint64_t deadline;		/* the machines' earliest timer, 0 when
					   input came */
	uint32_t pending;		/* an action waits for tokens */
	uint16_t req_len;		/* the request's length */
};

static struct win_engine *
win_engine(const struct engine *e)
{
	return engine_stage_state(e, STAGE_WINDOW);
}

_Static_assert(_Alignof(struct win_slot) <= ENGINE_STATE_ALIGN,
    "the slot does not align struct win_slot");

static struct win_slot *
win_slot(const struct engine *e, const struct path_slot *s)
{
	return engine_slot_state(e, s, STAGE_WINDOW);
}

/* Where the ids of the machines' latest SYNs (engine_ops.sent_id) sit in
 * the block of ws->win: after the pointers, aligned. */
static size_t
syn_ids_off(const struct engine *e)
{
	size_t off = (size_t)e->cfg.nvariants * sizeof(struct window *);

	return (off + _Alignof(uint64_t) - 1) / _Alignof(uint64_t) * _Alignof(uint64_t);
}

static uint64_t *
syn_ids(const struct engine *e, const struct win_slot *ws)
{
	return (uint64_t *)(void *)((char *)ws->win + syn_ids_off(e));
}

/* The request for s into buf; 0 when its port has none. */
static size_t
request(struct engine *e, const struct path_slot *s, uint8_t *buf, size_t cap)
{
	if (!e->cfg.window_test || e->ops.request == NULL)
		return 0;
	return e->ops.request(e->ops.arg, &s->path, buf, cap);
}

/* The per-path arrays of the stage, the request among them. */
static size_t
win_arrays_bytes(const struct engine *e, const struct path_slot *s)
{
	const struct win_slot *ws = win_slot(e, s);

	return syn_ids_off(e) + (size_t)e->cfg.nvariants * (sizeof(uint64_t) +
	    sizeof(*s->window_obs) + sizeof(*ws->window_tokens)) + ws->req_len;
}

static bool
win_wanted(struct engine *e, const struct path_slot *s)
{
	uint8_t req[WINDOW_REQUEST_MAX];
	bool synack = false;

	if (!e->cfg.window_test || e->ops.request == NULL)
		return false;
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (s->v[v].obs.reply == REPLY_SYNACK)
			synack = true;
	return synack && request(e, s, req, sizeof(req)) > 0;
}

/* Tokens a connection sets aside when its SYN leaves: its ACK and its
 * request go the moment the SYN-ACK comes. */
#define FIRST_EXCHANGE 2

/* Sends what the machine of variant v asks for, as far as tokens go. */
static void
send_actions(struct engine *e, struct path_slot *s, int v, uint64_t now)
{
	struct win_slot *ws = win_slot(e, s);
	struct window *w = ws->win[v];
	struct window_act a;
	int kind;

	while ((kind = window_next_kind(w)) >= 0) {
		struct send_syn syn;
		struct send_segment seg;
		uint8_t opts[40];
		bool first = false, promised = false;
		int rc;

		/* a token first: the action stays in the machine without one */
		if (kind == WINDOW_ACT_SYN && ws->window_tokens[v] == 0 && e->burst > FIRST_EXCHANGE) {
			if (engine_out_tokens(e, now) < 1 + FIRST_EXCHANGE)
				return;
			first = true;
		} else if (kind != WINDOW_ACT_SYN && ws->window_tokens[v] > 0) {
			promised = true;
		} else if (!engine_out_can(e, now)) {
			return;
		}
		window_next_action(w, now, &a);
		engine_make_syn(e, s, v, COOKIE_TAG_WINDOW, a.tsval, &syn);
		if (a.second) {
			syn.sport = engine_second_sport(e, s->path.flow, v);
			syn.flow_label = engine_flow_label(e, &s->path.src, &s->path.dst,
			    syn.sport, s->path.port);
		}
		if (a.kind == WINDOW_ACT_SYN) {
			syn.isn = a.seq;
			rc = engine_out_syn(e, &syn, now);
			if (rc != 0 && first && engine_out_reserve(e, FIRST_EXCHANGE, now))
				ws->window_tokens[v] = FIRST_EXCHANGE;
			syn_ids(e, ws)[v] = rc > 0 && e->ops.sent_id != NULL ?
			    e->ops.sent_id(e->ops.arg) : 0;
		} else {
			memset(&seg, 0, sizeof(seg));
			seg.src = &s->path.src;
			seg.dst = &s->path.dst;
			seg.sport = syn.sport;
			seg.dport = s->path.port;
			seg.seq = a.seq;
			seg.ack = a.ack;
			seg.flags = a.flags;
			seg.window = a.window;
			seg.ttl = e->cfg.ttl;
			seg.payload = a.payload;
			seg.payload_len = a.payload_len;
			seg.options_len = window_act_options(&a, opts, sizeof(opts));
			seg.options = seg.options_len ? opts : NULL;
			/* the SYN's flow label keeps every segment on its path */
			seg.flow_label = syn.flow_label;
			if (promised) {
				ws->window_tokens[v]--;
				rc = engine_out_segment_reserved(e, &seg, now);
			} else {
				rc = engine_out_segment(e, &seg, now);
			}
		}
		if (rc > 0)
			e->n.window_sent++;
	}
}

/* " 8192 8192 ..." for n flights, cut to fit. */
static void
flights_text(char *buf, size_t len, const uint32_t *f, int n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && at < len; i++) {
		int k = snprintf(buf + at, len - at, " %u", f[i]);

		if (k < 0)
			break;
		at += (size_t)k;
	}
}

/* -v: what the window test measured, round by round */
static void
log_result(const struct engine *e, const struct path_slot *s, int v,
    const struct window_result *wr)
{
	char addr[ADDR_STRLEN], a[160], b[200] = "";

	if (log_getverbose() < 1)
		return;
	flights_text(a, sizeof(a), wr->flight, wr->rounds);
	if (wr->remeasured) {
		char f[140];

		flights_text(f, sizeof(f), wr->first_flight, wr->first_rounds);
		snprintf(b, sizeof(b), "; first connection W %u, %d rounds:%s", wr->first_w,
		    wr->first_rounds, f);
	}
	log_debug("window test %s port %u scale %d: W %u, %d rounds:%s (%s)%s%s: %s",
	    addr_format(&s->path.dst, addr, sizeof(addr)), s->path.port,
	    e->cfg.variant_scale[v], wr->w, wr->rounds, a, window_end_name(wr->end), b,
	    wr->syn_proxy ? "; a SYN proxy answered" : "", wr->reason);
}

static void
copy_result(struct engine *e, struct path_slot *s, int v)
{
	struct window_result wr;
	struct window_obs *o = &s->window_obs[v];

	window_result(win_slot(e, s)->win[v], &wr);
	log_result(e, s, v, &wr);
	memset(o, 0, sizeof(*o));
	o->ran = true;
	o->synack = wr.synack;
	o->inconclusive = wr.inconclusive;
	o->scale_effective = wr.scale_effective;
	o->scale_effective_min = wr.scale_effective_min;
	o->flight_bytes = wr.flight_bytes;
	o->w = wr.w;
	o->rounds = wr.rounds;
	o->syn_proxy = wr.syn_proxy;
	o->synack_ttl = wr.synack_ttl;
	o->data_ttl = wr.data_ttl;
	o->synack_window = wr.synack_window;
	snprintf(o->reason, sizeof(o->reason), "%s", wr.reason);
}

/* Every machine of s done and its last segment (the RST) sent: keep the
 * results, free the machines, the stage is over with s. */
static void
over_if_done(struct engine *e, struct path_slot *s)
{
	struct win_slot *ws = win_slot(e, s);

	/* a connection that ended without its SYN-ACK gives its tokens back */
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (ws->win[v] != NULL && ws->window_tokens[v] > 0 && window_done(ws->win[v])) {
			engine_out_release(e, ws->window_tokens[v]);
			ws->window_tokens[v] = 0;
		}
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (ws->win[v] != NULL &&
		    (!window_done(ws->win[v]) || window_pending(ws->win[v])))
			return;
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (ws->win[v] != NULL) {
			copy_result(e, s, v);
			window_free(ws->win[v]);
			ws->win[v] = NULL;
			win_engine(e)->conns--;
			engine_mem(e, -(int64_t)window_bytes());
			engine_out_release(e, ws->window_tokens[v]);
			ws->window_tokens[v] = 0;
		}
	engine_stage_over(e, s);
}

/* What s waits for once its machines have had their turn: the earliest
 * timer among them (deadline), and whether an action waits for tokens
 * (pending: such a test is looked at on every run, as tokens come).
 * win_run looks at no other test, so a run costs the tests it serves,
 * not every test running (256 paths of 3 connections each). */
static void
win_slot_wake(const struct engine *e, struct path_slot *s)
{
	struct win_slot *ws = win_slot(e, s);

	ws->deadline = ENGINE_NEVER;
	ws->pending = 0;
	for (int v = 1; v < e->cfg.nvariants; v++) {
		const struct window *w = ws->win[v];
		uint64_t t;

		if (w == NULL)
			continue;
		if (window_pending(w)) {
			ws->pending = 1;
			continue;
		}
		t = window_next_wake(w);
		if (t < ws->deadline)
			ws->deadline = t;
	}
}

/* A new test needs the tokens of its first exchange (each connection's
 * SYN, then its ACK and request: the server takes its RTT from that ACK,
 * and an ACK held back for a token would teach it a slower path than
 * there is), and waits while the connections open would keep less than
 * about 50 packets a second each (one round's ACK within a few tens of
 * milliseconds), so no running test's server times out behind new ones.
 * One test may always run. */
static uint64_t
win_start_need(struct engine *e)
{
	uint64_t conns = (uint64_t)e->cfg.nvariants - 1;
	uint64_t need = (1 + FIRST_EXCHANGE) * conns;

	size_t now_open = win_engine(e)->conns;

	if (now_open > 0 && now_open + conns > e->cfg.rate / 50)
		return ENGINE_NEVER;
	return need < e->burst ? need : e->burst;
}

static void
win_start(struct engine *e, struct path_slot *s, uint64_t now)
{
	struct win_slot *ws = win_slot(e, s);
	uint8_t buf[WINDOW_REQUEST_MAX], *req;
	size_t len = request(e, s, buf, sizeof(buf));

	/* the request once per path, after the machines' pointers and SYN
	 * ids in the same block: the tests of its scales share it, and it
	 * goes with them (win_free) */
	ws->win = xcalloc(1, syn_ids_off(e) + (size_t)e->cfg.nvariants * sizeof(uint64_t) +
	    len);
	req = (uint8_t *)(syn_ids(e, ws) + e->cfg.nvariants);
	memcpy(req, buf, len);
	ws->req_len = (uint16_t)len;
	s->window_obs = xcalloc((size_t)e->cfg.nvariants, sizeof(*s->window_obs));
	ws->window_tokens = xcalloc((size_t)e->cfg.nvariants, sizeof(*ws->window_tokens));
	engine_mem(e, (int64_t)win_arrays_bytes(e, s));
	e->n.paths_windowed++;
	path_slot_list_append(&win_engine(e)->running, s);
	for (int v = 1; v < e->cfg.nvariants; v++) {
		struct window_config wc;

		if (s->v[v].obs.reply != REPLY_SYNACK || len == 0)
			continue;
		window_config_defaults(&wc, e->cfg.variant_scale[v]);
		wc.request = req;
		wc.request_len = len;
		/* a second connection, if it comes to one, runs on the first's
		 * 4-tuple (the flow's branch of a load-balanced path); this
		 * port of its own only where the first showed a SYN proxy,
		 * which holds the closed 4-tuple and would not let a new one
		 * through (window.c) */
		wc.isn_second = cookie_isn(&e->key, &s->path.src, &s->path.dst,
		    engine_second_sport(e, s->path.flow, v),
		    s->path.port, COOKIE_TAG_WINDOW);
		ws->win[v] = window_start(&wc, cookie_isn(&e->key, &s->path.src,
		    &s->path.dst, engine_variant_sport(e, s->path.flow, v), s->path.port,
		    COOKIE_TAG_WINDOW), now);
		if (ws->win[v] != NULL) {
			win_engine(e)->conns++;
			engine_mem(e, (int64_t)window_bytes());
			send_actions(e, s, v, now);
		}
	}
	win_slot_wake(e, s);
	over_if_done(e, s);
}

static void
win_input(struct engine *e, struct path_slot *s, const struct match *m,
    const struct reply *r, uint64_t now)
{
	struct win_slot *ws = win_slot(e, s);
	struct window_seg seg;
	struct window *w = ws->win[m->v];

	memset(&seg, 0, sizeof(seg));
	seg.seq = r->seq;
	seg.ack = r->ack;
	seg.flags = r->flags;
	seg.window = r->opts.window;
	seg.payload_len = r->payload_len;
	seg.mss = r->opts.mss;
	seg.ts = r->opts.ts;
	seg.tsval = r->tsval;
	seg.wscale = r->opts.wscale;
	seg.ttl = r->ttl;
	seg.second = r->dport != engine_variant_sport(e, m->flow, m->v);
	seg.at = e->in_at;
	/* a SYN-ACK: its SYN left when the sender says, maybe well after
	 * the engine handed it over (the packets queued before it); never
	 * after the SYN-ACK came */
	if ((r->flags & WIRE_TH_SYN) && syn_ids(e, ws)[m->v] != 0 && e->ops.left_at != NULL) {
		uint64_t left = e->ops.left_at(e->ops.arg, syn_ids(e, ws)[m->v]);

		if (left != 0)
			window_syn_left(w, left < e->in_at ? left : e->in_at);
	}
	window_input(w, &seg, now);
	/* what it asks for leaves at the next run, which input asks for */
	ws->deadline = 0;
	e->wants_run = true;
}

static void
win_run(struct engine *e, uint64_t now)
{
	struct path_slot *s, *next;

	/* A timer due may end a round on the silence it saw: read what the
	 * capture ring holds first.  A loop that was busy or off the CPU
	 * longer than a quiet time has the flight's last segments waiting
	 * there, and judging before reading them would cut the flight
	 * short (the quiet time follows the path's RTT, not our latency). */
	if (e->ops.drain != NULL)
		for (s = win_engine(e)->running.head; s != NULL; s = s->next) {
			const struct win_slot *ws = win_slot(e, s);

			if (ws->deadline != 0 && ws->deadline <= now) {
				e->ops.drain(e->ops.arg);
				break;
			}
		}
	for (s = win_engine(e)->running.head; s != NULL; s = next) {
		struct win_slot *ws = win_slot(e, s);

		next = s->next;
		if (ws->pending == 0 && ws->deadline > now)
			continue;
		for (int v = 1; v < e->cfg.nvariants; v++) {
			struct window *w = ws->win[v];

			if (w == NULL)
				continue;
			if (!window_done(w) && window_next_wake(w) <= now)
				window_on_timer(w, now);
			send_actions(e, s, v, now);
		}
		win_slot_wake(e, s);
		over_if_done(e, s);
	}
}

/* When the action that waits first in the machine of variant v can leave:
 * a promised one at once, a first SYN once its exchange's tokens are free,
 * any other once a token is. */
static uint64_t
action_when(struct engine *e, const struct path_slot *s, int v, uint64_t now)
{
	const struct win_slot *ws = win_slot(e, s);
	int kind = window_next_kind(ws->win[v]);

	if (kind != WINDOW_ACT_SYN && ws->window_tokens[v] > 0)
		return now;
	if (kind == WINDOW_ACT_SYN && ws->window_tokens[v] == 0 && e->burst > FIRST_EXCHANGE)
		return engine_out_when(e, now, 1 + FIRST_EXCHANGE);
	return engine_out_when(e, now, 1);
}

static uint64_t
win_wake(struct engine *e, uint64_t now)
{
	uint64_t next = ENGINE_NEVER;

	for (const struct path_slot *s = win_engine(e)->running.head; s != NULL; s = s->next) {
		const struct win_slot *ws = win_slot(e, s);

		if (ws->deadline < next)
			next = ws->deadline;
		if (ws->pending == 0)
			continue;
		for (int v = 1; v < e->cfg.nvariants; v++) {
			const struct window *w = ws->win[v];
			uint64_t t;

			if (w == NULL)
				continue;
			t = window_pending(w) ? action_when(e, s, v, now) : window_next_wake(w);
			if (t < next)
				next = t;
		}
	}
	return next;
}

static void
win_free(struct engine *e, struct path_slot *s)
{
	struct win_slot *ws = win_slot(e, s);

	if (ws->win != NULL)
		for (int v = 0; v < e->cfg.nvariants; v++)
			if (ws->win[v] != NULL) {
				window_free(ws->win[v]);
				win_engine(e)->conns--;
				engine_mem(e, -(int64_t)window_bytes());
				engine_out_release(e, ws->window_tokens[v]);
			}
	if (ws->win != NULL)
		engine_mem(e, -(int64_t)win_arrays_bytes(e, s));
	free(ws->win);
	free(s->window_obs);
	free(ws->window_tokens);
	ws->win = NULL;
	s->window_obs = NULL;
	ws->window_tokens = NULL;
}

static void
win_result(const struct engine *e, const struct path_slot *s, struct path_result *r)
{
	if (s->window_obs != NULL)
		for (int v = 1; v < e->cfg.nvariants; v++)
			r->window[v - 1] = s->window_obs[v];
}

const struct stage_ops stage_window_ops = {
	.name = "window test",
	.wanted = win_wanted,
	.start_need = win_start_need,
	.start = win_start,
	.input = win_input,
	.run = win_run,
	.wake = win_wake,
	.free = win_free,
	.path_slot_state_bytes = sizeof(struct win_slot),
	.engine_state_bytes = sizeof(struct win_engine),
	.result = win_result,
};

/* Whether s tests variant v now: its segments go to the machine. */
bool
stage_window_second_here(const struct engine *e, const struct path_slot *s, int v)
{
	return stage_window_owns(e, s, v) && window_second_here(win_slot(e, s)->win[v]);
}

bool
stage_window_owns(const struct engine *e, const struct path_slot *s, int v)
{
	const struct win_slot *ws = win_slot(e, s);

	return s->stage == STAGE_WINDOW && s->running && ws->win != NULL &&
	    v >= 1 && v < e->cfg.nvariants && ws->win[v] != NULL;
}
