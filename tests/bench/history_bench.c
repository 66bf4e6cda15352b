/*
 * history_bench.c -- `scaleprobe show HOST`'s query on a big store, for
 * db/README.md: HOSTS hosts x RESULTS results each (synthetic,
 * through store_add with the real schema and indexes, a run per round an
 * hour apart), then history_show for QUERIES random hosts in-process on a
 * read-only connection, as show opens it; prints p50, p99 and the worst,
 * wall and CPU time, and the same with the fold and the side findings (what
 * show does short of printing), with the query plan.  Fails (exit 1) when a
 * query returns the wrong number of rows or the CPU p99 exceeds LIMIT_US
 * (0: no limit).
 *
 * usage: history_bench FILE [HOSTS RESULTS QUERIES LIMIT_US]
 *   default 65536 15 5000 1000; an existing FILE of the same shape is
 *   reused (its build is the slow part)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "show_fold.h"
#include "store.h"
#include "../unit/storegen.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of this thread: the query's own cost, whatever else the
 * machine runs (the wall time counts being scheduled out too) */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
build(const char *file, unsigned hosts, unsigned results)
{
	struct store_opts o = { .batch_rows = 20000 };
	struct store_run run = { .vantage = "bench", .settings = "scales=0,7,14",
	    .program = "history_bench" };
	char err[STORE_ERRLEN];
	struct store *st;
	int64_t run_id;
	double t0 = now();

	unlink(file);
	if ((st = store_open(file, STORE_WRITE, &o, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (unsigned r = 0; r < results; r++) {
		run.start.tv_sec = 1764000000 + (time_t)r * 3600;
		if (store_run_begin(st, &run, &run_id) != 0)
			goto fail;
		for (unsigned i = 0; i < hosts; i++) {
			struct storegen g;

			storegen_make(&g, i, run.start.tv_sec, false);
			snprintf(g.target, sizeof(g.target), "host%u.example", i);
			if (store_add(st, run_id, &g.res) != 0)
				goto fail;
			storegen_free(&g);
		}
	}
	if (store_flush(st, true) != 0)
		goto fail;
	if (store_close(st, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	printf("built %u hosts x %u results (%u path results, %u scale rows) in %.1f s\n",
	    hosts, results, hosts * results, 3 * hosts * results, now() - t0);
	return 0;
fail:
	fprintf(stderr, "%s\n", store_error(st));
	store_close(st, NULL, 0);
	return -1;
}

static int
fold_row(void *arg, const struct history_row *row)
{
	show_fold_add(arg, row);
	return 0;
}

struct fi_arg {
	struct show_fold *f;
	struct show_series *s;
};

static int
fold_finding(void *arg, const struct history_finding *hf)
{
	struct fi_arg *a = arg;

	show_fold_finding(a->f, a->s, hf);
	return 0;
}

/* What show does short of printing: the query, the fold into series and
 * each series' side findings; the number of series, or -1. */
static int
show_all(struct history *h, const struct history_query *q)
{
	struct show_fold f = { NULL, 0, 0, false, NULL, 0 };
	int n;

	if (history_show(h, q, fold_row, &f) != 0)
		return -1;
	for (size_t i = 0; i < f.n; i++) {
		struct fi_arg a = { &f, &f.v[i] };

		if (history_findings(h, f.v[i].last.path_result_id, f.v[i].last.scale_idx,
		    fold_finding, &a) != 0)
			return -1;
	}
	n = f.failed ? -1 : (int)f.n;
	show_fold_free(&f);
	return n;
}

static int
count_row(void *arg, const struct history_row *row)
{
	(void)row;
	(*(unsigned *)arg)++;
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned hosts = 65536, results = 15, queries = 5000, limit_us = 1000;
	char err[STORE_ERRLEN], plan[2048];
	struct store *st;
	struct history *h;
	double *lat, *cpu;
	unsigned bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: history_bench FILE [HOSTS RESULTS QUERIES LIMIT_US]\n");
		return 2;
	}
	if (argc > 5) {
		hosts = (unsigned)strtoul(argv[2], NULL, 10);
		results = (unsigned)strtoul(argv[3], NULL, 10);
		queries = (unsigned)strtoul(argv[4], NULL, 10);
		limit_us = (unsigned)strtoul(argv[5], NULL, 10);
	}
	if (hosts == 0 || hosts > 65536 || results == 0 || queries == 0) {
		fprintf(stderr, "history_bench: HOSTS 1..65536, RESULTS and QUERIES > 0\n");
		return 2;
	}
	if ((st = store_open(argv[1], STORE_READ, NULL, err, sizeof(err))) == NULL ||
	    store_query_int(st, "SELECT count(*) FROM path_results") !=
	    (int64_t)hosts * results) {
		if (st != NULL)
			store_close(st, NULL, 0);
		if (build(argv[1], hosts, results) != 0)
			return 1;
		if ((st = store_open(argv[1], STORE_READ, NULL, err, sizeof(err))) == NULL) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
	}
	if ((h = history_open(st, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	history_show_plan(h, plan, sizeof(plan));
	printf("plan:\n%s", plan);
	lat = calloc(queries, sizeof(*lat));
	cpu = calloc(queries, sizeof(*cpu));
	srand(17);
	for (unsigned k = 0; k < queries; k++) {
		unsigned i = (unsigned)rand() % hosts, n = 0;
		char host[64];
		struct history_query q = { host, -1, INT64_MIN, NULL };
		double t0, c0;

		/* by address (as storegen makes it) or by the name as written */
		if (k % 2 == 0) {
			if (i % 8 == 3)
				snprintf(host, sizeof(host), "fd00::%x", i & 0xffff);
			else
				snprintf(host, sizeof(host), "198.19.%u.%u", (i >> 8) & 0xff, i & 0xff);
		} else
			snprintf(host, sizeof(host), "host%u.example", i);
		t0 = now();
		c0 = cpu_now();
		if (history_show(h, &q, count_row, &n) != 0) {
			fprintf(stderr, "%s\n", history_error(h));
			return 1;
		}
		lat[k] = (now() - t0) * 1e6;
		cpu[k] = (cpu_now() - c0) * 1e6;
		if (n != 3 * results) {
			if (bad++ < 5)
				fprintf(stderr, "%s: %u rows, expected %u\n", host, n, 3 * results);
		}
	}
	qsort(lat, queries, sizeof(*lat), cmp_double);
	qsort(cpu, queries, sizeof(*cpu), cmp_double);
	printf("show HOST over %u random hosts (%u results x 3 scales each): "
	    "wall p50 %.0f us, p99 %.0f us, max %.0f us; "
	    "CPU p50 %.0f us, p99 %.0f us, max %.0f us\n", queries, results,
	    lat[queries / 2], lat[queries * 99 / 100], lat[queries - 1],
	    cpu[queries / 2], cpu[queries * 99 / 100], cpu[queries - 1]);
	{
		double *all = calloc(queries, sizeof(*all));

		srand(18);
		for (unsigned k = 0; k < queries; k++) {
			unsigned i = (unsigned)rand() % hosts;
			char host[64];
			struct history_query q = { host, -1, INT64_MIN, NULL };
			double t0;

			snprintf(host, sizeof(host), "host%u.example", i);
			t0 = now();
			if (show_all(h, &q) != 3) {
				if (bad++ < 5)
					fprintf(stderr, "%s: not 3 series\n", host);
			}
			all[k] = (now() - t0) * 1e6;
		}
		qsort(all, queries, sizeof(*all), cmp_double);
		printf("show HOST with the fold and the side findings (what show does but "
		    "print): wall p50 %.0f us, p99 %.0f us, max %.0f us\n", all[queries / 2],
		    all[queries * 99 / 100], all[queries - 1]);
		free(all);
	}
	history_close(h);
	store_close(st, NULL, 0);
	if (bad > 0) {
		fprintf(stderr, "history_bench: %u queries gave the wrong rows\n", bad);
		return 1;
	}
	/* the query's own time: on a machine shared with other work the wall
	 * clock also counts being scheduled out */
	if (limit_us > 0 && cpu[queries * 99 / 100] > limit_us) {
		fprintf(stderr, "history_bench: CPU p99 over %u us\n", limit_us);
		return 1;
	}
	free(lat);
	free(cpu);
	return 0;
}
