/*
 * test_tracks.c -- the paths' alert memory (tracks.h): paths no longer
 * probed are freed once idle, a path still probed or with a problem in
 * sight keeps its entry (and an alert says the state it left), forgetting
 * changes no event of alert_state.h's table, the key decides the buckets,
 * and the buckets grow with the paths (a group of a million paths must
 * not walk chains of a thousand).  A path with one verdict in sight and
 * nothing raised keeps a few bytes, not a full entry, and comes back from
 * them exactly (the same state, the same events, the state it left).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tracks.h"

#define OK VERDICT_OK
#define RW VERDICT_REWRITTEN
#define ST VERDICT_STRIPPED
#define SD VERDICT_SYN_DROPPED
#define UN VERDICT_UNSUPPORTED
#define FI VERDICT_FILTERED
#define IN VERDICT_INCONCLUSIVE
#define END VERDICT_NONE

static const uint8_t key1[SIPHASH_KEY_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16 };
static const uint8_t key2[SIPHASH_KEY_LEN] = { 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4,
	3, 2, 1 };

static struct addr
a4(unsigned i)
{
	char s[32];
	struct addr a;

	snprintf(s, sizeof(s), "198.18.%u.%u", i / 256, i % 256);
	assert_int_equal(addr_parse(s, &a), 0);
	return a;
}

static char
letter(enum alert_event e)
{
	return e == ALERT_RAISE ? 'R' : e == ALERT_CHANGE ? 'C' : e == ALERT_CLEAR ? 'X' : '.';
}

/* One run of path i on scale 0 at now through the table, as alert_notify.c
 * does it (expiry first); the event's letter, the state it left in *from. */
static char
run_at(struct tracks *ts, uint64_t now, uint64_t age, unsigned i, const struct alert_cfg *cfg,
    enum verdict v, enum verdict *from)
{
	struct addr a = a4(i);
	struct track *t;
	enum verdict f, to;

	(void)tracks_expire(ts, now, age);
	t = tracks_get(ts, &a, 80, now);
	return letter(alert_observe(&t->t[0], cfg, v, from != NULL ? from : &f, &to));
}

/* Forgotten as soon as idle: every call expires what it can. */
static char
run(struct tracks *ts, unsigned i, const struct alert_cfg *cfg, enum verdict v)
{
	static uint64_t now = 1;

	now += 2;
	return run_at(ts, now, 0, i, cfg, v, NULL);
}

/* 1000 clean paths seen at 10, then no more: kept while younger than the
 * age, all freed by the first look after it. */
static void
test_unprobed_paths_go(void **state)
{
	struct tracks ts;
	struct alert_cfg cfg = { 2, 3 };

	(void)state;
	memset(&ts, 0, sizeof(ts));
	tracks_key(&ts, key1);
	for (unsigned i = 0; i < 1000; i++)
		assert_int_equal(run_at(&ts, 10, 100, i, &cfg, i % 2 ? OK : UN, NULL), '.');
	assert_int_equal(ts.n, 1000);
	assert_int_equal(tracks_expire(&ts, 60, 100), 0);	/* 50 old */
	assert_int_equal(tracks_expire(&ts, 109, 100), 0);	/* looked at 60 */
	assert_int_equal(ts.n, 1000);
	assert_int_equal(tracks_expire(&ts, 112, 100), 1000);	/* 102 old */
	assert_int_equal(ts.n, 0);
	for (size_t b = 0; b < ts.nb; b++)
		assert_null(ts.b[b]);
}

/* A path probed every 100 under an age of 200 keeps its entry for ever
 * among 100 paths that come and go: its raise says the state it left. */
static void
test_probed_path_remembers(void **state)
{
	struct tracks ts;
	struct alert_cfg cfg = { 2, 3 };
	enum verdict from = VERDICT_NONE;
	uint64_t now = 0;

	(void)state;
	memset(&ts, 0, sizeof(ts));
	tracks_key(&ts, key1);
	for (int cycle = 0; cycle < 50; cycle++) {
		now += 100;
		for (unsigned i = 1; i <= 100; i++)
			(void)run_at(&ts, now, 200, cycle * 100 + i, &cfg, OK, NULL);
		assert_int_equal(run_at(&ts, now, 200, 0, &cfg, OK, NULL), '.');
		/* this cycle's 100, the last one's, the one before's at most */
		assert_true(ts.n <= 301);
	}
	now += 100;
	assert_int_equal(run_at(&ts, now, 200, 0, &cfg, RW, NULL), '.');
	now += 100;
	assert_int_equal(run_at(&ts, now, 200, 0, &cfg, RW, &from), 'R');
	assert_int_equal(from, OK);
	tracks_free(&ts);
}

