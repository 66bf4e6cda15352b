/*
 * store_pg_prune.c -- retention on a PostgreSQL store (store.h's
 * store_prune_step): store_prune.c's rules in this engine's SQL.  Of the
 * results older than the cutoff those that begin or end a run of one
 * state (path, vantage, scale sent) stay, the rest go; evidence stays for
 * the first and the last old problem of each path and vantage; runs left
 * without results go with their target states.
 *
 * The same steps as SQLite's, each one short transaction: a batch of
 * whole paths, the runs left empty listed once, their states a batch of
 * targets at a time, the runs in chunks.  A step is REPEATABLE READ: its
 * statements see one snapshot, so a result another writer (a vantage, an
 * upload) commits meanwhile is neither weighed nor deleted by it.  Two
 * prunes at once: one step fails to serialize, and is tried again by the
 * next turn.  No vacuum step: PostgreSQL's autovacuum makes the space
 * reusable (the database does not shrink on disk).  The upload's cursor
 * is the local SQLite store's, never this one's.  A prune of one vantage
 * (a daemon's retention here) touches that vantage's runs and what hangs
 * off them only: the other vantages' history is theirs to keep.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg_int.h"
#include "store_prune_sql.h"

#define PRUNE_SCAN_PATHS	4096	/* paths looked at a step, at most */
#define PRUNE_RUNS_CHUNK	500
#define OID_INT8		20
#define OID_TEXT		25

/* store_prune.c's phases (store_prune_init starts at the first) */
enum { PH_PATHS, PH_RUNS_LIST, PH_STATES, PH_RUNS, PH_VACUUM, PH_DONE };

static const char keep_sql[] = "INSERT INTO prune_keep " PRUNE_KEEP_SELECT;
static const char gone_count_sql[] =
	"SELECT count(*), count(DISTINCT path_id) FROM path_results" PRUNE_GONE_WHERE;
static const char gone_sql[] = "DELETE FROM path_results" PRUNE_GONE_WHERE;
static const char evidence_count_sql[] = "SELECT count(*) FROM evidence" PRUNE_EVIDENCE_WHERE;
static const char evidence_sql[] = "DELETE FROM evidence" PRUNE_EVIDENCE_WHERE;
static const char runs_list_sql[] = "INSERT INTO prune_runs " PRUNE_RUNS_SELECT;
static const char runs_list_dry_sql[] = "INSERT INTO prune_runs " PRUNE_RUNS_DRY_SELECT;

/* sql (store_prune_sql.h's ?N numbered $N here) with v[0..2] as $1..$3,
 * each a bigint, and vantage as $4, text (NULL: every vantage), whether
 * sql names them or not; its first two columns in c0 and c1 (a query;
 * NULL: not wanted) or the rows it changed in c0. */
static int
run_prune_sql(struct pg_store *st, const char *sql, const int64_t v[3], const char *vantage,
    int64_t *c0, int64_t *c1)
{
	static const Oid types[4] = { OID_INT8, OID_INT8, OID_INT8, OID_TEXT };
	char num[3][24], *q = strdup(sql);
	const char *vals[4] = { num[0], num[1], num[2], vantage };
	PGresult *r;
	ExecStatusType rs;

	if (q == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: prune: out of memory", st->where);
		return -1;
	}
	for (char *c = q; *c != '\0'; c++)
		if (*c == '?' && c[1] >= '1' && c[1] <= '4')
			*c = '$';
	for (int i = 0; i < 3; i++)
		snprintf(num[i], sizeof(num[i]), "%" PRId64, v[i]);
	r = PQexecParams(st->c, q, 4, types, vals, NULL, NULL, 0);
	free(q);
	rs = r != NULL ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (rs == PGRES_COMMAND_OK && c0 != NULL)
		*c0 = strtoll(PQcmdTuples(r), NULL, 10);
	else if (rs == PGRES_TUPLES_OK && ((c0 != NULL && (PQntuples(r) != 1 ||
	    !pg_cell_int(r, 0, 0, 0, INT64_MAX, c0))) || (c1 != NULL &&
	    !pg_cell_int(r, 0, 1, 0, INT64_MAX, c1)))) {
		PQclear(r);
		snprintf(st->err, sizeof(st->err), "%s: prune: the server's count is not one",
		    st->where);
		return -1;
	} else if (rs != PGRES_COMMAND_OK && rs != PGRES_TUPLES_OK)
		return pg_failres(st, r, "prune");
	PQclear(r);
	return 0;
}

/* Statements without parameters, several in one (PQexec): 0 or -1. */
static int
sq(struct pg_store *st, const char *sql)
{
	PGresult *r = PQexec(st->c, sql);

	if (r == NULL || PQresultStatus(r) != PGRES_COMMAND_OK)
		return pg_failres(st, r, "prune");
	PQclear(r);
	return 0;
}

/* A number sql answers (NULL: 0), or -1. */
static int64_t
one(struct pg_store *st, const char *sql, int64_t a, int64_t b, int64_t c)
{
	const int64_t v[3] = { a, b, c };
	int64_t n = -1;

	return run_prune_sql(st, sql, v, NULL, &n, NULL) == 0 ? n : -1;
}

