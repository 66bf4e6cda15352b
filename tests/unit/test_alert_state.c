/*
 * test_alert_state.c -- alerts on a path's change of state, as tables: each row
 * a sequence of run verdicts, N of M, and the events they must give; then
 * a path's scales as one alert (raise, change, clear, its state read back
 * after a restart) and raises grouped into incidents by their hop; and a
 * path probed over several flows (infer_flows) whose share changes from
 * run to run, and whose flows end in another order each run, alerts once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "alert_state.h"
#include "infer_flows.h"

#define OK VERDICT_OK
#define RW VERDICT_REWRITTEN
#define ST VERDICT_STRIPPED
#define SD VERDICT_SYN_DROPPED
#define UN VERDICT_UNSUPPORTED
#define FI VERDICT_FILTERED
#define IN VERDICT_INCONCLUSIVE
#define END VERDICT_NONE

/* events: one letter per run: . none, R raise, C change, X clear */
static const struct row {
	const char *what;
	int n, m;
	enum verdict runs[16];
	const char *events;
} rows[] = {
	{ "clean path: silence", 2, 3, { OK, OK, OK, OK, END }, "...." },
	{ "broken from the first runs: raised once confirmed", 2, 3, { RW, RW, RW, END }, ".R." },
	{ "breaks, confirmed by 2 of 3, then fixed", 2, 3,
	  { OK, OK, RW, RW, RW, OK, OK, OK, END }, "...R..X." },
	{ "one bad run is noise", 2, 3, { OK, OK, RW, OK, OK, RW, OK, END }, "......." },
	{ "alternating at 2 of 3: each state confirmed in turn", 2, 3,
	  { OK, OK, RW, OK, RW, OK, END }, "....RX" },
	{ "alternating at 3 of 4: never confirmed", 3, 4,
	  { OK, OK, RW, OK, RW, OK, RW, OK, END }, "........" },
	{ "1 of 1: every change at once", 1, 1, { OK, RW, OK, RW, END }, ".RXR" },
	{ "rewritten becomes stripped: a change, not a new alert", 2, 2,
	  { RW, RW, ST, ST, OK, OK, END }, ".R.C.X" },
	{ "runs without evidence neither confirm nor break", 2, 3,
	  { OK, OK, RW, FI, IN, FI, RW, OK, OK, OK, END }, "......R.X." },
	{ "ok to unsupported is no alert", 2, 3, { OK, OK, UN, UN, END }, "...." },
	{ "syn-dropped after unsupported raises", 2, 3, { UN, UN, SD, SD, END }, "...R" },
	{ "3 of 5", 3, 5, { OK, RW, OK, RW, OK, RW, RW, OK, OK, OK, OK, END }, ".....R..X.." },
	{ "clean runs before a raise count towards its clear", 2, 4,
	  { OK, OK, OK, OK, RW, RW, OK, OK, END }, ".....RX." },
};

static char
letter(enum alert_event e)
{
	return e == ALERT_RAISE ? 'R' : e == ALERT_CHANGE ? 'C' : e == ALERT_CLEAR ? 'X' : '.';
}

static void
test_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const struct row *r = &rows[k];
		struct alert_cfg cfg = { r->n, r->m };
		struct alert_track t;
		char got[17] = "";
		size_t i;

		memset(&t, 0, sizeof(t));
		for (i = 0; r->runs[i] != END; i++) {
			enum verdict from, to;
			enum alert_event e = alert_observe(&t, &cfg, r->runs[i], &from, &to);

			got[i] = letter(e);
			if (e != ALERT_NONE)
				assert_int_equal(to, r->runs[i]);
		}
		got[i] = '\0';
		print_message("# %s: %s\n", r->what, got);
		assert_string_equal(got, r->events);
	}
}

static void
test_bad_config(void **state)
{
	struct alert_cfg bad[] = { { 0, 3 }, { 4, 3 }, { 2, ALERT_M_MAX + 1 } };
	struct alert_track t;
	enum verdict from, to;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&t, 0, sizeof(t));
		assert_false(alert_cfg_valid(&bad[i]));
		assert_int_equal(alert_observe(&t, &bad[i], RW, &from, &to), ALERT_NONE);
		assert_int_equal(t.nhist, 0);
	}
	assert_string_equal(alert_event_name(ALERT_RAISE), "raise");
	assert_string_equal(alert_event_name(ALERT_CLEAR), "clear");
}

