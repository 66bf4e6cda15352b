/*
 * store_pg_check.c -- scaleprobe db check on a PostgreSQL store, one line
 * per fault as store_check.c's for a file: whose it is (scaleprobe_schema
 * one row, this application's id), its schema version, its schema against
 * the one this binary's migrations build for that version, and its rows'
 * references, each a foreign key a disabled trigger or a restored dump may
 * have left unkept (SQLite's foreign_key_check).  The server keeps its own
 * pages: no integrity_check here, so --quick checks the same.
 *
 * The schema wanted is built by replaying pg_schema_full and the
 * migrations into this session's temporary schema, inside a transaction
 * that is rolled back: nothing of the store is written, and a role that
 * may only read (and make temporary tables, PUBLIC's by default) checks.
 * Both sides are read from the catalogs as tables, columns (type, NOT
 * NULL, default, identity), indexes and constraints, each object's
 * definition with its schema's name taken out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg_int.h"
#include "store_fault.h"

/* The objects of the schema whose oid is the SQL expression NS, named
 * NAME (taken out of definitions, as the temporary schema's alias), as
 * (key, definition). */
#define ITEMS(NS, NAME) \
	"SELECT 'table ' || c.relname AS k, '' AS v FROM pg_class c" \
	" WHERE c.relnamespace = " NS " AND c.relkind IN ('r', 'p')" \
	"   AND c.relname <> 'scaleprobe_check_anchor' " \
	"UNION ALL " \
	"SELECT 'column ' || c.relname || '.' || a.attname," \
	"  format_type(a.atttypid, a.atttypmod)" \
	"  || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END" \
	"  || CASE a.attidentity WHEN 'd' THEN ' IDENTITY BY DEFAULT'" \
	"       WHEN 'a' THEN ' IDENTITY ALWAYS' ELSE '' END" \
	"  || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')" \
	" FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid" \
	" LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum" \
	" WHERE c.relnamespace = " NS " AND c.relkind IN ('r', 'p') AND a.attnum > 0" \
	"   AND NOT a.attisdropped AND c.relname <> 'scaleprobe_check_anchor' " \
	"UNION ALL " \
	"SELECT 'index ' || i.relname," \
	"  replace(replace(pg_get_indexdef(i.oid), " NAME " || '.', ''), 'pg_temp.', '')" \
	" FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid" \
	" WHERE i.relnamespace = " NS " " \
	"UNION ALL " \
	"SELECT 'constraint ' || c.relname || '.' || o.conname," \
	"  replace(replace(pg_get_constraintdef(o.oid), " NAME " || '.', ''), 'pg_temp.', '')" \
	" FROM pg_constraint o JOIN pg_class c ON c.oid = o.conrelid" \
	" WHERE o.connamespace = " NS

/* the store's schema: its oid, read before the wanted one exists (whose
 * scaleprobe_schema, temporary, would be found first by name) */
#define STORE_NS "$1::oid"
#define STORE_NAME "(SELECT quote_ident(nspname) FROM pg_namespace WHERE oid = $1::oid)"
#define TEMP_NAME "(SELECT quote_ident(nspname) FROM pg_namespace WHERE oid = pg_my_temp_schema())"

static const char diff_sql[] =
	"WITH got AS (" ITEMS(STORE_NS, STORE_NAME) "),"
	" want AS (" ITEMS("pg_my_temp_schema()", TEMP_NAME) ") "
	"SELECT coalesce(w.k, g.k), CASE WHEN g.k IS NULL THEN 'missing'"
	"  WHEN w.k IS NULL THEN 'not in the schema' ELSE 'differs' END,"
	"  coalesce(w.v, ''), coalesce(g.v, '')"
	" FROM want w FULL JOIN got g ON g.k = w.k"
	" WHERE g.k IS NULL OR w.k IS NULL OR g.v <> w.v ORDER BY 1";

/* The store's schema (where scaleprobe_schema is) against this
 * session's temporary one: what is missing, differs or is extra. */
