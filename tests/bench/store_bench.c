/*
 * store_bench.c -- the batched writer's throughput (prober/design-notes.md
 * "The store"): N synthetic results (3 scale rows each) through store_add
 * with the real schema and indexes, with or without evidence; prints
 * result rows per second, bytes per stored result, the longest commit
 * and insert (the event loop's worst stall), the p99 and largest of the
 * store_add calls that committed (the commit with what follows it: the
 * WAL's RESTART checkpoint past its bound), the -wal's largest size and
 * the process's peak RSS.
 *
 * usage: store_bench FILE N [evidence 0|1] [batch] [paths]
 *   paths: results cycle over this many paths, as a daemon's cycles do
 *   (known targets and paths cost no lookup); default N, all new
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "../unit/storegen.h"

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static long long
file_size(const char *file)
{
	struct stat sb;

	return stat(file, &sb) == 0 ? (long long)sb.st_size : 0;
}

/* CPU seconds of the calling thread: the writer's share of its event
 * loop, whatever else the machine runs; *sys, when given, the kernel's
 * share of them (the WAL's writes). */
static double
cpu_sys(double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	if (sys != NULL)
		*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double
cpu(void)
{
	return cpu_sys(NULL);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct store_opts o = { 0 };
	char err[STORE_ERRLEN];
	struct store *st;
	struct store_run run = { .start = { 1764000000, 0 }, .vantage = "bench",
	    .settings = "scales=0,7,14", .program = "store_bench" };
	struct store_stats ss;
	unsigned n, npaths;
	bool ev;
	int64_t run_id;
	double t0, c0, s0, gen = 0, gencpu = 0, t, c, sys;
	struct stat sb;
	struct rusage ru;
	char wal[4096];
	uint64_t *lat = NULL, batches = 0;
	size_t nlat = 0;
	long long wal_max = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: store_bench FILE N [evidence 0|1] [batch] [paths]\n");
		return 2;
	}
	n = (unsigned)strtoul(argv[2], NULL, 10);
	ev = argc > 3 && atoi(argv[3]) != 0;
	if (argc > 4)
		o.batch_rows = (unsigned)strtoul(argv[4], NULL, 10);
	npaths = argc > 5 ? (unsigned)strtoul(argv[5], NULL, 10) : 0;
	if (npaths == 0)
		npaths = n;
	unlink(argv[1]);
	snprintf(wal, sizeof(wal), "%s-wal", argv[1]);
	/* a commit at most every result */
	if ((lat = malloc(n * sizeof(*lat))) == NULL)
		return 2;
	if ((st = store_open(argv[1], STORE_WRITE, &o, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	t0 = now();
	c0 = cpu_sys(&s0);
	for (unsigned i = 0; i < n; i++) {
		struct storegen g;
		double g0 = now(), gc0 = cpu();

		/* every 4th result is a rewritten, traced path: with evidence
		 * when asked */
		/* a run per cycle over the paths */
		if (i % npaths == 0) {
			run.start.tv_sec = 1764000000 + i / npaths * 3600;
			store_run_begin(st, &run, &run_id);
		}
		storegen_make(&g, i % npaths, 1764000000 + i / npaths * 3600, ev);
		gen += now() - g0;
		gencpu += cpu() - gc0;
		g0 = now();
		if (store_add(st, run_id, &g.res) != 0) {
			fprintf(stderr, "%s\n", store_error(st));
			return 1;
		}
		if (store_get_stats(st)->batches != batches) {
			long long sz = file_size(wal);

			batches = store_get_stats(st)->batches;
			lat[nlat++] = (uint64_t)((now() - g0) * 1e9);
			if (sz > wal_max)
				wal_max = sz;
		}
		storegen_free(&g);
	}
	if (store_flush(st, true) != 0) {
		fprintf(stderr, "%s\n", store_error(st));
		return 1;
	}
	ss = *store_get_stats(st);
	if (store_close(st, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t = now() - t0 - gen;
	c = cpu_sys(&sys) - c0 - gencpu;
	sys -= s0;
	st = store_open(argv[1], STORE_WRITE, NULL, err, sizeof(err));
	store_close(st, NULL, 0);
	stat(argv[1], &sb);
	printf("%u path results (%u scale rows), evidence %s: %.2f s in the store "
	    "(%.0f scale rows/s, %.0f path results/s); file %lld bytes, %.0f bytes per "
	    "scale row, %.0f per path result\n", n, 3 * n, ev ? "on" : "off", t, 3 * n / t,
	    n / t, (long long)sb.st_size, (double)sb.st_size / (3.0 * n),
	    (double)sb.st_size / n);
	printf("writer thread CPU %.2f s: %.0f scale rows per CPU second\n", c, 3 * n / c);
	printf("writer thread CPU in the kernel %.2f s\n", sys);
	printf("%llu batches; longest commit %.3f ms, longest store_add %.3f ms; "
	    "evidence %llu packets, %llu bytes\n", (unsigned long long)ss.batches,
	    ss.commit_ns_max / 1e6, ss.add_ns_max / 1e6, (unsigned long long)ss.evidence,
	    (unsigned long long)ss.evidence_bytes);
	qsort(lat, nlat, sizeof(*lat), cmp_u64);
	printf("%zu store_add calls that committed: p99 %.3f ms, max %.3f ms; -wal at most "
	    "%lld bytes\n", nlat, nlat ? lat[(nlat * 99) / 100] / 1e6 : 0.0,
	    nlat ? lat[nlat - 1] / 1e6 : 0.0, wal_max);
#ifdef STORE_WAL_BYTES
	printf("%llu RESTART checkpoints of the WAL past its bound (%llu busy), longest "
	    "%.3f ms\n", (unsigned long long)ss.wal_ckpt, (unsigned long long)ss.wal_busy,
	    ss.wal_ckpt_ns_max / 1e6);
#endif
	free(lat);
	/* the writer's memory: the whole process (generator, writer and its
	 * checkpoint thread) at its peak */
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %ld KiB\n", ru.ru_maxrss);
	return 0;
}