/* One run of path i on two scales (verdicts v0, v1), folded after it when
 * settle; the two events' letters in ev[0..2), the state scale 0 left in
 * *from; the path's scales' memory as it stood after the run in *mem. */
/* One run of a:port on two scales, as run2. */
static void
run2_on(struct tracks *ts, uint64_t now, const struct addr *a, uint16_t port,
    const struct alert_cfg *cfg, enum verdict v0, enum verdict v1, bool settle, char ev[2],
    enum verdict *from, struct alert_track mem[2])
{
	struct track *t = tracks_get(ts, a, port, now);
	enum verdict f, to;

	ev[0] = letter(alert_observe(&t->t[0], cfg, v0, from, &to));
	ev[1] = letter(alert_observe(&t->t[1], cfg, v1, &f, &to));
	memcpy(mem, t->t, 2 * sizeof(*mem));
	if (settle)
		(void)tracks_settle(ts, t);
}

static void
run2(struct tracks *ts, uint64_t now, unsigned i, const struct alert_cfg *cfg,
    enum verdict v0, enum verdict v1, bool settle, char ev[2], enum verdict *from,
    struct alert_track mem[2])
{
	struct addr a = a4(i);

	run2_on(ts, now, &a, 80, cfg, v0, v1, settle, ev, from, mem);
}

/* A group of 1000 clean paths: after each cycle none keeps a full entry
 * (each a few bytes); one of them going bad is unfolded, and its raise
 * says the state it left. */
static void
test_quiet_paths_keep_no_entry(void **state)
{
	struct tracks ts = { 0 };
	const struct alert_cfg cfg = { 2, 3 };
	struct alert_track mem[2];
	enum verdict from = VERDICT_NONE;
	char ev[2];
	uint64_t now;

	(void)state;
	tracks_key(&ts, key1);
	ts.tick_ns = 1;		/* exact times: this test's clock is in ns */
	for (now = 100; now <= 500; now += 100) {
		for (unsigned i = 0; i < 1000; i++)
			run2(&ts, now, i, &cfg, OK, OK, true, ev, &from, mem);
		assert_int_equal(ts.n, 0);	/* no full entry */
		assert_int_equal(ts.nq, 1000);	/* a few bytes each */
		/* 12 bytes a row, the table at least a third full */
		assert_true(tracks_quiet_bytes(&ts) <= 1000 * 12 * 3);
	}
	run2(&ts, now, 7, &cfg, ST, ST, true, ev, &from, mem);
	assert_memory_equal(ev, "..", 2);
	assert_int_equal(ts.n, 1);		/* a problem in sight: a full entry */
	assert_int_equal(ts.nq, 999);
	now += 100;
	run2(&ts, now, 7, &cfg, ST, ST, true, ev, &from, mem);
	assert_memory_equal(ev, "RR", 2);
	assert_int_equal(from, OK);
	/* the quiet ones go as the idle entries did; the raised one stays */
	assert_int_equal(tracks_expire(&ts, now + 1000, 500), 999);
	assert_int_equal(ts.nq, 0);
	assert_int_equal(ts.n, 1);
	assert_int_equal(tracks_quiet_bytes(&ts), 0);
	tracks_free(&ts);
}

/* One run of path i (IPv6 for every fifth, else IPv4) on two scales,
 * as run2. */
static void
run2x(struct tracks *ts, uint64_t now, unsigned i, const struct alert_cfg *cfg,
    enum verdict v0, enum verdict v1, bool settle, char ev[2], enum verdict *from,
    struct alert_track mem[2])
{
	struct addr a;
	char s[48];

	if (i % 5 == 0) {
		snprintf(s, sizeof(s), "fd00::%x:%x", i >> 16, i & 0xffff);
		assert_int_equal(addr_parse(s, &a), 0);
	} else
		a = a4(i);
	run2_on(ts, now, &a, (uint16_t)(80 + i % 3), cfg, v0, v1, settle, ev, from, mem);
}

/* A quiet path's time is kept in ticks rounded up: forgotten up to a
 * tick later than a full entry, never earlier; and the table's epoch
 * moves on before the ticks run out, so a path folded long after the
 * first is still forgotten on time, not early. */
