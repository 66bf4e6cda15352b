/*
 * store_alert.c -- the daemon's open alerts in the store (open_alerts,
 * schema v3): each raise, change and clear a row of the open batch, kept
 * and written again like a result when the store fails (store_keep.c;
 * its statement in store_rows_daemon.c), and read back at the daemon's
 * start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

int
store_alert_put(struct store *st, const struct store_alert *a, bool clear)
{
	const char *in[9] = { a->vantage, a->kind, a->address, a->target, a->state, a->scales,
	    a->hop_address, a->incident, a->reason };
	struct keep *k;
	int rc;

	if (st->mode != STORE_WRITE)
		return -1;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		goto oom;
	k->kind = KEEP_ALERT;
	k->bytes = sizeof(*k);
	for (size_t i = 0; i < 9; i++) {
		if (in[i] == NULL)
			continue;
		if ((k->u.alert.s[i] = strdup(in[i])) == NULL) {
			keep_free(k);
			goto oom;
		}
		k->bytes += strlen(in[i]) + 1;
	}
	if (k->u.alert.s[A_VANTAGE] == NULL || k->u.alert.s[A_KIND] == NULL ||
	    k->u.alert.s[A_ADDRESS] == NULL) {
		keep_free(k);
		snprintf(st->err, sizeof(st->err), "%s: an alert without its key", st->file);
		return -1;
	}
	k->u.alert.port = a->port;
	k->u.alert.paths = a->paths;
	k->u.alert.hop_index = a->hop_index;
	k->u.alert.raised_ns = a->raised_ns;
	k->u.alert.changed_ns = a->changed_ns;
	k->u.alert.clear = clear;
	rc = keep_add(st, k, NULL);
	/* an alert is rare and a restart must find it: committed now, not
	 * with the batch's age */
	if (rc == 0 && !st->failing)
		(void)store_flush(st, true);
	return rc;
oom:
	snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
	return -1;
}

static const char *
col(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

int64_t
store_alert_each(struct store *st, const char *vantage, store_alert_fn fn, void *arg)
{
	sqlite3_stmt *s = NULL;
	int64_t n = 0;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT vantage, kind, address, port, target, state, "
	    "scales, hop_index, hop_address, incident, paths, reason, raised_ns, changed_ns "
	    "FROM open_alerts WHERE ?1 IS NULL OR vantage = ?1 ORDER BY raised_ns, id",
	    -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "read open alerts");
		return -1;
	}
	if (vantage != NULL)
		sqlite3_bind_text(s, 1, vantage, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_alert a;

		memset(&a, 0, sizeof(a));
		a.vantage = col(s, 0);
		a.kind = col(s, 1);
		a.address = col(s, 2);
		a.port = (unsigned)sqlite3_column_int(s, 3);
		a.target = col(s, 4);
		a.state = col(s, 5);
		a.scales = col(s, 6);
		a.hop_index = sqlite3_column_int(s, 7);
		a.hop_address = col(s, 8);
		a.incident = col(s, 9);
		a.paths = (unsigned)sqlite3_column_int(s, 10);
		a.reason = col(s, 11);
		a.raised_ns = sqlite3_column_int64(s, 12);
		a.changed_ns = sqlite3_column_int64(s, 13);
		if (a.vantage == NULL || a.kind == NULL || a.address == NULL || a.state == NULL ||
		    a.scales == NULL)
			continue;
		fn(arg, &a);
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		store_fail(st, "read open alerts");
		return -1;
	}
	return n;
}
