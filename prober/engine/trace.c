/*
 * trace.c -- one path's TTL ladder (trace.h): which (variant, TTL) probe is
 * due, what came back, when a round ends and whether another is needed.
 * Pure: the engine sends and hands in time and answers.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "trace.h"

struct trace {
	struct trace_config cfg;
	int round;			/* 0 .. retries */
	int closing;			/* interval-closing rounds done */
	int level;			/* next TTL level to send in this sweep */
	uint64_t level_at;		/* when that level is due */
	uint64_t round_end;		/* 0 while the sweep is still sending */
	bool level_sent;		/* a probe of this level went out */
	bool done;
	uint32_t *pending;		/* per variant: TTL bits still to send */
	uint32_t *answered;		/* per variant: TTL bits that answered */
	uint64_t *sent_at;		/* [variant][ttl]: latest send */
	int *refused_ttl;		/* per variant: first TTL refused, 0 none */
	struct addr *router;		/* [ttl]: the first router that answered it */
	struct trace_obs *obs;		/* per variant */
};

static uint32_t
ttl_bit(int ttl)
{
	return 1u << ttl;
}

struct trace *
trace_new(const struct trace_config *cfg, uint64_t now)
{
	struct trace *t;

	if (cfg->nvariants < 1 || cfg->max_ttl < 1 || cfg->max_ttl > RESULT_MAX_HOPS)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	t->pending = xcalloc((size_t)cfg->nvariants, sizeof(*t->pending));
	t->answered = xcalloc((size_t)cfg->nvariants, sizeof(*t->answered));
	t->obs = xcalloc((size_t)cfg->nvariants, sizeof(*t->obs));
	t->sent_at = xcalloc((size_t)cfg->nvariants * (RESULT_MAX_HOPS + 1),
	    sizeof(*t->sent_at));
	t->refused_ttl = xcalloc((size_t)cfg->nvariants, sizeof(*t->refused_ttl));
	t->router = xcalloc(RESULT_MAX_HOPS + 1, sizeof(*t->router));
	t->cfg = *cfg;
	t->level = 1;
	t->level_at = now;
	for (int v = 0; v < cfg->nvariants; v++) {
		t->obs[v].ran = true;
		t->obs[v].nttl = cfg->max_ttl;
		for (int k = 1; k <= cfg->max_ttl; k++)
			t->pending[v] |= ttl_bit(k);
	}
	return t;
}

size_t
trace_bytes(int nvariants)
{
	struct trace *t = NULL;
	size_t nv = nvariants > 0 ? (size_t)nvariants : 0;

	return sizeof(*t) + nv * (sizeof(*t->pending) + sizeof(*t->answered) +
	    sizeof(*t->obs) + (RESULT_MAX_HOPS + 1) * sizeof(*t->sent_at) +
	    sizeof(*t->refused_ttl)) + (RESULT_MAX_HOPS + 1) * sizeof(*t->router);
}

void
trace_free(struct trace *t)
{
	if (t == NULL)
		return;
	free(t->pending);
	free(t->answered);
	free(t->obs);
	free(t->sent_at);
	free(t->refused_ttl);
	free(t->router);
	free(t);
}

int
trace_next(struct trace *t, uint64_t now, int *variant, int *ttl)
{
	while (!t->done && t->round_end == 0 && now >= t->level_at) {
		for (int v = 0; v < t->cfg.nvariants; v++) {
			if (t->pending[v] & ttl_bit(t->level)) {
				*variant = v;
				*ttl = t->level;
				return 1;
			}
		}
		/* this level is sent: the next one after the gap (at once
		 * if this one had nothing to send), or the sweep is over and
		 * the round waits for its answers */
		if (t->level >= t->cfg.max_ttl) {
			t->round_end = now + t->cfg.timeout_ns;
			break;
		}
		t->level_at = t->level_sent ? now + t->cfg.gap_ns : now;
		t->level++;
		t->level_sent = false;
	}
	return 0;
}

