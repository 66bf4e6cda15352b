/*
 * test_infer_flows.c -- a path's flows to one verdict per scale
 * (infer_flows.h): the worst verdict any flow saw (a problem over an
 * answer, an answer over an inconclusive flow), flows_affected, the plain
 * reason where only some flows saw the problem, each flow's answers kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "infer_flows.h"

/* A judged flow of one scale with verdict v ('o' ok, 'r' rewritten, 'i'
 * inconclusive, 's' stripped). */
static void
flow(struct path_result *r, char v)
{
	memset(r, 0, sizeof(*r));
	r->nscales = 1;
	r->scales[0].scale = 7;
	r->scales[0].reply = REPLY_SYNACK;
	r->scales[0].sa.present = true;
	r->scales[0].sa.wscale = 10;
	r->window[0].ran = true;
	r->window[0].scale_effective = v == 'r' ? 0 : 7;
	r->verdicts[0].verdict = v == 'o' ? VERDICT_OK : v == 'r' ? VERDICT_REWRITTEN :
	    v == 's' ? VERDICT_STRIPPED : VERDICT_INCONCLUSIVE;
	snprintf(r->verdicts[0].reason, sizeof(r->verdicts[0].reason), "flow said %c", v);
	if (v == 'r') {
		r->verdicts[0].hop.present = true;
		r->verdicts[0].hop.index = 3;
	}
}

static void
test_table(void **state)
{
	static const struct {
		const char *flows;	/* one letter per flow, in the order they end */
		enum verdict want;
		int affected;
		const char *reason;	/* a part of the path's reason */
		bool partial;		/* the reason names the source port */
	} t[] = {
		{ "oooooooo", VERDICT_OK, 0, "flow said o", false },
		{ "o", VERDICT_OK, 0, "flow said o", false },
		{ "roroooor", VERDICT_REWRITTEN, 3, "rewritten on 3 of 8 flows", true },
		{ "or", VERDICT_REWRITTEN, 1, "rewrites the window scale", true },
		{ "rr", VERDICT_REWRITTEN, 2, "flow said r", false },
		{ "ioo", VERDICT_OK, 0, "flow said o", false },
		{ "oi", VERDICT_OK, 0, "flow said o", false },
		{ "ii", VERDICT_INCONCLUSIVE, 0, "flow said i", false },
		{ "ir", VERDICT_REWRITTEN, 1, "flow said r", false },	/* 1 of 2, the other unknown */
		{ "os", VERDICT_STRIPPED, 1, "strips the window scale", true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct flows_acc *acc = calloc(1, sizeof(*acc));
		struct path_result *r = calloc(1, sizeof(*r));
		int n = (int)strlen(t[i].flows);

		assert_non_null(acc);
		assert_non_null(r);
		for (int f = 0; f < n; f++) {
			flow(r, t[i].flows[f]);
			r->flow = f;
			r->flows = n;
			infer_flows_add(acc, r, (uint16_t)(61056 + 32 * f));
		}
		infer_flows_merge(r, acc);
		assert_int_equal(r->flows, n);
		assert_int_equal(r->verdicts[0].verdict, t[i].want);
		assert_int_equal(r->flows_affected[0], t[i].affected);
		assert_non_null(strstr(r->verdicts[0].reason, t[i].reason));
		assert_int_equal(strstr(r->verdicts[0].reason, "source port") != NULL,
		    t[i].partial);
		/* every flow's answers, in order, each its own port */
		assert_ptr_equal(r->flow_answers, acc->answers);
		for (int f = 0; f < n; f++) {
			assert_int_equal(r->flow_answers[f].sport, 61056 + 32 * f);
			assert_int_equal(r->flow_answers[f].applied[0],
			    t[i].flows[f] == 'r' ? 0 : 7);
			assert_int_equal(r->flow_answers[f].sa_wscale[0], 10);
			assert_int_equal(r->flow_answers[f].hop_index[0],
			    t[i].flows[f] == 'r' ? 3 : -1);
		}
		free(r);
		free(acc);
	}
}

/* A long reason still ends in one line, cut, never overflowing. */
static void
test_long_reason(void **state)
{
	struct flows_acc *acc = calloc(1, sizeof(*acc));
	struct path_result *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(acc);
	assert_non_null(r);
	flow(r, 'o');
	infer_flows_add(acc, r, 1);
	flow(r, 'r');
	memset(r->verdicts[0].reason, 'x', sizeof(r->verdicts[0].reason) - 1);
	r->verdicts[0].reason[sizeof(r->verdicts[0].reason) - 1] = '\0';
	infer_flows_add(acc, r, 2);
	infer_flows_merge(r, acc);
	assert_true(strlen(r->verdicts[0].reason) < sizeof(r->verdicts[0].reason));
	assert_non_null(strstr(r->verdicts[0].reason, "1 of 2 flows"));
	free(r);
	free(acc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_long_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
