/*
 * store_ckpt.c -- the writer's checkpoints, off its thread.  SQLite's
 * automatic checkpoint runs inside the COMMIT that crosses the WAL's
 * threshold and fsyncs there: measured on this machine's disk, commits of
 * 40-80 ms, long enough to stall the event loop the writer shares with the
 * capture.  So the writer's connection never checkpoints; a thread with a
 * connection of its own runs PASSIVE checkpoints (which never block the
 * writer nor readers) when the WAL has grown past the threshold, or once a
 * second (ckpt_ns) while anything is pending.  A checkpoint that fails (an I/O
 * error, a full disk: not merely busy) is said (store_ckpt_failed); a
 * failed or busy one is tried again a turn later, never sooner, however
 * large the WAL; commits go on into the WAL meanwhile, which keeps every
 * one of them until a checkpoint succeeds.
 *
 * Those PASSIVE checkpoints copy the WAL into the file but never restart
 * it: only a write that finds every frame copied starts the WAL again from
 * its beginning, and a writer that commits without pause never lets the
 * thread catch up (a daemon cycle of a million results left a 5 GB WAL
 * and its -shm index, 10 MiB of the daemon's memory, growing to the end).
 * So when a commit leaves the WAL past its bound (store_opts.wal_bytes),
 * the writer itself, between two batches, runs a RESTART checkpoint: what
 * the thread has not copied yet is copied, and it waits until readers are
 * off the WAL, so that the next batch writes it from the start (and cuts
 * the file to the bound).  Readers that hold older snapshots (show,
 * report) are waited for STORE_WAL_BUSY_MS at most; when they are still
 * there it is said (store_ckpt_failed), and tried again a turn later.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store_int.h"

#define CKPT_PAGES	1000	/* SQLite's default threshold */

struct store_ckpt {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_mutex_t run;	/* held for each checkpoint (store_ckpt_hold) */
	pthread_cond_t wake;
	sqlite3 *db;
	int pending;		/* WAL pages the writer reported */
	bool stop;
	uint64_t every_ns;	/* store_opts.ckpt_ns */
	uint64_t runs;
	bool failed;		/* the last checkpoint that ran failed */
	bool again;		/* the last one failed or was busy: a turn
				   is waited out before the next */
	char why[STORE_ERRLEN];	/* ... with SQLite's message */
	int wal_pages;		/* the WAL's frames at the last commit */
	int page_size;
	uint64_t bound_at;	/* monotonic ns: no RESTART before (a busy
				   one waits a turn) */
	bool bound_busy;	/* readers kept the last one from completing */
	char bound_why[STORE_ERRLEN];
};

static void *
ckpt_main(void *arg)
{
	struct store_ckpt *c = arg;
	char why[STORE_ERRLEN];
	int pending, rc;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(c->every_ns % 1000000000u);
		until.tv_sec += (time_t)(c->every_ns / 1000000000u + (uint64_t)until.tv_nsec /
		    1000000000u);
		until.tv_nsec %= 1000000000;
		/* a WAL past the threshold is checkpointed at once, unless
		 * the last checkpoint failed or was busy: then the turn is
		 * waited out whole (a commit's wake-up does not end it), or a
		 * disk that stays full is retried in a loop, a core's worth,
		 * fighting the writer for the run lock */
		while (!c->stop && (c->pending < CKPT_PAGES || c->again))
			if (pthread_cond_timedwait(&c->wake, &c->lock, &until) == ETIMEDOUT)
				break;
		if (c->stop || c->pending == 0)
			continue;
		pending = c->pending;
		c->pending = 0;
		pthread_mutex_unlock(&c->lock);
		/* a busy or failed checkpoint is tried again later: the WAL
		 * only grows meanwhile, nothing is lost */
		pthread_mutex_lock(&c->run);
		rc = sqlite3_wal_checkpoint_v2(c->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		if (rc != SQLITE_OK) {
			char sys[128];

			store_sys_error(c->db, rc, sys, sizeof(sys));
			snprintf(why, sizeof(why), "%s%s", sqlite3_errmsg(c->db), sys);
		}
		pthread_mutex_unlock(&c->run);
		pthread_mutex_lock(&c->lock);
		c->runs++;
		/* a busy one says nothing: what the last one that ran said
		 * stands until one succeeds */
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED &&
		    (c->failed = rc != SQLITE_OK))
			snprintf(c->why, sizeof(c->why), "%s", why);
		/* busy or failed: again at its next turn, commit or not */
		if ((c->again = rc != SQLITE_OK) && c->pending == 0)
			c->pending = pending > 0 ? pending : 1;
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The writer's commit hook: says how large the WAL is. */
static int
ckpt_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store_ckpt *c = arg;

	(void)db;
	(void)name;
	pthread_mutex_lock(&c->lock);
	c->pending = pages;
	c->wal_pages = pages;
	if (pages >= CKPT_PAGES)
		pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	return SQLITE_OK;
}

