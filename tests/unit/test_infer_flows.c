/*
 * test_infer_flows.c -- a path's flows to one verdict per scale
 * (infer_flows.h): the worst verdict any flow saw (a problem over an
 * answer, an answer over an inconclusive flow), flows_affected, the plain
 * reason where only some flows saw the problem, each flow's answers kept,
 * and the branch: the first TTL where the traces of the flows that saw the
 * problem and of those that did not part.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "addr.h"
#include "flow_branch.h"
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

/* A trace of one flow over branch X ('a'..'c'; '-' none ran): hops 1, 2
 * shared, hop 3 router 10.0.3.X, hop 4 10.0.4.X, the destination at 6. */
static void
trace_of(struct trace_obs *t, char x)
{
	char a[32];

	memset(t, 0, sizeof(*t));
	if (x == '-')
		return;
	t->ran = true;
	t->nttl = 8;
	t->dest_ttl = 6;
	for (int k = 1; k <= 5; k++) {
		t->hop[k].quote = QUOTE_FULL;
		snprintf(a, sizeof(a), k <= 2 || k == 5 ? "10.0.%d.1" : "10.0.%d.%d", k, x);
		assert_int_equal(addr_parse(a, &t->hop[k].from), 0);
	}
}

static void
test_branch(void **state)
{
	static const struct {
		const char *flows;	/* per flow: verdict letter, branch letter */
		int hop;		/* the rewritten flows' hop */
		int want;		/* the branch's TTL, 0 none */
		const char *problem, *clean;	/* its routers, "," joined */
	} t[] = {
		{ "raobraob", 3, 3, "10.0.3.97", "10.0.3.98" },
		{ "oaobrc", 4, 3, "10.0.3.99", "10.0.3.97,10.0.3.98" },	/* parts before the box */
		{ "rao-", 3, 0, "", "" },		/* no clean flow traced */
		{ "rarb", 3, 0, "", "" },		/* no clean flow */
		{ "raob", 2, 0, "", "" },		/* never past the problem's hop */
		{ "raoarb", 4, 0, "", "" },		/* a router both sides crossed */
		{ "rrob", 3, 0, "", "" },		/* the rewritten flow has no trace */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct flows_acc *acc = calloc(1, sizeof(*acc));
		struct path_result *r = calloc(1, sizeof(*r));
		struct trace_obs *tr = calloc(1, sizeof(*tr));
		int n = (int)strlen(t[i].flows) / 2;
		char got[128] = "", one[ADDR_STRLEN];
		const struct flow_branch *b;

		assert_non_null(acc);
		assert_non_null(r);
		assert_non_null(tr);
		for (int f = 0; f < n; f++) {
			char v = t[i].flows[2 * f], x = t[i].flows[2 * f + 1];

			flow(r, v);
			if (v == 'r')
				r->verdicts[0].hop.index = t[i].hop;
			/* 'r' as a branch letter: a flow rewritten with no trace */
			trace_of(tr, x == 'r' ? '-' : x);
			r->trace[1] = tr;
			r->flows = n;
			infer_flows_add(acc, r, (uint16_t)(1000 + f));
		}
		infer_flows_merge(r, acc);
		assert_non_null(r->flow_branch);
		b = &r->flow_branch[0];
		assert_int_equal(b->hop_index, t[i].want);
		for (int k = 0; k < b->nproblem; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? "," : "",
			    addr_format(&b->problem[k], one, sizeof(one)));
		assert_string_equal(got, t[i].problem);
		got[0] = '\0';
		for (int k = 0; k < b->nclean; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? "," : "",
			    addr_format(&b->clean[k], one, sizeof(one)));
		assert_string_equal(got, t[i].clean);
		/* the reason names it, in plain words, when there is one */
		if (t[i].want > 0) {
			snprintf(got, sizeof(got), "the branch via %s (hop %d) rewrites it",
			    t[i].problem, t[i].want);
			assert_non_null(strstr(r->verdicts[0].reason, got));
		} else
			assert_null(strstr(r->verdicts[0].reason, "the branch via"));
		free(tr);
		free(r);
		free(acc);
	}
}

/* MDA's stopping points at 95 % from the union bound: Augustin et al.'s
 * published 6, 11, 16, 21, 27, 33 for a 2nd to a 7th answer (past that
 * the bound asks one flow more than their exact figures at some k). */
static void
test_stop_table(void **state)
{
	static const int want[] = { 1, 6, 11, 16, 21, 27, 33, 39, 45, 51, 57 };

	(void)state;
	for (int k = 0; k < (int)(sizeof(want) / sizeof(want[0])); k++)
		assert_int_equal(infer_flows_stop(k), want[k]);
	assert_int_equal(infer_flows_stop(-3), 1);
}

/* The flows a path needs under --flows auto: one while its flows show no
 * problem and each flow's scales agree; else the stopping point of the
 * most answers one scale saw, at most the cap, never fewer than it has. */
