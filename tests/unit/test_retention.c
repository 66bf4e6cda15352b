/*
 * test_retention.c -- the daemon's retention on an aged store: results of
 * PATHS paths, one a day from 500 days ago to today (storegen.c's, written
 * through store_add with their times given: the injected clock), each path
 * broken and fixed in spells of weeks.  store_prune_step, the entry point
 * the daemon's schedule calls, prunes past a retention of 100 days while a
 * reader on a connection of its own reads every path in a loop, and:
 *   - what is older than the cutoff is exactly what begins or ends a spell
 *     (worked out here from the generator, not from the store's SQL);
 *   - show's fold (the changes of state, their first and last times) is
 *     the same before and after, for every path;
 *   - the file shrinks;
 *   - the reader saw each path either as before or as after, never half;
 *   - no transaction held the write lock long.
 *
 * STORE_AGE=FILE test_retention writes the aged store to FILE, its last
 * day half a day ago, and exits (tests/e2e/db-e2e prunes it with
 * scaleprobe db prune); STORE_AGE_PATHS=N: N paths rather than 32.
 */
#include <sys/stat.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "addr.h"
#include "history.h"
#include "show_fold.h"
#include "store.h"
#include "storegen.h"

#define PATHS		32
#define DAYS		501		/* 500 days ago .. today */
#define RETENTION	100
#define NOW_S		1796000000	/* "today": the injected clock */
#define DAY_S		86400
#define T0_S		(NOW_S - (int64_t)(DAYS - 1) * DAY_S)
#define CUTOFF_NS	((int64_t)(NOW_S - (int64_t)RETENTION * DAY_S) * 1000000000)
#define BATCH_PATHS	8		/* the daemon's is 64: more batches here */

static char dir[64];

/* Path i on day d: broken (its scales 7 and 14 rewritten) or not, in
 * spells of 20 to 36 days; every 4th path (storegen's "closed") is closed
 * all along. */
static bool
broken(unsigned i, unsigned d)
{
	return (((d + i * 7) / (20 + i % 17)) % 3) == 0;
}

static bool
closed(unsigned i)
{
	return i % 4 == 2;
}

static void
write_aged(struct store *st, unsigned paths, int64_t t0)
{
	for (unsigned d = 0; d < DAYS; d++) {
		int64_t t = t0 + (int64_t)d * DAY_S;
		struct store_run run = { .start = { t, 0 }, .vantage = "v1",
		    .settings = "s", .program = "test_retention" };
		int64_t run_id;

		assert_int_equal(store_run_begin(st, &run, &run_id), 0);
		for (unsigned i = 0; i < paths; i++) {
			struct storegen g;

			/* i % 4 == 1: storegen's traced paths, with evidence */
			storegen_make(&g, i, t, i % 4 == 1);
			if (!closed(i))
				for (int k = 1; k < g.res.nscales; k++)
					g.res.verdicts[k].verdict = broken(i, d) ?
					    VERDICT_REWRITTEN : VERDICT_OK;
			assert_int_equal(store_add(st, run_id, &g.res), 0);
			storegen_free(&g);
		}
	}
	assert_int_equal(store_flush(st, true), 0);
}

/* The days of path i older than the cutoff that begin or end a spell of
 * one verdict on some scale: scale 0 is one spell (its first day), the
 * others change with broken(). */
static unsigned
expected_old(unsigned i)
{
	unsigned n = 0;

	for (unsigned d = 0; d < DAYS; d++) {
		int64_t t = T0_S + (int64_t)d * DAY_S;
		bool edge;

		if ((int64_t)t * 1000000000 >= CUTOFF_NS)
			break;
		edge = d == 0;
		if (!closed(i) && d > 0 && broken(i, d) != broken(i, d - 1))
			edge = true;
		if (!closed(i) && d + 1 < DAYS && broken(i, d) != broken(i, d + 1))
			edge = true;
		n += edge;
	}
	return n;
}

static void
host_of(unsigned i, char *buf, size_t len)
{
	struct storegen g;

	storegen_make(&g, i, 0, false);
	addr_format(&g.res.dst, buf, len);
	storegen_free(&g);
}

/* What one read of a host saw: its old rows, as a count and a digest. */
struct seen {
	uint64_t old_rows, digest;
};

static int
seen_row(void *arg, const struct history_row *r)
{
	struct seen *s = arg;

	if (r->time_ns < CUTOFF_NS) {
		s->old_rows++;
		s->digest = s->digest * 1000003u ^ (uint64_t)r->path_result_id * 31u ^
		    (uint64_t)r->scale_idx;
	}
	return 0;
}

static void
read_host(struct history *h, unsigned i, struct seen *s)
{
	char host[64];
	struct history_query q = { host, -1, INT64_MIN, NULL };

	host_of(i, host, sizeof(host));
	memset(s, 0, sizeof(*s));
	if (history_show(h, &q, seen_row, s) != 0)
		fail_msg("%s", history_error(h));
}

