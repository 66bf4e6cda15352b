/*
 * stage_trace.c -- the trace stage: which paths get one, sending each
 * trace's due probes as far as tokens go, and what a router's quote, a
 * NATed quote or the destination's answer means for it.  The TTL ladder
 * itself is trace.c, the comparison of a quote with the bytes sent
 * quote.c.
 */
#include <stdio.h>
#include <string.h>

#include "engine_int.h"
#include "quote.h"
#include "router_pace.h"
#include "trace.h"

/* Probes one router answered out of the order asked: ECMP before it may
 * delay some paths' probes by a few milliseconds. */
#define TRACE_REORDER_NS (20 * 1000000ull)

/* The stage's own state: the traces running and the pace per router
 * across them, and per path its trace. */
struct tr_engine {
	struct path_slot_list running;
	struct router_pace pace;	/* trace probes per router (router_pace.h) */
	bool paced;			/* cfg.trace_pace set */
};

struct tr_slot {
	struct trace *tr;		/* NULL until the trace starts */
	uint32_t tsval;			/* one TSval for every trace SYN */
	uint32_t by_router[SEND_MAX_VARIANTS];	/* per variant: TTL bits last
						   paid by router, not distance */
};

static struct tr_engine *
tr_engine(const struct engine *e)
{
	return engine_stage_state(e, STAGE_TRACE);
}

_Static_assert(_Alignof(struct tr_slot) <= ENGINE_STATE_ALIGN,
    "the slot does not align struct tr_slot");

static struct tr_slot *
tr_slot(const struct engine *e, const struct path_slot *s)
{
	return engine_slot_state(e, s, STAGE_TRACE);
}

/* The pace of trace probes per router, when cfg.trace_pace asks for one. */
static bool
tr_init(struct engine *e)
{
	struct tr_engine *te = tr_engine(e);
	struct hop_pace_config pc;

	if (e->cfg.trace_pace == 0)
		return true;
	pc.rate_min = e->cfg.trace_pace;
	pc.rate_floor_milli = e->cfg.trace_pace_floor_milli;
	pc.rate_max = e->cfg.rate;
	pc.burst = e->cfg.trace_pace_burst ? e->cfg.trace_pace_burst : 6;
	pc.loss_ns = e->cfg.timeout_ns > 0 ? e->cfg.timeout_ns : ENGINE_NS_PER_SEC;
	pc.reorder_ns = TRACE_REORDER_NS;
	if (pc.rate_max < pc.rate_min || router_pace_init(&te->pace, &pc) != 0)
		return false;
	te->paced = true;
	return true;
}

/* Whether a window test says variant v is clean: it ran, concluded, and
 * the shift the server applied is the one sent (14 for anything above). */
static bool
window_vouches(const struct path_slot *s, int v, int scale)
{
	const struct window_obs *w = &s->window_obs[v];
	int sent = scale > 14 ? 14 : scale;

	if (!w->ran || w->inconclusive)
		return false;
	if (w->scale_effective >= 0)
		return w->scale_effective == sent;
	return w->scale_effective_min >= 0 && w->scale_effective_min <= sent;
}

/* Whether a path gets a trace.  always: every path.  auto:
 * never for a path nothing answered, reset or refused (there is no
 * option of ours to follow); otherwise unless, for every scale, the
 * handshake shows window scale and the window test ran and agrees; a
 * problem, a disagreement or a window test that could not run or tell all
 * call for the trace. */
static bool
trace_wanted(struct engine *e, const struct path_slot *s)
{
	bool synack = false;

	if (e->cfg.trace == PROBE_TRACE_NEVER || e->cfg.trace_max_ttl < 1)
		return false;
	if (e->cfg.trace == PROBE_TRACE_ALWAYS)
		return true;
	for (int v = 0; v < e->cfg.nvariants; v++)
		if (s->v[v].obs.reply == REPLY_SYNACK)
			synack = true;
	if (!synack || s->window_obs == NULL)
		return synack;
	for (int v = 1; v < e->cfg.nvariants; v++) {
		const struct variant_obs *o = &s->v[v].obs;

		if (o->reply != REPLY_SYNACK || o->sa.wscale < 0 ||
		    !window_vouches(s, v, e->cfg.variant_scale[v]))
			return true;
	}
	return false;
}

