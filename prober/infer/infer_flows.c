/*
 * infer_flows.c -- a path's flows to one verdict per scale
 * (infer_flows.h).  Pure.
 */
#include <stdio.h>
#include <string.h>

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
		if (verdict_is_problem(v->verdict))
			acc->affected[i]++;
		else if (verdict_rank(v->verdict) == 2)
			acc->clean[i]++;
		if (acc->n == 1 || verdict_rank(v->verdict) > verdict_rank(acc->worst[i].verdict))
			acc->worst[i] = *v;
	}
}

void
infer_flows_merge(struct path_result *res, const struct flows_acc *acc)
{
	res->flows = acc->n;
	res->flow_answers = acc->answers;
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++) {
		struct scale_verdict *v = &res->verdicts[i];
		int k = acc->affected[i];

		*v = acc->worst[i];
		res->flows_affected[i] = k;
		if (k > 0 && acc->clean[i] > 0) {
			char why[sizeof(v->reason)];

			snprintf(why, sizeof(why), "%s on %d of %d flows (source ports): "
			    "a load-balanced branch of the path %s the window scale and "
			    "another does not, so connections stall or not depending on "
			    "their source port; %s", verdict_name(v->verdict), k, acc->n,
			    v->verdict == VERDICT_SYN_DROPPED ? "drops SYNs with" :
			    v->verdict == VERDICT_STRIPPED ? "strips" : "rewrites",
			    v->reason);
			memcpy(v->reason, why, sizeof(v->reason));
		}
	}
}