/* show's fold of every path: per series, its changes as text. */
static int
fold_row(void *arg, const struct history_row *r)
{
	show_fold_add(arg, r);
	return 0;
}

static char *
story(struct history *h, unsigned i)
{
	char host[64];
	struct history_query q = { host, -1, INT64_MIN, NULL };
	struct show_fold f;
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);

	host_of(i, host, sizeof(host));
	memset(&f, 0, sizeof(f));
	assert_non_null(out);
	out[0] = '\0';
	assert_int_equal(history_show(h, &q, fold_row, &f), 0);
	assert_false(f.failed);
	for (size_t k = 0; k < f.n; k++)
		for (size_t e = 0; e < f.v[k].nev; e++) {
			const struct show_event *ev = &f.v[k].ev[e];
			int n;

			if (cap - len < 256) {
				cap *= 2;
				out = realloc(out, cap);
				assert_non_null(out);
			}
			n = snprintf(out + len, cap - len, "%d %s %s %lld..%lld\n",
			    f.v[k].last.scale_sent, show_change_name(ev->change),
			    ev->verdict != NULL ? ev->verdict : "-", (long long)ev->time_ns,
			    (long long)ev->last_ns);
			len += (size_t)n;
		}
	show_fold_free(&f);
	return out;
}

/* The reader beside the prune: every host in turn, until told to stop. */
struct reader {
	const char *file;
	atomic_bool stop;
	struct seen *obs;		/* [nobs] */
	unsigned *obs_host;
	size_t nobs, cap;
	unsigned passes;
};

static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	char err[STORE_ERRLEN];
	struct store *st = store_open(r->file, STORE_READ, NULL, err, sizeof(err));
	struct history *h = st != NULL ? history_open(st, err, sizeof(err)) : NULL;

	if (h == NULL) {
		fprintf(stderr, "reader: %s\n", err);
		return NULL;
	}
	/* at least one whole pass, even if the prune was quicker */
	while (!atomic_load(&r->stop) || r->passes == 0) {
		for (unsigned i = 0; i < PATHS; i++) {
			if (r->nobs == r->cap) {
				r->cap = r->cap ? 2 * r->cap : 4096;
				r->obs = realloc(r->obs, r->cap * sizeof(*r->obs));
				r->obs_host = realloc(r->obs_host, r->cap * sizeof(*r->obs_host));
				if (r->obs == NULL || r->obs_host == NULL)
					abort();
			}
			read_host(h, i, &r->obs[r->nobs]);
			r->obs_host[r->nobs++] = i;
		}
		r->passes++;
	}
	history_close(h);
	store_close(st, NULL, 0);
	return NULL;
}

