/*
 * upload.c -- the upload thread (upload.h): the local store's committed
 * path results past upload_cursor, read on a SQLite connection of its
 * own, copied into the shared PostgreSQL's tables one transaction per
 * batch (upload_rows.c: taken whole or not at all), then the cursor
 * moved.  A crash between the server's commit and the cursor's sends the
 * batch again, which the key (vantage, the local store's identity, run_id,
 * seq) stores once; the identity (store_identity, schema v9) keeps a
 * store made again, whose ids start over, from being taken for the one
 * before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pq_lazy.h"
#include "store.h"
#include "upload.h"
#include "upload_int.h"

struct upload {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, kicked;
	struct timespec drain_until;	/* CLOCK_MONOTONIC */
	sqlite3 *db;
	PGconn *pg;
	char uri[4096];
	char where[256];		/* upload_where(uri) */
	int64_t cursor;			/* the last id the server took */
	bool cursor_dirty;		/* not yet written to the file */
	struct upload_figures f;	/* under mu */
	char store[UPLOAD_STORE_LEN + 1];	/* the local store's identity */
	struct ubatch *b;
};

unsigned
upload_backoff_s(unsigned n)
{
	unsigned s = 1;

	while (n > 1 && s < UPLOAD_BACKOFF_MAX_S) {
		s *= 2;
		n--;
	}
	return s < UPLOAD_BACKOFF_MAX_S ? s : UPLOAD_BACKOFF_MAX_S;
}

bool
upload_is_stale(uint64_t backlog, int64_t last_ok_ns, int64_t since_ns, int64_t now_ns,
    uint32_t after_s)
{
	int64_t from = last_ok_ns > since_ns ? last_ok_ns : since_ns;

	return backlog > 0 && now_ns - from > (int64_t)after_s * 1000000000;
}

