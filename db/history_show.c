/*
 * history_show.c -- the reader's handle and "one host's story": the scale
 * results of the paths a host names (a target as written or an address),
 * in the order the fold wants, with their side findings and evidence.
 * Everything read from the file is checked for what it may be.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_int.h"
#include "silent_hops.h"

/*
 * The host as an address: its paths through paths' UNIQUE (address, port),
 * their results through path_results_path; as a target: its id through
 * targets' UNIQUE (spec), its results through path_results_target.  Each
 * result's scales by the scale_results key: one seek each, never a scan
 * (test_history asserts the plans).  Two statements, not one with an OR:
 * SQLite's MULTI-INDEX OR cost 4x the time (history_bench).
 */
#define SHOW_SELECT \
	"SELECT " HISTORY_ROW_COLS \
	" FROM path_results pr" \
	" JOIN scale_results s ON s.path_result_id = pr.id" \
	" JOIN paths p ON p.id = pr.path_id" \
	" JOIN targets t ON t.id = pr.target_id" \
	" JOIN runs r ON r.id = pr.run_id"
#define SHOW_FILTER \
	"   AND pr.time_ns >= ?3" \
	"   AND (?2 < 0 OR p.port = ?2)" \
	"   AND (?4 IS NULL OR r.vantage = ?4)" \
	" ORDER BY p.address, p.port, r.vantage, s.scale_sent, pr.time_ns, pr.id, s.idx"

static const char *const show_sql[2] = {
	SHOW_SELECT " WHERE pr.path_id IN (SELECT id FROM paths WHERE address = ?1)" SHOW_FILTER,
	SHOW_SELECT " WHERE pr.target_id = (SELECT id FROM targets WHERE spec = ?1)" SHOW_FILTER,
};

static const char findings_sql[] =
	"SELECT kind, detail, hop_index, hop_address FROM side_findings"
	" WHERE path_result_id = ?1 AND scale_idx = ?2 ORDER BY idx";

static const char evidence_sql[] =
	"SELECT bytes FROM evidence WHERE path_result_id = ?1";

int
history_fail(struct history *h, const char *what)
{
	sqlite3 *db = h->st->db;

	snprintf(h->err, sizeof(h->err), "%s: %s: %s", h->st->file, what,
	    db != NULL ? sqlite3_errmsg(db) : "no connection");
	return -1;
}

const char *
history_error(const struct history *h)
{
	return h->err;
}

int
history_col_int(sqlite3_stmt *s, int col, int lo, int hi)
{
	int64_t v;

	if (sqlite3_column_type(s, col) != SQLITE_INTEGER)
		return -1;
	v = sqlite3_column_int64(s, col);
	return v >= lo && v <= hi ? (int)v : -1;
}

int64_t
history_col_i64(sqlite3_stmt *s, int col, int64_t dflt)
{
	if (sqlite3_column_type(s, col) != SQLITE_INTEGER)
		return dflt;
	return sqlite3_column_int64(s, col);
}

const char *
history_col_text(sqlite3_stmt *s, int col)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return NULL;
	/* a blob or a number in a text column comes back as its text; a NUL
	 * inside it ends it, which is what C can print */
	return (const char *)sqlite3_column_text(s, col);
}

static const char *
text_or_empty(sqlite3_stmt *s, int col)
{
	const char *t = history_col_text(s, col);

	return t != NULL ? t : "";
}

void
history_read_row(sqlite3_stmt *s, struct history_row *row)
{
	memset(row, 0, sizeof(*row));
	row->path_result_id = history_col_i64(s, 0, -1);
	row->scale_idx = history_col_int(s, 1, 0, INT_MAX);
	row->time_ns = history_col_i64(s, 2, 0);
	row->target = text_or_empty(s, 3);
	row->address = text_or_empty(s, 4);
	row->family = text_or_empty(s, 5);
	row->vantage = text_or_empty(s, 6);
	row->port = history_col_int(s, 7, 0, 65535);
	row->scale_sent = history_col_int(s, 8, 0, 255);
	row->reply = history_col_text(s, 9);
	row->verdict = history_col_text(s, 10);
	row->reason = history_col_text(s, 11);
	row->sa_wscale = history_col_int(s, 12, 0, 255);
	row->scale_quoted = history_col_int(s, 13, 0, 255);
	row->scale_effective = history_col_int(s, 14, 0, 255);
	row->hop_index = history_col_int(s, 15, 0, 255);
	row->last_clean_index = history_col_int(s, 16, 0, 255);
	row->hop_address = history_col_text(s, 17);
	row->last_clean_address = history_col_text(s, 18);
	row->hop_silent = silent_hops_from_i64(history_col_i64(s, 19, 0));
	{
		int64_t uid = history_col_i64(s, 20, -1);

		row->on_demand = uid >= 0 && uid <= UINT32_MAX;
		row->on_demand_uid = row->on_demand ? (uint32_t)uid : 0;
	}
	row->flows = history_col_int(s, 21, 2, RESULT_MAX_FLOWS);
	row->flows_affected = row->flows > 0 ? history_col_int(s, 22, 0, row->flows) : -1;
}

static int
prepare(struct history *h, const char *sql, sqlite3_stmt **s)
{
	if (sqlite3_prepare_v3(h->st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL) !=
	    SQLITE_OK) {
		*s = NULL;
		return history_fail(h, "prepare a query");
	}
	return 0;
}