static void
test_aged_store(void **state)
{
	char file[128], err[STORE_ERRLEN];
	struct store *st;
	struct history *h;
	struct store_prune p;
	struct seen before[PATHS], after[PATHS];
	char *story_before[PATHS];
	struct reader rd;
	pthread_t t;
	struct stat a, b;
	int64_t rows_before, rows_after, bytes, oldest;
	size_t saw_before = 0, saw_after = 0;
	int rc;

	(void)state;
	snprintf(file, sizeof(file), "%s/aged.sqlite", dir);
	st = store_open(file, STORE_WRITE, NULL, err, sizeof(err));
	if (st == NULL)
		fail_msg("%s", err);
	write_aged(st, PATHS, T0_S);
	assert_int_equal(store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)"), 0);
	assert_int_equal(stat(file, &a), 0);
	rows_before = store_query_int(st, "SELECT count(*) FROM path_results");
	assert_int_equal(rows_before, (int64_t)PATHS * DAYS);
	assert_int_equal(store_size(st, &bytes, &oldest), 0);
	assert_int_equal(oldest, (int64_t)T0_S * 1000000000 + 123456);
	assert_true(bytes >= a.st_size);
	h = history_open(st, err, sizeof(err));
	assert_non_null(h);
	for (unsigned i = 0; i < PATHS; i++) {
		read_host(h, i, &before[i]);
		story_before[i] = story(h, i);
	}

	memset(&rd, 0, sizeof(rd));
	rd.file = file;
	atomic_init(&rd.stop, false);
	assert_int_equal(pthread_create(&t, NULL, reader_main, &rd), 0);
	store_prune_init(&p, CUTOFF_NS, BATCH_PATHS, false);
	while ((rc = store_prune_step(st, &p)) > 0)
		;
	if (rc != 0)
		fail_msg("%s", store_error(st));
	atomic_store(&rd.stop, true);
	pthread_join(t, NULL);
	/* the daemon leaves this to its checkpoint thread */
	assert_int_equal(store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)"), 0);
	assert_int_equal(stat(file, &b), 0);
	rows_after = store_query_int(st, "SELECT count(*) FROM path_results");

	/* what is old is what the rule keeps, path by path */
	for (unsigned i = 0; i < PATHS; i++) {
		char *s;

		read_host(h, i, &after[i]);
		if (after[i].old_rows != (uint64_t)expected_old(i) * (unsigned)3)
			fail_msg("path %u: %llu old scale rows left, expected %u", i,
			    (unsigned long long)after[i].old_rows, expected_old(i) * 3);
		s = story(h, i);
		if (strcmp(s, story_before[i]) != 0)
			fail_msg("path %u: show tells another story:\n%s---\n%s", i,
			    story_before[i], s);
		free(s);
		free(story_before[i]);
	}
	assert_int_equal(rows_before - (int64_t)p.results, rows_after);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM runs WHERE NOT EXISTS "
	    "(SELECT 1 FROM path_results WHERE run_id = runs.id)"), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	assert_int_equal(store_query_int(st, "PRAGMA freelist_count"), 0);

	/* the reader: each path as before or as after, never between */
	for (size_t k = 0; k < rd.nobs; k++) {
		unsigned i = rd.obs_host[k];
		const struct seen *o = &rd.obs[k];

		if (o->old_rows == before[i].old_rows && o->digest == before[i].digest)
			saw_before++;
		else if (o->old_rows == after[i].old_rows && o->digest == after[i].digest)
			saw_after++;
		else
			fail_msg("the reader saw path %u half pruned: %llu old rows (before %llu, "
			    "after %llu)", i, (unsigned long long)o->old_rows,
			    (unsigned long long)before[i].old_rows,
			    (unsigned long long)after[i].old_rows);
	}
	print_message("# %lld results, %lld bytes before; %lld results, %lld bytes after; "
	    "%llu paths pruned in %llu transactions, the longest %.1f ms, %.2f s; the reader: "
	    "%u passes, %zu reads before, %zu after\n", (long long)rows_before,
	    (long long)a.st_size, (long long)rows_after, (long long)b.st_size,
	    (unsigned long long)p.paths, (unsigned long long)p.batches,
	    (double)p.lock_ns_max / 1e6, (double)p.took_ns / 1e9, rd.passes, saw_before,
	    saw_after);
	assert_true(rd.nobs > 0);
	assert_true(b.st_size < a.st_size / 2);
	assert_true(p.bytes_after < p.bytes_before);
	assert_int_equal(p.paths, PATHS);
	/* the lock is taken in many short holds, none of them a large share
	 * of the pass (the daemon's batches are 64 paths, here 8); the time
	 * bound only a sanity one, a loaded machine and ASan allowed for */
	assert_true(p.batches >= PATHS / BATCH_PATHS + 2);
	assert_true(p.lock_ns_max < p.took_ns / 3);
	assert_true(p.lock_ns_max < 5000000000u);
	assert_int_equal(store_size(st, &bytes, &oldest), 0);
	assert_int_equal(oldest, (int64_t)T0_S * 1000000000 + 123456);
	free(rd.obs);
	free(rd.obs_host);
	history_close(h);
	assert_int_equal(store_close(st, NULL, 0), 0);
}

/* A dry run counts what a prune removes and writes nothing. */
static void
test_dry_run(void **state)
{
	char file[128], err[STORE_ERRLEN];
	struct store *st;
	struct store_prune dry, real;
	int64_t rows;
	int rc;

	(void)state;
	snprintf(file, sizeof(file), "%s/dry.sqlite", dir);
	st = store_open(file, STORE_WRITE, NULL, err, sizeof(err));
	assert_non_null(st);
	write_aged(st, 6, T0_S);
	rows = store_query_int(st, "SELECT count(*) FROM path_results");
	store_prune_init(&dry, CUTOFF_NS, 0, true);
	while ((rc = store_prune_step(st, &dry)) > 0)
		;
	assert_int_equal(rc, 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), rows);
	assert_int_equal(store_query_int(st, "PRAGMA freelist_count"), 0);
	store_prune_init(&real, CUTOFF_NS, 0, false);
	while ((rc = store_prune_step(st, &real)) > 0)
		;
	assert_int_equal(rc, 0);
	assert_int_equal(dry.results, real.results);
	assert_int_equal(dry.paths, real.paths);
	assert_int_equal(dry.runs, real.runs);
	assert_int_equal(dry.evidence, real.evidence);
	assert_true(real.results > 0);
	assert_int_equal(store_close(st, NULL, 0), 0);
}

static int
setup(void **state)
{
	(void)state;
	return storegen_scratch(dir, sizeof(dir), "test_retention");
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

int
main(void)
{
	const char *age = getenv("STORE_AGE");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aged_store),
		cmocka_unit_test(test_dry_run),
	};

	if (age != NULL) {
		char err[STORE_ERRLEN];
		struct store *st = store_open(age, STORE_WRITE, NULL, err, sizeof(err));

		if (st == NULL) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		/* its days end half a day ago, by the real clock: a cutoff of
		 * whole days from now falls between two days' results */
		write_aged(st, getenv("STORE_AGE_PATHS") != NULL ?
		    (unsigned)strtoul(getenv("STORE_AGE_PATHS"), NULL, 10) : PATHS,
		    (int64_t)time(NULL) - (int64_t)(DAYS - 1) * DAY_S - DAY_S / 2);
		return store_close(st, err, sizeof(err)) == 0 ? 0 : 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