void
upload_clean_text(const char *s, char *out, size_t outlen)
{
	size_t i = 0;

	for (; s != NULL && s[i] != '\0' && i + 1 < outlen; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	out[i] = '\0';
}

/* The parameters a failure's line leaves out: the certificate's files'
 * paths (long: they pushed libpq's reason out of the line) and the key's
 * passphrase (store_where_safe cuts password=, not sslpassword=). */
static const char *const unnamed[] = { "sslcert", "sslkey", "sslrootcert", "sslcrl",
    "sslcrldir", "sslpassword", "passfile", NULL };

void
upload_where(const char *uri, char *out, size_t outlen)
{
	char safe[4096];
	const char *p, *q;
	size_t used;
	bool first = true;

	if (outlen == 0)
		return;
	store_where_safe(uri, safe, sizeof(safe));
	q = strchr(safe, '?');
	used = q != NULL ? (size_t)(q - safe) : strlen(safe);
	snprintf(out, outlen, "%.*s", (int)used, safe);
	for (p = q; p != NULL && *p != '\0';) {
		size_t n, k;
		bool keep = true;

		p++;			/* past '?' or '&' */
		n = strcspn(p, "&#");
		k = strcspn(p, "=&#");
		for (int i = 0; unnamed[i] != NULL; i++)
			if (k == strlen(unnamed[i]) && strncmp(p, unnamed[i], k) == 0)
				keep = false;
		if (keep && n > 0) {
			used = strlen(out);
			snprintf(out + used, outlen - used, "%c%.*s", first ? '?' : '&', (int)n, p);
			first = false;
		}
		p += n;
		if (*p == '#')
			break;
	}
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The failure of what, in one line under mu: the server's message's first
 * line, cleaned. */
static void
failed(struct upload *u, const char *what, const char *msg)
{
	char m[180];
	size_t n = msg != NULL ? strcspn(msg, "\n") : 0;

	upload_clean_text(msg != NULL ? msg : "", m, n + 1 < sizeof(m) ? n + 1 : sizeof(m));
	pthread_mutex_lock(&u->mu);
	u->f.failing = true;
	snprintf(u->f.error, sizeof(u->f.error), "upload to %.120s: %.30s: %.170s", u->where, what,
	    m[0] != '\0' ? m : "failed");
	pthread_mutex_unlock(&u->mu);
}

static bool
col_int(sqlite3_stmt *s, int i, int64_t *v)
{
	if (sqlite3_column_type(s, i) != SQLITE_INTEGER)
		return false;
	*v = sqlite3_column_int64(s, i);
	return true;
}

static int64_t
backlog(struct upload *u)
{
	sqlite3_stmt *s = NULL;
	int64_t n = -1;

	if (sqlite3_prepare_v2(u->db, "SELECT count(*) FROM path_results WHERE id > ?1", -1,
	    &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, u->cursor);
	if (sqlite3_step(s) != SQLITE_ROW || !col_int(s, 0, &n))
		n = -1;
	sqlite3_finalize(s);
	return n;
}

static int
connect_pg(struct upload *u)
{
	/* a hung server holds a statement 30 s at most; the URI's own
	 * options are replaced */
	static const char *const keys[] = { "connect_timeout", "fallback_application_name",
	    "dbname", "options", NULL };
	const char *vals[] = { "10", "scaleprobed-upload", u->uri, "-c statement_timeout=30000",
	    NULL };
	char err[STORE_ERRLEN];
	struct store *st;

	if (u->pg != NULL && PQstatus(u->pg) == CONNECTION_OK)
		return 0;
	if (u->pg != NULL)
		PQfinish(u->pg);
	u->pg = PQconnectdbParams(keys, vals, 1);
	if (u->pg == NULL || PQstatus(u->pg) != CONNECTION_OK) {
		failed(u, "connect", u->pg != NULL ? PQerrorMessage(u->pg) : pq_lazy_error());
		PQfinish(u->pg);
		u->pg = NULL;
		return -1;
	}
	/* the shared store's schema made or migrated as the engine does it
	 * (store_pg.c, under its advisory lock), once per connection */
	if ((st = store_open(u->uri, STORE_WRITE, NULL, err, sizeof(err))) == NULL ||
	    store_close(st, err, sizeof(err)) != 0) {
		failed(u, "the shared store's schema", err);
		PQfinish(u->pg);
		u->pg = NULL;
		return -1;
	}
	return 0;
}

/* The cursor and the time into the file; a failure (the writer holding
 * the lock past the busy timeout) is tried again at the next step: the
 * server stores a batch sent again once. */
static void
write_cursor(struct upload *u, int64_t ok_ns)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(u->db, "INSERT INTO upload_cursor (id, last_id, last_ok_ns)"
	    " VALUES (1, ?1, ?2) ON CONFLICT (id) DO UPDATE SET last_id = excluded.last_id,"
	    " last_ok_ns = excluded.last_ok_ns", -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(s, 1, u->cursor);
		sqlite3_bind_int64(s, 2, ok_ns);
		u->cursor_dirty = sqlite3_step(s) != SQLITE_DONE;
	}
	sqlite3_finalize(s);
}

/* The backlog's figure counted again, the cursor unchanged. */
static void
count_backlog(struct upload *u)
{
	int64_t left = backlog(u);

	if (left < 0)
		return;
	pthread_mutex_lock(&u->mu);
	u->f.backlog = (uint64_t)left;
	pthread_mutex_unlock(&u->mu);
}

/* One batch: its number of rows sent (0: nothing to send), or -1. */
static int
step(struct upload *u)
{
	char err[STORE_ERRLEN];
	int64_t last, left = backlog(u);
	uint64_t stored;
	int n;

	if (left < 0) {
		failed(u, "read the local store", sqlite3_errmsg(u->db));
		return -1;
	}
	pthread_mutex_lock(&u->mu);
	u->f.backlog = (uint64_t)left;
	pthread_mutex_unlock(&u->mu);
	if (left == 0) {
		if (u->cursor_dirty)
			write_cursor(u, u->f.last_ok_ns);
		return 0;
	}
	if ((n = ubatch_read(u->b, u->db, u->cursor, UPLOAD_BATCH, &last, err,
	    sizeof(err))) < 0) {
		failed(u, "read the local store", err);
		return -1;
	}
	/* nothing to send yet: the next result's target is still probing */
	if (n == 0 && last == u->cursor)
		return 0;
	if (connect_pg(u) != 0)
		return -1;
	if (ubatch_send(u->b, u->pg, u->store, &stored, err, sizeof(err)) != 0) {
		failed(u, "insert", err);
		if (PQstatus(u->pg) != CONNECTION_OK) {
			PQfinish(u->pg);
			u->pg = NULL;
		}
		return -1;
	}
	u->cursor = last;
	pthread_mutex_lock(&u->mu);
	u->f.last_ok_ns = now_ns();
	u->f.uploaded += (uint64_t)n;
	u->f.failing = false;
	u->f.error[0] = '\0';
	left = backlog(u);
	u->f.backlog = left > 0 ? (uint64_t)left : 0;
	pthread_mutex_unlock(&u->mu);
	write_cursor(u, u->f.last_ok_ns);
	return n > 0 ? n : 1;
}

static bool
past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void *
loop(void *arg)
{
	struct upload *u = arg;
	unsigned fails = 0, wait_s = 0;
	bool tried_stopped = false;

	for (;;) {
		int n;

		pthread_mutex_lock(&u->mu);
		if (!u->stop && wait_s > 0) {
			struct timespec until;

			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += wait_s;
			while (!u->stop && !(u->kicked && fails == 0)) {
				if (u->kicked) {
					/* backing off: no attempt before its time, but
					 * the backlog status shows counted now (it
					 * stood still for up to a minute) */
					u->kicked = false;
					pthread_mutex_unlock(&u->mu);
					count_backlog(u);
					pthread_mutex_lock(&u->mu);
					continue;
				}
				if (pthread_cond_timedwait(&u->cv, &u->mu, &until) == ETIMEDOUT)
					break;
			}
		}
		u->kicked = false;
		/* stopped: one attempt even after failures, since a result
		 * is sent only once its target's cycle ended and the last
		 * ones end with the stop's own flush; then on while it works,
		 * for the drain time at most */
		if (u->stop && ((fails > 0 && tried_stopped) || past(&u->drain_until))) {
			pthread_mutex_unlock(&u->mu);
			break;
		}
		tried_stopped = u->stop;
		pthread_mutex_unlock(&u->mu);
		n = step(u);
		if (n < 0)
			wait_s = upload_backoff_s(++fails);
		else {
			fails = 0;
			/* a full batch: more may wait; else look again in a second */
			wait_s = n >= UPLOAD_BATCH ? 0 : 1;
			if (n == 0 && u->stop)
				break;
		}
	}
	return NULL;
}

struct upload *
upload_start(const char *file, const char *uri, char *err, size_t errlen)
{
	struct upload *u = calloc(1, sizeof(*u));
	pthread_condattr_t ca;
	sqlite3_stmt *s = NULL;
	int one = 1;

	if (u == NULL) {
		snprintf(err, errlen, "upload: out of memory");
		return NULL;
	}
	upload_where(uri, u->where, sizeof(u->where));
	if (strlen(uri) >= sizeof(u->uri)) {
		snprintf(err, errlen, "upload: %.200s: the URI is longer than %zu bytes",
		    u->where, sizeof(u->uri) - 1);
		free(u);
		return NULL;
	}
	snprintf(u->uri, sizeof(u->uri), "%s", uri);
	/* the writer's file: its WAL kept at our close, never checkpointed by it */
	if (sqlite3_open_v2(file, &u->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "upload: %.200s: %s", file, sqlite3_errmsg(u->db));
		goto fail;
	}
	sqlite3_busy_timeout(u->db, 5000);
	sqlite3_file_control(u->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
	sqlite3_db_config(u->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	if (sqlite3_prepare_v2(u->db, "SELECT last_id, last_ok_ns FROM upload_cursor WHERE id = 1",
	    -1, &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "upload: %.200s: %s", file, sqlite3_errmsg(u->db));
		goto fail;
	}
	if (sqlite3_step(s) == SQLITE_ROW) {
		int64_t t = 0;

		if (!col_int(s, 0, &u->cursor) || u->cursor < 0 ||
		    (sqlite3_column_type(s, 1) != SQLITE_NULL && !col_int(s, 1, &t))) {
			snprintf(err, errlen, "upload: %.200s: upload_cursor is not two integers",
			    file);
			goto fail;
		}
		u->f.last_ok_ns = t;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (sqlite3_prepare_v2(u->db, "SELECT store FROM store_identity WHERE id = 1", -1, &s,
	    NULL) != SQLITE_OK || sqlite3_step(s) != SQLITE_ROW ||
	    sqlite3_column_type(s, 0) != SQLITE_TEXT ||
	    !upload_store_ok((const char *)sqlite3_column_text(s, 0))) {
		snprintf(err, errlen, "upload: %.200s: store_identity is not one id of %d hex"
		    " digits", file, UPLOAD_STORE_LEN);
		goto fail;
	}
	snprintf(u->store, sizeof(u->store), "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	s = NULL;
	if ((u->b = ubatch_new()) == NULL) {
		snprintf(err, errlen, "upload: out of memory");
		goto fail;
	}
	pthread_mutex_init(&u->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&u->cv, &ca);
	pthread_condattr_destroy(&ca);
	if ((errno = pthread_create(&u->th, NULL, loop, u)) != 0) {
		snprintf(err, errlen, "upload: thread: %s", strerror(errno));
		pthread_cond_destroy(&u->cv);
		pthread_mutex_destroy(&u->mu);
		goto fail;
	}
	return u;
fail:
	sqlite3_finalize(s);
	sqlite3_close(u->db);
	ubatch_free(u->b);
	free(u);
	return NULL;
}

void
upload_kick(struct upload *u)
{
	if (u == NULL)
		return;
	pthread_mutex_lock(&u->mu);
	u->kicked = true;
	pthread_cond_signal(&u->cv);
	pthread_mutex_unlock(&u->mu);
}

void
upload_get_figures(struct upload *u, struct upload_figures *f)
{
	pthread_mutex_lock(&u->mu);
	*f = u->f;
	pthread_mutex_unlock(&u->mu);
}

void
upload_stop(struct upload *u, unsigned drain_s, struct upload_figures *last)
{
	if (u == NULL)
		return;
	pthread_mutex_lock(&u->mu);
	u->stop = true;
	clock_gettime(CLOCK_MONOTONIC, &u->drain_until);
	u->drain_until.tv_sec += drain_s;
	pthread_cond_signal(&u->cv);
	pthread_mutex_unlock(&u->mu);
	pthread_join(u->th, NULL);
	if (u->cursor_dirty)
		write_cursor(u, u->f.last_ok_ns);
	if (last != NULL) {
		int64_t left = backlog(u);

		*last = u->f;
		if (left >= 0)
			last->backlog = (uint64_t)left;
	}
	PQfinish(u->pg);
	sqlite3_close(u->db);
	ubatch_free(u->b);
	pthread_cond_destroy(&u->cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
}
