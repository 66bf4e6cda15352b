/*
 * store_prune.c -- retention: old results go, the story stays.  A state is
 * the verdict of one path, vantage and scale sent; of the results older
 * than the cutoff, those that begin or end a run of one state are kept
 * (so "broken from T1, last seen broken T2, fine again from T3" survives),
 * the rest are deleted.  Evidence is kept only for the first and the last
 * problem of each path and vantage.  The pages freed go back to the file
 * system (auto_vacuum = INCREMENTAL, set when the store was created).
 *
 * The work goes in steps (store_prune_step), each one short transaction,
 * so that the daemon's writer, which shares the connection, and its event
 * loop wait at most one step:
 *   paths   a batch of whole paths (by id) per transaction, up to
 *           batch_paths of them or batch_rows old results (a path's old
 *           results go in one transaction, however many): both rules
 *           partition by path, so a batch's paths are pruned exactly as a
 *           prune of everything would, and a reader sees each path either
 *           before or after, never half;
 *   runs    the runs older than the cutoff left without results, listed
 *           once; then their target states, a batch of targets per
 *           transaction through target_states (target_id, time_ns), and
 *           the runs themselves in chunks (their cascade into
 *           target_states, empty by then, a seek on its run_id index,
 *           schema v10);
 *   vacuum  the free pages given back, PRUNE_VACUUM_PAGES a transaction.
 *
 * A prune of one vantage (store_prune.vantage: the daemon's retention)
 * weighs, deletes and lists that vantage's runs only: another vantage's
 * results, evidence, runs and target states are never touched, whatever
 * their age (store_prune_sql.h).
 */
#include <sys/stat.h>

#include <stdio.h>
#include <string.h>

#include "store_int.h"
#include "store_prune_sql.h"

#define PRUNE_BATCH_PATHS	64	/* paths a transaction, by default */
#define PRUNE_BATCH_ROWS	1000	/* ... or old results, by default */
#define PRUNE_SCAN_PATHS	4096	/* paths looked at a step, at most */
#define PRUNE_RUNS_CHUNK	500
#define PRUNE_VACUUM_PAGES	256	/* 1 MiB of 4 KiB pages */

enum { PH_PATHS, PH_RUNS_LIST, PH_STATES, PH_RUNS, PH_VACUUM, PH_DONE };

/* the rules: store_prune_sql.h's, shared with the PostgreSQL engine */
static const char keep_sql[] = "CREATE TEMP TABLE prune_keep AS " PRUNE_KEEP_SELECT;

/* never a result the shared store has not taken yet (upload_cursor, v7):
 * while the upload fails, the local store is its only copy */
#define GONE_WHERE PRUNE_GONE_WHERE \
	" AND id <= coalesce((SELECT last_id FROM upload_cursor WHERE id = 1)," \
	"                    9223372036854775807)"

static const char gone_count_sql[] =
	"SELECT count(*), count(DISTINCT path_id) FROM path_results" GONE_WHERE;
static const char gone_sql[] = "DELETE FROM path_results" GONE_WHERE;
/* a dry run's kept rows, for the runs it would leave empty */
static const char keep_all_sql[] =
	"INSERT OR IGNORE INTO temp.prune_keep_all SELECT id FROM temp.prune_keep";

static const char evidence_count_sql[] = "SELECT count(*) FROM evidence" PRUNE_EVIDENCE_WHERE;
static const char evidence_sql[] = "DELETE FROM evidence" PRUNE_EVIDENCE_WHERE;

static const char runs_list_sql[] = "CREATE TEMP TABLE prune_runs AS " PRUNE_RUNS_SELECT;
static const char runs_list_dry_sql[] = "CREATE TEMP TABLE prune_runs AS "
	PRUNE_RUNS_DRY_SELECT;
static const char states_sql[] = PRUNE_STATES_DELETE;
static const char runs_sql[] = PRUNE_RUNS_DELETE;

/* The last id of the next batch of at most n ids of table after lo, or
 * 0 when there is none. */
static int
batch_end(struct store *st, const char *sql, int64_t lo, unsigned n, int64_t *hi)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "prune");
	sqlite3_bind_int64(s, 1, lo);
	sqlite3_bind_int64(s, 2, n);
	rc = sqlite3_step(s);
	*hi = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL ?
	    sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, "prune");
	return 0;
}

