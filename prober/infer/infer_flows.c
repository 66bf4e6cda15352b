/*
 * infer_flows.c -- a path's flows to one verdict per scale
 * (infer_flows.h).  Pure.
 */
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "infer.h"
#include "infer_flows.h"

/* How bad a verdict is for the path: a problem is worst, then an answer
 * (a flow that could not conclude does not outvote one that did). */
static int
verdict_rank(enum verdict v)
{
	if (verdict_is_problem(v))
		return 3;
	if (v == VERDICT_INCONCLUSIVE)
		return 1;
	return v == VERDICT_NONE ? 0 : 2;
}

/* Whether v, a problem the worst so far also is, was located at an
 * earlier hop (then a lower address): the path's hop does not hang on
 * the order its flows ended in, so a daemon's alert does not see the hop
 * move between branches from run to run. */
static bool
nearer(const struct scale_verdict *v, const struct scale_verdict *worst)
{
	if (!verdict_is_problem(v->verdict) || v->verdict != worst->verdict || !v->hop.present)
		return false;
	if (!worst->hop.present)
		return true;
	if (v->hop.index != worst->hop.index)
		return v->hop.index < worst->hop.index;
	return addr_compare(&v->hop.address, &worst->hop.address) < 0;
}

/* Keeps the routers scale i's trace of flow f heard, TTL by TTL up to
 * the destination's. */
static void
seen_add(struct flows_acc *acc, int i, int f, const struct trace_obs *t)
{
	if (t == NULL || !t->ran)
		return;
	acc->traced[i] |= UINT64_C(1) << f;
	for (int k = 1; k <= t->nttl && k <= RESULT_MAX_HOPS; k++) {
		const struct hop_quote *q = &t->hop[k];
		int e;

		if (t->dest_ttl > 0 && k >= t->dest_ttl)
			break;
		if (q->quote == QUOTE_NONE)
			continue;
		for (e = 0; e < acc->nseen[i]; e++)
			if (acc->seen[i][e].ttl == k && addr_equal(&acc->seen[i][e].addr, &q->from))
				break;
		if (e == acc->nseen[i]) {
			if (e == FLOWS_SEEN_MAX)
				continue;
			acc->nseen[i]++;
			acc->seen[i][e].ttl = k;
			acc->seen[i][e].addr = q->from;
			acc->seen[i][e].flows = 0;
		}
		acc->seen[i][e].flows |= UINT64_C(1) << f;
	}
}

void
infer_flows_add(struct flows_acc *acc, const struct path_result *res, uint16_t sport)
{
	struct flow_answer *fa;

	if (acc->n >= RESULT_MAX_FLOWS)
		return;
	fa = &acc->answers[acc->n++];
	memset(fa, 0, sizeof(*fa));
	fa->sport = sport;
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++) {
		const struct window_obs *w = &res->window[i];
		const struct scale_verdict *v = &res->verdicts[i];

		fa->reply[i] = res->scales[i].reply;
		fa->sa_wscale[i] = res->scales[i].sa.present ? res->scales[i].sa.wscale : -1;
		fa->applied[i] = w->ran && !w->inconclusive ? w->scale_effective : -1;
		fa->verdict[i] = v->verdict;
		fa->hop_index[i] = v->hop.present ? v->hop.index : -1;
		fa->hop_address[i] = v->hop.address;
		seen_add(acc, i, acc->n - 1, res->trace[1 + i]);
		if (verdict_is_problem(v->verdict))
			acc->affected[i]++;
		else if (verdict_rank(v->verdict) == 2)
			acc->clean[i]++;
		if (acc->n == 1 || verdict_rank(v->verdict) > verdict_rank(acc->worst[i].verdict) ||
		    nearer(v, &acc->worst[i]))
			acc->worst[i] = *v;
	}
}

/* Scale i's branch: the first TTL (not past hop_max) where the routers
 * heard by the traced flows in bad and those heard by the ones in good
 * are both some and none the same. */
static void
branch_find(const struct flows_acc *acc, int i, uint64_t bad, uint64_t good, int hop_max,
    struct flow_branch *b)
{
	memset(b, 0, sizeof(*b));
	bad &= acc->traced[i];
	good &= acc->traced[i];
	if (bad == 0 || good == 0)
		return;
	for (int k = 1; k <= hop_max; k++) {
		struct flow_branch c;
		bool shared = false;

		memset(&c, 0, sizeof(c));
		for (int e = 0; e < acc->nseen[i]; e++) {
			const struct flows_seen *s = &acc->seen[i][e];

			if (s->ttl != k)
				continue;
			if ((s->flows & bad) && (s->flows & good))
				shared = true;
			else if ((s->flows & bad) && c.nproblem < FLOW_BRANCH_ADDRS)
				c.problem[c.nproblem++] = s->addr;
			else if ((s->flows & good) && c.nclean < FLOW_BRANCH_ADDRS)
				c.clean[c.nclean++] = s->addr;
		}
		if (!shared && c.nproblem > 0 && c.nclean > 0) {
			c.hop_index = k;
			*b = c;
			return;
		}
	}
}

