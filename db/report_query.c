/*
 * report_query.c -- the rows "scaleprobe report" aggregates, read from a
 * store opened read-only: a path result with its scales folded into one
 * summary (the worst verdict, where the damage sits, the shift that
 * survives), and its side findings as bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_query.h"
#include "store_int.h"

/* How bad a verdict is for the path: the damage first, then what keeps it
 * from being measured, then the clean ones. */
static int
severity(enum verdict v)
{
	switch (v) {
	case VERDICT_SYN_DROPPED:	return 9;
	case VERDICT_REWRITTEN:		return 8;
	case VERDICT_STRIPPED:		return 7;
	case VERDICT_UNREACHABLE:	return 6;
	case VERDICT_FILTERED:		return 5;
	case VERDICT_CLOSED:		return 4;
	case VERDICT_INCONCLUSIVE:	return 3;
	case VERDICT_UNSUPPORTED:	return 2;
	case VERDICT_OK:		return 1;
	case VERDICT_NONE:		return 0;
	}
	return 0;
}

static const char *
keep(struct report_rows *rows, const unsigned char *s)
{
	char *c;

	if (s == NULL)
		return NULL;
	for (size_t i = rows->nstrings; i > 0 && i + 8 > rows->nstrings; i--)
		if (strcmp(rows->strings[i - 1], (const char *)s) == 0)
			return rows->strings[i - 1];	/* vantages repeat */
	if (rows->nstrings == rows->capstrings) {
		size_t cap = rows->capstrings ? rows->capstrings * 2 : 64;
		char **v = realloc(rows->strings, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		rows->strings = v;
		rows->capstrings = cap;
	}
	if ((c = strdup((const char *)s)) == NULL)
		return NULL;
	rows->strings[rows->nstrings++] = c;
	return c;
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

static int
col_int(sqlite3_stmt *s, int c, int null)
{
	return sqlite3_column_type(s, c) == SQLITE_NULL ? null : sqlite3_column_int(s, c);
}

/* The columns of a path result and one of its scales (a result without
 * scales has NULLs there); ?1 and ?2 bound the time, ?3 the baseline. */
#define ROWS_SQL \
	"SELECT pr.id, r.vantage, p.address, p.port, p.family, pr.time_ns," \
	"  s.scale_sent, s.verdict, s.scale_quoted, s.scale_effective," \
	"  s.hop_index, s.hop_address, s.last_clean_index, s.last_clean_address" \
	" FROM path_results pr JOIN runs r ON r.id = pr.run_id" \
	" JOIN paths p ON p.id = pr.path_id" \
	" LEFT JOIN scale_results s ON s.path_result_id = pr.id"
#define WINDOW_WHERE " WHERE pr.time_ns >= ?1 AND pr.time_ns < ?2"
/* each (vantage, path)'s last result before the window */
#define BASE_WHERE \
	" WHERE pr.id IN (SELECT id FROM (SELECT pr2.id AS id, ROW_NUMBER() OVER (" \
	"   PARTITION BY r2.vantage, pr2.path_id ORDER BY pr2.time_ns DESC, pr2.id DESC) AS rn" \
	"   FROM path_results pr2 JOIN runs r2 ON r2.id = pr2.run_id" \
	"   WHERE pr2.time_ns < ?1) WHERE rn = 1)"
#define ORDER " ORDER BY pr.id, s.idx"

#define FIND_SQL(where) \
	"SELECT f.path_result_id, f.kind, f.detail FROM side_findings f" \
	" JOIN path_results pr ON pr.id = f.path_result_id JOIN runs r ON r.id = pr.run_id" \
	where " ORDER BY f.path_result_id"

static int
add_row(struct report_rows *rows, struct report_row *r)
{
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? rows->cap * 2 : 256;
		struct report_row *v = realloc(rows->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		rows->v = v;
		rows->cap = cap;
	}
	rows->v[rows->n++] = *r;
	return 0;
}

/* Folds one scale into its path result's row. */
static int
fold_scale(struct report_rows *rows, struct report_row *r, sqlite3_stmt *s)
{
	enum verdict v;
	int sent, applied;

	if (sqlite3_column_type(s, 6) == SQLITE_NULL)
		return 0;
	v = verdict_from_name((const char *)sqlite3_column_text(s, 7));
	sent = sqlite3_column_int(s, 6);
	applied = col_int(s, 9, -1);
	if (applied < 0)
		applied = col_int(s, 8, -1);	/* -1 absent, -2 no quote */
	if (applied < 0)
		applied = -1;
	if (v == VERDICT_OK && sent > r->ok_scale)
		r->ok_scale = sent;
	if (v == VERDICT_REWRITTEN && applied > sent)
		r->findings |= REPORT_RAISED_BIT;
	if (severity(v) <= severity(r->verdict))
		return 0;
	r->verdict = v;
	r->scale_sent = sent;
	r->scale_applied = applied;
	r->hop_index = col_int(s, 10, -1);
	r->clean_index = col_int(s, 12, -1);
	r->hop_address = r->clean_address = NULL;
	if ((sqlite3_column_type(s, 11) != SQLITE_NULL &&
	    (r->hop_address = keep(rows, sqlite3_column_text(s, 11))) == NULL) ||
	    (sqlite3_column_type(s, 13) != SQLITE_NULL &&
	    (r->clean_address = keep(rows, sqlite3_column_text(s, 13))) == NULL))
		return -1;
	return 0;
}

static int
read_rows(struct store *st, struct report_rows *rows, const char *sql, int64_t since,
    int64_t until, bool baseline)
{
	sqlite3_stmt *s;
	struct report_row cur;
	bool have = false;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "report");
	sqlite3_bind_int64(s, 1, since);
	if (!baseline)
		sqlite3_bind_int64(s, 2, until);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);

		if (!have || cur.id != id) {
			if (have && add_row(rows, &cur) != 0)
				goto oom;
			memset(&cur, 0, sizeof(cur));
			cur.id = id;
			cur.vantage = keep(rows, sqlite3_column_text(s, 1));
			cur.address = keep(rows, sqlite3_column_text(s, 2));
			if (cur.vantage == NULL || cur.address == NULL)
				goto oom;
			cur.port = (unsigned)sqlite3_column_int(s, 3);
			cur.v6 = strcmp((const char *)sqlite3_column_text(s, 4), "ipv6") == 0;
			cur.time_ns = sqlite3_column_int64(s, 5);
			cur.baseline = baseline;
			cur.verdict = VERDICT_NONE;
			cur.scale_sent = cur.scale_applied = cur.ok_scale = -1;
			cur.hop_index = cur.clean_index = -1;
			cur.mss = -1;
			have = true;
		}
		if (fold_scale(rows, &cur, s) != 0)
			goto oom;
	}
	if (rc != SQLITE_DONE) {
		sqlite3_finalize(s);
		return store_fail(st, "report");
	}
	if (have && add_row(rows, &cur) != 0)
		goto oom;
	sqlite3_finalize(s);
	return 0;