/* The last path of the next batch: whole paths after next_id, up to
 * batch_paths of them or batch_rows old results; 0 when none is left.
 * Counted before the transaction, through path_results (path_id, time_ns);
 * paths without old results are passed over (up to PRUNE_SCAN_PATHS a
 * step), so an hourly pass with little to do takes few transactions.
 * *rows: the batch's old results. */
static int
paths_end(struct store *st, const struct store_prune *p, int64_t *hi, int64_t *rows_out)
{
	sqlite3_stmt *s;
	unsigned n = 0;
	int64_t rows = 0;
	int rc;

	*hi = 0;
	if (sqlite3_prepare_v2(st->db, PRUNE_PATHS_SCAN, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "prune");
	sqlite3_bind_int64(s, 1, p->next_id);
	sqlite3_bind_int64(s, 2, p->cutoff_ns);
	if (p->vantage != NULL)
		sqlite3_bind_text(s, 4, p->vantage, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*hi = sqlite3_column_int64(s, 0);
		rows += sqlite3_column_int64(s, 1);
		n++;
		if (rows >= (int64_t)p->batch_rows || (n >= p->batch_paths && rows > 0) ||
		    n >= PRUNE_SCAN_PATHS) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(s);
	*rows_out = rows;
	if (rc != SQLITE_DONE)
		return store_fail(st, "prune");
	return 0;
}

/* sql with ?1 the cutoff, ?2..?3 a range and ?4 the vantage; its two
 * first columns in c0 and c1 (a query) or the rows it changed in c0. */
static int
run_range(struct store *st, const char *sql, const struct store_prune *p, int64_t lo,
    int64_t hi, int64_t *c0, int64_t *c1)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "prune");
	if (sqlite3_bind_parameter_count(s) >= 1)
		sqlite3_bind_int64(s, 1, p->cutoff_ns);
	if (sqlite3_bind_parameter_count(s) >= 3) {
		sqlite3_bind_int64(s, 2, lo);
		sqlite3_bind_int64(s, 3, hi);
	}
	if (sqlite3_bind_parameter_count(s) >= 4 && p->vantage != NULL)
		sqlite3_bind_text(s, 4, p->vantage, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (c0 != NULL)
			*c0 = sqlite3_column_int64(s, 0);
		if (c1 != NULL)
			*c1 = sqlite3_column_int64(s, 1);
		rc = SQLITE_DONE;
	} else if (c0 != NULL)
		*c0 = sqlite3_changes64(st->db);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, "prune");
	return 0;
}

static int
exec(struct store *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "prune");
	return 0;
}

/* The file's size as SQLite sees it (pages in use and free). */
static int64_t
db_bytes(struct store *st)
{
	return store_query_int(st, "PRAGMA page_count") * store_query_int(st, "PRAGMA page_size");
}

/* A transaction for one step: the write lock (a dry run: a read). */
static int
step_begin(struct store *st, struct store_prune *p, uint64_t *t0)
{
	*t0 = store_now_ns();
	return exec(st, p->dry_run ? "BEGIN" : "BEGIN IMMEDIATE");
}

static int
step_end(struct store *st, struct store_prune *p, uint64_t t0, int rc)
{
	uint64_t took;

	if (rc == 0 && exec(st, "COMMIT") != 0)
		rc = -1;
	if (rc != 0) {
		char keep[STORE_ERRLEN];

		memcpy(keep, st->err, sizeof(keep));
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		memcpy(st->err, keep, sizeof(keep));
	}
	took = store_now_ns() - t0;
	if (!p->dry_run) {
		p->batches++;
		p->lock_ns_total += took;
		if (took > p->lock_ns_max)
			p->lock_ns_max = took;
	}
	return rc;
}

