/*
 * report.h -- "scaleprobe report": the store's rows (report_query.h)
 * aggregated into what the report says, and its three renderings (text in
 * local time, JSON in RFC 3339 UTC, one self-contained HTML file with SVG
 * charts).  Pure: the rows, the clock's offsets and the routes are handed
 * in; rendering writes to a FILE the caller opened (the one file of its
 * own: a temporary for a long list of changes, below).
 *
 * What is counted (scaleprobe(1), REPORT):
 *   - a path is (vantage, address, port); its verdict in a result is the
 *     worst over the scales sent (syn-dropped, rewritten, stripped,
 *     unreachable, filtered, closed, inconclusive, unsupported, ok);
 *   - per day: each path once, with its last result of the day;
 *   - newly broken / fixed: a result that is a problem (rewritten,
 *     stripped, syn-dropped) after the path's previous measured state was
 *     healthy (ok, unsupported), or the reverse; the results that measured
 *     nothing (closed, filtered, unreachable, inconclusive) are skipped,
 *     and the last result before --since is the first state;
 *   - hops, side findings and advice: each path's last result in the
 *     window.
 */
#ifndef SCALEPROBE_REPORT_H
#define SCALEPROBE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "advice.h"
#include "report_query.h"

/* enum verdict's values, VERDICT_NONE included ("none": no scale judged) */
#define REPORT_NVERDICTS	(VERDICT_INCONCLUSIVE + 1)
/* finding bits: the kinds of result.h, then raised shifts */
#define REPORT_NFINDINGS	17

struct report_day {
	int64_t day;				/* days since 1970-01-01 */
	unsigned count[REPORT_NVERDICTS];	/* paths by verdict */
};

struct report_change {
	enum verdict from;			/* the state it changed from */
	bool from_baseline;			/* that state: the last result
						   before --since */
	struct report_row to;			/* the result that changed */
};

/* One list of changes (broken or fixed) of a section, read in time order
 * with report_iter.  The last REPORT_RUN are held; each full run before
 * them was sorted and written to a temporary file, and reading merges the
 * runs: a list costs a run of memory (and a few records a run to read it),
 * whatever the number of changes. */
#define REPORT_RUN	4096

struct report_changes {
	struct report_change *v;		/* the run being filled */
	size_t n;
	FILE *spill;				/* the full runs; NULL: none */
	size_t nruns;
};

/* Reading a list: report_iter_begin (0, or -1 when memory runs out),
 * report_iter_next until NULL (the change lasts until the next call;
 * it->failed when NULL came of a read error), report_iter_end. */
#define REPORT_ITER_BUF	32
struct report_run_cursor {
	struct report_change buf[REPORT_ITER_BUF];
	size_t pos, len;			/* in buf */
	size_t left;				/* after buf, in the file */
	long long off;				/* of the next in the file */
};

struct report_iter {
	const struct report_changes *c;
	struct report_run_cursor *runs;		/* one per full run */
	size_t mem;				/* the next of c->v */
	bool failed;
};

int report_iter_begin(struct report_iter *it, const struct report_changes *c);
const struct report_change *report_iter_next(struct report_iter *it);
void report_iter_end(struct report_iter *it);

struct report_hop {
	const char *address;
	const char *clean_address;		/* of the first path seen */
	int hop_index, clean_index;
	uint32_t silent;			/* TTLs between that never answered
						   (silent_hops.h): 0, the hop is
						   exact; else the box is one of
						   the interval's, a row of its own */
	unsigned paths;				/* paths it damages */
};

struct report_problem {
	struct report_row row;
	size_t seq;				/* its place in the rows' order */
	char gw[64], dev[16];			/* the route here; "" unknown */
};

/* Text and HTML show the advice of this many problems (the worst first);
 * JSON has every one, and export lists them all. */
#define REPORT_SHOWN	50

struct report_section {
	const char *vantage;			/* NULL: every vantage */
	struct report_day *days;
	size_t ndays;
	struct report_changes broken, fixed;	/* in time order */
	size_t nbroken, nfixed;
	struct report_hop *hops;		/* most paths first */
	size_t nhops;
	unsigned findings[REPORT_NFINDINGS];	/* paths per finding */
	struct report_problem *problems;	/* paths whose last result is a problem */
	size_t nproblems;
	unsigned paths, results;
};

/* The offset from UTC (seconds) of local time at t (seconds since the
 * epoch); NULL means UTC. */
typedef long (*report_utcoff_fn)(int64_t t);

struct report_fold;				/* report.c's, while rows come */

struct report {
	int64_t since_ns, until_ns;		/* INT64_MIN / INT64_MAX: open */
	report_utcoff_fn utcoff;		/* the days' and times' zone */
	struct report_section all;		/* every vantage together */
	struct report_section *vantages;	/* one per vantage, when several */
	size_t nvantages;
	struct report_fold *fold;		/* the path being folded, and the
						   strings the sections point into */
	/* when several vantages: each (vantage, path)'s last result in the
	 * window, by address, port, vantage (bytewise): the paths side by
	 * side (report_side_next) */
	struct report_row *side;
	size_t nside;
};

/* One path's cells of rep->side: [from, the returned index).  *split:
 * the path's last result is a problem from one vantage at least and
 * healthy (ok, unsupported) from another -- the box sits on the route of
 * the broken ones, not at the server: the strongest evidence of where it
 * is. */
size_t report_side_next(const struct report *rep, size_t from, bool *split);

/* The report is folded from the rows one at a time, in report_query's
 * order (by vantage, path, time), with days cut at utcoff's midnight:
 * report_begin, report_add for each row (a report_row_fn: it copies what
 * it keeps, so a row's strings need last only while it is handed over),
 * report_end.  What it holds is bounded by the distinct paths, hops and
 * vantages, not by the results: per path, its state and last result; per
 * day, the counts; per list of changes, a run (the rest in a temporary
 * file).  0, or -1 (report_add: 1) when memory or the temporary file
 * fails; report_free after either. */
int report_begin(struct report *rep, int64_t since_ns, int64_t until_ns,
    report_utcoff_fn utcoff);
int report_add(void *rep, const struct report_row *row);
int report_end(struct report *rep);
/* All of rows (sorted as report_query hands them) at once. */
int report_build(const struct report_rows *rows, int64_t since_ns, int64_t until_ns,
    report_utcoff_fn utcoff, struct report *rep);
/* The advice for a problem and a side (with the gw and dev the caller
 * set): made when it is printed, so a store of many problems costs no
 * memory for it. */
void report_problem_advice(const struct report_problem *p, enum advice_side side,
    struct advice *out);
void report_free(struct report *rep);

/* A verdict's place in the tables and charts, and its colour: one palette
 * for every chart, legend and badge. */
extern const enum verdict report_verdict_order[REPORT_NVERDICTS];
const char *report_verdict_colour(enum verdict v);
const char *report_verdict_label(enum verdict v);
const char *report_finding_label(unsigned bit);
bool report_is_problem(enum verdict v);

/* "2026-12-01" of days since the epoch; "2026-12-01 10:00 +0100" of ns in
 * the report's zone, its offset named ("2026-12-01 09:00Z" without utcoff). */
void report_day_name(int64_t days, char buf[11]);
void report_local_time(const struct report *rep, int64_t ns, char buf[24]);

/* The renderings; 0, or -1 when writing failed.  Text: days in utcoff's
 * local time (as built); JSON: times in RFC 3339 UTC. */
int report_text(const struct report *rep, FILE *f);
int report_json(const struct report *rep, FILE *f);
int report_html(const struct report *rep, FILE *f);

#endif