static void
tr_start(struct engine *e, struct path_slot *s, uint64_t now)
{
	struct tr_slot *ts = tr_slot(e, s);
	struct trace_config tc;

	memset(&tc, 0, sizeof(tc));
	tc.nvariants = e->cfg.nvariants;
	tc.max_ttl = e->cfg.trace_max_ttl;
	tc.retries = e->cfg.retries;
	tc.gap_ns = e->cfg.trace_gap_ns;
	tc.timeout_ns = e->cfg.timeout_ns;
	tc.close_rounds = e->cfg.trace_close_rounds;
	ts->tr = trace_new(&tc, now);
	if (ts->tr == NULL) {
		engine_stage_over(e, s);
		return;
	}
	engine_mem(e, (int64_t)trace_bytes(e->cfg.nvariants));
	ts->tsval = (uint32_t)(now / 1000000u);
	e->n.paths_traced++;
	path_slot_list_append(&tr_engine(e)->running, s);
}

/* The key a probe with this TTL is paid from: the router the path's
 * trace heard at that TTL, else the distance (or the one router it stands
 * for). */
static struct router_key
pace_key(struct engine *e, const struct path_slot *s, int ttl, uint64_t now)
{
	const struct addr *r = trace_router(tr_slot(e, s)->tr, ttl);
	struct router_pace *p = &tr_engine(e)->pace;

	/* keyed by our source too: a router's budget is per destination of
	 * its errors, and each source address is one */
	if (r != NULL)
		return router_pace_key(p, router_key_from(router_key_addr(r), &s->path.src),
		    ttl, now);
	return router_pace_key(p, router_key_from(router_key_ttl(s->path.dst.family, ttl),
	    &s->path.src), ttl, now);
}

/* The key the probe of variant v with this TTL was paid from (before its
 * answer is recorded). */
static struct router_key
paid_key(const struct engine *e, const struct path_slot *s, int v, int ttl)
{
	const struct tr_slot *ts = tr_slot(e, s);

	if (ttl >= 1 && ttl < 32 && (ts->by_router[v] & (1u << ttl)))
		return router_pace_paid(&tr_engine(e)->pace, s->path.dst.family, ttl,
		    trace_router(ts->tr, ttl), &s->path.src);
	return router_key_from(router_key_ttl(s->path.dst.family, ttl), &s->path.src);
}

/* Whether variant v's trace probes are to go silent on the way whatever a
 * router's budget: its SYN drew nothing in the handshake while the
 * control's got through, so a box drops it at some hop, and every probe of
 * it that reaches the box is lost.  Such a loss says nothing of the
 * router's budget, and its probes are paid but not waited for
 * (router_pace_spent).  Counted as losses (1 % of a scan's paths dropped
 * at r3), each new dropped path halved the rate of the router at the box
 * and of the destination's distance, down to one probe a second; waited
 * for, they filled those routers' places (HOP_PACE_OUTSTANDING) for a
 * timeout each: a 16,384-path mix with the routers' limits off did not end
 * in 600 s, then took 74 s, now 31 s. */
static bool
silent_by_design(const struct path_slot *s, int v)
{
	return v != 0 && s->v[v].obs.reply == REPLY_NONE && s->v[0].obs.reply == REPLY_SYNACK;
}

/* Sends the trace probes due now, as far as the tokens go; the stage is
 * over with the traces whose last round is over. */
static void
tr_run(struct engine *e, uint64_t now)
{
	struct tr_engine *te = tr_engine(e);
	struct path_slot *s, *next;

	if (te->paced)
		router_pace_expire(&te->pace, now);
	for (s = te->running.head; s != NULL; s = next) {
		struct tr_slot *ts = tr_slot(e, s);
		int v, ttl;

		next = s->next;
		/* a router out of its budget holds this trace back, not the others */
		while (engine_out_can(e, now) && trace_next(ts->tr, now, &v, &ttl)) {
			struct send_syn syn;
			struct router_key k;

			if (te->paced) {
				k = pace_key(e, s, ttl, now);
				if (!router_pace_can(&te->pace, k, now))
					break;
			}
			engine_make_syn(e, s, v, ttl, ts->tsval, &syn);
			if (engine_out_syn(e, &syn, now) > 0)
				e->n.trace_sent++;
			if (te->paced) {
				if (silent_by_design(s, v))
					router_pace_spent(&te->pace, k, now);
				else
					router_pace_sent(&te->pace, k, now,
					    trace_sent_at(ts->tr, v, ttl) != 0);
				if (k.ttl == 0)
					ts->by_router[v] |= 1u << ttl;
				else
					ts->by_router[v] &= ~(1u << ttl);
			}
			trace_sent(ts->tr, v, ttl, now);
		}
		if (trace_step(ts->tr, now))
			engine_stage_over(e, s);
	}
}