static void
test_quiet_time_never_early(void **state)
{
	const uint64_t ms = 1000000;
	const struct alert_cfg cfg = { 2, 3 };
	enum verdict from = VERDICT_NONE;
	struct alert_track mem[2];
	struct tracks ts = { 0 };
	char ev[2];

	(void)state;
	tracks_key(&ts, key1);
	ts.tick_ns = 1000;
	run2(&ts, 0, 1, &cfg, OK, OK, true, ev, &from, mem);	/* the epoch */
	run2(&ts, 1500, 2, &cfg, OK, OK, true, ev, &from, mem);	/* tick 2 */
	assert_int_equal(ts.nq, 2);
	/* a full entry seen at 1500 would go at 1511: this one at 2001;
	 * path 1 (at 0) goes at 1511 */
	for (uint64_t at = 1511, left = 1; at <= 2011; at += 500, left--) {
		assert_int_equal(tracks_expire(&ts, at, 10), 1);
		assert_int_equal(tracks_expire(&ts, at + 490, 10), 0);	/* 2001: not yet */
		assert_int_equal(ts.nq, left);
	}
	tracks_free(&ts);

	memset(&ts, 0, sizeof(ts));
	tracks_key(&ts, key1);
	ts.tick_ns = 1;		/* 2^26 ticks: 67 ms */
	run2(&ts, 0, 1, &cfg, OK, OK, true, ev, &from, mem);
	run2(&ts, 0, 2, &cfg, OK, OK, true, ev, &from, mem);
	run2(&ts, 20 * ms, 1, &cfg, OK, OK, true, ev, &from, mem);
	assert_int_equal(tracks_expire(&ts, 20 * ms, 30 * ms), 0);
	run2(&ts, 40 * ms, 2, &cfg, OK, OK, true, ev, &from, mem);
	assert_int_equal(tracks_expire(&ts, 40 * ms, 30 * ms), 0);	/* the epoch moves */
	run2(&ts, 75 * ms, 1, &cfg, OK, OK, true, ev, &from, mem);	/* 75 ms after 0 */
	assert_int_equal(tracks_expire(&ts, 75 * ms, 30 * ms), 1);	/* path 2 */
	assert_int_equal(tracks_expire(&ts, 105 * ms, 30 * ms), 0);	/* 30 ms: not yet */
	assert_int_equal(tracks_expire(&ts, 120 * ms, 30 * ms), 1);
	assert_int_equal(ts.nq, 0);
	tracks_free(&ts);
}

/* Full entries that saw nothing on any scale. */
static size_t
blank(const struct tracks *ts)
{
	static const struct alert_track none;
	size_t n = 0;

	for (size_t b = 0; b < ts->nb; b++)
		for (const struct track *t = ts->b[b]; t != NULL; t = t->next) {
			int k = 0;

			while (k < RESULT_MAX_SCALES && memcmp(&t->t[k], &none, sizeof(none)) == 0)
				k++;
			n += k == RESULT_MAX_SCALES;
		}
	return n;
}

/* Folding changes nothing: random runs of 4,000 paths (IPv4 and IPv6)
 * through a table that folds and one that never does give the same
 * events, the same states left and the same memory after every run,
 * under several N of M; paths skipped now and then are forgotten by both
 * alike (the quiet rows' deletion in place), and a stretch where most go
 * unprobed shrinks the quiet table before it grows again. */