/* Idle: nothing open and no problem among the runs kept. */
static void
test_idle(void **state)
{
	struct alert_cfg cfg = { 2, 3 };
	const enum verdict runs[] = { OK, UN, FI, RW, RW, OK, OK, OK, IN, UN };
	const bool idle[] = { true, true, true, false, false, false, false, true, true, true };
	struct alert_track t;
	enum verdict from, to;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_true(alert_track_idle(&t));
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		(void)alert_observe(&t, &cfg, runs[i], &from, &to);
		assert_int_equal(alert_track_idle(&t), idle[i]);
	}
	/* open with a clean window cannot happen through alert_observe; a
	 * raised alert alone keeps the track */
	memset(&t, 0, sizeof(t));
	t.open = true;
	assert_false(alert_track_idle(&t));
}

/* --- a path's scales as one alert ------------------------------------------ */

#define MAXRUNS 8
/* a run: each scale's verdict and the hop the run names (0: none) */
struct prun {
	enum verdict v[2];
	int hop;
};

static const struct prow {
	const char *what;
	int n, m;
	struct prun runs[MAXRUNS];
	int nruns;
	const char *events;		/* R raise, C change, X clear, u quiet update, . */
	bool restored;			/* starts from a stored alert: 7,14 rewritten at 3 */
} prows[] = {
	{ "two scales broken together: one raise, one clear", 1, 1,
	  { { { OK, OK }, 0 }, { { RW, RW }, 3 }, { { RW, RW }, 3 }, { { OK, OK }, 0 } }, 4,
	  ".R.X", false },
	{ "7 then 14 too: the same state at the same hop is no new alert", 1, 1,
	  { { { OK, OK }, 0 }, { { RW, OK }, 3 }, { { RW, RW }, 3 }, { { OK, OK }, 0 } }, 4,
	  ".RuX", false },
	{ "one scale fixed, the other still broken: no clear until both are", 1, 1,
	  { { { RW, RW }, 3 }, { { OK, RW }, 3 }, { { OK, OK }, 0 } }, 3, "RuX", false },
	{ "a worse state is a change, and back", 1, 1,
	  { { { RW, RW }, 3 }, { { SD, RW }, 3 }, { { RW, RW }, 3 }, { { OK, OK }, 0 } }, 4,
	  "RCCX", false },
	{ "the hop moves: a change", 1, 1,
	  { { { RW, RW }, 3 }, { { RW, RW }, 4 } }, 2, "RC", false },
	{ "a run that names no hop keeps the last: nothing", 1, 1,
	  { { { RW, RW }, 3 }, { { RW, RW }, 0 }, { { RW, RW }, 3 } }, 3, "R..", false },
	{ "2 of 3 per scale: the path raised once both are confirmed, once", 2, 3,
	  { { { OK, OK }, 0 }, { { RW, RW }, 3 }, { { RW, RW }, 3 }, { { RW, RW }, 3 },
	    { { OK, OK }, 0 }, { { OK, OK }, 0 } }, 6, "..R..X", false },
	{ "not measured (filtered) says nothing", 1, 1,
	  { { { RW, RW }, 3 }, { { FI, FI }, 0 }, { { IN, IN }, 0 }, { { OK, OK }, 0 } }, 4,
	  "R..X", false },
	{ "read back after a restart, still broken: no raise", 2, 3,
	  { { { RW, RW }, 3 }, { { RW, RW }, 3 } }, 2, "..", true },
	{ "read back after a restart, fixed: cleared after 2 clean runs as before", 2, 3,
	  { { { OK, OK }, 0 }, { { OK, OK }, 0 }, { { OK, OK }, 0 } }, 3, ".X.", true },
	{ "read back, then a worse state: a change, not a raise", 1, 1,
	  { { { SD, SD }, 3 } }, 1, "C", true },
};