static void
test_want_table(void **state)
{
	static const struct {
		const char *flows;	/* flows by spaces, a letter per scale: o ok,
					   u unsupported, r rewritten, s stripped,
					   d syn-dropped, i inconclusive, - none */
		int cap, want;
	} t[] = {
		{ "", 16, 1 },
		{ "ooo", 16, 1 },		/* a clean path: one flow */
		{ "uuu", 16, 1 },
		{ "iii", 16, 1 },		/* nothing measured: nothing to gain */
		{ "o-i", 16, 1 },
		{ "ooo ooo", 16, 2 },		/* --flows-like: never fewer */
		{ "oor", 16, 6 },		/* a problem: rule out a 2nd answer */
		{ "rrr", 16, 6 },
		{ "oou", 16, 6 },		/* scales disagree */
		{ "oor oor oor oor oor", 16, 6 },
		{ "oor oor oor oor oor oor", 16, 6 },	/* 6 seen the same: done */
		{ "oor ooo", 16, 11 },		/* two answers on one scale: a 3rd? */
		{ "oor oor oor oor oor oor ooo", 16, 11 },
		{ "oor ooo oos", 16, 16 },	/* three: a 4th? */
		{ "oor ooo oos ood", 16, 16 },	/* four: 21, past the cap */
		{ "oor", 4, 4 },
		{ "oor", 1, 1 },			/* --flows 1-like cap */
		{ "ooi oir", 16, 6 },		/* one answer per scale, a problem */
		{ "ioo oor", 16, 11 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct flows_acc *acc = calloc(1, sizeof(*acc));
		const char *c = t[i].flows;
		int sc = 0;

		assert_non_null(acc);
		if (*c != '\0')
			acc->n = 1;
		for (; *c != '\0'; c++) {
			enum verdict v;

			if (*c == ' ') {
				acc->n++;
				sc = 0;
				continue;
			}
			v = *c == 'o' ? VERDICT_OK : *c == 'u' ? VERDICT_UNSUPPORTED :
			    *c == 'r' ? VERDICT_REWRITTEN : *c == 's' ? VERDICT_STRIPPED :
			    *c == 'd' ? VERDICT_SYN_DROPPED : *c == 'i' ? VERDICT_INCONCLUSIVE :
			    VERDICT_NONE;
			acc->answers[acc->n - 1].verdict[sc++] = v;
		}
		printf("want: '%s' cap %d -> %d\n", t[i].flows, t[i].cap, t[i].want);
		assert_int_equal(infer_flows_want(acc, t[i].cap), t[i].want);
		free(acc);
	}
}

/* The stored branch read back (flow_branch_from_cells): whole or not at
 * all -- a hop in 1..30 and each side one to four addresses joined by
 * commas, nothing else; and written the same way it is read. */
static void
test_branch_cells(void **state)
{
	static const struct {
		int hop;
		const char *problem, *clean;
		int np, nc;		/* -1: refused */
	} t[] = {
		{ 3, "198.18.31.2", "198.18.32.2", 1, 1 },
		{ 30, "fd00::1,198.18.1.1", "a::1,b::2,c::3,d::4", 2, 4 },
		{ 0, "198.18.31.2", "198.18.32.2", -1, -1 },
		{ 31, "198.18.31.2", "198.18.32.2", -1, -1 },
		{ -1, "198.18.31.2", "198.18.32.2", -1, -1 },
		{ 3, NULL, "198.18.32.2", -1, -1 },
		{ 3, "198.18.31.2", "", -1, -1 },
		{ 3, "198.18.31.2,", "198.18.32.2", -1, -1 },
		{ 3, ",198.18.31.2", "198.18.32.2", -1, -1 },
		{ 3, "198.18.31.2, 198.18.31.3", "198.18.32.2", -1, -1 },
		{ 3, "a::1,b::2,c::3,d::4,e::5", "198.18.32.2", -1, -1 },
		{ 3, "198.18.31.2", "x'; DROP TABLE paths", -1, -1 },
		{ 3, "198.18.31.256", "198.18.32.2", -1, -1 },
		{ 3, "198.18.31.2\n", "198.18.32.2", -1, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct flow_branch b;
		char p[FLOW_BRANCH_TEXT], c[FLOW_BRANCH_TEXT];
		int rc = flow_branch_from_cells(t[i].hop, t[i].problem, t[i].clean, &b);

		printf("cells: %d '%s' '%s'\n", t[i].hop, t[i].problem ? t[i].problem : "(null)",
		    t[i].clean);
		if (t[i].np < 0) {
			assert_int_equal(rc, -1);
			assert_int_equal(b.hop_index, 0);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(b.hop_index, t[i].hop);
		assert_int_equal(b.nproblem, t[i].np);
		assert_int_equal(b.nclean, t[i].nc);
		flow_branch_side_format(b.problem, b.nproblem, p, sizeof(p));
		flow_branch_side_format(b.clean, b.nclean, c, sizeof(c));
		assert_string_equal(p, t[i].problem);
		assert_string_equal(c, t[i].clean);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_long_reason),
		cmocka_unit_test(test_branch),
		cmocka_unit_test(test_stop_table),
		cmocka_unit_test(test_want_table),
		cmocka_unit_test(test_branch_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