static void
test_folding_changes_nothing(void **state)
{
	static const enum verdict vs[] = { OK, OK, OK, OK, UN, RW, ST, FI, IN };
	static const struct alert_cfg cfgs[] = { { 1, 1 }, { 2, 3 }, { 3, 5 }, { 2, 16 } };
	const unsigned npaths = 4000;
	const size_t first_rows = (size_t)TRACKS_QUIET_SEGS * TRACKS_QUIET_MIN * 12;
	uint32_t r = 12345;

	(void)state;
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		struct tracks folded, full;
		uint64_t now = 0;
		size_t most = 0, least = SIZE_MAX;

		memset(&folded, 0, sizeof(folded));
		memset(&full, 0, sizeof(full));
		tracks_key(&folded, key1);
		tracks_key(&full, key2);
		folded.tick_ns = 1;	/* forgotten at the same time as full entries */
		for (int cycle = 0; cycle < 24; cycle++) {
			/* cycles 12-15 probe a tenth of the paths */
			unsigned n = cycle >= 12 && cycle < 16 ? npaths / 10 : npaths;

			now += 10;
			for (unsigned i = 0; i < n; i++) {
				enum verdict v0, v1, f1 = END, f2 = END;
				struct alert_track m1[2], m2[2];
				char e1[2], e2[2];

				r = r * 1103515245u + 12345u;
				if ((r >> 8) % 16 == 0)
					continue;	/* not probed this cycle */
				/* mostly clean, and each path mostly the same
				 * run after run (so many fold) */
				v0 = (r >> 16) % 4 == 0 ? vs[(r >> 20) % 9] : (i % 3 ? OK : UN);
				v1 = (r >> 24) % 8 == 0 ? vs[(r >> 27) % 9] : v0;
				(void)tracks_expire(&folded, now, 25);
				(void)tracks_expire(&full, now, 25);
				run2x(&folded, now, i, &cfgs[c], v0, v1, true, e1, &f1, m1);
				run2x(&full, now, i, &cfgs[c], v0, v1, false, e2, &f2, m2);
				assert_memory_equal(e1, e2, 2);
				assert_int_equal(f1, f2);
				assert_memory_equal(m1, m2, sizeof(m1));
			}
			/* the same paths remembered (but those that saw
			 * nothing measured, the same as never seen) */
			assert_int_equal(folded.n + folded.nq, full.n - blank(&full));
			if (tracks_quiet_bytes(&folded) > most)
				most = tracks_quiet_bytes(&folded);
			if (cycle == 15 && tracks_quiet_bytes(&folded) < least)
				least = tracks_quiet_bytes(&folded);
		}
		assert_true(folded.nq > npaths / 10);
		assert_int_equal(full.nq, 0);
		/* segments grew past their first rows (IPv4's and IPv6's,
		 * 12 and 24 bytes), then shrank back to them at most */
		print_message("# %zu quiet of %zu; quiet rows: %zu bytes at most, %zu while few were probed\n", folded.nq, full.n,
		    most, least);
		assert_true(most > 3 * first_rows);
		assert_true(least <= 3 * first_rows);
		tracks_free(&folded);
		tracks_free(&full);
	}
}

/* A path with a problem in its window is kept however long unseen, until
 * its alert cleared and its window is clean; then it goes. */
static void
test_broken_path_kept_until_clean(void **state)
{
	struct tracks ts;
	struct alert_cfg cfg = { 2, 3 };
	const enum verdict runs[] = { OK, RW, RW, RW, OK, OK, OK, OK };
	const char *want = "..R..X..";
	/* entries after each run, each 1000 after the last (age 10): from
	 * the first problem until the window (3 runs) holds none, one run
	 * after the clear */
	const size_t kept[] = { 0, 1, 1, 1, 1, 1, 0, 0 };
	uint64_t now = 0;

	(void)state;
	memset(&ts, 0, sizeof(ts));
	tracks_key(&ts, key1);
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		now += 1000;
		size_t before;

		assert_int_equal(run_at(&ts, now, 10, 0, &cfg, runs[k], NULL), want[k]);
		before = ts.n;
		assert_int_equal(tracks_expire(&ts, now + 1000, 10), before - kept[k]);
		print_message("# run %zu: %zu entries\n", k, ts.n);
		assert_int_equal(ts.n, kept[k]);
	}
	tracks_free(&ts);
}

/* test_alert_state.c's table through the table of tracks, forgotten whenever
 * idle: the same events, and one row where forgetting shows. */
static const struct row {
	int n, m;
	enum verdict runs[16];
	const char *events;
} rows[] = {
	{ 2, 3, { OK, OK, OK, OK, END }, "...." },
	{ 2, 3, { RW, RW, RW, END }, ".R." },
	{ 2, 3, { OK, OK, RW, RW, RW, OK, OK, OK, END }, "...R..X." },
	{ 2, 3, { OK, OK, RW, OK, OK, RW, OK, END }, "......." },
	{ 2, 3, { OK, OK, RW, OK, RW, OK, END }, "....RX" },
	{ 3, 4, { OK, OK, RW, OK, RW, OK, RW, OK, END }, "........" },
	{ 1, 1, { OK, RW, OK, RW, END }, ".RXR" },
	{ 2, 2, { RW, RW, ST, ST, OK, OK, END }, ".R.C.X" },
	{ 2, 3, { OK, OK, RW, FI, IN, FI, RW, OK, OK, OK, END }, "......R.X." },
	{ 2, 3, { OK, OK, UN, UN, END }, "...." },
	{ 2, 3, { UN, UN, SD, SD, END }, "...R" },
	{ 3, 5, { OK, RW, OK, RW, OK, RW, RW, OK, OK, OK, OK, END }, ".....R..X.." },
	/* forgotten: the clean runs before the raise no longer count towards
	 * its clear (kept: .....RX.), which takes its own 2 clean runs */
	{ 2, 4, { OK, OK, OK, OK, RW, RW, OK, OK, END }, ".....R.X" },
};