static int
schema_diff(struct pg_store *st, int64_t version, struct store_fault_sink *k)
{
	struct pg_params q;
	PGresult *r;
	int64_t ns;

	if ((r = pg_run(st, "SELECT relnamespace::bigint FROM pg_class"
	    " WHERE oid = to_regclass('scaleprobe_schema')", NULL, PGRES_TUPLES_OK,
	    "check")) == NULL)
		return -1;
	if (PQntuples(r) != 1 || !pg_cell_int(r, 0, 0, 1, UINT32_MAX, &ns)) {
		PQclear(r);
		snprintf(st->err, sizeof(st->err), "%s: no schema holds scaleprobe_schema",
		    st->where);
		return -1;
	}
	PQclear(r);
	pgp_init(&q);
	pgp_int(&q, ns);

	/* the temporary schema exists once a temporary table does; then the
	 * schema wanted is made in it (search_path's first) */
	if (pg_cmd(st, "CREATE TEMP TABLE scaleprobe_check_anchor ()", NULL, "check") != 0 ||
	    pg_cmd(st, "SET LOCAL search_path = pg_temp", NULL, "check") != 0)
		return -1;
	if ((r = PQexec(st->c, pg_schema_full)) == NULL || PQresultStatus(r) != PGRES_COMMAND_OK)
		return pg_failres(st, r, "build the schema wanted");
	PQclear(r);
	for (int64_t v = PG_SCHEMA_BASE; v < version; v++) {
		if ((r = PQexec(st->c, pg_migrations[v - PG_SCHEMA_BASE])) == NULL ||
		    PQresultStatus(r) != PGRES_COMMAND_OK)
			return pg_failres(st, r, "build the schema wanted");
		PQclear(r);
	}
	/* the catalogs read with the store's schema first again, so that
	 * its names are not qualified and the temporary ones are */
	if (pg_cmd(st, "SET LOCAL search_path = pg_catalog", NULL, "check") != 0)
		return -1;
	r = pg_run(st, diff_sql, &q, PGRES_TUPLES_OK, "compare the schema");
	if (r == NULL)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		const char *what = pg_cell_text(r, i, 1);

		if (what != NULL && strcmp(what, "differs") == 0)
			store_fault(k, "schema: %.200s differs (version %" PRId64 "): %.200s, wanted "
			    "%.200s", pg_cell_text(r, i, 0), version, pg_cell_text(r, i, 3),
			    pg_cell_text(r, i, 2));
		else
			store_fault(k, "schema: %.200s %s (version %" PRId64 ")", pg_cell_text(r, i, 0),
			    what != NULL ? what : "?", version);
	}
	PQclear(r);
	return 0;
}

/* Each reference of a row to another table's: (table, column(s), table
 * referred to, its column(s)); the rows whose reference is not there. */
static const char *const refs[][4] = {
	{ "path_results", "run_id", "runs", "id" },
	{ "path_results", "target_id", "targets", "id" },
	{ "path_results", "path_id", "paths", "id" },
	{ "scale_results", "path_result_id", "path_results", "id" },
	{ "scale_results", "path_id", "paths", "id" },
	{ "side_findings", "path_result_id, scale_idx", "scale_results", "path_result_id, idx" },
	{ "hops", "path_result_id", "path_results", "id" },
	{ "evidence", "path_result_id", "path_results", "id" },
	{ "target_states", "run_id", "runs", "id" },
	{ "target_states", "target_id", "targets", "id" },
};

#define ORPHANS_SHOWN	20	/* rows named a reference, then a count */

static int
orphans(struct pg_store *st, struct store_fault_sink *k)
{
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		char sql[768];
		PGresult *r;
		int64_t n = 0;

		/* a NULL reference refers to nothing: not a fault */
		snprintf(sql, sizeof(sql), "SELECT x.ctid::text, count(*) OVER () FROM %s x "
		    "WHERE (%s) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM %s y WHERE (y.%s) = "
		    "(x.%s)) LIMIT %d", refs[i][0], refs[i][1], refs[i][2],
		    strchr(refs[i][3], ',') ? "path_result_id, y.idx" : refs[i][3],
		    strchr(refs[i][1], ',') ? "path_result_id, x.scale_idx" : refs[i][1],
		    ORPHANS_SHOWN);
		if ((r = pg_run(st, sql, NULL, PGRES_TUPLES_OK, "check references")) == NULL)
			return -1;
		for (int j = 0; j < PQntuples(r); j++) {
			store_fault(k, "foreign key: %s row %s refers to a missing row of %s",
			    refs[i][0], pg_cell_text(r, j, 0) != NULL ? pg_cell_text(r, j, 0) :
			    "?", refs[i][2]);
			if (j == 0 && !pg_cell_int(r, 0, 1, 0, INT64_MAX, &n))
				n = 0;
		}
		if (n > ORPHANS_SHOWN)
			store_fault(k, "foreign key: %s: %" PRId64 " rows in all refer to missing rows "
			    "of %s", refs[i][0], n, refs[i][2]);
		PQclear(r);
	}
	return 0;
}

