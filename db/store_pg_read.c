/*
 * store_pg_read.c -- the PostgreSQL engine's readers: show's rows of one
 * host, export's groups, a result's side findings and evidence, in the
 * orders and with the absences history.h promises (text compared
 * bytewise, COLLATE "C", as SQLite does).  Rows are read one at a time
 * (libpq's single-row mode): a large window is never held whole.  Every
 * cell is checked for its type, length and NULL (store_pg.c).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_row.h"
#include "store_pg_int.h"

struct pg_history {
	struct pg_store *st;
};

#define PG_SHOW_FILTER \
	"   AND pr.time_ns >= $3" \
	"   AND ($2 < 0 OR p.port = $2)" \
	"   AND ($4::text IS NULL OR r.vantage = $4)" \
	" ORDER BY p.address COLLATE \"C\", p.port, r.vantage COLLATE \"C\", s.scale_sent," \
	"  pr.time_ns, pr.id, s.idx"

static const char *const show_sql[2] = {
	HISTORY_SHOW_SELECT " WHERE pr.path_id IN (SELECT id FROM paths WHERE address = $1)"
	    PG_SHOW_FILTER,
	HISTORY_SHOW_SELECT " WHERE pr.target_id = (SELECT id FROM targets WHERE spec = $1)"
	    PG_SHOW_FILTER,
};

void *
pg_history_open(void *e, char *err, size_t errlen)
{
	struct pg_history *h = calloc(1, sizeof(*h));

	if (h == NULL) {
		snprintf(err, errlen, "%s: out of memory", ((struct pg_store *)e)->where);
		return NULL;
	}
	h->st = e;
	return h;
}

void
pg_history_close(void *h)
{
	free(h);
}

const char *
pg_history_error(const void *h)
{
	return ((const struct pg_history *)h)->st->err;
}

/* A row of a result: one of single-row mode's, or of a cursor's FETCH. */
struct pg_row {
	const PGresult *r;
	int row;
};

/* libpq's cells for history_row_read (store_pg.c checks them) */
static int64_t
cell_num(const void *src, int col, int64_t lo, int64_t hi, int64_t dflt)
{
	const struct pg_row *w = src;
	int64_t v;

	return pg_cell_int(w->r, w->row, col, lo, hi, &v) ? v : dflt;
}

static const char *
cell_text(const void *src, int col)
{
	const struct pg_row *w = src;

	return pg_cell_text(w->r, w->row, col);
}

static const struct history_cells cells = { cell_num, cell_text };

/* Sends sql with p and hands each row, one at a time, to fn(arg, r);
 * what fn returns stops it (the rest is read and dropped: the
 * connection must be idle again).  0, fn's value, or -1 (err). */
typedef int (*pg_row_fn)(void *arg, const struct pg_row *r);

static int
each(struct pg_store *st, const char *sql, const struct pg_params *p, int binary, pg_row_fn fn,
    void *arg, const char *what, size_t *n)
{
	PGresult *r;
	int rc = 0;
	bool failed = false;

	if (!PQsendQueryParams(st->c, sql, p->n, NULL, p->v, p->len, p->fmt, binary) ||
	    !PQsetSingleRowMode(st->c))
		return pg_fail(st, what);
	while ((r = PQgetResult(st->c)) != NULL) {
		ExecStatusType s = PQresultStatus(r);

		if (s == PGRES_SINGLE_TUPLE && rc == 0 && !failed) {
			struct pg_row w = { r, 0 };

			if (n != NULL)
				(*n)++;
			rc = fn(arg, &w);
		} else if (s != PGRES_SINGLE_TUPLE && s != PGRES_TUPLES_OK && !failed) {
			pg_failres(st, r, what);
			failed = true;
			continue;
		}
		PQclear(r);
	}
	return failed ? -1 : rc;
}

/* As each, but through a cursor read EXPORT_FETCH rows at a time, in a
 * transaction of its own: between fetches the connection is idle, so fn
 * may ask it for more (export --pcap reads each row's evidence), which a
 * query in single-row mode forbids until its last row. */
#define EXPORT_FETCH	500
#define EXPORT_FETCH_S	"500"

static int
each_fetched(struct pg_store *st, const char *sql, const struct pg_params *p, pg_row_fn fn,
    void *arg, const char *what)
{
	size_t len = strlen(sql) + 64;
	char *decl = malloc(len);
	PGresult *r = NULL;
	int rc = 0;

	if (decl == NULL) {
		snprintf(st->err, sizeof(st->err), "%.200s: out of memory", st->where);
		return -1;
	}
	snprintf(decl, len, "DECLARE scaleprobe_x NO SCROLL CURSOR FOR %s", sql);
	if (pg_cmd(st, "BEGIN", NULL, what) != 0 || pg_cmd(st, decl, p, what) != 0) {
		free(decl);
		PQclear(PQexec(st->c, "ROLLBACK"));
		return -1;
	}
	free(decl);
	do {
		PQclear(r);
		if ((r = pg_run(st, "FETCH " EXPORT_FETCH_S " FROM scaleprobe_x", NULL,
		    PGRES_TUPLES_OK, what)) == NULL) {
			rc = -1;
			break;
		}
		for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
			struct pg_row w = { r, i };

			rc = fn(arg, &w);
		}
	} while (rc == 0 && PQntuples(r) == EXPORT_FETCH);
	PQclear(r);
	/* read only: the end of the transaction is the cursor's */
	PQclear(PQexec(st->c, "ROLLBACK"));
	return rc;
}