/* "a, b" of n addresses into buf. */
static void
addrs_join(char *buf, size_t len, const struct addr *a, int n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < n && used < len; k++) {
		char one[ADDR_STRLEN];
		int w = snprintf(buf + used, len - used, "%s%s", k > 0 ? ", " : "",
		    addr_format(&a[k], one, sizeof(one)));

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

void
infer_flows_merge(struct path_result *res, struct flows_acc *acc)
{
	res->flows = acc->n;
	res->flow_answers = acc->answers;
	res->flow_branch = acc->branch;
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++) {
		struct scale_verdict *v = &res->verdicts[i];
		int k = acc->affected[i];

		*v = acc->worst[i];
		res->flows_affected[i] = k;
		if (k > 0 && acc->clean[i] > 0) {
			struct flow_branch *b = &acc->branch[i];
			const char *does = v->verdict == VERDICT_SYN_DROPPED ? "drops SYNs with" :
			    v->verdict == VERDICT_STRIPPED ? "strips" : "rewrites";
			char why[sizeof(v->reason)], where[sizeof(v->reason)] = "";
			uint64_t bad = 0, good = 0;
			int w;

			for (int f = 0; f < acc->n; f++) {
				if (verdict_is_problem(acc->answers[f].verdict[i]))
					bad |= UINT64_C(1) << f;
				else if (verdict_rank(acc->answers[f].verdict[i]) == 2)
					good |= UINT64_C(1) << f;
			}
			branch_find(acc, i, bad, good,
			    v->hop.present && v->hop.index > 0 ? v->hop.index : RESULT_MAX_HOPS, b);
			if (b->hop_index > 0) {
				char p[4 * (ADDR_STRLEN + 2)], c[4 * (ADDR_STRLEN + 2)];

				addrs_join(p, sizeof(p), b->problem, b->nproblem);
				addrs_join(c, sizeof(c), b->clean, b->nclean);
				/* shortened with the addresses when too long */
				if (snprintf(where, sizeof(where), "; the branch via %s (hop %d) %s it, "
				    "via %s does not", p, b->hop_index,
				    v->verdict == VERDICT_SYN_DROPPED ? "drops" : does, c) < 0)
					where[0] = '\0';
			}
			/* the worst flow's own reason after it, when it fits whole */
			w = snprintf(why, sizeof(why), "%s on %d of %d flows: one load-balanced "
			    "branch %s the window scale, another does not, so connections "
			    "stall or not depending on their source port%s; %s",
			    verdict_name(v->verdict), k, acc->n, does, where, v->reason);
			if (w < 0 || (size_t)w >= sizeof(why))
				w = snprintf(why, sizeof(why), "%s on %d of %d flows: one load-balanced "
				    "branch %s the window scale, another does not, so connections "
				    "stall or not depending on their source port%s",
				    verdict_name(v->verdict), k, acc->n, does, where);
			memcpy(v->reason, why, sizeof(v->reason));
		}
	}
}

int
infer_flows_stop(int k)
{
	double p;
	int n = 0;

	if (k < 1)
		return 1;
	/* the bound (k + 1) (k / (k + 1))^n for n = 0, 1, ... */
	for (p = k + 1; p > FLOWS_AUTO_RISK; n++)
		p *= (double)k / (double)(k + 1);
	return n;
}

int
infer_flows_want(const struct flows_acc *acc, int cap)
{
	bool more = false;
	int k = 1, want;

	if (acc->n < 1)
		return 1;
	for (int f = 0; f < acc->n; f++) {
		enum verdict first = VERDICT_NONE;

		for (int i = 0; i < RESULT_MAX_SCALES; i++) {
			enum verdict v = acc->answers[f].verdict[i];

			if (!infer_is_measured(v))
				continue;
			if (verdict_is_problem(v) || (first != VERDICT_NONE && v != first))
				more = true;
			if (first == VERDICT_NONE)
				first = v;
		}
	}
	if (!more)
		return acc->n;
	for (int i = 0; i < RESULT_MAX_SCALES; i++) {
		uint32_t seen = 0;
		int kk = 0;

		for (int f = 0; f < acc->n; f++) {
			enum verdict v = acc->answers[f].verdict[i];

			if (infer_is_measured(v) && (unsigned)v < 32)
				seen |= UINT32_C(1) << (unsigned)v;
		}
		for (; seen != 0; seen &= seen - 1)
			kk++;
		if (kk > k)
			k = kk;
	}
	want = infer_flows_stop(k);
	if (want > cap)
		want = cap;
	return want > acc->n ? want : acc->n;
}