struct history *
history_open(struct store *st, char *err, size_t errlen)
{
	struct history *h = calloc(1, sizeof(*h));

	if (h == NULL) {
		snprintf(err, errlen, "%s: out of memory", st->file);
		return NULL;
	}
	h->st = st;
	/* a reader's pages come from the kernel's cache by mmap, not by a
	 * read() each: a host's results lie one per run, spread over the file
	 * (history_bench: p50 160-240 us with it, 220-320 us without, on a
	 * shared machine); a writer's connection keeps its settings */
	if (st->mode == STORE_READ)
		sqlite3_exec(st->db, "PRAGMA mmap_size = 4294967296; PRAGMA cache_size = -32768",
		    NULL, NULL, NULL);
	if (prepare(h, show_sql[0], &h->show[0]) != 0 ||
	    prepare(h, show_sql[1], &h->show[1]) != 0 ||
	    prepare(h, findings_sql, &h->findings) != 0 ||
	    prepare(h, evidence_sql, &h->evidence) != 0) {
		snprintf(err, errlen, "%s", h->err);
		history_close(h);
		return NULL;
	}
	return h;
}

void
history_close(struct history *h)
{
	if (h == NULL)
		return;
	sqlite3_finalize(h->show[0]);
	sqlite3_finalize(h->show[1]);
	sqlite3_finalize(h->findings);
	sqlite3_finalize(h->evidence);
	free(h);
}

/* Steps s to its end, handing each row to fn and counting them in *n;
 * resets s. */
static int
each_row(struct history *h, sqlite3_stmt *s, history_row_fn fn, void *arg, const char *what,
    size_t *n)
{
	struct history_row row;
	int rc, r = 0;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		history_read_row(s, &row);
		(*n)++;
		if ((r = fn(arg, &row)) != 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = history_fail(h, what);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return r;
}

/* The host as an address first; when that finds nothing, as a target
 * (whose results, were it an address, would have been found). */
int
history_show(struct history *h, const struct history_query *q, history_row_fn fn, void *arg)
{
	size_t n = 0;
	int r = 0;

	for (int k = 0; k < 2 && r == 0 && n == 0; k++) {
		sqlite3_stmt *s = h->show[k];

		sqlite3_bind_text(s, 1, q->host, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 2, q->port);
		sqlite3_bind_int64(s, 3, q->since_ns);
		if (q->vantage != NULL)
			sqlite3_bind_text(s, 4, q->vantage, -1, SQLITE_STATIC);
		r = each_row(h, s, fn, arg, "read the host's results", &n);
	}
	return r;
}

int
history_findings(struct history *h, int64_t path_result_id, int scale_idx,
    history_finding_fn fn, void *arg)
{
	sqlite3_stmt *s = h->findings;
	struct history_finding f;
	int rc, r = 0;

	sqlite3_bind_int64(s, 1, path_result_id);
	sqlite3_bind_int(s, 2, scale_idx);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *kind = history_col_text(s, 0);

		f.kind = kind != NULL ? kind : "";
		f.detail = history_col_text(s, 1);
		f.hop_index = history_col_int(s, 2, 0, 255);
		f.hop_address = history_col_text(s, 3);
		if ((r = fn(arg, &f)) != 0)
			break;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = history_fail(h, "read side findings");
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return r;
}

int
history_evidence(struct history *h, int64_t path_result_id, uint8_t **buf, size_t *len)
{
	sqlite3_stmt *s = h->evidence;
	int rc, r = 1;

	*buf = NULL;
	*len = 0;
	sqlite3_bind_int64(s, 1, path_result_id);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		/* a blob's bytes, or the text a hand-edited row holds: either way
		 * evidence_unpack judges them */
		const void *b = sqlite3_column_blob(s, 0);
		int n = sqlite3_column_bytes(s, 0);

		if (b != NULL && n > 0) {
			if ((*buf = malloc((size_t)n)) == NULL) {
				snprintf(h->err, sizeof(h->err), "%s: out of memory", h->st->file);
				r = -1;
			} else {
				memcpy(*buf, b, (size_t)n);
				*len = (size_t)n;
				r = 0;
			}
		}
	} else if (rc != SQLITE_DONE)
		r = history_fail(h, "read evidence");
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return r;
}

int
history_plan_lines(struct history *h, sqlite3_stmt *s, char *buf, size_t len, size_t *used)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *d = history_col_text(s, 3);
		int n;

		if (d == NULL || len == 0)
			continue;
		n = snprintf(buf + *used, len - *used, "%s\n", d);
		if (n < 0 || (size_t)n >= len - *used)
			break;
		*used += (size_t)n;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : history_fail(h, "explain");
}

int
history_show_plan(struct history *h, char *buf, size_t len)
{
	sqlite3_stmt *s;
	char sql[2048];
	size_t used = 0;

	if (len > 0)
		buf[0] = '\0';
	for (int k = 0; k < 2; k++) {
		snprintf(sql, sizeof(sql), "EXPLAIN QUERY PLAN %s", show_sql[k]);
		if (sqlite3_prepare_v2(h->st->db, sql, -1, &s, NULL) != SQLITE_OK)
			return history_fail(h, "explain");
		if (history_plan_lines(h, s, buf, len, &used) != 0)
			return -1;
	}
	return 0;
}
