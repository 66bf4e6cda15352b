/*
 * test_store_readers.c -- what a store's readers need and never change
 * (db/README.md "Readers"): a writer's close keeps the -wal (checkpointed,
 * 0 bytes) and the -shm, with the database's mode; a reader after a clean
 * close and after a writer killed (-9) with committed rows in its WAL alone
 * reads every committed row and leaves the database, -wal and -shm byte for
 * byte as they were, even when it could write them (this test runs as root
 * or as the files' owner: SQLite would otherwise rebuild the -shm); a WAL
 * store that lost both files is still read by who may make them.  The
 * group's member without write access is tests/e2e/readers-e2e.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "store.h"
#include "storegen.h"

#define T0	1764000000

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	return storegen_scratch(dir, sizeof(dir), "test_store_readers");
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

static struct store *
open_ok(const char *file, enum store_mode mode)
{
	char err[STORE_ERRLEN] = "";
	struct store *st = store_open(file, mode, NULL, err, sizeof(err));

	if (st == NULL)
		fail_msg("store_open %s: %s", file, err);
	return st;
}

/* n results as one run of st, committed. */
static void
write_run(struct store *st, unsigned first, unsigned n)
{
	struct store_run run = { .start = { T0 + first, 0 }, .vantage = "lab",
	    .settings = "scales=0,7,14", .program = "test_store_readers" };
	int64_t run_id;

	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	for (unsigned i = first; i < first + n; i++) {
		struct storegen g;

		storegen_make(&g, i, T0 + first, false);
		if (store_add(st, run_id, &g.res) != 0)
			fail_msg("store_add %u: %s", i, store_error(st));
		storegen_free(&g);
	}
	assert_int_equal(store_flush(st, true), 0);
}

/* The bytes, size and mtime of file with suffix sfx, one line into buf
 * ("absent" when it is not there). */
static void
state_of(const char *file, const char *sfx, char *buf, size_t len)
{
	char f[160];
	struct stat sb;
	unsigned long h = 5381;
	FILE *fp;
	int c;

	snprintf(f, sizeof(f), "%s%s", file, sfx);
	if (stat(f, &sb) != 0 || (fp = fopen(f, "rb")) == NULL) {
		snprintf(buf, len, "%s absent", sfx);
		return;
	}
	while ((c = getc(fp)) != EOF)
		h = h * 33 + (unsigned)c;
	fclose(fp);
	snprintf(buf, len, "%s %lld bytes, mode %o, mtime %lld.%09ld, hash %lx", sfx,
	    (long long)sb.st_size, (unsigned)(sb.st_mode & 07777), (long long)sb.st_mtim.tv_sec,
	    sb.st_mtim.tv_nsec, h);
}

static void
snapshot(const char *file, char *buf, size_t len)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	size_t off = 0;

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]) && off < len; i++) {
		state_of(file, sfx[i], buf + off, len - off);
		off += strlen(buf + off);
		if (off + 1 < len)
			buf[off++] = '\n';
		buf[off] = '\0';
	}
}

/* A reader of file sees want path results and changes nothing. */
static void
read_unchanged(const char *file, int64_t want)
{
	char before[1024], after[1024];
	struct store *rd;

	snapshot(file, before, sizeof(before));
	/* mtimes are ns: a write in the same tick would still change bytes */
	rd = open_ok(file, STORE_READ);
	assert_int_equal(store_query_int(rd, "SELECT count(*) FROM path_results"), want);
	assert_int_equal(store_close(rd, NULL, 0), 0);
	snapshot(file, after, sizeof(after));
	if (strcmp(before, after) != 0)
		fail_msg("a reader changed the store:\n%s\n--\n%s", before, after);
}

/* A clean close keeps the -wal, empty, and the -shm, with the database's
 * mode; a reader then reads every row and changes nothing. */
