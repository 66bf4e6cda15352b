/*
 * store_open.c -- opening a store: the checks that refuse a file this
 * program must not touch (made on a read-only connection, so the file is
 * never modified), the connection's settings (WAL, busy timeout, foreign
 * keys), the migrations, and closing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store_int.h"

/* Why this thread's last store_open failed (store_open_refused). */
static _Thread_local bool open_refused;

bool
store_open_refused(void)
{
	return open_refused;
}

/* SQLite's failures that no retry can mend. */
static bool
permanent(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
	case SQLITE_CANTOPEN:
		return true;
	default:
		return false;
	}
}

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Why a failed read of the file says it cannot be used. */
static const char *
bad_file(sqlite3 *db, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOTADB:	return "not a SQLite database";
	case SQLITE_CORRUPT:	return "the database is corrupt";
	default:		return sqlite3_errmsg(db);
	}
}

/*
 * The checks every open makes, on connection db: the file is ours (or an
 * empty database), its schema not newer than ours, its first pages
 * readable.  Sets *version; returns 0, or -1 with one line in err.
 */
static int
check_file(sqlite3 *db, const char *file, int64_t *version, char *err, size_t errlen)
{
	int64_t app, ver, tables;
	int rc;

	app = store_db_int(db, "PRAGMA application_id", &rc);
	if (rc == SQLITE_OK)
		ver = store_db_int(db, "PRAGMA user_version", &rc);
	if (rc == SQLITE_OK)
		tables = store_db_int(db, "SELECT count(*) FROM sqlite_schema", &rc);
	if (rc != SQLITE_OK) {
		errf(err, errlen, "%s: %s", file, bad_file(db, rc));
		open_refused = permanent(rc);
		return -1;
	}
	if (app == 0 && ver == 0 && tables == 0) {
		*version = 0;		/* a new, empty database */
		return 0;
	}
	if ((uint32_t)app != STORE_APPLICATION_ID) {
		errf(err, errlen, "%s: not a scaleprobe store (application_id 0x%08x, "
		    "expected 0x%08x)", file, (unsigned)(uint32_t)app, STORE_APPLICATION_ID);
		open_refused = true;
		return -1;
	}
	if (ver > STORE_SCHEMA_VERSION || ver < 1) {
		char bak[4300];

		errf(err, errlen, "%s: schema version %lld %s (this scaleprobe's is %d)",
		    file, (long long)ver, ver < 1 ? "is not valid" : "is newer than this "
		    "scaleprobe knows", STORE_SCHEMA_VERSION);
		/* the way back: the copy its upgrade left */
		if (ver > STORE_SCHEMA_VERSION && store_backup_find(file, bak, sizeof(bak)) == 0) {
			size_t n = strlen(err);

			errf(err + n, errlen - n, "; go back to %s, the copy taken before "
			    "its upgrade (a schema this scaleprobe knows)", bak);
		}
		open_refused = true;
		return -1;
	}
	*version = ver;
	return 0;
}

/* The directory of file, into dir. */
static void
dir_of(const char *file, char *dir, size_t dlen)
{
	const char *slash = strrchr(file, '/');

	if (slash == NULL)
		snprintf(dir, dlen, ".");
	else if (slash == file)
		snprintf(dir, dlen, "/");
	else
		snprintf(dir, dlen, "%.*s", (int)(slash - file), file);
}

/* A writer's file: itself (when it exists) and its directory writable by
 * this process; 0, or -1 with one line in err. */
static int
writable(const char *file, bool exists, char *err, size_t errlen)
{
	char dir[4096];

	if (exists && access(file, W_OK) != 0) {
		errf(err, errlen, "%s: read-only (%s): a writer cannot use it", file,
		    strerror(errno));
		return -1;
	}
	dir_of(file, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK) != 0) {
		errf(err, errlen, "%s: its directory %s is not writable (%s): a writer "
		    "cannot use it", file, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The file:// URI of file for sqlite3_open_v2 with query q. */
static char *
file_uri(const char *file, const char *q)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(file);
	char *u = malloc(3 * n + strlen(q) + 8), *p = u;

	if (u == NULL)
		return NULL;
	p += sprintf(p, "file:");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)file[i];

		if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else
			*p++ = (char)c;
	}
	sprintf(p, "?%s", q);
	return u;
}

/* Whether file's name with suffix sfx is a regular file. */
static bool
beside(const char *file, const char *sfx)
{
	char f[4200];
	struct stat sb;

	snprintf(f, sizeof(f), "%s%s", file, sfx);
	return lstat(f, &sb) == 0 && S_ISREG(sb.st_mode);
}

