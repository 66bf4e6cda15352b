/*
 * store_util.c -- the bottom of the store's files: the clock, the one-line
 * error of a failed SQLite call, and the statements run once (prepared,
 * stepped, finalized) that every other store file may call.  It calls no
 * other file of db/.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store_int.h"

uint64_t
store_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
store_fail(struct store *st, const char *what)
{
	char sys[128];

	st->errcode = st->db != NULL ? sqlite3_extended_errcode(st->db) : SQLITE_CANTOPEN;
	store_sys_error(st->db, st->errcode, sys, sizeof(sys));
	snprintf(st->err, sizeof(st->err), "%s: %s: %s%s", st->file, what,
	    st->db != NULL ? sqlite3_errmsg(st->db) : "no connection", sys);
	return -1;
}

void
store_sys_error(sqlite3 *db, int rc, char *out, size_t len)
{
	int e = db != NULL ? sqlite3_system_errno(db) : 0;

	out[0] = '\0';
	switch (rc & 0xff) {
	case SQLITE_IOERR:
	case SQLITE_FULL:
	case SQLITE_CANTOPEN:
		if (e != 0)
			snprintf(out, len, " (%s)", strerror(e));
		break;
	default:
		break;
	}
}

/* An integer pragma or query; -1 with *rc set when it fails. */
int64_t
store_db_int(sqlite3 *db, const char *sql, int *rc)
{
	sqlite3_stmt *s;
	int64_t v = -1;

	*rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (*rc != SQLITE_OK)
		return -1;
	*rc = sqlite3_step(s);
	if (*rc == SQLITE_ROW) {
		v = sqlite3_column_int64(s, 0);
		*rc = SQLITE_OK;
	} else if (*rc == SQLITE_DONE)
		*rc = SQLITE_OK;
	sqlite3_finalize(s);
	return v;
}

/* Prepares sql (not a hot path: a statement run once, then finalized). */
sqlite3_stmt *
store_prep(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_fail(st, "prepare");
		return NULL;
	}
	return s;
}

int
store_done(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_finalize(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(st, what);
	return 0;
}

/*
 * A writer's -wal and -shm stay when its last connection closes (the WAL,
 * checkpointed, cut to nothing): without them a reader that may not write
 * the directory could not read a store no writer has open (readonly_query).
 * SQLite makes them with the database's mode and owner.  limit: the WAL's
 * bound (store_opts.wal_bytes).
 */
int
store_keep_wal(sqlite3 *db, uint64_t limit)
{
	char sql[64];
	int persist = 1;

	if (sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist) != SQLITE_OK)
		return -1;
	/* a limit (any) makes the close cut the kept WAL to 0 bytes, and a
	 * WAL that restarts is cut to it at the commit after */
	snprintf(sql, sizeof(sql), "PRAGMA journal_size_limit = %llu", (unsigned long long)limit);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int
store_fk(struct store *st, bool on)
{
	if (st->fk_on == on)
		return 0;
	if (sqlite3_exec(st->db, on ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF",
	    NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "foreign keys");
	st->fk_on = on;
	return 0;
}
