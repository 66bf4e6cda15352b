/*
 * test_alert.c -- alerts on a path's change of state, as a table: each row
 * a sequence of run verdicts, N of M, and the events they must give.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "alert.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
