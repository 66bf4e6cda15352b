/*
 * report_query.h -- what "scaleprobe report" reads from a store: one
 * summary row per stored path result (the path, its vantage and time, the
 * worst verdict over its scales and where the damage sits, its side
 * findings), for the results in a time window and, as the baseline a
 * change is measured against, each path's last result before it.  Reads
 * only (works while the daemon writes); the aggregation is report.h's.
 * The rows are handed over one at a time as SQLite steps through them
 * (a store of a million results is never held in memory: the sort is
 * SQLite's, spilled to temporary files); struct report_rows holds them
 * all, for the tests and small stores.
 */
#ifndef SCALEPROBE_REPORT_QUERY_H
#define SCALEPROBE_REPORT_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

/* Side findings as bits (1u << enum finding_kind), plus the shift raised
 * by a box (a rewritten scale applied larger than it was sent). */
#define REPORT_RAISED_BIT	(1u << 16)

struct report_row {
	int64_t id;			/* path_results.id */
	const char *vantage;		/* the strings: report_query's, valid
					   while the row is handed over */
	const char *address;
	unsigned port;
	bool v6;
	int64_t time_ns;		/* when the path's first SYN left (UTC) */
	bool baseline;			/* before the window: only what changed
					   from it counts */
	enum verdict verdict;		/* worst over the scales (report.h) */
	int scale_sent;			/* of the scale that gave it; -1 none */
	int scale_applied;		/* what the box made of it: effective,
					   else the quoted shift; -1 unknown */
	int ok_scale;			/* largest scale sent judged ok; -1 none */
	int hop_index, clean_index;	/* -1: not located */
	const char *hop_address;	/* NULL: not located */
	const char *clean_address;
	uint32_t hop_silent;		/* TTLs between them that never
					   answered (silent_hops.h); 0: exact */
	unsigned findings;		/* bits, as above */
	int mss;			/* the clamped MSS; -1 none */
	/* of the scale that gave the verdict, probed over several flows
	 * (--flows): how many, and on how many it was a problem; 0 for one
	 * flow.  Its branch: hop_index 0 where the traces show none. */
	int flows, flows_affected;
	struct flow_branch branch;
};

/* Takes one row; 0 to go on, else the value report_query returns. */
typedef int (*report_row_fn)(void *arg, const struct report_row *row);

/* Hands fn, one at a time, the results of the store at file with
 * since_ns <= time < until_ns and each (vantage, path)'s last result
 * before since_ns, by vantage, address, port (bytewise), time and id.
 * One read transaction: the window and its baseline from one snapshot.
 * 0; fn's non-zero value; or -1 with one line in err (the store's
 * refusal names the file). */
int report_query(const char *file, int64_t since_ns, int64_t until_ns,
    report_row_fn fn, void *arg, char *err, size_t errlen);

/* Rows held in memory, each with its own strings. */
struct report_rows {
	struct report_row *v;
	size_t n, cap;
	char **strings;			/* what the rows point into */
	size_t nstrings, capstrings;
};

/* A report_row_fn (arg: a zeroed struct report_rows): appends a copy of
 * the row; 1 when memory runs out. */
int report_rows_add(void *rows, const struct report_row *row);
void report_rows_free(struct report_rows *rows);

#endif
