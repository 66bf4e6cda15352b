/*
 * engine_trace.c -- the engine's trace stage: which paths get one, how
 * many run at once, sending each trace's due probes, and what a router's
 * quote or a NATed quote means for it.  The TTL ladder itself is trace.c.
 */
#include <string.h>

#include "engine_int.h"
#include "log.h"
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

/* Whether a path gets a trace.  always: every path.  auto (DESIGN.md):
 * never for a path nothing answered, reset or refused (there is no
 * option of ours to follow); otherwise
 * unless, for every scale, the handshake shows window scale and the
 * window test ran and agrees; a problem, a disagreement or a window test
 * that could not run or tell all call for the trace. */
bool
etrace_wanted(const struct engine *e, const struct slot *s)
{
	bool synack = false;

	if (e->cfg.trace == ENGINE_TRACE_NEVER || e->cfg.trace_max_ttl < 1)
		return false;
	if (e->cfg.trace == ENGINE_TRACE_ALWAYS)
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
trace_start(struct engine *e, struct slot *s, uint64_t now)
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
		engine_path_finish(e, s);
		return;
	}
	s->trace_tsval = (uint32_t)(now / 1000000u);
	e->ntracing++;
	e->n.paths_traced++;
	slot_list_append(&e->tracing, s);
}

static void
trace_finish(struct engine *e, struct slot *s, uint64_t now)
{
	e->ntracing--;
	engine_path_finish(e, s);
	while (e->trace_wait.head != NULL && e->ntracing < e->cfg.max_traces)
		trace_start(e, e->trace_wait.head, now);
}

void
etrace_begin(struct engine *e, struct slot *s, uint64_t now)
{
	slot_list_remove(s);
	if (e->ntracing < e->cfg.max_traces)
		trace_start(e, s, now);
	else
		slot_list_append(&e->trace_wait, s);
}

uint64_t
etrace_wake(struct engine *e, uint64_t now, uint64_t next)
{
	for (struct slot *t = e->tracing.head; t != NULL; t = t->next) {
		uint64_t w = trace_wake(t->tr);
		if (w < next)
			next = w <= now ? now + ratelimit_next(&e->rl, now) : w;
	}
	return next;
}


/* Sends the trace probes due now, as far as the tokens go; finishes the
 * traces whose last round is over. */
bool
etrace_run(struct engine *e, uint64_t now)
{
	struct slot *s, *next;
	bool sent = false;

	for (s = e->tracing.head; s != NULL; s = next) {
		int v, ttl;

		next = s->next;
		while (trace_next(s->tr, now, &v, &ttl)) {
			struct send_syn syn;

			if (ratelimit_take(&e->rl, now, 1) == 0)
				return sent;
			engine_make_syn(e, s, v, ttl, s->trace_tsval, &syn);
			trace_sent(s->tr, v, ttl, now);
			if (e->ops.send_syn(e->ops.arg, &syn) != 0)
				e->n.send_errors++;
			else
				e->n.trace_sent++;
			sent = true;
		}
		if (trace_step(s->tr, now))
			trace_finish(e, s, now);
	}
	return sent;
}

/* The variant and TTL of a quoted SYN whose source a NAT rewrote: the
 * path is found by what a NAT keeps (destination and port), then each of
 * its variants' ISNs is tried against the quoted sequence number. */
struct slot *
etrace_match_translated(struct engine *e, const struct reply *r, int *v, int *ttl)
{
	struct slot *s = engine_path_find(e, &r->q_dst, r->q_dport);

	if (s == NULL)
		return NULL;
	for (int i = 0; i < e->cfg.nvariants; i++)
		if (cookie_check_quote(&e->key, &s->path.src, &s->path.dst,
		    engine_variant_sport(e, i), s->path.port, r->q_seq, ttl) &&
		    engine_ttl_valid(e, *ttl)) {
			*v = i;
			return s;
		}
	return NULL;
}

/* Router hop ttl quoted variant v's trace SYN: compare with what we sent. */
void
etrace_quote(struct engine *e, struct slot *s, int v, int ttl,
    const struct reply *r, uint64_t now)
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
	e->n.trace_hops++;
	trace_hop(s->tr, v, ttl, &q, now);
}