static int
step_paths(struct store *st, struct store_prune *p)
{
	int64_t hi, n = 0, npaths = 0, ev = 0;
	uint64_t t0;
	int rc;

	if (paths_end(st, p, &hi, &n) != 0)
		return -1;
	if (hi == 0) {
		p->phase = PH_RUNS_LIST;
		p->next_id = 0;
		return 0;
	}
	/* nothing old there: no transaction */
	if (n == 0) {
		p->next_id = hi;
		return 0;
	}
	if (step_begin(st, p, &t0) != 0)
		return -1;
	rc = run_range(st, keep_sql, p, p->next_id + 1, hi, NULL, NULL);
	if (rc == 0)
		rc = run_range(st, gone_count_sql, p, p->next_id + 1, hi, &n, &npaths);
	if (rc == 0)
		rc = run_range(st, p->dry_run ? evidence_count_sql : evidence_sql, p,
		    p->next_id + 1, hi, &ev, NULL);
	if (rc == 0 && !p->dry_run)
		rc = run_range(st, gone_sql, p, p->next_id + 1, hi, &n, NULL);
	if (rc == 0 && p->dry_run)
		rc = exec(st, keep_all_sql);
	if (rc == 0)
		rc = exec(st, "DROP TABLE temp.prune_keep");
	if (step_end(st, p, t0, rc) != 0) {
		sqlite3_exec(st->db, "DROP TABLE IF EXISTS temp.prune_keep", NULL, NULL, NULL);
		return -1;
	}
	p->results += (uint64_t)n;
	p->paths += (uint64_t)npaths;
	p->evidence += (uint64_t)ev;
	p->next_id = hi;
	return 0;
}

static int
step_runs_list(struct store *st, struct store_prune *p)
{
	int64_t n = 0;

	if (exec(st, "DROP TABLE IF EXISTS temp.prune_runs") != 0 ||
	    run_range(st, p->dry_run ? runs_list_dry_sql : runs_list_sql, p, 0, 0, NULL,
	    NULL) != 0 ||
	    run_range(st, "SELECT count(*) FROM temp.prune_runs", p, 0, 0, &n, NULL) != 0)
		return -1;
	if (p->dry_run) {
		p->runs = (uint64_t)n;
		p->phase = PH_DONE;
		return 0;
	}
	p->phase = n > 0 ? PH_STATES : PH_VACUUM;
	p->next_id = 0;
	return 0;
}

static int
step_states(struct store *st, struct store_prune *p)
{
	int64_t hi;
	uint64_t t0;

	if (batch_end(st, PRUNE_TARGETS_BATCH, p->next_id, p->batch_paths, &hi) != 0)
		return -1;
	if (hi == 0) {
		p->phase = PH_RUNS;
		p->next_id = 0;
		return 0;
	}
	if (step_begin(st, p, &t0) != 0 ||
	    step_end(st, p, t0, run_range(st, states_sql, p, p->next_id + 1, hi, NULL,
	    NULL)) != 0)
		return -1;
	p->next_id = hi;
	return 0;
}

static int
step_runs(struct store *st, struct store_prune *p)
{
	int64_t hi, n = 0;
	uint64_t t0;
	int rc;

	if (batch_end(st, PRUNE_RUNS_BATCH, p->next_id, PRUNE_RUNS_CHUNK, &hi) != 0)
		return -1;
	if (hi == 0) {
		p->phase = PH_VACUUM;
		return exec(st, "DROP TABLE temp.prune_runs");
	}
	/* their states went (step_states), they have no results: the
	 * cascades find nothing, each by an index */
	if (step_begin(st, p, &t0) != 0)
		return -1;
	rc = step_end(st, p, t0, run_range(st, runs_sql, p, p->next_id, hi, &n, NULL));
	if (rc != 0)
		return -1;
	p->runs += (uint64_t)n;
	p->next_id = hi;
	return 0;
}

static int
step_vacuum(struct store *st, struct store_prune *p)
{
	char sql[64];
	int64_t free_pages = store_query_int(st, "PRAGMA freelist_count");
	uint64_t t0 = store_now_ns(), took;

	if (free_pages < 0)
		return -1;
	if (free_pages == 0) {
		p->phase = PH_DONE;
		return 0;
	}
	/* each call is a transaction of its own, at most this many pages */
	snprintf(sql, sizeof(sql), "PRAGMA incremental_vacuum(%d)", PRUNE_VACUUM_PAGES);
	if (exec(st, sql) != 0)
		return -1;
	took = store_now_ns() - t0;
	p->batches++;
	p->lock_ns_total += took;
	if (took > p->lock_ns_max)
		p->lock_ns_max = took;
	/* a store without auto_vacuum keeps its free pages for new rows */
	if (store_query_int(st, "PRAGMA freelist_count") == free_pages)
		p->phase = PH_DONE;
	return 0;
}

