/*
 * store_pg_report.c -- what "scaleprobe report" reads from a PostgreSQL
 * store: the rows of report_query.c's query (a path result, one of its
 * scales, one of that scale's side findings), for the window and each
 * (vantage, path)'s last result before it, in one snapshot (a read-only
 * REPEATABLE READ transaction), sorted by the server (bytewise: COLLATE
 * "C") and read one at a time, folded by report_fold.c as SQLite's are.
 */
#include <stdio.h>
#include <string.h>

#include "report_fold.h"
#include "store_engine.h"
#include "store_pg_int.h"

#define PG_REPORT_SQL \
	"SELECT pr.id, r.vantage, p.address, p.port, p.family, pr.time_ns," \
	"  s.scale_sent, s.verdict, s.scale_quoted, s.scale_effective," \
	"  s.hop_index, s.hop_address, s.last_clean_index, s.last_clean_address," \
	"  f.kind, f.detail, (pr.time_ns < $1)::int, s.hop_silent," \
	"  s.flows, s.flows_affected, s.branch_hop, s.branch_problem, s.branch_clean" \
	" FROM path_results pr JOIN runs r ON r.id = pr.run_id" \
	" JOIN paths p ON p.id = pr.path_id" \
	" LEFT JOIN scale_results s ON s.path_result_id = pr.id" \
	" LEFT JOIN side_findings f ON f.path_result_id = s.path_result_id" \
	"  AND f.scale_idx = s.idx" \
	" WHERE (pr.time_ns >= $1 AND pr.time_ns < $2)" \
	"  OR pr.id IN (SELECT id FROM (SELECT pr2.id AS id, ROW_NUMBER() OVER (" \
	"   PARTITION BY r2.vantage, pr2.path_id ORDER BY pr2.time_ns DESC, pr2.id DESC) AS rn" \
	"   FROM path_results pr2 JOIN runs r2 ON r2.id = pr2.run_id" \
	"   WHERE pr2.time_ns < $1) b WHERE rn = 1)" \
	" ORDER BY r.vantage COLLATE \"C\", p.address COLLATE \"C\", p.port, pr.time_ns, pr.id," \
	"  s.idx, f.idx"

static int
cell(const PGresult *r, int c, int lo, int hi)
{
	int64_t v;

	return pg_cell_int(r, 0, c, lo, hi, &v) ? (int)v : -1;
}

/* The row as the fold's cells; false when it is not a row this query
 * can give (the id, vantage, address, port or time absent). */
static bool
cells_of(const PGresult *r, struct report_cells *c)
{
	int64_t v;

	memset(c, 0, sizeof(*c));
	if (!pg_cell_int(r, 0, 0, 1, INT64_MAX, &c->id) ||
	    (c->vantage = pg_cell_text(r, 0, 1)) == NULL ||
	    (c->address = pg_cell_text(r, 0, 2)) == NULL ||
	    !pg_cell_int(r, 0, 3, 0, 65535, &v) ||
	    !pg_cell_int(r, 0, 5, INT64_MIN, INT64_MAX, &c->time_ns))
		return false;
	c->port = (unsigned)v;
	c->family = pg_cell_text(r, 0, 4);
	c->baseline = pg_cell_int(r, 0, 16, 0, 1, &v) && v == 1;
	if ((c->has_scale = pg_cell_int(r, 0, 6, 0, 255, &v))) {
		c->scale_sent = (int)v;
		c->verdict = pg_cell_text(r, 0, 7);
		c->scale_quoted = cell(r, 8, 0, 255);
		c->scale_effective = cell(r, 9, 0, 255);
		c->hop_index = cell(r, 10, 0, 255);
		c->hop_address = pg_cell_text(r, 0, 11);
		c->clean_index = cell(r, 12, 0, 255);
		c->clean_address = pg_cell_text(r, 0, 13);
		c->finding = pg_cell_text(r, 0, 14);
		c->detail = pg_cell_text(r, 0, 15);
		c->has_silent = pg_cell_int(r, 0, 17, INT64_MIN, INT64_MAX, &c->silent);
		c->flows = cell(r, 18, 0, 255);
		c->flows_affected = cell(r, 19, 0, 255);
		c->branch_hop = cell(r, 20, 0, 255);
		c->branch_problem = pg_cell_text(r, 0, 21);
		c->branch_clean = pg_cell_text(r, 0, 22);
	}
	return true;
}

static int
read_rows(struct pg_store *st, int64_t since, int64_t until, report_row_fn fn, void *arg)
{
	struct report_fold q;
	struct report_cells c;
	struct pg_params p;
	PGresult *r;
	int rc = 0;
	bool failed = false;

	memset(&q, 0, sizeof(q));
	pgp_init(&p);
	pgp_int(&p, since);
	pgp_int(&p, until);
	if (!PQsendQueryParams(st->c, PG_REPORT_SQL, p.n, NULL, p.v, p.len, p.fmt, 0) ||
	    !PQsetSingleRowMode(st->c))
		return pg_fail(st, "report");
	while ((r = PQgetResult(st->c)) != NULL) {
		ExecStatusType s = PQresultStatus(r);

		if (s == PGRES_SINGLE_TUPLE && rc == 0 && !failed) {
			if (cells_of(r, &c))
				rc = report_fold_add(&q, &c, fn, arg);
		} else if (s != PGRES_SINGLE_TUPLE && s != PGRES_TUPLES_OK && !failed) {
			pg_failres(st, r, "report");
			failed = true;
			continue;
		}
		PQclear(r);
	}
	if (rc == 0 && !failed)
		rc = report_fold_end(&q, fn, arg);
	report_fold_free(&q);
	if (q.oom) {
		snprintf(st->err, sizeof(st->err), "%.200s: report: out of memory", st->where);
		return -1;
	}
	return failed ? -1 : rc;
}

int
pg_report(const char *where, int64_t since_ns, int64_t until_ns, report_row_fn fn, void *arg,
    char *err, size_t errlen)
{
	struct pg_store *st = store_engine_pg.open(where, STORE_READ, NULL, err, errlen);
	int rc;

	if (st == NULL)
		return -1;
	if (pg_cmd(st, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL, "report") != 0) {
		snprintf(err, errlen, "%s", st->err);
		store_engine_pg.close(st, NULL, 0);
		return -1;
	}
	rc = read_rows(st, since_ns, until_ns, fn, arg);
	if (rc == -1)
		snprintf(err, errlen, "%s", st->err);
	PQclear(PQexec(st->c, "COMMIT"));
	store_engine_pg.close(st, NULL, 0);
	return rc;
}