int
pg_check(const char *where, bool quick, store_fault_fn fn, void *arg, char *err,
    size_t errlen)
{
	struct store_fault_sink k = { fn, arg, 0 };
	struct pg_store *st = calloc(1, sizeof(*st));
	PGresult *r = NULL;
	int64_t app = 0, ver = 0;
	int rc = -1;

	if (st == NULL) {
		snprintf(err, errlen, "store: out of memory");
		return -1;
	}
	st->mode = STORE_READ;
	if (pg_connect(st, where) != 0) {
		snprintf(err, errlen, "%s", st->err);
		goto out;
	}
	/* one transaction, rolled back: the schema wanted is built in it */
	if (pg_cmd(st, "BEGIN READ WRITE", NULL, "check") != 0) {
		snprintf(err, errlen, "%s", st->err);
		goto out;
	}
	rc = 0;
	if ((r = pg_run(st, "SELECT to_regclass('scaleprobe_schema') IS NOT NULL", NULL,
	    PGRES_TUPLES_OK, "check")) == NULL)
		goto failed;
	if (PQntuples(r) != 1 || strcmp(PQgetvalue(r, 0, 0), "t") != 0) {
		store_fault(&k, "not a scaleprobe store (no scaleprobe_schema)");
		goto out;
	}
	PQclear(r);
	if ((r = pg_run(st, "SELECT application_id, version FROM scaleprobe_schema", NULL,
	    PGRES_TUPLES_OK, "check")) == NULL)
		goto failed;
	if (PQntuples(r) != 1 || !pg_cell_int(r, 0, 0, INT64_MIN, INT64_MAX, &app) ||
	    !pg_cell_int(r, 0, 1, INT64_MIN, INT64_MAX, &ver)) {
		store_fault(&k, "scaleprobe_schema is not one row of two integers (%d rows)",
		    PQntuples(r));
		goto out;
	}
	PQclear(r);
	r = NULL;
	if (app != STORE_APPLICATION_ID)
		store_fault(&k, "not a scaleprobe store (application_id 0x%08" PRIx64 ", expected "
		    "0x%08x)", (uint64_t)app, STORE_APPLICATION_ID);
	if (ver > PG_SCHEMA_VERSION || ver < PG_SCHEMA_BASE)
		store_fault(&k, "schema version %" PRId64 " is %s (this scaleprobe's is %d)", ver,
		    ver < PG_SCHEMA_BASE ? "not one this engine wrote" :
		    "newer than this scaleprobe knows", PG_SCHEMA_VERSION);
	else if (ver < PG_SCHEMA_VERSION)
		store_fault(&k, "schema version %" PRId64 " is older than this scaleprobe's (%d): "
		    "a writer (scaleprobed) migrates it", ver, PG_SCHEMA_VERSION);
	if (ver >= PG_SCHEMA_BASE && ver <= PG_SCHEMA_VERSION && schema_diff(st, ver, &k) != 0)
		store_fault(&k, "schema: cannot be compared: %s", st->err);
	/* a failed statement aborted the transaction: the rows in a new one */
	PQclear(PQexec(st->c, "ROLLBACK; BEGIN READ ONLY"));
	(void)quick;	/* SQLite's quick_check: the server keeps its own pages */
	if (orphans(st, &k) != 0)
		store_fault(&k, "foreign key: cannot be checked: %s", st->err);
	goto out;
failed:
	store_fault(&k, "unreadable: %s", st->err);
out:
	PQclear(r);
	if (st->c != NULL)
		PQclear(PQexec(st->c, "ROLLBACK"));
	PQfinish(st->c);
	free(st);
	return rc < 0 ? -1 : k.n;
}
