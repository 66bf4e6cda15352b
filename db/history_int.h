/*
 * history_int.h -- what the reader's files share (history_show.c,
 * history_export.c) and nothing else sees: the prepared statements and
 * the defensive column readers.
 */
#ifndef SCALEPROBE_HISTORY_INT_H
#define SCALEPROBE_HISTORY_INT_H

#include "history.h"
#include "store_int.h"

struct history {
	struct store *st;
	sqlite3_stmt *show[2], *findings, *evidence;	/* show: by address, by target */
	char err[STORE_ERRLEN];
};

/* Fills h->err with "FILE: what: sqlite's message" and returns -1. */
int history_fail(struct history *h, const char *what);

/* Column col as an integer in lo..hi, else -1 (NULL, text, out of range). */
int history_col_int(sqlite3_stmt *s, int col, int lo, int hi);
/* ... as any 64-bit integer, else dflt. */
int64_t history_col_i64(sqlite3_stmt *s, int col, int64_t dflt);
/* Column col as text (NUL-terminated by SQLite), NULL when NULL. */
const char *history_col_text(sqlite3_stmt *s, int col);

/* The columns every row query selects, in this order (history_read_row). */
#define HISTORY_ROW_COLS \
	"pr.id, s.idx, pr.time_ns, t.spec, p.address, p.family, r.vantage, p.port, " \
	"s.scale_sent, s.reply, s.verdict, s.reason, s.sa_wscale, s.scale_quoted, " \
	"s.scale_effective, s.hop_index, s.last_clean_index, s.hop_address, " \
	"s.last_clean_address, s.hop_silent, r.on_demand_uid, s.flows, s.flows_affected"
#define HISTORY_ROW_NCOLS 23

/* Steps s, a prepared EXPLAIN QUERY PLAN, appending each step's detail
 * as a line to buf (len bytes, *used of them taken; cut when full), and
 * finalizes it.  0, or history_fail's -1. */
int history_plan_lines(struct history *h, sqlite3_stmt *s, char *buf, size_t len,
    size_t *used);

/* Reads the row s stands on (HISTORY_ROW_COLS first) into *row. */
void history_read_row(sqlite3_stmt *s, struct history_row *row);

#endif
