/*
 * history_export.c -- the vendor's list: scale results of the chosen
 * verdicts since T, one row per vantage, address, port, scale sent and
 * verdict, carrying the latest result's fields, the group's first time
 * and how many results it holds.  Grouped by SQLite's window functions
 * (the latest row and the group's aggregates in one pass); when only
 * problems are asked for, the partial index on problems is the scan.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "history_int.h"

static bool
is_problem(const char *v)
{
	return strcmp(v, "rewritten") == 0 || strcmp(v, "stripped") == 0 ||
	    strcmp(v, "syn-dropped") == 0;
}

/* The query for q, prepared and bound into *sp (prefix: "" or "EXPLAIN
 * QUERY PLAN "); 0 or -1. */
static int
export_prepare(struct history *h, const struct history_export_query *q, const char *prefix,
    sqlite3_stmt **sp)
{
	char sql[3072], in[HISTORY_MAX_VERDICTS * 6];
	bool problems = true;
	size_t used = 0;
	sqlite3_stmt *s;

	if (q->nverdicts < 1 || q->nverdicts > HISTORY_MAX_VERDICTS) {
		snprintf(h->err, sizeof(h->err), "%s: export: 1 to %d verdicts", h->st->file,
		    HISTORY_MAX_VERDICTS);
		return -1;
	}
	in[0] = '\0';
	for (int i = 0; i < q->nverdicts; i++) {
		used += (size_t)snprintf(in + used, sizeof(in) - used, "%s?%d", i ? ", " : "",
		    i + 3);
		problems &= is_problem(q->verdicts[i]);
	}
	snprintf(sql, sizeof(sql),
	    "%sSELECT * FROM ("
	    HISTORY_EXPORT_SELECT
	    " WHERE s.time_ns >= ?1 %s AND s.verdict IN (%s)"
	    "  AND (?2 IS NULL OR s.hop_address = ?2)"
	    HISTORY_EXPORT_WINDOW ")"
	    " WHERE latest = 1"
	    " ORDER BY 5, 8, 9, 7, 11",	/* address, port, scale_sent, vantage, verdict */
	    prefix, problems ? "AND s.problem" : "", in);
	if (sqlite3_prepare_v2(h->st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return history_fail(h, "prepare the export");
	sqlite3_bind_int64(s, 1, q->since_ns);
	if (q->hop != NULL)
		sqlite3_bind_text(s, 2, q->hop, -1, SQLITE_STATIC);
	for (int i = 0; i < q->nverdicts; i++)
		sqlite3_bind_text(s, i + 3, q->verdicts[i], -1, SQLITE_STATIC);
	*sp = s;
	return 0;
}

int
history_export(struct history *h, const struct history_export_query *q,
    history_row_fn fn, void *arg)
{
	struct history_row row;
	sqlite3_stmt *s;
	int rc, r = 0;

	/* the export reads the whole window once: its pages read, not
	 * mapped (a mapped page of a scan stays in the RSS: 530 MB of a
	 * 500 MB store), and the cache and the sorts' memory SQLite's
	 * default 2 MB, the sorts spilled to temporary files */
	if (h->st->mode == STORE_READ &&
	    sqlite3_exec(h->st->db, "PRAGMA mmap_size = 0; PRAGMA cache_size = -2000;"
	    " PRAGMA temp_store = FILE", NULL, NULL, NULL) != SQLITE_OK)
		return history_fail(h, "set up the export");
	if (export_prepare(h, q, "", &s) != 0)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		history_read_row(s, &row);
		row.first_ns = history_col_i64(s, HISTORY_ROW_NCOLS, row.time_ns);
		row.count = history_col_i64(s, HISTORY_ROW_NCOLS + 1, 1);
		if ((r = fn(arg, &row)) != 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = history_fail(h, "read the export");
	sqlite3_finalize(s);
	return r;
}

int
history_export_plan(struct history *h, const struct history_export_query *q, char *buf,
    size_t len)
{
	sqlite3_stmt *s;
	size_t used = 0;

	if (export_prepare(h, q, "EXPLAIN QUERY PLAN ", &s) != 0)
		return -1;
	if (len > 0)
		buf[0] = '\0';
	return history_plan_lines(h, s, buf, len, &used);
}
