/*
 * storefault.c -- the daemon's use of the store, as a program of its own
 * for tests/e2e/iofault-e2e to run under the iofault shim at each write
 * and sync: open (a failed open tried again, as the unit restarts the
 * daemon), the discard of unfinished work, then CYCLES cycles of TARGETS
 * targets of PATHS paths each (a run marked as the cycle, every result,
 * the target's state after its results, an alert raised, the idle tick's
 * store_flush after each target), the store closed.  While the store
 * fails it prints one line when the failure begins (the daemon's alert,
 * with store_error) and one when it writes again; rows stay in memory
 * meanwhile and the tick tries again by itself; a failed checkpoint is
 * one line too.  Prints "N failures, N recoveries, N checkpoints failed,
 * N opens"; exit 1 when a failure did not end.
 *
 * check (run without the shim: a reader's own I/O is not the writer's):
 * what the daemon's store must hold, read back: quick_check clean
 * (store_check), every result exactly once under its cycle and path,
 * every state with its count of results, the one alert.  Prints
 * "results R of R, states S of S, alerts 1"; exit 1 when something is
 * missing or doubled.
 *
 * usage: storefault write|check DB CYCLES TARGETS PATHS (exit 2: usage)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "../unit/storegen.h"

static unsigned failures, recoveries, ckpt_failures;
static bool ckpt_failing;

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The daemon's alert: one line as the store begins to fail, one as it
 * writes again. */
static void
watch(struct store *st, bool *failing)
{
	char why[STORE_ERRLEN];

	if (store_ckpt_failed(st, why, sizeof(why)) != ckpt_failing) {
		ckpt_failing = !ckpt_failing;
		ckpt_failures += ckpt_failing;
		printf("%s%s\n", ckpt_failing ? why : "checkpoints succeed again",
		    ckpt_failing ? " (commits go on into the WAL)" : "");
	}
	if (store_failing(st) == *failing)
		return;
	*failing = store_failing(st);
	if (*failing) {
		failures++;
		printf("store failing: %s\n", store_error(st));
	} else {
		recoveries++;
		printf("store writes again\n");
	}
}

static void
fault_line(void *arg, const char *line)
{
	(void)arg;
	printf("check: %s\n", line);
}

static struct store *
open_writer(const char *db, unsigned *opens)
{
	struct store_opts o = { .batch_rows = 6, .batch_ns = 1, .retry_ns = 5000000 };
	char err[STORE_ERRLEN];

	/* a failed open exits the daemon (1) and the unit starts it again */
	for (int tries = 0; tries < 50; tries++) {
		struct store *st;

		(*opens)++;
		if ((st = store_open(db, STORE_WRITE, &o, err, sizeof(err))) == NULL) {
			printf("open: %s\n", err);
			if (store_open_refused())
				return NULL;
			nap(5);
			continue;
		}
		if (store_discard_unfinished(st) >= 0)
			return st;
		printf("open: %s\n", store_error(st));
		store_close(st, NULL, 0);
		nap(5);
	}
	return NULL;
}

/* One target's paths and its state, as a daemon's unit ends. */
static int
one_target(struct store *st, bool *failing, int64_t run, unsigned c, unsigned t, unsigned paths)
{
	struct storegen g;
	struct store_state s;
	char spec[32];

	snprintf(spec, sizeof(spec), "t%u.example", t);
	for (unsigned p = 0; p < paths; p++) {
		storegen_make(&g, t * paths + p, 1700000000 + (int64_t)c * 60, true);
		g.res.target = spec;
		if (store_add(st, run, &g.res) != 0 && !store_failing(st))
			printf("add: %s\n", store_error(st));
		storegen_free(&g);
		watch(st, failing);
	}
	memset(&s, 0, sizeof(s));
	s.group = "g";
	s.target = spec;
	s.cycle = c;
	s.state = "measured";
	s.paths = paths;
	s.time_ns = (1700000000 + (int64_t)c * 60) * 1000000000;
	if (store_state_add(st, run, &s) != 0 && !store_failing(st))
		printf("state: %s\n", store_error(st));
	watch(st, failing);
	/* the watchdog's tick: an idle batch committed, a failing store
	 * tried again */
	(void)store_flush(st, false);
	watch(st, failing);
	return 0;
}

