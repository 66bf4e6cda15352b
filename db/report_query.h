/*
 * report_query.h -- what "scaleprobe report" reads from a store: one
 * summary row per stored path result (the path, its vantage and time, the
 * worst verdict over its scales and where the damage sits, its side
 * findings), for the results in a time window and, as the baseline a
 * change is measured against, each path's last result before it.  Reads
 * only (works while the daemon writes); the aggregation is report.h's.
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
	const char *vantage;		/* owned by the set */
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
	unsigned findings;		/* bits, as above */
	int mss;			/* the clamped MSS; -1 none */
};

struct report_rows {
	struct report_row *v;		/* by vantage, path, time */
	size_t n, cap;
	char **strings;			/* what the rows point into */
	size_t nstrings, capstrings;
};

/* Fills out from the store at file: the results with since_ns <= time <
 * until_ns and each (vantage, path)'s last result before since_ns.
 * 0, or -1 with one line in err (the store's refusal names the file). */
int report_query(const char *file, int64_t since_ns, int64_t until_ns,
    struct report_rows *out, char *err, size_t errlen);

void report_rows_free(struct report_rows *rows);

#endif
