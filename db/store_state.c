/*
 * store_state.c -- the daemon's cycles in the store: which run is which
 * group's cycle, each target's state per cycle (in the batch after its
 * results), and after a crash the results of unfinished targets removed
 * so that probing them again stores each path once per cycle.
 */
#include <stdio.h>
#include <string.h>

#include "store_int.h"

/* Prepares sql (not a hot path: once per target and cycle). */
static sqlite3_stmt *
prep(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "prepare");
		return NULL;
	}
	return s;
}

static int
done(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(st, what);
	return 0;
}

int
store_run_cycle(struct store *st, int64_t run_id, const char *group, int64_t cycle)
{
	struct keep *k;

	if (st->mode != STORE_WRITE)
		return -1;
	if ((k = keep_cycle(run_id, group, cycle)) == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return -1;
	}
	return keep_add(st, k, NULL);
}

int
store_exec_cycle(struct store *st, struct keep *k)
{
	sqlite3_stmt *s = prep(st, "UPDATE runs SET grp = ?1, cycle = ?2 WHERE id = ?3");

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, k->u.cycle.group, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, k->u.cycle.cycle);
	sqlite3_bind_int64(s, 3, keep_run_id(st, k->run));
	return done(st, s, "mark run's cycle");
}

int
store_state_add(struct store *st, int64_t run_id, const struct store_state *x)
{
	struct keep *k;

	if (st->mode != STORE_WRITE)
		return -1;
	if ((k = keep_state(run_id, x)) == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return -1;
	}
	/* a state is a row of the batch like a result: the batch's size
	 * and age rules apply */
	if (keep_add(st, k, NULL) != 0)
		return -1;
	(void)store_flush(st, false);
	return 0;
}

int
store_exec_state(struct store *st, struct keep *k)
{
	sqlite3_stmt *s;
	int64_t tid;

	if ((tid = store_target_id(st, k->u.state.target)) < 0 ||
	    (s = prep(st, "INSERT INTO target_states (run_id, target_id, grp, "
	    "cycle, state, reason, paths, time_ns, next_due_ns) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
	    /* only the second state of a cycle is ignored (OR IGNORE
	     * would let a CHECK's refusal pass in silence too) */
	    "ON CONFLICT (grp, target_id, cycle) DO NOTHING")) == NULL)
		return -1;
	if (k->run != 0)
		sqlite3_bind_int64(s, 1, keep_run_id(st, k->run));
	sqlite3_bind_int64(s, 2, tid);
	sqlite3_bind_text(s, 3, k->u.state.group, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, k->u.state.cycle);
	sqlite3_bind_text(s, 5, k->u.state.state, -1, SQLITE_STATIC);
	if (k->u.state.reason != NULL)
		sqlite3_bind_text(s, 6, k->u.state.reason, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 7, (int)k->u.state.paths);
	sqlite3_bind_int64(s, 8, k->u.state.time_ns);
	if (k->u.state.next_due_ns > 0)
		sqlite3_bind_int64(s, 9, k->u.state.next_due_ns);
	return done(st, s, "insert target state");
}

int
store_state_has(struct store *st, const char *group, const char *target, int64_t cycle)
{
	sqlite3_stmt *s = prep(st, "SELECT 1 FROM target_states t JOIN targets g "
	    "ON g.id = t.target_id WHERE t.grp = ?1 AND g.spec = ?2 AND t.cycle = ?3");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, group, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, target, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 3, cycle);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(st, "look up target state");
}

int64_t
store_discard_unfinished(struct store *st)
{
	sqlite3_stmt *s;
	int64_t n;

	if (st->mode != STORE_WRITE || store_flush(st, true) != 0 ||
	    store_batch_begin(st) != 0)
		return -1;
	s = prep(st, "DELETE FROM path_results WHERE run_id IN "
	    "(SELECT id FROM runs WHERE cycle IS NOT NULL) AND NOT EXISTS "
	    "(SELECT 1 FROM target_states t WHERE t.run_id = path_results.run_id "
	    "AND t.target_id = path_results.target_id)");
	if (s == NULL || done(st, s, "discard unfinished results") != 0)
		return -1;
	n = sqlite3_changes(st->db);
	if (store_flush(st, true) != 0)
		return -1;
	return n;
}

int64_t
store_last_cycle(struct store *st, const char *group)
{
	sqlite3_stmt *s = prep(st, "SELECT max(cycle) FROM runs WHERE grp = ?1");
	int64_t c = -1;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, group, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		c = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return c;
}