/*
 * The URI query a connection that must not write opens file with.  With
 * its -wal and -shm both there (a writer at work, one killed, or one that
 * closed: writers keep them, setup_writer) the -shm is opened read-only
 * (readonly_shm): SQLite (>= 3.22) then reads the WAL through the -shm a
 * live writer keeps, or, with none, through a copy of its index in memory
 * made from the -wal, committed frames included; nothing is written, by a
 * member of the store's group or by its owner.  Without a -wal every
 * committed page is in the file itself, and it is read as immutable
 * (nothing is made beside it: a corrupt or foreign file stays alone as it
 * was).  A -wal without its -shm is read as any reader would.
 */
static const char *
readonly_query(const char *file)
{
	if (!beside(file, "-wal"))
		return "mode=ro&immutable=1";
	return beside(file, "-shm") ? "mode=ro&readonly_shm=1" : "mode=ro";
}

/* Whether file's header says WAL: its read version (byte 19) 2, which is
 * what makes SQLite read it through its -wal and -shm, whatever the write
 * version says.  Such a file cannot be read without them, and a reader
 * may have to make them. */
static bool
wal_header(const char *file)
{
	unsigned char h[20];
	FILE *f = fopen(file, "rb");
	bool wal;

	if (f == NULL)
		return false;
	wal = fread(h, 1, sizeof(h), f) == sizeof(h) && h[19] == 2;
	fclose(f);
	return wal;
}

/*
 * Checks an existing file without any write to it or beside it
 * (readonly_query).
 */
static int
check_readonly(const char *file, int64_t *version, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	char *uri;
	int rc;

	uri = file_uri(file, readonly_query(file));
	if (uri == NULL) {
		errf(err, errlen, "%s: out of memory", file);
		return -1;
	}
	rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		errf(err, errlen, "%s: %s", file, db != NULL ? sqlite3_errmsg(db) :
		    "cannot open");
		open_refused = permanent(rc);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 5000);
	rc = check_file(db, file, version, err, errlen);
	sqlite3_close(db);
	return rc;
}

/* Brings the schema from version from to STORE_SCHEMA_VERSION in one
 * transaction, re-reading the version inside it (another writer may have
 * migrated meanwhile).  An older store (seen as version seen) is copied
 * first in the same transaction, begun as a read: the backup API reads
 * from a connection that is not writing, and the copy is exactly what is
 * migrated (the first write takes the lock, or fails busy if another
 * writer came between). */
