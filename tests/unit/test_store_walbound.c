/*
 * test_store_walbound.c -- the writer's WAL stays bounded (db/store_ckpt.c):
 * a writer that commits without pause, past its bound many times over
 * while a reader holds a snapshot now and then, keeps its -wal file under
 * the bound plus one batch (the one that crossed it); a reader that holds
 * its snapshot across commits keeps the RESTART checkpoint from
 * completing, which is said (store_ckpt_failed) and not tried at every
 * commit, only once a turn, and once the reader has gone the WAL comes
 * back under the bound.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "store.h"
#include "storegen.h"

#define T0	1764000000
#define BOUND	(1u << 20)	/* the test's bound: passed every few batches */
#define BATCH	100		/* results a batch */

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	return storegen_scratch(dir, sizeof(dir), "test_store_walbound");
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long long
wal_size(const char *file)
{
	char wal[128];
	struct stat sb;

	snprintf(wal, sizeof(wal), "%s-wal", file);
	return stat(wal, &sb) == 0 ? (long long)sb.st_size : 0;
}

static struct store *
open_writer(const char *file, uint64_t ckpt_ns)
{
	/* batches by count only: a commit comes where the test says */
	struct store_opts o = { .batch_rows = BATCH, .batch_ns = 3600 * 1000000000ull,
	    .wal_bytes = BOUND, .ckpt_ns = ckpt_ns };
	char err[STORE_ERRLEN] = "";
	struct store *st = store_open(file, STORE_WRITE, &o, err, sizeof(err));

	if (st == NULL)
		fail_msg("store_open %s: %s", file, err);
	return st;
}

/* A reader's connection, as show's: read-only, its own. */
static sqlite3 *
open_reader(const char *file)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("reader %s: %s", file, sqlite3_errmsg(db));
	return db;
}

/* A snapshot taken (a read transaction that has read) or let go. */
static void
snapshot(sqlite3 *db, bool hold)
{
	if (hold) {
		sqlite3_stmt *s;

		assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM path_results", -1,
		    &s, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		sqlite3_finalize(s);
	} else {
		assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	}
}

struct walk {
	struct store *st;
	const char *file;
	int64_t run_id;
	unsigned next;
	long long max, step, last;	/* the -wal's bytes: largest, largest
					   growth of one store_add, last */
};

static void
walk_begin(struct walk *w, struct store *st, const char *file)
{
	struct store_run run = { .start = { T0, 0 }, .vantage = "lab",
	    .settings = "scales=0,7,14", .program = "test_store_walbound" };

	memset(w, 0, sizeof(*w));
	w->st = st;
	w->file = file;
	assert_int_equal(store_run_begin(st, &run, &w->run_id), 0);
}

/* One more result (each a new path: the writer's heaviest WAL). */
static void
walk_add(struct walk *w)
{
	struct storegen g;
	long long sz;

	storegen_make(&g, w->next, T0, false);
	if (store_add(w->st, w->run_id, &g.res) != 0)
		fail_msg("store_add %u: %s", w->next, store_error(w->st));
	storegen_free(&g);
	w->next++;
	sz = wal_size(w->file);
	if (sz > w->max)
		w->max = sz;
	if (sz - w->last > w->step)
		w->step = sz - w->last;
	w->last = sz;
}

/* 12,000 results, each batch a reader's snapshot held over half of it
 * (taken after the commit, let go before the next): the -wal's file never
 * grows past the bound plus the batch that crossed it. */
static void
test_bounded_with_readers(void **state)
{
	char file[128];
	struct walk w;
	struct store *st;
	sqlite3 *rd;
	const struct store_stats *ss;

	(void)state;
	snprintf(file, sizeof(file), "%s/bounded.sqlite", dir);
	st = open_writer(file, 0);
	rd = open_reader(file);
	walk_begin(&w, st, file);
	for (unsigned i = 0; i < 12000; i++) {
		if (i % BATCH == 10)
			snapshot(rd, true);
		walk_add(&w);
		if (i % BATCH == 60)
			snapshot(rd, false);
	}
	ss = store_get_stats(st);
	printf("# %u results in %llu batches: -wal at most %lld bytes (bound %u, largest "
	    "batch %lld); %llu RESTART checkpoints, %llu busy, longest %.1f ms\n", w.next,
	    (unsigned long long)ss->batches, w.max, BOUND, w.step,
	    (unsigned long long)ss->wal_ckpt, (unsigned long long)ss->wal_busy,
	    ss->wal_ckpt_ns_max / 1e6);
	/* the bound was passed, more than once, and held */
	assert_true(w.max > BOUND);
	assert_true(w.max <= (long long)BOUND + w.step);
	assert_true(ss->wal_ckpt >= 3);
	assert_int_equal(ss->wal_busy, 0);
	assert_false(store_ckpt_failed(st, NULL, 0));
	assert_int_equal(store_close(st, NULL, 0), 0);
	sqlite3_close(rd);
}

/* A reader holding one snapshot across many commits: the WAL cannot
 * restart; the failed RESTART is said, tried once a turn at most (not at
 * every commit), and after the reader has gone it succeeds and the -wal
 * is cut back under the bound. */
static void
test_reader_in_the_way(void **state)
{
	const uint64_t turn = 200 * 1000000ull;
	char file[128], why[STORE_ERRLEN] = "";
	struct walk w;
	struct store *st;
	sqlite3 *rd;
	const struct store_stats *ss;
	uint64_t t0, busy, batches;
	unsigned i;

	(void)state;
	snprintf(file, sizeof(file), "%s/held.sqlite", dir);
	st = open_writer(file, turn);
	rd = open_reader(file);
	walk_begin(&w, st, file);
	for (i = 0; i < 2 * BATCH; i++)
		walk_add(&w);
	snapshot(rd, true);
	t0 = now_ns();
	for (i = 0; i < 40 * BATCH; i++)
		walk_add(&w);
	ss = store_get_stats(st);
	busy = ss->wal_busy;
	batches = ss->batches;
	printf("# held over %llu batches, %.2f s: -wal %lld bytes, %llu busy RESTARTs\n",
	    (unsigned long long)batches, (now_ns() - t0) / 1e9, w.last,
	    (unsigned long long)busy);
	assert_true(w.last > 2 * BOUND);
	assert_true(busy >= 1);
	/* once a turn at most, not once a commit (a bound that only a
	 * clock running slow could break, however loaded the machine) */
	assert_true(busy <= 1 + (now_ns() - t0) / turn);
	assert_true(store_ckpt_failed(st, why, sizeof(why)));
	printf("# %s\n", why);
	assert_non_null(strstr(why, "readers hold older snapshots"));
	snapshot(rd, false);
	/* the reader gone, the writer goes on: a turn later the RESTART
	 * completes (bounded: 60 s), then the WAL restarts */
	t0 = now_ns();
	while (store_ckpt_failed(st, NULL, 0) && now_ns() - t0 < 60 * 1000000000ull)
		walk_add(&w);
	assert_false(store_ckpt_failed(st, NULL, 0));
	for (i = 0; i < 2 * BATCH; i++)
		walk_add(&w);
	printf("# let go: checkpointed after %.2f s; -wal now %lld bytes\n",
	    (now_ns() - t0) / 1e9, w.last);
	assert_true(w.last <= (long long)BOUND + w.step);
	assert_int_equal(store_close(st, NULL, 0), 0);
	sqlite3_close(rd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded_with_readers),
		cmocka_unit_test(test_reader_in_the_way),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
