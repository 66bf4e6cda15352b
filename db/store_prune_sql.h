/*
 * store_prune_sql.h -- retention's rules as SQL both engines run (SQLite's
 * store_prune.c, PostgreSQL's store_pg_prune.c, which numbers the
 * parameters $N): ?1 the cutoff (ns), ?2..?3 a range of path ids (or of
 * target or run ids), ?4 the vantage whose results go (NULL: every
 * vantage's; store.h's store_prune.vantage): the runs of another vantage,
 * their results, evidence and target states are never looked at, so a
 * daemon's retention on a store several vantages write removes its own
 * history only.  The temporary tables (prune_keep, prune_keep_all,
 * prune_runs: one column id) are named unqualified, each engine making
 * them its way; SQLite looks in temp first.
 */
#ifndef SCALEPROBE_STORE_PRUNE_SQL_H
#define SCALEPROBE_STORE_PRUNE_SQL_H

/* Results of paths ?2..?3 older than ?1 that begin or end a state.  From
 * path_results (its path index) to their scales: the window partitions by
 * path, so only whole paths are filtered.  Of the newer results only the
 * first per path and vantage takes part (the one an old state's last
 * result is compared with): the cost follows the old rows, not a path's
 * whole history.  Should that result lack a scale, the last old one of
 * that scale is kept: more than needed, never less. */
/* ?4 as text in both engines (NULL: every vantage) */
#define PRUNE_V "CAST(?4 AS TEXT)"
/* a row whose run (column col) is of the vantage pruned */
#define PRUNE_OF_VANTAGE(col) \
	" (" PRUNE_V " IS NULL OR " col " IN (SELECT id FROM runs WHERE vantage = " PRUNE_V "))"

#define PRUNE_KEEP_SELECT \
	"SELECT DISTINCT path_result_id AS id FROM (" \
	"  SELECT s.path_result_id, s.time_ns," \
	"    (lag(s.idx) OVER w IS NULL OR lag(s.verdict) OVER w IS DISTINCT FROM s.verdict)" \
	"      AS starts," \
	"    (lead(s.idx) OVER w IS NULL OR lead(s.verdict) OVER w IS DISTINCT FROM s.verdict)" \
	"      AS ends" \
	"  FROM path_results pr" \
	"  JOIN scale_results s ON s.path_result_id = pr.id" \
	"  JOIN runs r ON r.id = pr.run_id" \
	"  WHERE pr.path_id BETWEEN ?2 AND ?3" \
	"    AND (" PRUNE_V " IS NULL OR r.vantage = " PRUNE_V ")" \
	"    AND (pr.time_ns < ?1 OR pr.id IN (" \
	"    SELECT (SELECT n.id FROM path_results n JOIN runs nr ON nr.id = n.run_id" \
	"            WHERE n.path_id = pp.id AND n.time_ns >= ?1 AND nr.vantage = v.vantage" \
	"            ORDER BY n.time_ns, n.id LIMIT 1)" \
	"    FROM paths pp, (SELECT DISTINCT vantage FROM runs" \
	"                    WHERE " PRUNE_V " IS NULL OR vantage = " PRUNE_V ") v" \
	"    WHERE pp.id BETWEEN ?2 AND ?3))" \
	"  WINDOW w AS (PARTITION BY s.path_id, r.vantage, s.scale_sent" \
	"               ORDER BY s.time_ns, s.path_result_id)) x " \
	"WHERE time_ns < ?1 AND (starts OR ends)"

/* the old results of paths ?2..?3 that go (an engine may add a clause) */
#define PRUNE_GONE_WHERE \
	" WHERE path_id BETWEEN ?2 AND ?3 AND time_ns < ?1" \
	" AND id NOT IN (SELECT id FROM prune_keep) AND" PRUNE_OF_VANTAGE("run_id")

/* Of paths ?2..?3: the old results' evidence but for the first and the
 * last old result with a problem, per path and vantage (when newer
 * problems follow, that last old one is kept too: one record more). */
#define PRUNE_EVIDENCE_WHERE \
	" WHERE path_result_id IN (" \
	"  SELECT id FROM path_results WHERE path_id BETWEEN ?2 AND ?3 AND time_ns < ?1" \
	"  AND" PRUNE_OF_VANTAGE("run_id") ") " \
	"AND path_result_id NOT IN (" \
	"  SELECT id FROM (" \
	"    SELECT pr.id," \
	"      row_number() OVER (PARTITION BY pr.path_id, r.vantage" \
	"                         ORDER BY pr.time_ns, pr.id) AS first," \
	"      row_number() OVER (PARTITION BY pr.path_id, r.vantage" \
	"                         ORDER BY pr.time_ns DESC, pr.id DESC) AS last" \
	"    FROM path_results pr JOIN runs r ON r.id = pr.run_id" \
	"    WHERE pr.path_id BETWEEN ?2 AND ?3 AND pr.time_ns < ?1" \
	"      AND EXISTS (SELECT 1 FROM scale_results s" \
	"                  WHERE s.path_result_id = pr.id AND s.problem <> 0)) y" \
	"  WHERE first = 1 OR last = 1)"

/* Runs of the vantage older than ?1 without results (a dry run: without
 * results that stay). */
#define PRUNE_RUNS_OF_VANTAGE \
	"SELECT id FROM runs WHERE started_ns < ?1" \
	" AND (" PRUNE_V " IS NULL OR vantage = " PRUNE_V ") "
#define PRUNE_RUNS_SELECT PRUNE_RUNS_OF_VANTAGE \
	"AND NOT EXISTS (SELECT 1 FROM path_results pr WHERE pr.run_id = runs.id)"
#define PRUNE_RUNS_DRY_SELECT PRUNE_RUNS_OF_VANTAGE \
	"AND NOT EXISTS (SELECT 1 FROM path_results pr WHERE pr.run_id = runs.id " \
	"AND (pr.time_ns >= ?1 OR pr.id IN (SELECT id FROM prune_keep_all)))"
/* their target states, of targets ?2..?3; then the runs ?2 < id <= ?3 */
#define PRUNE_STATES_DELETE \
	"DELETE FROM target_states WHERE target_id BETWEEN ?2 AND ?3 " \
	"AND run_id IN (SELECT id FROM prune_runs)"
#define PRUNE_RUNS_DELETE \
	"DELETE FROM runs WHERE id > ?2 AND id <= ?3 AND id IN (SELECT id FROM prune_runs) " \
	"AND NOT EXISTS (SELECT 1 FROM path_results pr WHERE pr.run_id = runs.id)"

/* paths after ?1 with their results older than ?2 (of the vantage ?4),
 * in order */
#define PRUNE_PATHS_SCAN \
	"SELECT p.id, (SELECT count(*) FROM path_results pr " \
	"WHERE pr.path_id = p.id AND pr.time_ns < ?2 AND" PRUNE_OF_VANTAGE("pr.run_id") ") " \
	"FROM paths p WHERE p.id > ?1 " \
	"ORDER BY p.id"
/* the last id of the next batch of at most ?2 ids after ?1 */
#define PRUNE_TARGETS_BATCH \
	"SELECT max(id) FROM (SELECT id FROM targets WHERE id > ?1 ORDER BY id LIMIT ?2) x"
#define PRUNE_RUNS_BATCH \
	"SELECT max(id) FROM (SELECT id FROM prune_runs WHERE id > ?1 ORDER BY id LIMIT ?2) x"

#endif
