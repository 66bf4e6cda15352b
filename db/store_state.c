/*
 * store_state.c -- the daemon's cycles in the store: which run is which
 * group's cycle, each target's state per cycle (in the batch after its
 * results), and after a crash the results of unfinished targets removed
 * so that probing them again stores each path once per cycle.
 */
#include <stdio.h>
#include <string.h>

#include "store_int.h"

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
store_state_has(struct store *st, const char *group, const char *target, int64_t cycle)
{
	sqlite3_stmt *s = store_prep(st, "SELECT 1 FROM target_states t JOIN targets g "
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
	    store_batch_begin(st, true) != 0)
		return -1;
	s = store_prep(st, "DELETE FROM path_results WHERE run_id IN "
	    "(SELECT id FROM runs WHERE cycle IS NOT NULL) AND NOT EXISTS "
	    "(SELECT 1 FROM target_states t WHERE t.run_id = path_results.run_id "
	    "AND t.target_id = path_results.target_id)");
	if (s == NULL || store_done(st, s, "discard unfinished results") != 0)
		return -1;
	n = sqlite3_changes(st->db);
	if (store_flush(st, true) != 0)
		return -1;
	return n;
}

int64_t
store_last_cycle(struct store *st, const char *group)
{
	sqlite3_stmt *s = store_prep(st, "SELECT max(cycle) FROM runs WHERE grp = ?1");
	int64_t c = -1;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, group, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		c = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return c;
}