/* One statement of a step's transaction and where its counts go. */
struct stmt {
	const char *sql;
	int64_t *c0, *c1;
};

/* begin (one or more statements), then each of l with v, then COMMIT;
 * rolled back on a failure, its message kept.  A step's write
 * transaction (counted) unless it is a dry run's. */
static int
txn(struct pg_store *st, struct store_prune *p, const char *begin, const struct stmt *l,
    const int64_t v[3], bool counted)
{
	uint64_t t0 = pg_now_ns(), took;
	int rc = sq(st, begin);

	for (; rc == 0 && l->sql != NULL; l++)
		rc = run_prune_sql(st, l->sql, v, p->vantage, l->c0, l->c1);
	if (rc == 0)
		rc = sq(st, "COMMIT");
	if (rc != 0) {
		char keep[STORE_ERRLEN];

		memcpy(keep, st->err, sizeof(keep));
		PQclear(PQexec(st->c, "ROLLBACK"));
		memcpy(st->err, keep, sizeof(keep));
		return -1;
	}
	took = pg_now_ns() - t0;
	if (counted && !p->dry_run) {
		p->batches++;
		p->lock_ns_total += took;
		if (took > p->lock_ns_max)
			p->lock_ns_max = took;
	}
	return 0;
}

/* A step's snapshot: REPEATABLE READ; a dry run's connection may be a
 * reader's (read-only by default): its temporary tables are all it writes. */
#define STEP_BEGIN(p) ((p)->dry_run ? \
	"BEGIN ISOLATION LEVEL REPEATABLE READ, READ WRITE" : \
	"BEGIN ISOLATION LEVEL REPEATABLE READ")

/* The last path of the next batch (whole paths after next_id, up to
 * batch_paths of them or batch_rows old results), 0 when none is left;
 * *rows: the batch's old results. */
static int
paths_end(struct pg_store *st, const struct store_prune *p, int64_t *hi, int64_t *rows)
{
	char sql[sizeof(PRUNE_PATHS_SCAN) + 16], *c;
	struct pg_params q;
	PGresult *r;
	int i, n;

	snprintf(sql, sizeof(sql), "%s LIMIT $3", PRUNE_PATHS_SCAN);
	for (c = sql; (c = strchr(c, '?')) != NULL; c++)
		*c = '$';
	pgp_init(&q);
	pgp_int(&q, p->next_id);
	pgp_int(&q, p->cutoff_ns);
	pgp_int(&q, PRUNE_SCAN_PATHS);
	pgp_text(&q, p->vantage);
	if ((r = pg_run(st, sql, &q, PGRES_TUPLES_OK, "prune")) == NULL)
		return -1;
	*hi = *rows = 0;
	n = PQntuples(r);
	for (i = 0; i < n; i++) {
		int64_t id, old;

		if (!pg_cell_int(r, i, 0, 1, INT64_MAX, &id) ||
		    !pg_cell_int(r, i, 1, 0, INT64_MAX, &old))
			break;
		*hi = id;
		*rows += old;
		if (*rows >= (int64_t)p->batch_rows || (i + 1 >= (int)p->batch_paths &&
		    *rows > 0))
			break;
	}
	PQclear(r);
	if (i < n && *hi == 0) {
		snprintf(st->err, sizeof(st->err), "%s: prune: a path's id or count is not one",
		    st->where);
		return -1;
	}
	return 0;
}

/* p on to phase, from its first id */
static int
next_phase(struct store_prune *p, int phase)
{
	p->phase = phase;
	p->next_id = 0;
	return 0;
}

/* a batch's figures into p's */
static void
tally(struct store_prune *p, int64_t results, int64_t paths, int64_t evidence)
{
	p->results += (uint64_t)results;
	p->paths += (uint64_t)paths;
	p->evidence += (uint64_t)evidence;
}

static int
phase_paths(struct pg_store *st, struct store_prune *p)
{
	int64_t hi, n = 0, npaths = 0, ev = 0;
	const struct stmt write[] = {
		{ keep_sql, NULL, NULL },
		{ gone_count_sql, &n, &npaths },
		{ evidence_sql, &ev, NULL },
		{ gone_sql, &n, NULL },
		{ NULL, NULL, NULL },
	}, dry[] = {
		{ keep_sql, NULL, NULL },
		{ gone_count_sql, &n, &npaths },
		{ evidence_count_sql, &ev, NULL },
		{ "INSERT INTO prune_keep_all SELECT id FROM prune_keep ON CONFLICT DO NOTHING",
		  NULL, NULL },
		{ NULL, NULL, NULL },
	};
	char begin[160];

	if (paths_end(st, p, &hi, &n) != 0)
		return -1;
	if (hi == 0)
		return next_phase(p, PH_RUNS_LIST);
	if (n > 0) {		/* else nothing old there: no transaction */
		const int64_t v[3] = { p->cutoff_ns, p->next_id + 1, hi };

		snprintf(begin, sizeof(begin), "%s; CREATE TEMP TABLE prune_keep "
		    "(id BIGINT PRIMARY KEY) ON COMMIT DROP", STEP_BEGIN(p));
		if (txn(st, p, begin, p->dry_run ? dry : write, v, true) != 0)
			return -1;
		tally(p, n, npaths, ev);
	}
	p->next_id = hi;
	return 0;
}