static void
test_forgetting_keeps_the_events(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		const struct row *r = &rows[k];
		struct alert_cfg cfg = { r->n, r->m };
		struct tracks ts;
		char got[17] = "";
		size_t i;

		memset(&ts, 0, sizeof(ts));
		tracks_key(&ts, key2);
		for (i = 0; r->runs[i] != END; i++)
			got[i] = run(&ts, 7, &cfg, r->runs[i]);
		got[i] = '\0';
		print_message("# row %zu: %s\n", k, got);
		assert_string_equal(got, r->events);
		tracks_free(&ts);
	}
}

static size_t
bucket_of(const struct tracks *ts, const struct track *t)
{
	for (size_t b = 0; b < ts->nb; b++)
		for (const struct track *x = ts->b[b]; x != NULL; x = x->next)
			if (x == t)
				return b;
	fail();
	return 0;
}

static void
test_the_key_decides_the_buckets(void **state)
{
	struct tracks t1, t2;
	size_t same = 0;

	(void)state;
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	tracks_key(&t1, key1);
	tracks_key(&t2, key2);
	for (unsigned i = 0; i < 256; i++) {
		struct addr a = a4(i);
		struct track *x = tracks_get(&t1, &a, 443, 1), *y = tracks_get(&t2, &a, 443, 1);

		/* found again, not made twice */
		assert_ptr_equal(tracks_get(&t1, &a, 443, 2), x);
		same += bucket_of(&t1, x) == bucket_of(&t2, y);
	}
	print_message("# 256 paths, %zu in the same bucket under both keys\n", same);
	assert_int_equal(t1.n, 256);
	/* 1024 buckets: about 0.25 expected by chance */
	assert_true(same < 8);
	tracks_free(&t1);
	tracks_free(&t2);
	assert_int_equal(t1.n, 0);
}

/* 200,000 paths: the buckets double past two entries each, every path
 * found again as the same entry, the longest chain short. */
static void
test_buckets_grow(void **state)
{
	struct tracks ts;
	struct track **first = calloc(200000, sizeof(*first));
	size_t longest = 0;
	uint8_t key[SIPHASH_KEY_LEN] = { 9 };

	(void)state;
	assert_non_null(first);
	memset(&ts, 0, sizeof(ts));
	tracks_key(&ts, key);
	for (uint32_t i = 0; i < 200000; i++) {
		struct addr a = { ADDR_V4, { 198, (uint8_t)(18 + (i >> 16)), (uint8_t)(i >> 8),
		    (uint8_t)i } };

		first[i] = tracks_get(&ts, &a, 80, 1);
	}
	assert_int_equal(ts.n, 200000);
	assert_true(ts.nb >= 200000 / 2);
	for (uint32_t i = 0; i < 200000; i++) {
		struct addr a = { ADDR_V4, { 198, (uint8_t)(18 + (i >> 16)), (uint8_t)(i >> 8),
		    (uint8_t)i } };

		assert_ptr_equal(tracks_get(&ts, &a, 80, 2), first[i]);
	}
	assert_int_equal(ts.n, 200000);
	for (size_t b = 0; b < ts.nb; b++) {
		size_t n = 0;

		for (const struct track *x = ts.b[b]; x != NULL; x = x->next)
			n++;
		if (n > longest)
			longest = n;
	}
	assert_true(longest <= 16);
	tracks_free(&ts);
	free(first);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unprobed_paths_go),
		cmocka_unit_test(test_probed_path_remembers),
		cmocka_unit_test(test_quiet_paths_keep_no_entry),
		cmocka_unit_test(test_folding_changes_nothing),
		cmocka_unit_test(test_quiet_time_never_early),
		cmocka_unit_test(test_broken_path_kept_until_clean),
		cmocka_unit_test(test_forgetting_keeps_the_events),
		cmocka_unit_test(test_the_key_decides_the_buckets),
		cmocka_unit_test(test_buckets_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
