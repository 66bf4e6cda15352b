/*
 * stage_trace.c -- the trace stage: which paths get one, sending each
 * trace's due probes as far as tokens go, and what a router's quote, a
 * NATed quote or the destination's answer means for it.  The TTL ladder
 * itself is trace.c, the comparison of a quote with the bytes sent
 * quote.c.
 */
#include <string.h>

#include "engine_int.h"
#include "quote.h"

/* Whether a window test says variant v is clean: it ran, concluded, and
 * the shift the server applied is the one sent (14 for anything above). */
static bool
window_vouches(const struct slot *s, int v, int scale)
{
	const struct window_obs *w = &s->wobs[v];
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
trace_wanted(struct engine *e, const struct slot *s)
{
	bool synack = false;

	if (e->cfg.trace == PROBE_TRACE_NEVER || e->cfg.trace_max_ttl < 1)
		return false;
	if (e->cfg.trace == PROBE_TRACE_ALWAYS)
		return true;
	for (int v = 0; v < e->cfg.nvariants; v++)
		if (s->v[v].obs.reply == REPLY_SYNACK)
			synack = true;
	if (!synack || s->wobs == NULL)
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
tr_start(struct engine *e, struct slot *s, uint64_t now)
{
	struct trace_config tc;

	memset(&tc, 0, sizeof(tc));
	tc.nvariants = e->cfg.nvariants;
	tc.max_ttl = e->cfg.trace_max_ttl;
	tc.retries = e->cfg.retries;
	tc.gap_ns = e->cfg.trace_gap_ns;
	tc.timeout_ns = e->cfg.timeout_ns;
	s->tr = trace_new(&tc, now);
	if (s->tr == NULL) {
		engine_stage_over(e, s);
		return;
	}
	engine_mem(e, (int64_t)trace_bytes(e->cfg.nvariants));
	s->trace_tsval = (uint32_t)(now / 1000000u);
	e->n.paths_traced++;
	slot_list_append(&e->trace_running, s);
}

/* Sends the trace probes due now, as far as the tokens go; the stage is
 * over with the traces whose last round is over. */
static void
tr_run(struct engine *e, uint64_t now)
{
	struct slot *s, *next;

	if (e->paced)
		hop_pace_expire(&e->pace, now);
	for (s = e->trace_running.head; s != NULL; s = next) {
		int v, ttl;

		next = s->next;
		/* a TTL out of its budget holds this trace back, not the others */
		while (engine_out_can(e, now) && trace_next(s->tr, now, &v, &ttl) &&
		    (!e->paced || hop_pace_can(&e->pace, ttl, now))) {
			struct send_syn syn;

			engine_make_syn(e, s, v, ttl, s->trace_tsval, &syn);
			if (engine_out_syn(e, &syn, now) > 0)
				e->n.trace_sent++;
			if (e->paced)
				hop_pace_sent(&e->pace, ttl, now);
			trace_sent(s->tr, v, ttl, now);
		}
		if (trace_step(s->tr, now))
			engine_stage_over(e, s);
	}
}

static uint64_t
tr_wake(struct engine *e, uint64_t now)
{
	uint64_t next = ENGINE_NEVER, paced = ENGINE_NEVER;
	bool due = false;

	for (struct slot *s = e->trace_running.head; s != NULL; s = s->next) {
		uint64_t w = trace_wake(s->tr);
		int v, ttl;

		/* a probe due now whose TTL is out of budget waits for the
		 * budget, not for --rate's next token */
		if (w <= now && e->paced && trace_next(s->tr, now, &v, &ttl) &&
		    !hop_pace_can(&e->pace, ttl, now)) {
			uint64_t t = hop_pace_when(&e->pace, ttl, now);

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
quote(struct engine *e, struct slot *s, int v, int ttl, const struct reply *r,
    uint64_t now)
{
	uint8_t sent[128];
	struct send_syn syn;
	struct hop_quote q;
	size_t len = 0;

	engine_make_syn(e, s, v, ttl, s->trace_tsval, &syn);
	if (e->ops.render_syn != NULL)
		len = e->ops.render_syn(e->ops.arg, &syn, sent, sizeof(sent));
	memset(&q, 0, sizeof(q));
	quote_compare(sent, len, r->quote, r->quote_len, r->quote_kind, &q);
	q.from = r->src;
	q.rfc4884 = r->rfc4884;
	e->n.trace_hops++;
	trace_hop(s->tr, v, ttl, &q, now);
}

static void
tr_input(struct engine *e, struct slot *s, const struct match *m,
    const struct reply *r, uint64_t now)
{
	if (e->paced)
		hop_pace_answered(&e->pace, m->tag, now);
	if (m->icmp) {
		/* an ICMP error from a router on the way */
		quote(e, s, m->v, m->tag, r, now);
		if (r->unreach)
			trace_refused(s->tr, m->v, m->tag);
		return;
	}
	/* a trace probe reached the destination */
	e->n.trace_dest++;
	trace_dest(s->tr, m->v, m->tag);
}

static void
tr_free(struct engine *e, struct slot *s)
{
	if (s->tr != NULL)
		engine_mem(e, -(int64_t)trace_bytes(e->cfg.nvariants));
	trace_free(s->tr);
	s->tr = NULL;
}

const struct stage_ops stage_trace_ops = {
	.name = "trace",
	.wanted = trace_wanted,
	.start = tr_start,
	.input = tr_input,
	.run = tr_run,
	.wake = tr_wake,
	.free = tr_free,
};