void
store_prune_init(struct store_prune *p, int64_t cutoff_ns, unsigned batch_paths, bool dry_run)
{
	memset(p, 0, sizeof(*p));
	p->cutoff_ns = cutoff_ns;
	p->batch_paths = batch_paths != 0 ? batch_paths : PRUNE_BATCH_PATHS;
	p->batch_rows = PRUNE_BATCH_ROWS;
	p->dry_run = dry_run;
	p->phase = PH_PATHS;
	p->bytes_before = p->bytes_after = -1;
}

int
store_prune_step(struct store *st, struct store_prune *p)
{
	int rc;

	if (p->phase == PH_DONE)
		return 0;
	if (!p->dry_run && st->mode != STORE_WRITE) {
		snprintf(st->err, sizeof(st->err), "%s: prune: opened read-only", st->file);
		return -1;
	}
	/* the writer's open batch is this connection's transaction; the
	 * deletes of results take their rows by cascade */
	if (st->mode == STORE_WRITE && (store_flush(st, true) != 0 || store_fk(st, true) != 0))
		return -1;
	if (p->bytes_before < 0) {
		p->started_ns = store_now_ns();
		if ((p->bytes_before = db_bytes(st)) < 0)
			return -1;
		if (p->dry_run && (exec(st, "DROP TABLE IF EXISTS temp.prune_keep_all") != 0 ||
		    exec(st, "CREATE TEMP TABLE prune_keep_all (id INTEGER PRIMARY KEY)") != 0))
			return -1;
	}
	switch (p->phase) {
	case PH_PATHS:
		rc = step_paths(st, p);
		break;
	case PH_RUNS_LIST:
		rc = step_runs_list(st, p);
		break;
	case PH_STATES:
		rc = step_states(st, p);
		break;
	case PH_RUNS:
		rc = step_runs(st, p);
		break;
	default:
		rc = step_vacuum(st, p);
		break;
	}
	if (rc != 0)
		return -1;
	if (p->phase != PH_DONE)
		return 1;
	p->took_ns = store_now_ns() - p->started_ns;
	if (p->dry_run) {
		int64_t used = p->bytes_before - store_query_int(st, "PRAGMA freelist_count") *
		    store_query_int(st, "PRAGMA page_size");
		int64_t all = store_query_int(st, "SELECT count(*) FROM path_results");

		sqlite3_exec(st->db, "DROP TABLE IF EXISTS temp.prune_keep_all", NULL, NULL, NULL);
		sqlite3_exec(st->db, "DROP TABLE IF EXISTS temp.prune_runs", NULL, NULL, NULL);
		/* an estimate: the results' share of the pages in use */
		p->bytes_after = p->bytes_before - (all > 0 ? (int64_t)((double)used *
		    (double)p->results / (double)all) : 0);
	} else if ((p->bytes_after = db_bytes(st)) < 0)
		return -1;
	return 0;
}

int64_t
store_prune(struct store *st, int64_t cutoff_ns)
{
	struct store_prune p;
	int rc;

	store_prune_init(&p, cutoff_ns, 0, false);
	while ((rc = store_prune_step(st, &p)) > 0)
		;
	if (rc != 0)
		return -1;
	/* the freed pages leave the file (after the WAL is checkpointed; the
	 * thread's checkpoint held off, which would refuse it busy) */
	store_ckpt_hold(st, true);
	rc = sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	store_ckpt_hold(st, false);
	if (rc != SQLITE_OK)
		return store_fail(st, "vacuum");
	return (int64_t)p.results;
}

int
store_size(struct store *st, int64_t *bytes, int64_t *oldest_ns)
{
	char wal[4200];
	struct stat sb;
	sqlite3_stmt *s;
	int rc;

	*bytes = 0;
	if (stat(st->file, &sb) == 0)
		*bytes += sb.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", st->file);
	if (stat(wal, &sb) == 0)
		*bytes += sb.st_size;
	if (oldest_ns == NULL)
		return 0;
	/* a seek per path on path_results (path_id, time_ns): no scan */
	if (sqlite3_prepare_v2(st->db, "SELECT min((SELECT min(time_ns) FROM path_results "
	    "WHERE path_id = p.id)) FROM paths p", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, "oldest result");
	rc = sqlite3_step(s);
	*oldest_ns = rc == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER ?
	    sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return store_fail(st, "oldest result");
	return 0;
}