/* The runs older than the cutoff left without results (a dry run: that
 * would be), listed once in a temporary table for the steps that follow. */
static int
phase_runs_list(struct pg_store *st, struct store_prune *p)
{
	int64_t n = 0;
	const int64_t v[3] = { p->cutoff_ns, 0, 0 };
	const struct stmt l[] = {
		{ p->dry_run ? runs_list_dry_sql : runs_list_sql, NULL, NULL },
		{ "SELECT count(*), 0 FROM prune_runs", &n, NULL },
		{ NULL, NULL, NULL },
	};

	if (txn(st, p, "BEGIN READ WRITE; DROP TABLE IF EXISTS pg_temp.prune_runs; "
	    "CREATE TEMP TABLE prune_runs (id BIGINT PRIMARY KEY)", l, v, false) != 0)
		return -1;
	if (p->dry_run)
		p->runs = (uint64_t)n;
	p->phase = p->dry_run ? PH_DONE : n > 0 ? PH_STATES : PH_VACUUM;
	p->next_id = 0;
	return 0;
}

/* Their target states, a batch of targets a transaction; then the runs
 * in chunks, whose cascades find nothing left, each by an index
 * (target_states by run_id: schema v10). */
static int
phase_states_runs(struct pg_store *st, struct store_prune *p)
{
	bool states = p->phase == PH_STATES;
	int64_t n = 0, hi = one(st, states ? "SELECT coalesce((" PRUNE_TARGETS_BATCH "), 0)" :
	    "SELECT coalesce((" PRUNE_RUNS_BATCH "), 0)", p->next_id,
	    states ? p->batch_paths : PRUNE_RUNS_CHUNK, 0);
	const int64_t v[3] = { p->cutoff_ns, states ? p->next_id + 1 : p->next_id, hi };
	const struct stmt l[] = {
		{ states ? PRUNE_STATES_DELETE : PRUNE_RUNS_DELETE, &n, NULL },
		{ NULL, NULL, NULL },
	};

	if (hi < 0)
		return -1;
	if (hi == 0)
		return states ? next_phase(p, PH_RUNS) : next_phase(p, PH_VACUUM) != 0 ? -1 :
		    sq(st, "DROP TABLE pg_temp.prune_runs");
	if (txn(st, p, STEP_BEGIN(p), l, v, true) != 0)
		return -1;
	if (!states)
		p->runs += (uint64_t)n;
	p->next_id = hi;
	return 0;
}

int
pg_prune_step(void *e, struct store_prune *p)
{
	struct pg_store *st = e;
	int rc = 0;

	if (p->phase == PH_DONE)
		return 0;
	if (!p->dry_run && st->mode != STORE_WRITE) {
		snprintf(st->err, sizeof(st->err), "%s: prune: opened read-only", st->where);
		return -1;
	}
	/* the writer's open batch is this connection's transaction */
	if (pg_batch_commit(st) != 0)
		return -1;
	if (p->bytes_before < 0) {
		p->started_ns = pg_now_ns();
		if ((p->bytes_before = one(st, "SELECT pg_database_size(current_database())", 0, 0,
		    0)) < 0 || (p->dry_run && sq(st, "BEGIN READ WRITE; DROP TABLE IF EXISTS "
		    "pg_temp.prune_keep_all; CREATE TEMP TABLE prune_keep_all "
		    "(id BIGINT PRIMARY KEY); COMMIT") != 0))
			return -1;
	}
	if (p->phase == PH_PATHS)
		rc = phase_paths(st, p);
	else if (p->phase == PH_RUNS_LIST)
		rc = phase_runs_list(st, p);
	else if (p->phase == PH_STATES || p->phase == PH_RUNS)
		rc = phase_states_runs(st, p);
	else
		p->phase = PH_DONE;	/* no vacuum: autovacuum's */
	if (rc != 0 || p->phase != PH_DONE)
		return rc != 0 ? -1 : 1;
	p->took_ns = pg_now_ns() - p->started_ns;
	if (p->dry_run) {
		/* an estimate: the results' share of the database */
		int64_t all = one(st, "SELECT count(*) FROM path_results", 0, 0, 0);

		PQclear(PQexec(st->c, "BEGIN READ WRITE; DROP TABLE IF EXISTS "
		    "pg_temp.prune_keep_all; DROP TABLE IF EXISTS pg_temp.prune_runs; COMMIT"));
		if (all < 0)
			return -1;
		p->bytes_after = p->bytes_before - (all > 0 ? (int64_t)((double)p->bytes_before *
		    (double)p->results / (double)all) : 0);
	} else if ((p->bytes_after = one(st, "SELECT pg_database_size(current_database())", 0,
	    0, 0)) < 0)
		return -1;
	return 0;
}