static void
test_path(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(prows) / sizeof(prows[0]); k++) {
		const struct prow *r = &prows[k];
		struct alert_cfg cfg = { r->n, r->m };
		struct alert_track t[2];
		struct alert_path open, now;
		const int scale[2] = { 7, 14 };
		char got[MAXRUNS + 1] = "";
		int i;

		memset(t, 0, sizeof(t));
		memset(&open, 0, sizeof(open));
		if (r->restored) {
			open.bad = true;
			open.worst = RW;
			open.hop = 3;
			addr_parse("198.18.3.2", &open.hop_address);
			open.nscales = 2;
			open.scale[0] = 7;
			open.scale[1] = 14;
			open.verdict[0] = open.verdict[1] = RW;
			alert_path_seed(t, 2, scale, &open);
		}
		for (i = 0; i < r->nruns; i++) {
			struct hop_loc h[2];
			const struct hop_loc *hp[2] = { &h[0], &h[1] };
			enum verdict f, x;
			enum alert_event e;
			bool update;
			char a[32];

			memset(h, 0, sizeof(h));
			for (int s = 0; s < 2; s++) {
				(void)alert_observe(&t[s], &cfg, r->runs[i].v[s], &f, &x);
				if (r->runs[i].hop > 0 && r->runs[i].v[s] != OK) {
					h[s].present = true;
					h[s].index = r->runs[i].hop;
					snprintf(a, sizeof(a), "198.18.%d.2", r->runs[i].hop);
					addr_parse(a, &h[s].address);
				}
			}
			alert_path_summary(t, 2, scale, hp, &open, &now);
			e = alert_path_decide(&open, &now, &update);
			got[i] = e != ALERT_NONE ? letter(e) : update ? 'u' : '.';
			/* nothing told without the store written */
			if (e != ALERT_NONE)
				assert_true(update);
			open = now;
		}
		got[i] = '\0';
		print_message("# %s: %s\n", r->what, got);
		assert_string_equal(got, r->events);
	}
}

/* What a raise names: the worst state, its scales, the hop of the worst. */
static void
test_path_summary(void **state)
{
	struct alert_track t[3];
	const int scale[3] = { 0, 7, 14 };
	struct hop_loc h[3];
	const struct hop_loc *hp[3] = { &h[0], &h[1], &h[2] };
	struct alert_path p;
	char buf[64];

	(void)state;
	memset(t, 0, sizeof(t));
	memset(h, 0, sizeof(h));
	t[0].confirmed = OK;
	t[1].confirmed = RW;
	t[2].confirmed = ST;
	h[1].present = h[2].present = true;
	h[1].index = 3;
	h[2].index = 4;
	addr_parse("198.18.3.2", &h[1].address);
	addr_parse("198.18.4.2", &h[2].address);
	alert_path_summary(t, 3, scale, hp, NULL, &p);
	assert_true(p.bad);
	assert_int_equal(p.worst, ST);
	assert_int_equal(p.hop, 4);
	assert_string_equal(alert_path_scales(&p, buf, sizeof(buf)), "7,14");
	assert_true(alert_severity(VERDICT_SYN_DROPPED) > alert_severity(ST));
	assert_true(alert_severity(ST) > alert_severity(RW));
	/* silent TTLs before the worst scale's hop: the box may be one of
	 * them, so the alert names no hop (or the last run's exact one) */
	h[2].silent = 1u << 3;
	alert_path_summary(t, 3, scale, hp, NULL, &p);
	assert_int_equal(p.worst, ST);
	assert_int_equal(p.hop, 0);
	{
		struct alert_path prev = p;

		prev.hop = 2;
		addr_parse("198.18.2.2", &prev.hop_address);
		alert_path_summary(t, 3, scale, hp, &prev, &p);
		assert_int_equal(p.hop, 2);
	}
	h[2].silent = 0;
	assert_int_equal(alert_severity(UN), 0);
	assert_int_equal(alert_severity(OK), 0);
	/* nothing confirmed (a new path, or not measured): not bad */
	memset(t, 0, sizeof(t));
	alert_path_summary(t, 3, scale, hp, NULL, &p);
	assert_false(p.bad);
	assert_int_equal(p.nscales, 0);
}

/* --- incidents ---------------------------------------------------------------- */