static int
migrate(struct store *st, int64_t seen)
{
	int64_t ver;
	int rc;
	bool older = seen > 0 && seen < STORE_SCHEMA_VERSION;

	if (sqlite3_exec(st->db, older ? "BEGIN" : "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) != SQLITE_OK)
		return store_fail(st, "begin migration");
	if (check_file(st->db, st->file, &ver, st->err, sizeof(st->err)) != 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	/* never a migration without a copy of what was there */
	if (ver > 0 && ver < STORE_SCHEMA_VERSION && store_backup_take(st, ver) != 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	for (int64_t v = ver; v < STORE_SCHEMA_VERSION; v++) {
		char sql[128];

		rc = sqlite3_exec(st->db, store_migrations[v], NULL, NULL, NULL);
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld", (long long)v + 1);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			snprintf(sql, sizeof(sql), "migration to schema version %lld",
			    (long long)v + 1);
			store_fail(st, sql);
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (ver < STORE_SCHEMA_VERSION) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APPLICATION_ID);
		if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
			store_fail(st, "application_id");
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		store_fail(st, "commit migration");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

static int
setup_writer(struct store *st, int64_t version)
{
	/* only an empty file takes auto_vacuum without a VACUUM: set before
	 * the first table, it makes the file shrinkable (store_prune) */
	if (version == 0 &&
	    sqlite3_exec(st->db, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "auto_vacuum");
	/* the page cache: 2 MiB.  Statement journals and retention's
	 * temporary table stay in memory.  A batch of new paths dirties pages
	 * all over the indexes, so a larger cache holds them for the commit
	 * but does not make the writer faster: store_bench, 200,000 results
	 * of new paths, gave 150, 144 and 147 thousand scale rows per CPU
	 * second of the writer at 8, 2 and 1 MiB (then again 148, 153 and
	 * 148), the WAL the same size, at 16.5, 9.9 and 9.1 MiB of peak RSS.
	 * In a daemon cycle over a million paths the 8 MiB it had were the
	 * largest share of the store's memory. */
	if (sqlite3_exec(st->db, "PRAGMA cache_size = -2048", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(st->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "cache size");
	if (migrate(st, version) != 0)
		return -1;
	/* after the migration, which checks the file again under the write
	 * lock: nothing is written to a file that changed since it was checked.
	 * WAL: readers never wait for the writer nor see its open batch.
	 * synchronous=NORMAL: a commit does not fsync; a crash of the program
	 * loses nothing committed, a power cut at most the last batches. */
	if (sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(st->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "journal mode");
	if (store_keep_wal(st->db, st->o.wal_bytes) != 0)
		return store_fail(st, "persistent WAL");
	if (store_rows_prepare(st) != 0)
		return -1;
	return store_ckpt_start(st);
}

/*
 * What file must be before any connection to it: a name, a regular file
 * (or none yet, for a writer), writable by a writer, and, when it has
 * pages, one this program may open (check_readonly: nothing written).
 * Sets *version; 0, or -1 with one line in err (open_refused set when no
 * retry can mend it).
 */
static int
check_before_open(const char *file, enum store_mode mode, int64_t *version, char *err,
    size_t errlen)
{
	struct stat sb;
	bool exists;

	/* SQLite would take "" for a private temporary database */
	if (file[0] == '\0') {
		errf(err, errlen, "the database file name is empty");
		return -1;
	}
	errno = 0;
	exists = stat(file, &sb) == 0;
	if (!exists && (errno != ENOENT || mode == STORE_READ)) {
		errf(err, errlen, "%s: %s", file, strerror(errno));
		open_refused = errno == EACCES || errno == ENOENT || errno == ENOTDIR;
		return -1;
	}
	if (exists && !S_ISREG(sb.st_mode)) {
		errf(err, errlen, "%s: not a regular file", file);
		open_refused = true;
		return -1;
	}
	/* a WAL store without its -wal and -shm (last closed by an older
	 * writer) is read only by who may make them beside it */
	if (mode == STORE_READ && exists && sb.st_size > 0 &&
	    !(beside(file, "-wal") && beside(file, "-shm")) && wal_header(file)) {
		char dir[4096];

		dir_of(file, dir, sizeof(dir));
		if (access(dir, W_OK | X_OK) != 0) {
			errf(err, errlen, "%s: its -wal and -shm are missing and %s is not "
			    "writable: start scaleprobed once (it keeps them), or read it "
			    "once as its owner", file, dir);
			open_refused = true;
			return -1;
		}
	}
	/* SQLite opens a file it cannot write read-only, in silence: a
	 * writer would then fail at its first COMMIT.  The file and its
	 * directory (the -wal and -shm beside it) must be writable. */
	if (mode == STORE_WRITE && writable(file, exists, err, errlen) != 0) {
		open_refused = true;
		return -1;
	}
	/* checked read-only first: a file we must refuse is never written */
	if (exists && sb.st_size > 0 && check_readonly(file, version, err, errlen) != 0)
		return -1;
	return 0;
}

/* A store of file not yet connected, its options' zeros the defaults;
 * NULL (err set) when out of memory. */
static struct store *
store_new(const char *file, enum store_mode mode, const struct store_opts *o, char *err,
    size_t errlen)
{
	struct store *st = calloc(1, sizeof(*st));

	if (st == NULL || (st->file = strdup(file)) == NULL) {
		free(st);
		errf(err, errlen, "%s: out of memory", file);
		return NULL;
	}
	st->mode = mode;
	if (o != NULL)
		st->o = *o;
	if (st->o.batch_rows == 0)
		st->o.batch_rows = 1000;
	if (st->o.batch_ns == 0)
		st->o.batch_ns = 1000000000u;
	if (st->o.busy_ms == 0)
		st->o.busy_ms = 5000;
	if (st->o.keep_bytes == 0)
		st->o.keep_bytes = STORE_KEEP_BYTES;
	if (st->o.retry_ns == 0)
		st->o.retry_ns = 5000000000u;
	if (st->o.ckpt_ns == 0)
		st->o.ckpt_ns = 1000000000u;
	if (st->o.wal_bytes == 0)
		st->o.wal_bytes = STORE_WAL_BYTES;
	return st;
}

/* st's connection and its settings (a reader's read-only, as
 * check_readonly read); 0, or -1 with st->err set. */
static int
connect_db(struct store *st)
{
	const char *file = st->file;
	int rc;

	if (st->mode == STORE_READ) {
		/* what check_readonly read through: never a write beside it */
		char *uri = file_uri(file, beside(file, "-wal") && beside(file, "-shm") ?
		    "mode=ro&readonly_shm=1" : "mode=ro");

		if (uri == NULL) {
			snprintf(st->err, sizeof(st->err), "%s: out of memory", file);
			return -1;
		}
		rc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
		    SQLITE_OPEN_NOMUTEX, NULL);
		free(uri);
	} else {
		int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

		rc = sqlite3_open_v2(file, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	}
	if (rc != SQLITE_OK)
		return store_fail(st, "open");
	/* a reader's close never checkpoints (it could not; said, not hoped) */
	if (st->mode == STORE_READ)
		sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, st->o.busy_ms);
	if (sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(st, "foreign keys");
	st->fk_on = true;	/* a writer's batches turn them off (store_batch_begin) */
	if (st->mode == STORE_WRITE && sqlite3_db_readonly(st->db, "main") == 1) {
		errf(st->err, sizeof(st->err), "%s: read-only (its mode or its file "
		    "system): a writer cannot use it", file);
		st->errcode = SQLITE_READONLY;
		return -1;
	}
	return 0;
}

/* A reader checks what it sees (the header may still be in the WAL) and
 * reads only this binary's schema; 0, or -1 with st->err set. */
static int
check_reader(struct store *st)
{
	int64_t version;

	if (check_file(st->db, st->file, &version, st->err, sizeof(st->err)) != 0)
		return -1;
	if (version == 0) {
		errf(st->err, sizeof(st->err), "%s: an empty database, not a "
		    "scaleprobe store", st->file);
		return -1;
	}
	if (version != STORE_SCHEMA_VERSION) {
		errf(st->err, sizeof(st->err), "%s: an older schema (version %lld, this "
		    "scaleprobe's is %d): its owner migrates it with scaleprobe db "
		    "upgrade %s", st->file, (long long)version, STORE_SCHEMA_VERSION, st->file);
		return -1;
	}
	return 0;
}

/* SQLite's process-wide settings, before its first use: no count of the
 * memory it holds (nothing here reads one), so its allocations take no
 * global mutex.  Refused, harmlessly, when SQLite was already in use. */
static void
sqlite_setup(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

struct store *
store_open(const char *file, enum store_mode mode, const struct store_opts *o,
    char *err, size_t errlen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct store *st;
	int64_t version = 0;

	pthread_once(&once, sqlite_setup);
	open_refused = false;
	if (check_before_open(file, mode, &version, err, errlen) != 0)
		return NULL;
	if ((st = store_new(file, mode, o, err, errlen)) == NULL)
		return NULL;
	if (connect_db(st) != 0)
		goto fail;
	if (mode == STORE_WRITE && setup_writer(st, version) != 0)
		goto fail;
	if (mode == STORE_READ && check_reader(st) != 0)
		goto fail;
	return st;
fail:
	errf(err, errlen, "%s", st->err);
	if (!open_refused)
		open_refused = permanent(st->errcode);
	store_close(st, NULL, 0);
	return NULL;
}

int
store_close(struct store *st, char *err, size_t errlen)
{
	int rc = 0;

	if (st == NULL)
		return 0;
	if ((st->in_batch || st->failing) && store_flush(st, true) != 0) {
		errf(err, errlen, "%.400s; %llu rows not stored", st->err,
		    (unsigned long long)st->keep_n);
		rc = -1;
	}
	store_ckpt_stop(st);
	store_rows_finalize(st);
	/* the close's own checkpoint, said when it fails (sqlite3_close
	 * would fail it in silence) */
	if (st->mode == STORE_WRITE && st->db != NULL && rc == 0) {
		int crc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL,
		    NULL);

		if (crc != SQLITE_OK && (crc & 0xff) != SQLITE_BUSY && (crc & 0xff) != SQLITE_LOCKED) {
			char sys[128];

			store_sys_error(st->db, crc, sys, sizeof(sys));
			errf(err, errlen, "%s: checkpoint at close: %s%s; nothing is lost: the WAL "
			    "keeps its commits (read from there, checkpointed at the next open)",
			    st->file, sqlite3_errmsg(st->db), sys);
			rc = -1;
		}
	}
	sqlite3_close(st->db);
	store_caches_free(st);
	keep_clear(st);
	free(st->runs);
	free(st->backup);
	free(st->file);
	free(st);
	return rc;
}

int
store_exec(struct store *st, const char *sql)
{
	int rc;

	/* it sees (and may change) the open batch whole */
	if (st->in_batch && keep_pending_write(st) != 0)
		return -1;
	/* a wal_checkpoint asked here is not refused busy by the thread's */
	store_ckpt_hold(st, true);
	rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
	store_ckpt_hold(st, false);
	if (rc != SQLITE_OK)
		return store_fail(st, "exec");
	return 0;
}

const char *
store_error(const struct store *st)
{
	return st->err;
}

uint64_t
store_pending(const struct store *st)
{
	return st->keep_n;
}

const struct store_stats *
store_get_stats(const struct store *st)
{
	return &st->stats;
}