static uint64_t
tr_wake(struct engine *e, uint64_t now)
{
	struct tr_engine *te = tr_engine(e);
	uint64_t next = ENGINE_NEVER, paced = ENGINE_NEVER;
	bool due = false;

	for (struct path_slot *s = te->running.head; s != NULL; s = s->next) {
		struct trace *tr = tr_slot(e, s)->tr;
		uint64_t w = trace_wake(tr);
		int v, ttl;

		/* every hop answered: the trace ends now, with no packet */
		if (w == 0) {
			next = now;
			continue;
		}

		/* a probe due now whose TTL is out of budget waits for the
		 * budget, not for --rate's next token */
		if (w <= now && te->paced && trace_next(tr, now, &v, &ttl) &&
		    !router_pace_can(&te->pace, pace_key(e, s, ttl, now), now)) {
			uint64_t t = router_pace_when(&te->pace, pace_key(e, s, ttl, now), now);

			if (t < paced)
				paced = t;
			continue;
		}
		if (w <= now)
			due = true;
		else if (w < next)
			next = w;
	}
	if (due) {
		uint64_t t = engine_out_when(e, now, 1);

		if (t < next)
			next = t;
	}
	return paced < next ? paced : next;
}

/* Router hop ttl quoted variant v's trace SYN: compare with what we sent. */
static void
quote(struct engine *e, struct path_slot *s, int v, int ttl, const struct reply *r,
    uint64_t now)
{
	uint8_t sent[128];
	struct send_syn syn;
	struct hop_quote q;
	size_t len = 0;
	struct tr_slot *ts = tr_slot(e, s);

	engine_make_syn(e, s, v, ttl, ts->tsval, &syn);
	if (e->ops.render_syn != NULL)
		len = e->ops.render_syn(e->ops.arg, &syn, sent, sizeof(sent));
	memset(&q, 0, sizeof(q));
	quote_compare(sent, len, r->quote, r->quote_len, r->quote_kind, &q);
	q.from = r->src;
	q.rfc4884 = r->rfc4884;
	e->n.trace_hops++;
	trace_hop(ts->tr, v, ttl, &q, now);
}

static void
tr_input(struct engine *e, struct path_slot *s, const struct match *m,
    const struct reply *r, uint64_t now)
{
	struct tr_engine *te = tr_engine(e);
	struct trace *tr = tr_slot(e, s)->tr;

	if (te->paced && silent_by_design(s, m->v))
		router_pace_answered_spent(&te->pace, paid_key(e, s, m->v, m->tag), m->tag,
		    m->icmp ? &r->src : NULL, now);
	else if (te->paced)
		router_pace_answered(&te->pace, paid_key(e, s, m->v, m->tag), m->tag,
		    m->icmp ? &r->src : NULL, now, trace_sent_at(tr, m->v, m->tag));
	if (m->icmp) {
		/* an ICMP error from a router on the way */
		quote(e, s, m->v, m->tag, r, now);
		if (r->unreach)
			trace_refused(tr, m->v, m->tag);
		return;
	}
	/* a trace probe reached the destination */
	e->n.trace_dest++;
	trace_dest(tr, m->v, m->tag);
}

static void
tr_free(struct engine *e, struct path_slot *s)
{
	struct tr_slot *ts = tr_slot(e, s);

	if (ts->tr != NULL)
		engine_mem(e, -(int64_t)trace_bytes(e->cfg.nvariants));
	trace_free(ts->tr);
	ts->tr = NULL;
}

static void
tr_result(const struct engine *e, const struct path_slot *s, struct path_result *r)
{
	const struct tr_slot *ts = tr_slot(e, s);

	if (ts->tr != NULL)
		for (int v = 0; v < e->cfg.nvariants; v++)
			r->trace[v] = trace_result(ts->tr, v);
}

/* The trace's SYN of variant v at TTL 1, kept beside the quotes (each
 * quote's fields say what its own SYN had otherwise). */
static int
tr_evidence_syn(const struct engine *e, const struct path_slot *s, int v, struct send_syn *syn,
    char *fields, size_t len)
{
	const struct tr_slot *ts = tr_slot(e, s);

	if (ts->tr == NULL)
		return 0;
	engine_make_syn(e, s, v, 1, ts->tsval, syn);
	snprintf(fields, len, "ttl=1 isn=%08x", (unsigned)syn->isn);
	return 1;
}

const struct stage_ops stage_trace_ops = {
	.name = "trace",
	.wanted = trace_wanted,
	.start = tr_start,
	.input = tr_input,
	.run = tr_run,
	.wake = tr_wake,
	.free = tr_free,
	.path_slot_state_bytes = sizeof(struct tr_slot),
	.engine_state_bytes = sizeof(struct tr_engine),
	.init = tr_init,
	.result = tr_result,
	.evidence_syn = tr_evidence_syn,
};
