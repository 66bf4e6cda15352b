/*
 * store_check.c -- scaleprobe db check's verdict on a file: whose it is,
 * its schema version, SQLite's integrity_check (or quick_check) and
 * foreign_key_check, and its schema against the one this binary's
 * migrations build for that version (replayed in memory), one line per
 * fault.  The file is opened read-only and never changed.
 */
#include <stdio.h>
#include <string.h>

#include "store_int.h"
#include "store_fault.h"

static const char *
col(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t != NULL ? (const char *)t : "NULL";
}

/* Every row of a pragma whose one good answer is a single "ok" (or no
 * row at all): each other row is a fault. */
static int
pragma_rows(sqlite3 *db, const char *sql, struct store_fault_sink *k, bool fk)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (fk)
			store_fault(k, "foreign key: %s row %s refers to a missing row of %s",
			    col(s, 0), col(s, 1), col(s, 2));
		else if (strcmp(col(s, 0), "ok") != 0) {
			/* a row may hold several lines, headed by the schema's
			 * name: each its own fault */
			char buf[1024], *line, *save = NULL;

			snprintf(buf, sizeof(buf), "%s", col(s, 0));
			for (line = strtok_r(buf, "\n", &save); line != NULL;
			    line = strtok_r(NULL, "\n", &save))
				if (strncmp(line, "*** in database ", 16) != 0)
					store_fault(k, "integrity: %s", line);
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char schema_sql[] =
	"SELECT type, name, tbl_name, coalesce(sql, '') FROM %s "
	"WHERE name NOT LIKE 'sqlite_%%' ORDER BY type, name";

/* The schema of db against what the migrations build up to version. */
static int
schema_diff(sqlite3 *db, int64_t version, struct store_fault_sink *k)
{
	sqlite3 *mem = NULL;
	sqlite3_stmt *s = NULL;
	char sql[256];
	int rc = -1;

	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto out;
	for (int64_t v = 0; v < version; v++)
		if (sqlite3_exec(mem, store_migrations[v], NULL, NULL, NULL) != SQLITE_OK)
			goto out;
	/* the file's schema, attached read-only beside the expected one */
	if (sqlite3_exec(mem, "CREATE TEMP TABLE want AS SELECT type, name, tbl_name, "
	    "coalesce(sql, '') AS sql FROM main.sqlite_schema WHERE name NOT LIKE 'sqlite_%'", NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	snprintf(sql, sizeof(sql), schema_sql, "main.sqlite_schema");
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_exec(mem, "CREATE TEMP TABLE got (type, name, tbl_name, sql)", NULL, NULL,
	    NULL) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_stmt *ins;

		if (sqlite3_prepare_v2(mem, "INSERT INTO temp.got VALUES (?1, ?2, ?3, ?4)", -1,
		    &ins, NULL) != SQLITE_OK)
			goto out;
		for (int i = 0; i < 4; i++)
			sqlite3_bind_text(ins, i + 1, col(s, i), -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(ins);
		sqlite3_finalize(ins);
		if (rc != SQLITE_DONE)
			goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc != SQLITE_DONE)
		goto out;
	/* what is missing, what differs, what is extra */
	if (sqlite3_prepare_v2(mem,
	    "SELECT w.type, w.name, CASE WHEN g.name IS NULL THEN 'missing' ELSE 'differs' END "
	    "FROM temp.want w LEFT JOIN temp.got g ON g.type = w.type AND g.name = w.name "
	    "WHERE g.name IS NULL OR g.sql IS NOT w.sql OR g.tbl_name IS NOT w.tbl_name "
	    "UNION ALL "
	    "SELECT g.type, g.name, 'not in the schema' FROM temp.got g WHERE NOT EXISTS "
	    "(SELECT 1 FROM temp.want w WHERE w.type = g.type AND w.name = g.name) "
	    "ORDER BY 2", -1, &s, NULL) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		store_fault(k, "schema: %s %s %s (version %lld)", col(s, 0), col(s, 1), col(s, 2),
		    (long long)version);
	rc = rc == SQLITE_DONE ? 0 : -1;
out:
	sqlite3_finalize(s);
	sqlite3_close(mem);
	return rc;
}

int
store_check(const char *file, bool quick, store_fault_fn fn, void *arg, char *err,
    size_t errlen)
{
	struct store_fault_sink k = { fn, arg, 0 };
	sqlite3 *db = NULL;
	sqlite3_stmt *s;
	int64_t app = 0, ver = 0;
	int rc;

	if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", file, db != NULL ? sqlite3_errmsg(db) :
		    "cannot open");
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 5000);
	rc = sqlite3_prepare_v2(db, "SELECT (SELECT application_id FROM pragma_application_id),"
	    " (SELECT user_version FROM pragma_user_version)", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			app = sqlite3_column_int64(s, 0);
			ver = sqlite3_column_int64(s, 1);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(s);
	}
	if (rc != SQLITE_OK) {
		/* its header or its schema cannot be read: that is the fault */
		store_fault(&k, "unreadable: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return k.n;
	}
	if ((uint32_t)app != STORE_APPLICATION_ID)
		store_fault(&k, "not a scaleprobe store (application_id 0x%08x, expected 0x%08x)",
		    (unsigned)(uint32_t)app, STORE_APPLICATION_ID);
	if (ver > STORE_SCHEMA_VERSION || ver < 1)
		store_fault(&k, "schema version %lld is %s (this scaleprobe's is %d)", (long long)ver,
		    ver < 1 ? "not valid" : "newer than this scaleprobe knows",
		    STORE_SCHEMA_VERSION);
	else if (ver < STORE_SCHEMA_VERSION)
		store_fault(&k, "schema version %lld is older than this scaleprobe's (%d): "
		    "scaleprobe db upgrade migrates it", (long long)ver, STORE_SCHEMA_VERSION);
	if (pragma_rows(db, quick ? "PRAGMA quick_check" : "PRAGMA integrity_check", &k,
	    false) != 0)
		store_fault(&k, "integrity: %s", sqlite3_errmsg(db));
	if (pragma_rows(db, "PRAGMA foreign_key_check", &k, true) != 0)
		store_fault(&k, "foreign key: %s", sqlite3_errmsg(db));
	if (ver >= 1 && ver <= STORE_SCHEMA_VERSION && schema_diff(db, ver, &k) != 0)
		store_fault(&k, "schema: cannot be compared: %s", sqlite3_errmsg(db));
	sqlite3_close(db);
	return k.n;
}
