/*
 * test_report_query.c -- what report reads from a store filled through
 * store_add with synthetic results (tests/unit/storegen.c): one summary
 * row per path result with the worst verdict, the damaged scale and its
 * box, the shift that came through, the side findings; the baseline
 * before the window; the window's bounds; a reader beside an open writer
 * sees committed batches only; a missing store refused in one line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "report.h"
#include "report_query.h"
#include "store.h"
#include "storegen.h"

#define T0	((int64_t)1764000000)		/* a run's start, s */
#define DAY	((int64_t)86400)
#define NS	((int64_t)1000000000)

static char dir[64], file[128];

static int
setup(void **state)
{
	(void)state;
	if (storegen_scratch(dir, sizeof(dir), "test_report_query") != 0)
		return -1;
	snprintf(file, sizeof(file), "%s/r.sqlite", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

/* Paths 0..n-1 as one run at t from vantage; fixed: path 1's box gone. */
static void
run(struct store *st, const char *vantage, int64_t t, unsigned n, bool fixed)
{
	struct store_run r = { .start = { t, 0 }, .vantage = vantage, .settings = "scales=0,7,14",
	    .program = "test_report_query" };
	int64_t id;

	assert_int_equal(store_run_begin(st, &r, &id), 0);
	for (unsigned i = 0; i < n; i++) {
		struct storegen g;

		storegen_make(&g, i, t, true);
		if (fixed && i == 1)
			for (int k = 0; k < 3; k++) {
				g.res.verdicts[k].verdict = VERDICT_OK;
				g.res.verdicts[k].hop.present = false;
				g.res.verdicts[k].nfindings = 0;
				g.res.window[k].scale_effective = g.res.scales[k].scale;
			}
		if (store_add(st, id, &g.res) != 0)
			fail_msg("store_add: %s", store_error(st));
		storegen_free(&g);
	}
}

static const struct report_row *
find(const struct report_rows *rows, const char *vantage, unsigned i, bool baseline)
{
	char a[48];

	/* storegen's addresses: 198.19.0.i, fd00::i for i % 8 == 3 */
	if (i % 8 == 3)
		snprintf(a, sizeof(a), "fd00::%x", i);
	else
		snprintf(a, sizeof(a), "198.19.0.%u", i);
	for (size_t k = 0; k < rows->n; k++)
		if (strcmp(rows->v[k].vantage, vantage) == 0 && strcmp(rows->v[k].address, a) == 0 &&
		    rows->v[k].baseline == baseline)
			return &rows->v[k];
	fail_msg("no row for %s %s", vantage, a);
	return NULL;
}

static void
test_rows(void **state)
{
	char err[STORE_ERRLEN] = "";
	struct store *st = store_open(file, STORE_WRITE, NULL, err, sizeof(err));
	struct report_rows rows;
	const struct report_row *r;
	struct report rep;

	(void)state;
	memset(&rows, 0, sizeof(rows));
	assert_non_null(st);
	run(st, "a", T0, 8, false);
	run(st, "a", T0 + 2 * DAY, 8, true);
	run(st, "b", T0 + 3 * DAY, 4, false);
	assert_int_equal(store_flush(st, true), 0);

	/* the window from day 1: runs 2 and 3, run 1 the baseline */
	assert_int_equal(report_query(file, (T0 + DAY) * NS, INT64_MAX, report_rows_add, &rows, err,
	    sizeof(err)), 0);
	assert_int_equal(rows.n, 8 + 8 + 4);
	r = find(&rows, "a", 1, true);
	assert_int_equal(r->verdict, VERDICT_REWRITTEN);
	assert_int_equal(r->scale_sent, 7);		/* the first damaged scale */
	assert_int_equal(r->scale_applied, 0);
	assert_int_equal(r->ok_scale, 0);
	assert_string_equal(r->hop_address, "198.18.3.2");
	assert_int_equal(r->hop_index, 3);
	assert_string_equal(r->clean_address, "198.18.2.2");
	assert_int_equal(r->clean_index, 2);
	assert_true(r->findings & (1u << FINDING_MSS_CLAMPED));
	assert_int_equal(r->mss, 1200);
	assert_int_equal(r->time_ns / NS, T0);
	r = find(&rows, "a", 1, false);
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_int_equal(r->ok_scale, 14);
	assert_null(r->hop_address);
	assert_int_equal(r->findings, 0);
	r = find(&rows, "a", 2, false);
	assert_int_equal(r->verdict, VERDICT_CLOSED);
	assert_int_equal(r->ok_scale, -1);
	r = find(&rows, "b", 3, false);		/* storegen: port 443 for i % 3 == 0 */
	assert_true(r->v6);
	assert_int_equal(r->port, 443);
	r = find(&rows, "a", 1, false);
	assert_false(r->v6);
	assert_int_equal(r->port, 80);
	/* by vantage, path, time */
	for (size_t k = 1; k < rows.n; k++)
		assert_true(strcmp(rows.v[k - 1].vantage, rows.v[k].vantage) <= 0);

	/* the store's rows make the report: path 1 fixed on vantage a, the
	 * box damages a's path 5 and b's path 1 */
	assert_int_equal(report_build(&rows, (T0 + DAY) * NS, INT64_MAX, NULL, &rep), 0);
	assert_int_equal(rep.all.nfixed, 1);
	assert_int_equal(rep.all.nbroken, 0);
	assert_int_equal(rep.all.nhops, 1);
	assert_int_equal(rep.all.hops[0].paths, 2);
	assert_int_equal(rep.all.findings[FINDING_MSS_CLAMPED], 2);
	assert_int_equal(rep.nvantages, 2);
	report_free(&rep);
	report_rows_free(&rows);

	/* until is exclusive: run 3 starts at day 3 */
	assert_int_equal(report_query(file, (T0 + DAY) * NS, (T0 + 3 * DAY) * NS,
	    report_rows_add, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 8 + 8);
	report_rows_free(&rows);
	/* no baseline without --since */
	assert_int_equal(report_query(file, INT64_MIN, INT64_MAX, report_rows_add, &rows, err,
	    sizeof(err)), 0);
	assert_int_equal(rows.n, 20);
	for (size_t k = 0; k < rows.n; k++)
		assert_false(rows.v[k].baseline);
	report_rows_free(&rows);

	/* beside a writer whose batch is open: what is committed, nothing else */
	run(st, "c", T0 + 4 * DAY, 2, false);
	assert_int_equal(report_query(file, INT64_MIN, INT64_MAX, report_rows_add, &rows, err,
	    sizeof(err)), 0);
	assert_int_equal(rows.n, 20);
	report_rows_free(&rows);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	assert_int_equal(report_query(file, INT64_MIN, INT64_MAX, report_rows_add, &rows, err,
	    sizeof(err)), 0);
	assert_int_equal(rows.n, 22);
	report_rows_free(&rows);
}

static void
test_refused(void **state)
{
	char missing[160], err[STORE_ERRLEN] = "";
	struct report_rows rows;

	(void)state;
	memset(&rows, 0, sizeof(rows));
	snprintf(missing, sizeof(missing), "%s/none.sqlite", dir);
	assert_int_equal(report_query(missing, INT64_MIN, INT64_MAX, report_rows_add, &rows, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, missing));
	assert_null(strchr(err, '\n'));
	assert_int_equal(access(missing, F_OK), -1);	/* not created */
	assert_int_equal(verdict_from_name("syn-dropped"), VERDICT_SYN_DROPPED);
	assert_int_equal(verdict_from_name("bogus"), VERDICT_NONE);
	assert_int_equal(verdict_from_name(NULL), VERDICT_NONE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