static void
test_incidents(void **state)
{
	enum { N = 70 };
	struct addr hops[N];
	long inc[N];
	size_t found;

	(void)state;
	memset(hops, 0, sizeof(hops));
	/* 50 raises at hop A (every other one first, then the rest), 5 at B,
	 * 15 without a hop */
	for (int i = 0; i < N; i++) {
		if (i < 50)
			addr_parse("198.18.1.2", &hops[(i * 7) % 50]);
		else if (i < 55)
			addr_parse("198.18.3.2", &hops[i]);
	}
	found = alert_incidents(hops, N, 10, inc);
	assert_int_equal(found, 1);
	for (int i = 0; i < N; i++) {
		if (i < 50)
			assert_int_equal(inc[i], 0);	/* the first raise at A leads */
		else
			assert_int_equal(inc[i], -1);
	}
	/* at 5: B is one too; the 15 without a hop never are */
	found = alert_incidents(hops, N, 5, inc);
	assert_int_equal(found, 2);
	for (int i = 50; i < 55; i++)
		assert_int_equal(inc[i], 50);
	for (int i = 55; i < N; i++)
		assert_int_equal(inc[i], -1);
	/* 0: never; above every group: none */
	assert_int_equal(alert_incidents(hops, N, 0, inc), 0);
	assert_int_equal(inc[0], -1);
	assert_int_equal(alert_incidents(hops, N, 51, inc), 0);
	assert_int_equal(alert_incidents(hops, 0, 1, inc), 0);
}

/* One run of a path's scale 7 over flows: a letter per flow, 'o' ok,
 * 'a' rewritten at hop 3 (branch a's box), 'b' rewritten at hop 4
 * (branch b's), judged as the runner does. */
static void
flows_run(struct path_result *res, const char *flows)
{
	struct flows_acc *acc = calloc(1, sizeof(*acc));
	int n = (int)strlen(flows);

	assert_non_null(acc);
	for (int f = 0; f < n; f++) {
		struct scale_verdict *v = &res->verdicts[0];

		memset(res, 0, sizeof(*res));
		res->nscales = 1;
		res->scales[0].scale = 7;
		res->flows = n;
		v->verdict = flows[f] == 'o' ? OK : RW;
		if (flows[f] != 'o') {
			v->hop.present = true;
			v->hop.index = flows[f] == 'a' ? 3 : 4;
			v->hop.last_clean_index = v->hop.index - 1;
			assert_int_equal(addr_parse(flows[f] == 'a' ? "198.18.31.2" : "198.18.42.2",
			    &v->hop.address), 0);
		}
		infer_flows_add(acc, res, (uint16_t)(1000 + f));
	}
	infer_flows_merge(res, acc);
	res->flow_answers = NULL;
	res->flow_branch = NULL;
	free(acc);
}

static void
test_flows_no_flap(void **state)
{
	static const struct {
		const char *what;
		const char *runs[12];
		const char *events;
	} t[] = {
		{ "1/8, 3/8, 0/8, 2/8, 1/8: one alert while the share stays above zero",
		  { "aooooooo", "oaoaoaoo", "oooooooo", "ooaoooao", "ooooaooo", "oooooooo",
		    "oooooooo", "oooooooo", NULL }, ".R....X." },
		{ "8/8 over two branches, the flows ending in another order each run",
		  { "bbaabbab", "abababab", "babababa", "bbbbbbba", "baaaaaab", NULL }, ".R..." },
		{ "a share that moves between the branches' boxes",
		  { "boaooooo", "oooooboa", "obbbaooo", "booaoooo", NULL }, ".R.." },
		{ "0/8 throughout: silence", { "oooooooo", "oooooooo", "oooooooo", NULL }, "..." },
	};
	const struct alert_cfg cfg = { 2, 3 };

	(void)state;
	for (size_t r = 0; r < sizeof(t) / sizeof(t[0]); r++) {
		struct alert_track tr[1];
		struct alert_path open, now;
		struct path_result *res = calloc(1, sizeof(*res));
		char got[16];
		int i;

		assert_non_null(res);
		memset(tr, 0, sizeof(tr));
		memset(&open, 0, sizeof(open));
		for (i = 0; t[r].runs[i] != NULL; i++) {
			const struct hop_loc *hp[1];
			int scale[1] = { 7 };
			enum verdict f, x2;
			enum alert_event e;
			bool update;

			flows_run(res, t[r].runs[i]);
			(void)alert_observe(&tr[0], &cfg, res->verdicts[0].verdict, &f, &x2);
			hp[0] = &res->verdicts[0].hop;
			alert_path_summary(tr, 1, scale, hp, &open, &now);
			e = alert_path_decide(&open, &now, &update);
			got[i] = letter(e);
			open = now;
		}
		got[i] = '\0';
		print_message("# %s: %s\n", t[r].what, got);
		assert_string_equal(got, t[r].events);
		free(res);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_path_summary),
		cmocka_unit_test(test_incidents),
		cmocka_unit_test(test_flows_no_flap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