static void
test_close_keeps(void **state)
{
	char file[128], wal[160], shm[160];
	struct stat db, w, s;
	struct store *st;

	(void)state;
	snprintf(file, sizeof(file), "%s/closed.sqlite", dir);
	snprintf(wal, sizeof(wal), "%s-wal", file);
	snprintf(shm, sizeof(shm), "%s-shm", file);
	st = open_ok(file, STORE_WRITE);
	write_run(st, 0, 20);
	assert_int_equal(store_close(st, NULL, 0), 0);
	assert_int_equal(chmod(file, 0640), 0);
	/* a second writer's session: its files take the database's mode */
	assert_int_equal(unlink(wal), 0);
	assert_int_equal(unlink(shm), 0);
	st = open_ok(file, STORE_WRITE);
	write_run(st, 20, 20);
	assert_int_equal(store_close(st, NULL, 0), 0);
	assert_int_equal(stat(file, &db), 0);
	if (stat(wal, &w) != 0 || stat(shm, &s) != 0)
		fail_msg("the -wal or -shm went at close");
	assert_int_equal(w.st_size, 0);
	assert_int_equal(w.st_mode & 0777, 0640);
	assert_int_equal(s.st_mode & 0777, 0640);
	assert_int_equal(w.st_uid, db.st_uid);
	read_unchanged(file, 40);
	read_unchanged(file, 40);
}

/* A writer killed with rows committed after the last checkpoint: the
 * reader sees them (through the -wal, the -shm nobody keeps up) and
 * changes nothing. */
static void
test_killed_keeps(void **state)
{
	char file[128], wal[160];
	struct stat w;
	int status;
	pid_t pid;

	(void)state;
	snprintf(file, sizeof(file), "%s/killed.sqlite", dir);
	snprintf(wal, sizeof(wal), "%s-wal", file);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[STORE_ERRLEN];
		struct store *st = store_open(file, STORE_WRITE, NULL, err, sizeof(err));
		sqlite3 *db;

		if (st == NULL)
			_exit(3);
		/* a reader of its own holds the checkpoints back: what the
		 * runs commit stays in the WAL alone */
		if (sqlite3_open(file, &db) != SQLITE_OK ||
		    sqlite3_exec(db, "BEGIN; SELECT count(*) FROM runs", NULL, NULL, NULL) !=
		    SQLITE_OK)
			_exit(4);
		write_run(st, 0, 30);
		write_run(st, 30, 30);
		raise(SIGKILL);
		_exit(5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(stat(wal, &w), 0);
	assert_true(w.st_size > 0);
	read_unchanged(file, 60);
	read_unchanged(file, 60);
	/* and nothing of it was in the file itself */
	{
		char uri[200];
		sqlite3 *db;
		sqlite3_stmt *s;

		snprintf(uri, sizeof(uri), "file:%s?mode=ro&immutable=1", file);
		assert_int_equal(sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
		    NULL), SQLITE_OK);
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM path_results", -1, &s, NULL) ==
		    SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
			assert_true(sqlite3_column_int64(s, 0) < 60);
		/* else: the schema itself is still in the WAL */
		sqlite3_finalize(s);
		sqlite3_close(db);
	}
}

/* A WAL store whose -wal and -shm are gone: a reader that may make them
 * (as SQLite does: the database's owner and mode) reads it. */
static void
test_missing_made(void **state)
{
	char file[128], wal[160], shm[160];
	struct store *st;

	(void)state;
	snprintf(file, sizeof(file), "%s/old.sqlite", dir);
	snprintf(wal, sizeof(wal), "%s-wal", file);
	snprintf(shm, sizeof(shm), "%s-shm", file);
	st = open_ok(file, STORE_WRITE);
	write_run(st, 0, 10);
	assert_int_equal(store_close(st, NULL, 0), 0);
	assert_int_equal(unlink(wal), 0);
	assert_int_equal(unlink(shm), 0);
	st = open_ok(file, STORE_READ);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 10);
	store_close(st, NULL, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_close_keeps),
		cmocka_unit_test(test_killed_keeps),
		cmocka_unit_test(test_missing_made),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
