/*
 * report_fold.h -- the report's rows folded the same whatever engine read
 * them: each engine's reader (report_query.c for SQLite, store_pg_report.c
 * for PostgreSQL) turns a row of its query (a path result, one of its
 * scales, one of that scale's side findings) into struct report_cells,
 * and report_fold_add folds the cells of one path result into one
 * struct report_row, handed over when the next begins.
 */
#ifndef SCALEPROBE_REPORT_FOLD_H
#define SCALEPROBE_REPORT_FOLD_H

#include "report_query.h"

/* One row of the report's query, as read (NULL / -1: absent). */
struct report_cells {
	int64_t id;
	const char *vantage, *address, *family;
	unsigned port;
	int64_t time_ns;
	bool baseline;
	bool has_scale;			/* false: a result without scales */
	int scale_sent;
	const char *verdict;
	int scale_quoted, scale_effective;
	int hop_index, clean_index;
	const char *hop_address, *clean_address;
	const char *finding, *detail;	/* NULL: no side finding */
	bool has_silent;
	int64_t silent;
	int flows, flows_affected;	/* -1: absent (one flow) */
	int branch_hop;			/* -1: absent */
	const char *branch_problem, *branch_clean;
};

struct report_qstr {
	char *p;
	size_t cap;
};

struct report_fold {
	struct report_row r;
	bool have;
	struct report_qstr vantage, address, hop, clean;
	bool oom;			/* out of memory: stop, -1 */
};

/* Folds c into f; hands fn the row before when c begins another path
 * result.  0, fn's value, or -1 (f->oom). */
int report_fold_add(struct report_fold *f, const struct report_cells *c, report_row_fn fn,
    void *arg);
/* Hands fn the last row, if any; 0 or fn's value. */
int report_fold_end(struct report_fold *f, report_row_fn fn, void *arg);
/* The next vantage's walk begins (the last row was handed over). */
void report_fold_reset(struct report_fold *f);
void report_fold_free(struct report_fold *f);

#endif
