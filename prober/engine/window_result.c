/*
 * window_result.c -- the window test's result: one connection's figures
 * judged (window_judge.c), and when a second connection measured again,
 * which of the two the result takes and why.
 */
#include <stdio.h>
#include <string.h>

#include "window_int.h"

void
window_result_one(const struct window *w, bool done, struct window_result *res)
{
	memset(res, 0, sizeof(*res));
	res->scale_sent = w->cfg.scale_sent;
	res->w = w->w;
	res->end = w->end;
	res->synack = w->established;
	res->total_bytes = (uint32_t)w->highest;
	res->rounds = w->fl.n;
	for (int i = 0; i < w->fl.n; i++)
		res->flight[i] = w->fl.r[i].flight;
	res->rtt_us = (uint32_t)(w->rtt / 1000u);
	res->ignored = w->ignored;
	res->retransmissions = w->retrans;
	res->synack_window = w->synack_window;
	res->synack_ttl = w->synack_ttl;
	res->data_ttl = w->data_ttl;
	wj_result(&w->fl, done, w->established, w->end, res);
}

/* res->reason := prefix + res->reason, cut to fit. */
static void
reason_prefix(struct window_result *res, const char *prefix)
{
	size_t cap = sizeof(res->reason) - 1, p = strlen(prefix), n = strlen(res->reason);

	if (p > cap)
		p = cap;
	if (n > cap - p)
		n = cap - p;
	memmove(res->reason + p, res->reason, n);
	memcpy(res->reason, prefix, p);
	res->reason[p + n] = '\0';
}

void
window_result(const struct window *w, struct window_result *res)
{
	struct window_result r2;
	int kmin1;

	window_result_one(w, w->st == ST_DONE, res);
	if (w->second) {
		r2 = *res;
		*res = w->first;
		kmin1 = w->first.scale_effective_min;
		if (r2.scale_effective >= 0 && r2.scale_effective >= kmin1) {
			*res = r2;
			reason_prefix(res, "a second connection with W = 1: ");
		} else if (r2.scale_effective >= 0) {
			res->inconclusive = true;
			res->scale_effective = res->scale_effective_min = -1;
			snprintf(res->reason, sizeof(res->reason), "the connections disagree: "
			    "the first needed shift %d or more, the second (W = 1) plateaued "
			    "at shift %d", kmin1, r2.scale_effective);
		} else if (!r2.inconclusive && r2.scale_effective_min > kmin1) {
			*res = r2;
			reason_prefix(res, "a second connection with W = 1: ");
		}
		res->remeasured = true;
		res->first_w = w->first.w;
		res->first_rounds = w->first.rounds;
		memcpy(res->first_flight, w->first.flight, sizeof(res->first_flight));
		res->synack = true;
		res->ignored = w->ignored;
		res->retransmissions = w->retrans;
	}
	/* a connection's end is not the test's while a second one waits or
	 * runs: the test has ended only when it is done */
	if (w->st != ST_DONE)
		res->end = WINDOW_END_NONE;
	res->syn_proxy = w->proxy;
	if (w->proxy) {
		res->synack_window = w->proxy_window;
		res->synack_ttl = w->proxy_ttl;
		res->data_ttl = w->proxy_data_ttl;
	}
}
