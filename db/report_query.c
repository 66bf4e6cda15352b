/*
 * report_query.c -- the rows "scaleprobe report" aggregates, read from a
 * store opened read-only: a path result with its scales folded into one
 * summary (the worst verdict, where the damage sits, the shift that
 * survives), and its side findings as bits; handed over one at a time as
 * SQLite walks its indexes, in the order the report folds them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"	/* first: the SQLite engine's names */
#include "report_fold.h"

/* A copy of s in rows->strings (the vantages repeat: the last few are
 * looked at first); NULL when memory runs out. */
static const char *
keep(struct report_rows *rows, const char *s)
{
	char *c;

	if (s == NULL)
		return NULL;
	for (size_t i = rows->nstrings; i > 0 && i + 8 > rows->nstrings; i--)
		if (strcmp(rows->strings[i - 1], s) == 0)
			return rows->strings[i - 1];
	if (rows->nstrings == rows->capstrings) {
		size_t cap = rows->capstrings ? rows->capstrings * 2 : 64;
		char **v = realloc(rows->strings, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		rows->strings = v;
		rows->capstrings = cap;
	}
	if ((c = strdup(s)) == NULL)
		return NULL;
	rows->strings[rows->nstrings++] = c;
	return c;
}

int
report_rows_add(void *arg, const struct report_row *row)
{
	struct report_rows *rows = arg;
	struct report_row r = *row;

	if ((r.vantage = keep(rows, row->vantage)) == NULL ||
	    (r.address = keep(rows, row->address)) == NULL ||
	    (row->hop_address != NULL && (r.hop_address = keep(rows, row->hop_address)) == NULL) ||
	    (row->clean_address != NULL &&
	    (r.clean_address = keep(rows, row->clean_address)) == NULL))
		return 1;
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 256;
		struct report_row *v = realloc(rows->v, cap * sizeof(*v));

		if (v == NULL)
			return 1;
		rows->v = v;
		rows->cap = cap;
	}
	rows->v[rows->n++] = r;
	return 0;
}

void
report_rows_free(struct report_rows *rows)
{
	for (size_t i = 0; i < rows->nstrings; i++)
		free(rows->strings[i]);
	free(rows->strings);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

/* A column as an integer; null when NULL. */
static int
col_int(sqlite3_stmt *s, int c, int null)
{
	return sqlite3_column_type(s, c) == SQLITE_NULL ? null : sqlite3_column_int(s, c);
}

/* The columns of a path result, one of its scales (NULLs for a result
 * without scales) and one of that scale's side findings (NULLs for none):
 * a scale comes once per finding, which folds the same.  One vantage (?3)
 * at a time; ?1 and ?2 bound the window; the baseline is each path's last
 * result before ?1.  In the order the report folds them with no sort: the
 * paths in their (address, port) index's order, each path's results in
 * its (path, time) index's (the rowid, pr.id, last), scales and findings
 * in their keys' -- the joins' order is fixed (CROSS JOIN) so that
 * SQLite walks these indexes, and memory never follows the window. */
#define VANTAGES_SQL "SELECT DISTINCT vantage FROM runs ORDER BY vantage"
#define COLS_SQL \
	"SELECT pr.id, r.vantage, p.address, p.port, p.family, pr.time_ns," \
	"  s.scale_sent, s.verdict, s.scale_quoted, s.scale_effective," \
	"  s.hop_index, s.hop_address, s.last_clean_index, s.last_clean_address," \
	"  f.kind, f.detail, pr.time_ns < ?1, s.hop_silent," \
	"  s.flows, s.flows_affected, s.branch_hop, s.branch_problem, s.branch_clean"
#define SCALES_SQL \
	" LEFT JOIN scale_results s ON s.path_result_id = pr.id" \
	" LEFT JOIN side_findings f ON f.path_result_id = s.path_result_id" \
	"  AND f.scale_idx = s.idx"
#define ROWS_SQL \
	COLS_SQL " FROM paths p CROSS JOIN path_results pr CROSS JOIN runs r" SCALES_SQL \
	" WHERE pr.path_id = p.id AND r.id = pr.run_id AND r.vantage = ?3" \
	"  AND ((pr.time_ns >= ?1 AND pr.time_ns < ?2)" \
	"  OR pr.id IN (SELECT id FROM (SELECT pr2.id AS id, ROW_NUMBER() OVER (" \
	"   PARTITION BY pr2.path_id ORDER BY pr2.time_ns DESC, pr2.id DESC) AS rn" \
	"   FROM path_results pr2 JOIN runs r2 ON r2.id = pr2.run_id" \
	"   WHERE pr2.time_ns < ?1 AND r2.vantage = ?3) WHERE rn = 1))" \
	" ORDER BY p.address, p.port, pr.time_ns, pr.id, s.idx, f.idx"

/* A walk per vantage reads every path's results each time: past this many
 * vantages (a store's text is anyone's to write), one walk of all of them
 * sorted by SQLite in temporary files instead -- slower for a few, never
 * vantages x results. */
#define WALK_VANTAGES	16
#define SORTED_SQL \
	COLS_SQL " FROM path_results pr JOIN runs r ON r.id = pr.run_id" \
	" JOIN paths p ON p.id = pr.path_id" SCALES_SQL \
	" WHERE (pr.time_ns >= ?1 AND pr.time_ns < ?2)" \
	"  OR pr.id IN (SELECT id FROM (SELECT pr2.id AS id, ROW_NUMBER() OVER (" \
	"   PARTITION BY r2.vantage, pr2.path_id ORDER BY pr2.time_ns DESC, pr2.id DESC) AS rn" \
	"   FROM path_results pr2 JOIN runs r2 ON r2.id = pr2.run_id" \
	"   WHERE pr2.time_ns < ?1) WHERE rn = 1)" \
	" ORDER BY r.vantage, p.address, p.port, pr.time_ns, pr.id, s.idx, f.idx"

/* The statement's row as the fold's cells (report_fold.h). */
static void
cells_of(sqlite3_stmt *s, struct report_cells *c)
{
	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(s, 0);
	c->vantage = (const char *)sqlite3_column_text(s, 1);
	c->address = (const char *)sqlite3_column_text(s, 2);
	c->port = (unsigned)sqlite3_column_int(s, 3);
	c->family = (const char *)sqlite3_column_text(s, 4);
	c->time_ns = sqlite3_column_int64(s, 5);
	c->baseline = sqlite3_column_int(s, 16) != 0;
	if ((c->has_scale = sqlite3_column_type(s, 6) != SQLITE_NULL)) {
		c->scale_sent = sqlite3_column_int(s, 6);
		c->verdict = (const char *)sqlite3_column_text(s, 7);
		c->scale_quoted = col_int(s, 8, -1);
		c->scale_effective = col_int(s, 9, -1);
		c->hop_index = col_int(s, 10, -1);
		c->hop_address = (const char *)sqlite3_column_text(s, 11);
		c->clean_index = col_int(s, 12, -1);
		c->clean_address = (const char *)sqlite3_column_text(s, 13);
		c->finding = (const char *)sqlite3_column_text(s, 14);
		c->detail = (const char *)sqlite3_column_text(s, 15);
		c->has_silent = sqlite3_column_type(s, 17) == SQLITE_INTEGER;
		c->silent = sqlite3_column_int64(s, 17);
		c->flows = col_int(s, 18, -1);
		c->flows_affected = col_int(s, 19, -1);
		c->branch_hop = col_int(s, 20, -1);
		c->branch_problem = (const char *)sqlite3_column_text(s, 21);
		c->branch_clean = (const char *)sqlite3_column_text(s, 22);
	}
}

/* Steps through one vantage's rows, folding each path result's and
 * handing it to fn when the next begins; 0, fn's value, or -1 (st's
 * error; q->oom: out of memory). */
static int
read_vantage(struct store *st, sqlite3_stmt *s, struct report_fold *q, report_row_fn fn,
    void *arg)
{
	struct report_cells c;
	int rc, r = 0;

	report_fold_reset(q);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		cells_of(s, &c);
		if ((r = report_fold_add(q, &c, fn, arg)) != 0)
			break;
	}
	if (r == 0 && rc == SQLITE_DONE)
		r = report_fold_end(q, fn, arg);
	if (r != 0)
		return r;
	if (rc != SQLITE_DONE)
		return store_fail(st, "report");
	return 0;
}

