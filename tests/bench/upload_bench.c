/*
 * upload_bench.c -- the upload's throughput (db/upload.h): the results of
 * a SQLite store (store_bench FILE N writes one) sent to the PostgreSQL
 * at URI from its cursor to the end; prints results per second.  The
 * cursor is set back to 0 first, so every run sends the same rows (the
 * server stores them once: a second run measures rows refused as
 * already there).
 *   upload_bench FILE URI
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "upload.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct upload_figures f;
	struct upload *u;
	sqlite3 *db;
	char err[512];
	double t0, t;

	if (argc != 3) {
		fprintf(stderr, "usage: upload_bench FILE URI\n");
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK ||
	    sqlite3_exec(db, "DELETE FROM upload_cursor", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "upload_bench: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_close(db);
	t0 = now_s();
	if ((u = upload_start(argv[1], argv[2], err, sizeof(err))) == NULL) {
		fprintf(stderr, "upload_bench: %s\n", err);
		return 1;
	}
	for (;;) {
		upload_kick(u);
		upload_get_figures(u, &f);
		if (f.failing) {
			fprintf(stderr, "upload_bench: %s\n", f.error);
			upload_stop(u, 0, NULL);
			return 1;
		}
		if (f.uploaded > 0 && f.backlog == 0)
			break;
		usleep(10000);
	}
	t = now_s() - t0;
	upload_stop(u, 0, NULL);
	printf("%llu results in %.2f s: %.0f results/s\n", (unsigned long long)f.uploaded, t,
	    f.uploaded / t);
	return 0;
}