int
store_ckpt_start(struct store *st)
{
	struct store_ckpt *c = calloc(1, sizeof(*c));
	int rc;

	if (c == NULL)
		return store_fail(st, "checkpointer");
	c->every_ns = st->o.ckpt_ns;
	if (sqlite3_open_v2(st->file, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
	    NULL) != SQLITE_OK) {
		sqlite3_close(c->db);
		free(c);
		return store_fail(st, "checkpointer");
	}
	sqlite3_busy_timeout(c->db, 100);
	/* it may be the last to close: it keeps the -wal and -shm too.  And
	 * it reads the file once: a connection that never read it has not
	 * seen that it is in WAL mode, and its checkpoints do nothing
	 * (returning SQLITE_OK, the WAL growing for the writer's life) */
	if (store_keep_wal(c->db, st->o.wal_bytes) != 0 ||
	    store_db_int(c->db, "PRAGMA schema_version", &rc) < 0 || rc != SQLITE_OK ||
	    (c->page_size = (int)store_db_int(c->db, "PRAGMA page_size", &rc)) <= 0) {
		sqlite3_close(c->db);
		free(c);
		return store_fail(st, "checkpointer");
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->run, NULL);
	pthread_cond_init(&c->wake, NULL);
	if (pthread_create(&c->thread, NULL, ckpt_main, c) != 0) {
		sqlite3_close(c->db);
		free(c);
		return store_fail(st, "checkpointer thread");
	}
	st->ckpt = c;
	/* replaces the automatic checkpoint (sqlite3_wal_autocheckpoint is
	 * this same hook) */
	sqlite3_wal_hook(st->db, ckpt_hook, c);
	return 0;
}

void
store_ckpt_hold(struct store *st, bool hold)
{
	if (st->ckpt == NULL)
		return;
	if (hold)
		pthread_mutex_lock(&st->ckpt->run);
	else
		pthread_mutex_unlock(&st->ckpt->run);
}

void
store_ckpt_bound(struct store *st)
{
	struct store_ckpt *c = st->ckpt;
	uint64_t t0, dt;
	int pages, rc, log = 0, done = 0;

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	pages = c->wal_pages;
	pthread_mutex_unlock(&c->lock);
	t0 = store_now_ns();
	/* the file's bytes: its header, then a header of 24 bytes a frame */
	if (32 + (uint64_t)pages * (uint64_t)(c->page_size + 24) <= st->o.wal_bytes ||
	    t0 < c->bound_at)
		return;
	/* a PASSIVE one in progress is waited for: what it copies, this one
	 * need not */
	pthread_mutex_lock(&c->run);
	sqlite3_busy_timeout(st->db, STORE_WAL_BUSY_MS);
	rc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_RESTART, &log, &done);
	sqlite3_busy_timeout(st->db, st->o.busy_ms);
	pthread_mutex_unlock(&c->run);
	dt = store_now_ns() - t0;
	st->stats.wal_ckpt++;
	if (dt > st->stats.wal_ckpt_ns_max)
		st->stats.wal_ckpt_ns_max = dt;
	pthread_mutex_lock(&c->lock);
	if (rc == SQLITE_OK) {
		c->bound_busy = false;
		c->bound_at = 0;
	} else {
		char sys[128] = "";

		/* busy: readers on older snapshots (frames copied up to
		 * theirs); anything else is a failure the thread sees too */
		st->stats.wal_busy += (rc & 0xff) == SQLITE_BUSY;
		store_sys_error(st->db, rc, sys, sizeof(sys));
		snprintf(c->bound_why, sizeof(c->bound_why), "the WAL is past its bound of %llu "
		    "bytes (%d pages, %d copied): RESTART checkpoint: %s%s%s",
		    (unsigned long long)st->o.wal_bytes, log, done, sqlite3_errstr(rc), sys,
		    (rc & 0xff) == SQLITE_BUSY ? " (readers hold older snapshots)" : "");
		c->bound_busy = true;
		c->bound_at = store_now_ns() + c->every_ns;
	}
	pthread_mutex_unlock(&c->lock);
}

bool
store_ckpt_failed(struct store *st, char *why, size_t len)
{
	struct store_ckpt *c = st->ckpt;
	bool failed;

	if (c == NULL)
		return false;
	pthread_mutex_lock(&c->lock);
	failed = c->failed || c->bound_busy;
	if (failed && why != NULL && len > 0)
		snprintf(why, len, "%s: %s%s", st->file, c->failed ? "checkpoint: " : "",
		    c->failed ? c->why : c->bound_why);
	pthread_mutex_unlock(&c->lock);
	return failed;
}

void
store_ckpt_stop(struct store *st)
{
	struct store_ckpt *c = st->ckpt;

	if (c == NULL)
		return;
	sqlite3_wal_hook(st->db, NULL, NULL);
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	sqlite3_close(c->db);
	pthread_cond_destroy(&c->wake);
	pthread_mutex_destroy(&c->run);
	pthread_mutex_destroy(&c->lock);
	free(c);
	st->ckpt = NULL;
}