void
trace_sent(struct trace *t, int variant, int ttl, uint64_t now)
{
	if (variant < 0 || variant >= t->cfg.nvariants || ttl < 1 || ttl > t->cfg.max_ttl)
		return;
	t->pending[variant] &= ~ttl_bit(ttl);
	t->sent_at[variant * (RESULT_MAX_HOPS + 1) + ttl] = now;
	if (ttl == t->level)
		t->level_sent = true;
}

void
trace_hop(struct trace *t, int variant, int ttl, const struct hop_quote *q, uint64_t now)
{
	uint64_t sent;

	if (variant < 0 || variant >= t->cfg.nvariants || ttl < 1 || ttl > t->cfg.max_ttl)
		return;
	if (t->answered[variant] & ttl_bit(ttl))
		return;
	t->answered[variant] |= ttl_bit(ttl);
	t->pending[variant] &= ~ttl_bit(ttl);
	t->obs[variant].hop[ttl] = *q;
	if (t->router[ttl].family == 0)
		t->router[ttl] = q->from;
	sent = t->sent_at[variant * (RESULT_MAX_HOPS + 1) + ttl];
	t->obs[variant].hop[ttl].rtt_us = sent != 0 && now > sent ?
	    (uint32_t)((now - sent) / 1000u) : 0;
}

/* Nothing beyond TTL ttl is a hop: stop asking (the control's end
 * bounds every variant). */
static void
trace_stop_beyond(struct trace *t, int variant, int ttl)
{
	for (int v = 0; v < t->cfg.nvariants; v++) {
		if (v != variant && variant != 0)
			continue;
		for (int k = ttl + (v != variant); k <= t->cfg.max_ttl; k++)
			t->pending[v] &= ~ttl_bit(k);
	}
}

void
trace_dest(struct trace *t, int variant, int ttl)
{
	struct trace_obs *o;

	if (variant < 0 || variant >= t->cfg.nvariants || ttl < 1 || ttl > t->cfg.max_ttl)
		return;
	o = &t->obs[variant];
	if (o->dest_ttl == 0 || ttl < o->dest_ttl)
		o->dest_ttl = ttl;
	trace_stop_beyond(t, variant, ttl);
}

void
trace_refused(struct trace *t, int variant, int ttl)
{
	if (variant < 0 || variant >= t->cfg.nvariants || ttl < 1 || ttl > t->cfg.max_ttl)
		return;
	if (t->refused_ttl[variant] == 0 || ttl < t->refused_ttl[variant])
		t->refused_ttl[variant] = ttl;
	trace_stop_beyond(t, variant, ttl + 1);
}

const struct addr *
trace_router(const struct trace *t, int ttl)
{
	if (ttl < 1 || ttl > t->cfg.max_ttl || t->router[ttl].family == 0)
		return NULL;
	return &t->router[ttl];
}

uint64_t
trace_sent_at(const struct trace *t, int variant, int ttl)
{
	if (variant < 0 || variant >= t->cfg.nvariants || ttl < 1 || ttl > t->cfg.max_ttl)
		return 0;
	return t->sent_at[variant * (RESULT_MAX_HOPS + 1) + ttl];
}

/* The highest TTL worth asking variant v: below its own destination, or
 * the control's, or a refusal (as the retries ask). */
static int
last_ttl(const struct trace *t, int v)
{
	int own = t->obs[v].dest_ttl, ctl = t->obs[0].dest_ttl;
	int last = own ? own - 1 : ctl ? ctl : t->cfg.max_ttl;

	if (t->refused_ttl[v] != 0 && t->refused_ttl[v] < last)
		last = t->refused_ttl[v];
	return last;
}

/* Whether every TTL worth asking answered, for every variant: neither a
 * retry nor a closing round would ask anything, so the round's wait for
 * late answers can only end the trace -- it ends now (a trace whose hops
 * all answered took a whole timeout, and the trace stage, which runs a
 * bounded number at once, held every path behind it for as long). */
static bool
all_answered(const struct trace *t)
{
	for (int v = 0; v < t->cfg.nvariants; v++) {
		int last = last_ttl(t, v);
		uint32_t want = last >= 1 ? (uint32_t)((2ull << last) - 2) : 0;

		if ((t->answered[v] & want) != want)
			return false;
	}
	return true;
}