struct show_arg {
	history_row_fn fn;
	void *arg;
	bool export;
};

static int
show_row(void *arg, const struct pg_row *r)
{
	struct show_arg *a = arg;
	struct history_row row;

	history_row_read(&cells, r, &row);
	if (a->export) {
		row.first_ns = cell_num(r, HISTORY_ROW_NCOLS, INT64_MIN, INT64_MAX, row.time_ns);
		row.count = cell_num(r, HISTORY_ROW_NCOLS + 1, INT64_MIN, INT64_MAX, 1);
	}
	return a->fn(a->arg, &row);
}

/* The host as an address first; when that finds nothing, as a target. */
int
pg_history_show(void *hv, const struct history_query *q, history_row_fn fn, void *arg)
{
	struct pg_history *h = hv;
	struct show_arg a = { fn, arg, false };
	struct pg_params p;
	size_t n = 0;
	int r = 0;

	for (int k = 0; k < 2 && r == 0 && n == 0; k++) {
		pgp_init(&p);
		pgp_text(&p, q->host);
		pgp_int(&p, q->port);
		pgp_int(&p, q->since_ns);
		pgp_text(&p, q->vantage);
		r = each(h->st, show_sql[k], &p, 0, show_row, &a, "read the host's results", &n);
	}
	return r;
}

static bool
is_problem(const char *v)
{
	return strcmp(v, "rewritten") == 0 || strcmp(v, "stripped") == 0 ||
	    strcmp(v, "syn-dropped") == 0;
}

int
pg_history_export(void *hv, const struct history_export_query *q, history_row_fn fn,
    void *arg)
{
	struct pg_history *h = hv;
	struct show_arg a = { fn, arg, true };
	char sql[3072], list[HISTORY_MAX_VERDICTS * 12];
	struct pg_params p;
	bool problems = true;

	if (q->nverdicts < 1 || q->nverdicts > HISTORY_MAX_VERDICTS) {
		snprintf(h->st->err, sizeof(h->st->err), "%.200s: export: 1 to %d verdicts",
		    h->st->where, HISTORY_MAX_VERDICTS);
		return -1;
	}
	pgp_init(&p);
	pgp_int(&p, q->since_ns);
	pgp_text(&p, q->hop);
	for (int i = 0; i < q->nverdicts; i++) {
		pgp_text(&p, q->verdicts[i]);
		problems &= is_problem(q->verdicts[i]);
	}
	for (int i = 0, used = 0; i < q->nverdicts; i++)
		used += snprintf(list + used, sizeof(list) - (size_t)used, "%s$%d::text",
		    i ? ", " : "", i + 3);
	snprintf(sql, sizeof(sql),
	    "SELECT * FROM ("
	    HISTORY_EXPORT_SELECT
	    " WHERE s.time_ns >= $1 %s AND s.verdict IN (%s)"
	    "  AND ($2::text IS NULL OR s.hop_address = $2)"
	    HISTORY_EXPORT_WINDOW ") x"
	    " WHERE latest = 1"
	    " ORDER BY address COLLATE \"C\", port, scale_sent, vantage COLLATE \"C\","
	    "  verdict COLLATE \"C\"",
	    problems ? "AND s.problem <> 0" : "", list);
	return each_fetched(h->st, sql, &p, show_row, &a, "read the export");
}

struct finding_arg {
	history_finding_fn fn;
	void *arg;
};

static int
finding_row(void *arg, const struct pg_row *r)
{
	struct finding_arg *a = arg;
	struct history_finding f;
	const char *kind = cell_text(r, 0);

	f.kind = kind != NULL ? kind : "";
	f.detail = cell_text(r, 1);
	f.hop_index = (int)cell_num(r, 2, 0, 255, -1);
	f.hop_address = cell_text(r, 3);
	return a->fn(a->arg, &f);
}

int
pg_history_findings(void *hv, int64_t id, int idx, history_finding_fn fn, void *arg)
{
	struct pg_history *h = hv;
	struct finding_arg a = { fn, arg };
	struct pg_params p;

	pgp_init(&p);
	pgp_int(&p, id);
	pgp_int(&p, idx);
	return each(h->st, "SELECT kind, detail, hop_index, hop_address FROM side_findings"
	    " WHERE path_result_id = $1 AND scale_idx = $2 ORDER BY idx", &p, 0, finding_row, &a,
	    "read side findings", NULL);
}

int
pg_history_evidence(void *hv, int64_t id, uint8_t **buf, size_t *len)
{
	struct pg_history *h = hv;
	struct pg_params p;
	const uint8_t *b;
	size_t n;
	PGresult *r;
	int rc = 1;

	*buf = NULL;
	*len = 0;
	pgp_init(&p);
	pgp_int(&p, id);
	r = PQexecParams(h->st->c, "SELECT bytes FROM evidence WHERE path_result_id = $1", p.n,
	    NULL, p.v, p.len, p.fmt, 1);
	if (r == NULL || PQresultStatus(r) != PGRES_TUPLES_OK)
		return pg_failres(h->st, r, "read evidence");
	/* evidence_unpack judges the bytes; a cell of another type is none */
	if (PQntuples(r) == 1 && pg_cell_bytes(r, 0, 0, &b, &n) == 0 && n > 0) {
		if ((*buf = malloc(n)) == NULL) {
			snprintf(h->st->err, sizeof(h->st->err), "%.200s: out of memory",
			    h->st->where);
			rc = -1;
		} else {
			memcpy(*buf, b, n);
			*len = n;
			rc = 0;
		}
	}
	PQclear(r);
	return rc;
}