/* Each vantage's rows, by vantage (bytewise, as the runs' index has
 * them), or all of them sorted when there are many; 0, fn's value, or
 * -1. */
static int
read_rows(struct store *st, int64_t since, int64_t until, report_row_fn fn, void *arg)
{
	sqlite3_stmt *v = NULL, *s = NULL;
	struct report_fold q;
	int rc, r = 0;

	memset(&q, 0, sizeof(q));
	if (store_query_int(st, "SELECT count(DISTINCT vantage) FROM runs") > WALK_VANTAGES) {
		if (sqlite3_prepare_v2(st->db, SORTED_SQL, -1, &s, NULL) != SQLITE_OK) {
			r = store_fail(st, "report");
			goto done;
		}
		sqlite3_bind_int64(s, 1, since);
		sqlite3_bind_int64(s, 2, until);
		r = read_vantage(st, s, &q, fn, arg);
		goto done;
	}
	if (sqlite3_prepare_v2(st->db, VANTAGES_SQL, -1, &v, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, ROWS_SQL, -1, &s, NULL) != SQLITE_OK) {
		r = store_fail(st, "report");
		goto done;
	}
	while (r == 0 && (rc = sqlite3_step(v)) == SQLITE_ROW) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, since);
		sqlite3_bind_int64(s, 2, until);
		sqlite3_bind_value(s, 3, sqlite3_column_value(v, 0));
		r = read_vantage(st, s, &q, fn, arg);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = store_fail(st, "report");
done:
	sqlite3_finalize(s);
	sqlite3_finalize(v);
	report_fold_free(&q);
	if (q.oom) {
		snprintf(st->err, sizeof(st->err), "%s: report: out of memory", st->file);
		return -1;
	}
	return r;
}

int
report_query(const char *file, int64_t since_ns, int64_t until_ns,
    report_row_fn fn, void *arg, char *err, size_t errlen)
{
	struct store *st = store_open(file, STORE_READ, NULL, err, errlen);
	int rc = -1;

	if (st == NULL)
		return -1;
	/* one read transaction: the window and its baseline from one
	 * snapshot, whatever the daemon commits meanwhile; the baseline's
	 * sort in temporary files, whatever the build's default */
	if (store_exec(st, "PRAGMA temp_store = FILE") != 0 || store_exec(st, "BEGIN") != 0) {
		snprintf(err, errlen, "%s", store_error(st));
		store_close(st, NULL, 0);
		return -1;
	}
	rc = read_rows(st, since_ns, until_ns, fn, arg);
	if (rc == -1)
		snprintf(err, errlen, "%s", store_error(st));
	store_exec(st, "COMMIT");
	store_close(st, NULL, 0);
	return rc;
}
