/*
 * store_rows_daemon.c -- the statements of the daemon's kept rows, run in
 * the open transaction like a result's (store_rows.c): which run is which
 * group's cycle, a target's state in a cycle, an open alert's raise,
 * change or clear.  Called by the batch (store_keep.c).
 */
#include <string.h>

#include "store_int.h"

int
store_exec_cycle(struct store *st, struct keep *k)
{
	sqlite3_stmt *s = store_prep(st, "UPDATE runs SET grp = ?1, cycle = ?2 WHERE id = ?3");

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, k->u.cycle.group, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, k->u.cycle.cycle);
	sqlite3_bind_int64(s, 3, keep_run_id(st, k->run));
	return store_done(st, s, "mark run's cycle");
}

int
store_exec_state(struct store *st, struct keep *k)
{
	sqlite3_stmt *s;
	int64_t tid;

	if ((tid = store_target_id(st, k->u.state.target)) < 0 ||
	    (s = store_prep(st, "INSERT INTO target_states (run_id, target_id, grp, "
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
	return store_done(st, s, "insert target state");
}

static void
bind_opt_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t != NULL)
		sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
}

int
store_exec_alert(struct store *st, struct keep *k)
{
	char *const *v = k->u.alert.s;
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(st->db, k->u.alert.clear ?
	    "DELETE FROM open_alerts WHERE vantage = ?1 AND kind = ?2 AND address = ?3 AND "
	    "port = ?4" :
	    "INSERT INTO open_alerts (vantage, kind, address, port, target, state, scales, "
	    "hop_index, hop_address, incident, paths, reason, raised_ns, changed_ns) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
	    "ON CONFLICT (vantage, kind, address, port) DO UPDATE SET target = ?5, "
	    "state = ?6, scales = ?7, hop_index = ?8, hop_address = ?9, incident = ?10, "
	    "paths = ?11, reason = ?12, changed_ns = ?14", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, "prepare alert");
	bind_opt_text(s, 1, v[A_VANTAGE]);
	bind_opt_text(s, 2, v[A_KIND]);
	bind_opt_text(s, 3, v[A_ADDRESS]);
	sqlite3_bind_int(s, 4, (int)k->u.alert.port);
	if (!k->u.alert.clear) {
		bind_opt_text(s, 5, v[A_TARGET]);
		sqlite3_bind_text(s, 6, v[A_STATE] != NULL ? v[A_STATE] : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 7, v[A_SCALES] != NULL ? v[A_SCALES] : "", -1,
		    SQLITE_STATIC);
		if (k->u.alert.hop_index > 0)
			sqlite3_bind_int(s, 8, k->u.alert.hop_index);
		bind_opt_text(s, 9, v[A_HOP]);
		bind_opt_text(s, 10, v[A_INCIDENT]);
		if (strcmp(v[A_KIND], "incident") == 0)
			sqlite3_bind_int(s, 11, (int)k->u.alert.paths);
		bind_opt_text(s, 12, v[A_REASON]);
		sqlite3_bind_int64(s, 13, k->u.alert.raised_ns);
		sqlite3_bind_int64(s, 14, k->u.alert.changed_ns);
	}
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_fail(st, k->u.alert.clear ? "clear alert" : "write alert");
	return 0;
}