oom:
	sqlite3_finalize(s);
	snprintf(st->err, sizeof(st->err), "%s: report: out of memory", st->file);
	return -1;
}

static int
by_id(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int
finding_kind(const char *name)
{
	for (int k = FINDING_MSS_CLAMPED; k <= FINDING_SYN_PROXY; k++)
		if (strcmp(name, result_finding_name((enum finding_kind)k)) == 0)
			return k;
	return FINDING_OPTIONS_CHANGED;
}

static int
read_findings(struct store *st, struct report_rows *rows, const char *sql, int64_t since,
    int64_t until, bool baseline)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "report");
	sqlite3_bind_int64(s, 1, since);
	if (!baseline)
		sqlite3_bind_int64(s, 2, until);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct report_row key = { .id = sqlite3_column_int64(s, 0) };
		struct report_row *r = bsearch(&key, rows->v, rows->n, sizeof(*r), by_id);
		const char *kind = (const char *)sqlite3_column_text(s, 1);
		int k;

		if (r == NULL || kind == NULL)
			continue;
		k = finding_kind(kind);
		r->findings |= 1u << k;
		if (k == FINDING_MSS_CLAMPED && sqlite3_column_type(s, 2) != SQLITE_NULL)
			r->mss = atoi((const char *)sqlite3_column_text(s, 2));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "report");
	return 0;
}

static int
by_path_time(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = strcmp(x->vantage, y->vantage)) != 0)
		return c;
	if ((c = strcmp(x->address, y->address)) != 0)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int
report_query(const char *file, int64_t since_ns, int64_t until_ns,
    struct report_rows *out, char *err, size_t errlen)
{
	struct store *st = store_open(file, STORE_READ, NULL, err, errlen);
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (st == NULL)
		return -1;
	/* one read transaction: the window and its baseline from one
	 * snapshot, whatever the daemon commits meanwhile */
	if (store_exec(st, "BEGIN") != 0)
		goto done;
	if (read_rows(st, out, ROWS_SQL BASE_WHERE ORDER, since_ns, until_ns, true) != 0 ||
	    read_rows(st, out, ROWS_SQL WINDOW_WHERE ORDER, since_ns, until_ns, false) != 0)
		goto done;
	qsort(out->v, out->n, sizeof(*out->v), by_id);
	if (read_findings(st, out, FIND_SQL(BASE_WHERE), since_ns, until_ns, true) != 0 ||
	    read_findings(st, out, FIND_SQL(WINDOW_WHERE), since_ns, until_ns, false) != 0)
		goto done;
	qsort(out->v, out->n, sizeof(*out->v), by_path_time);
	rc = 0;
done:
	if (rc != 0) {
		snprintf(err, errlen, "%s", store_error(st));
		report_rows_free(out);
	}
	store_exec(st, "COMMIT");
	store_close(st, NULL, 0);
	return rc;
}
