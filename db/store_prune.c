/*
 * store_prune.c -- retention: old results go, the story stays.  A state is
 * the verdict of one path, vantage and scale sent; of the results older
 * than the cutoff, those that begin or end a run of one state are kept
 * (so "broken from T1, last seen broken T2, fine again from T3" survives),
 * the rest are deleted.  Evidence is kept only for the first and the last
 * problem of each path and vantage.  The pages freed go back to the file
 * system (auto_vacuum = INCREMENTAL, set when the store was created).
 */
#include <stdio.h>

#include "store_int.h"

/* Results older than ?1 that begin or end a state, in temp.prune_keep. */
static const char keep_sql[] =
	"CREATE TEMP TABLE prune_keep AS "
	"SELECT DISTINCT path_result_id AS id FROM ("
	"  SELECT s.path_result_id, s.time_ns,"
	"    (lag(s.idx) OVER w IS NULL OR lag(s.verdict) OVER w IS NOT s.verdict) AS starts,"
	"    (lead(s.idx) OVER w IS NULL OR lead(s.verdict) OVER w IS NOT s.verdict) AS ends"
	"  FROM scale_results s"
	"  JOIN path_results pr ON pr.id = s.path_result_id"
	"  JOIN runs r ON r.id = pr.run_id"
	"  WINDOW w AS (PARTITION BY s.path_id, r.vantage, s.scale_sent"
	"               ORDER BY s.time_ns, s.path_result_id))"
	"WHERE time_ns < ?1 AND (starts OR ends)";

static const char delete_sql[] =
	"DELETE FROM path_results WHERE time_ns < ?1 AND id NOT IN (SELECT id FROM prune_keep)";

/* The first and the last result with a problem, per path and vantage. */
static const char evidence_sql[] =
	"DELETE FROM evidence WHERE path_result_id IN ("
	"  SELECT id FROM path_results WHERE time_ns < ?1) "
	"AND path_result_id NOT IN ("
	"  SELECT id FROM ("
	"    SELECT pr.id,"
	"      row_number() OVER (PARTITION BY pr.path_id, r.vantage"
	"                         ORDER BY pr.time_ns, pr.id) AS first,"
	"      row_number() OVER (PARTITION BY pr.path_id, r.vantage"
	"                         ORDER BY pr.time_ns DESC, pr.id DESC) AS last"
	"    FROM path_results pr JOIN runs r ON r.id = pr.run_id"
	"    WHERE EXISTS (SELECT 1 FROM scale_results s"
	"                  WHERE s.path_result_id = pr.id AND s.problem))"
	"  WHERE first = 1 OR last = 1)";

static const char runs_sql[] =
	"DELETE FROM runs WHERE started_ns < ?1 AND NOT EXISTS "
	"(SELECT 1 FROM path_results pr WHERE pr.run_id = runs.id)";

static int
run_bound(struct store *st, const char *sql, int64_t cutoff, int64_t *changed)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "prune");
	sqlite3_bind_int64(s, 1, cutoff);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "prune");
	if (changed != NULL)
		*changed = sqlite3_changes64(st->db);
	return 0;
}

int64_t
store_prune(struct store *st, int64_t cutoff_ns)
{
	int64_t deleted = 0;

	if (st->mode != STORE_WRITE || store_flush(st, true) != 0)
		return -1;
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "prune");
	if (run_bound(st, keep_sql, cutoff_ns, NULL) != 0 ||
	    run_bound(st, delete_sql, cutoff_ns, &deleted) != 0 ||
	    run_bound(st, evidence_sql, cutoff_ns, NULL) != 0 ||
	    run_bound(st, runs_sql, cutoff_ns, NULL) != 0 ||
	    sqlite3_exec(st->db, "DROP TABLE temp.prune_keep", NULL, NULL, NULL) != SQLITE_OK) {
		store_fail(st, "prune");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		store_fail(st, "prune commit");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	/* the freed pages leave the file (after the WAL is checkpointed) */
	if (sqlite3_exec(st->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "vacuum");
	return deleted;
}