static int64_t
count(struct store *st, const char *sql)
{
	return store_query_int(st, sql);
}

static int
write_store(const char *db, unsigned cycles, unsigned targets, unsigned paths)
{
	unsigned opens = 0;
	struct store *st;
	bool failing = false;
	char err[STORE_ERRLEN];

	if ((st = open_writer(db, &opens)) == NULL)
		return 1;
	for (unsigned c = 1; c <= cycles; c++) {
		struct store_run run = { .vantage = "lab", .settings = "scales 0,7,14",
		    .program = "storefault" };
		struct store_alert a = { .vantage = "lab", .kind = "path",
		    .address = "198.19.0.1", .port = 80, .state = "rewritten", .scales = "7:rewritten",
		    .raised_ns = 1, .changed_ns = (int64_t)c };
		int64_t id;

		run.start.tv_sec = 1700000000 + (time_t)c * 60;
		if (store_run_begin(st, &run, &id) != 0 ||
		    store_run_cycle(st, id, "g", (int64_t)c) != 0)
			printf("run: %s\n", store_error(st));
		watch(st, &failing);
		for (unsigned t = 0; t < targets; t++)
			one_target(st, &failing, id, c, t, paths);
		if (store_alert_put(st, &a, false) != 0 && !store_failing(st))
			printf("alert: %s\n", store_error(st));
		watch(st, &failing);
	}
	/* the fault is over: the tick writes the kept rows by itself */
	for (int i = 0; i < 2000 && (store_failing(st) || store_pending(st) > 0); i++) {
		nap(2);
		(void)store_flush(st, false);
		watch(st, &failing);
	}
	if (store_close(st, err, sizeof(err)) != 0)
		printf("close: %s\n", err);
	printf("%u failures, %u recoveries, %u checkpoints failed, %u opens\n", failures,
	    recoveries, ckpt_failures, opens);
	return failures == recoveries ? 0 : 1;
}

static int
check_store(const char *db, unsigned cycles, unsigned targets, unsigned paths)
{
	struct store *st;
	char err[STORE_ERRLEN];
	int64_t want, res, once, states, alerts;
	int faults;

	if ((faults = store_check(db, true, fault_line, NULL, err, sizeof(err))) != 0)
		printf("check: %d faults%s%s\n", faults, faults < 0 ? ": " : "",
		    faults < 0 ? err : "");
	if ((st = store_open(db, STORE_READ, NULL, err, sizeof(err))) == NULL) {
		printf("read: %s\n", err);
		return 1;
	}
	want = (int64_t)cycles * targets * paths;
	res = count(st, "SELECT count(*) FROM path_results");
	once = count(st, "SELECT count(*) FROM (SELECT DISTINCT r.cycle, pr.path_id FROM "
	    "path_results pr JOIN runs r ON r.id = pr.run_id WHERE r.grp = 'g')");
	states = count(st, "SELECT count(*) FROM target_states s WHERE s.paths = (SELECT "
	    "count(*) FROM path_results pr WHERE pr.run_id = s.run_id AND "
	    "pr.target_id = s.target_id)");
	alerts = count(st, "SELECT count(*) FROM open_alerts");
	printf("results %lld of %lld (%lld distinct), states %lld of %u, alerts %lld\n",
	    (long long)res, (long long)want, (long long)once, (long long)states,
	    cycles * targets, (long long)alerts);
	store_close(st, NULL, 0);
	return faults == 0 && res == want && once == want && states == cycles * targets &&
	    alerts == 1 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	unsigned cycles, targets, paths;

	if (argc != 6 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "check") != 0) ||
	    (cycles = (unsigned)atoi(argv[3])) == 0 ||
	    (targets = (unsigned)atoi(argv[4])) == 0 || (paths = (unsigned)atoi(argv[5])) == 0) {
		fprintf(stderr, "usage: storefault write|check DB CYCLES TARGETS PATHS\n");
		return 2;
	}
	if (strcmp(argv[1], "write") == 0)
		return write_store(argv[2], cycles, targets, paths);
	return check_store(argv[2], cycles, targets, paths);
}