uint64_t
trace_wake(const struct trace *t)
{
	if (t->done)
		return UINT64_MAX;
	if (t->round_end != 0 && all_answered(t))
		return 0;
	return t->round_end != 0 ? t->round_end : t->level_at;
}

/* A quote that vouches for the option at its hop, or shows it changed. */
static bool
quote_clean(const struct hop_quote *q)
{
	return q->quote == QUOTE_FULL && (q->ws == WS_INTACT || q->ws == WS_NOT_SENT);
}

static bool
quote_damaged(const struct hop_quote *q)
{
	return q->quote == QUOTE_FULL && (q->ws == WS_CHANGED || q->ws == WS_REMOVED ||
	    q->ws == WS_NOPPED || q->ws == WS_ADDED);
}

/* Pends variant v's silent TTLs inside its interval that still have
 * rounds of the closing budget; true if any. */
static bool
pend_interval(struct trace *t, int v)
{
	int last = last_ttl(t, v), clean = 0, heard = 0, end = 0, stop = 0;
	bool any = false;

	for (int k = 1; k <= last && end == 0; k++) {
		const struct hop_quote *q = &t->obs[v].hop[k];

		if (!(t->answered[v] & ttl_bit(k)))
			continue;
		if (quote_damaged(q))
			end = k;
		else if (quote_clean(q))
			clean = k;
		heard = k;
	}
	/* no quote shows the change: the box may lie up to the destination
	 * (the window test's finding), or the highest hop heard */
	if (end == 0)
		end = t->obs[v].dest_ttl != 0 ? t->obs[v].dest_ttl : heard;
	/* a variant that never reached the destination stopped after the
	 * highest TTL it heard: the box that dropped it is placed at the
	 * first TTL above that another variant heard (infer_hop_dropped), a
	 * router that answers -- asked too, since it may only have been at
	 * its limit, though likely silent for good (the box): two rounds */
	if (t->obs[v].dest_ttl == 0 && t->closing < 2)
		for (int k = heard + 1; k <= last && stop == 0; k++)
			for (int u = 0; u < t->cfg.nvariants; u++)
				if (u != v && (t->answered[u] & ttl_bit(k)))
					stop = k;
	if (stop != 0) {
		t->pending[v] |= ttl_bit(stop);
		any = true;
	}
	for (int k = clean + 1; k < end && k <= last; k++) {
		bool known = false;

		if (t->answered[v] & ttl_bit(k))
			continue;
		for (int u = 0; u < t->cfg.nvariants; u++)
			if (u != v && (t->answered[u] & ttl_bit(k)))
				known = true;
		/* a router that answered another variant gets every round */
		if (!known && t->closing >= 2)
			continue;
		t->pending[v] |= ttl_bit(k);
		any = true;
	}
	return any;
}

bool
trace_step(struct trace *t, uint64_t now)
{
	bool again = false;

	if (t->done)
		return true;
	if (t->round_end == 0 || (now < t->round_end && !all_answered(t)))
		return false;
	if (t->round < t->cfg.retries) {
		for (int v = 0; v < t->cfg.nvariants; v++) {
			/* below its own destination every TTL is a router; a
			 * variant that never got there is asked up to the
			 * control's destination, the TTL it should have */
			int last = last_ttl(t, v);

			for (int k = 1; k <= last; k++) {
				if (t->answered[v] & ttl_bit(k))
					continue;
				t->pending[v] |= ttl_bit(k);
				again = true;
			}
		}
	}
	if (!again && t->closing < t->cfg.close_rounds) {
		for (int v = 0; v < t->cfg.nvariants; v++)
			if (pend_interval(t, v))
				again = true;
		if (again)
			t->closing++;
	}
	if (!again) {
		t->done = true;
		return true;
	}
	t->round++;
	t->level = 1;
	t->level_at = now;
	t->level_sent = false;
	t->round_end = 0;
	return false;
}

const struct trace_obs *
trace_result(const struct trace *t, int variant)
{
	if (variant < 0 || variant >= t->cfg.nvariants)
		return NULL;
	return &t->obs[variant];
}
