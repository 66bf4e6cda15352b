/*
 * test_store.c -- the store (db/): a result written reads back with its
 * fields, NULLs, hops, findings and evidence; every committed fixture
 * (tests/db/fixtures/vN.sqlite) migrates to this schema with its rows
 * and an identity of its own (made once, kept at every open after); a
 * foreign, newer or corrupt file is refused in one line and left byte for
 * byte as it was; a reader querying while a writer stores 100,000 results
 * never meets a lock error nor half a batch, nor does a writer killed
 * mid-batch leave one; a batch commits by size and by age; the history of
 * a host and the problems since T are read through their indexes;
 * retention keeps every change of state (a table of histories); a COMMIT
 * that fails (a full disk, faultvfs.h) loses no row and stores none under
 * another row's address, target or run; a failed checkpoint is retried
 * at the checkpoint thread's next turn, not in a loop, also after a busy
 * one.
 *
 * STORE_WRITE_FIXTURE=FILE test_store writes the fixture of this schema
 * version (the synthetic results below) to FILE and exits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "faultvfs.h"
#include "store.h"
#include "storegen.h"

#define FIXTURE_DIR	"tests/db/fixtures"
#define FIXTURE_PATHS	40	/* results in every fixture */
#define FIXTURE_TIME	1764000000

static char dir[64];

static void
path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int
setup(void **state)
{
	(void)state;
	return storegen_scratch(dir, sizeof(dir), "test_store");
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

static struct store *
open_ok(const char *file, enum store_mode mode, const struct store_opts *o)
{
	char err[STORE_ERRLEN] = "";
	struct store *st = store_open(file, mode, o, err, sizeof(err));

	if (st == NULL)
		fail_msg("store_open %s: %s", file, err);
	return st;
}

/* A run of the lab's begun at t: its id. */
static int64_t
lab_run(struct store *st, int64_t t)
{
	struct store_run run = { .start = { t, 0 }, .vantage = "lab", .settings =
	    "scales=0,7,14 rate=100", .program = "test_store" };
	int64_t run_id;

	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	return run_id;
}

/* Writes results first..first+n-1 as one run. */
static void
write_results(struct store *st, unsigned first, unsigned n, int64_t t, bool evidence)
{
	int64_t run_id = lab_run(st, t);

	for (unsigned i = first; i < first + n; i++) {
		struct storegen g;

		storegen_make(&g, i, t, evidence);
		if (store_add(st, run_id, &g.res) != 0)
			fail_msg("store_add %u: %s", i, store_error(st));
		storegen_free(&g);
	}
}

static char *
query_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	char *out = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != NULL)
		out = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return out;
}

/* The counts the synthetic results 0..FIXTURE_PATHS-1 give. */
static void
check_fixture_rows(struct store *st)
{
	unsigned rewritten = FIXTURE_PATHS / 4;

	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"),
	    FIXTURE_PATHS);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results"),
	    3 * FIXTURE_PATHS);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results "
	    "WHERE problem"), 2 * rewritten);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM hops"), 5 * rewritten);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM side_findings"),
	    3 * rewritten);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM evidence"), rewritten);
	assert_int_equal(store_query_int(st, "SELECT sum(packets) FROM evidence"),
	    4 * 7 * rewritten);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM runs"), 1);
}

static void
test_write_read(void **state)
{
	char file[128], *s;
	struct store *st;
	sqlite3 *db;

	(void)state;
	path_in(file, sizeof(file), "wr.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	write_results(st, 0, FIXTURE_PATHS, FIXTURE_TIME, true);
	assert_int_equal(store_flush(st, true), 0);
	check_fixture_rows(st);
	assert_int_equal(store_query_int(st, "PRAGMA application_id"), STORE_APPLICATION_ID);
	assert_int_equal(store_query_int(st, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(store_query_int(st, "PRAGMA auto_vacuum"), 2);	/* incremental */
	/* its batches check no foreign key (every id is its own): the
	 * rows name none missing (foreign_key_check at the close, below) */
	assert_int_equal(store_query_int(st, "PRAGMA foreign_keys"), 0);
	/* NULL exactly where the JSON prints null: a closed path (i = 2) */
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results pr JOIN "
	    "paths p ON p.id = pr.path_id WHERE p.address = '198.19.0.2' AND "
	    "control_reply = 'rst' AND control_sa_present = 0 AND control_wscale IS NULL "
	    "AND control_sack IS NULL AND traced = 0 AND capture_error IS NULL"), 1);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "paths p ON p.id = s.path_id WHERE p.address = '198.19.0.2' AND verdict = "
	    "'closed' AND sa_sack IS NULL AND scale_quoted IS NULL AND flight_bytes IS NULL "
	    "AND hop_index IS NULL"), 3);
	/* the rewritten path (i = 1): the box at hop 3, the quote changed */
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "paths p ON p.id = s.path_id WHERE p.address = '198.19.0.1' AND verdict = "
	    "'rewritten' AND hop_index = 3 AND hop_address = '198.18.3.2' AND "
	    "last_clean_address = '198.18.2.2' AND scale_quoted = 0 AND "
	    "scale_effective = 0"), 2);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM hops h JOIN path_results "
	    "pr ON pr.id = h.path_result_id JOIN paths p ON p.id = pr.path_id WHERE "
	    "p.address = '198.19.0.1' AND h.ttl = 4 AND h.address IS NULL AND quote = "
	    "'none' AND rtt_us IS NULL"), 1);
	/* per variant: a SYN and a SYN-ACK of 60 bytes, 5 quotes of 68 */
	assert_int_equal(store_query_int(st, "SELECT sum(length(bytes)) FROM evidence"),
	    (FIXTURE_PATHS / 4) * 4 * (2 * (6 + 60) + 5 * (6 + 68) + 5));
	/* nothing stored twice: the same path in the same run is refused,
	 * and the batch goes on without it */
	{
		struct storegen g;
		int64_t n = store_query_int(st, "SELECT count(*) FROM scale_results");

		storegen_make(&g, 1, FIXTURE_TIME, true);
		assert_int_equal(store_add(st, 1, &g.res), -1);
		assert_non_null(strstr(store_error(st), "UNIQUE"));
		storegen_free(&g);
		assert_int_equal(store_flush(st, true), 0);
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results"), n);
	}
	assert_int_equal(store_close(st, NULL, 0), 0);

	assert_int_equal(sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_null(query_text(db, "PRAGMA foreign_key_check"));
	s = query_text(db, "PRAGMA journal_mode");
	assert_string_equal(s, "wal");
	free(s);
	s = query_text(db, "SELECT reason FROM scale_results WHERE idx = 1 AND path_id = "
	    "(SELECT id FROM paths WHERE address = '198.19.0.1')");
	assert_string_equal(s, "window scale changed to 0, \"quoted\" at scale 7");
	free(s);
	sqlite3_close(db);

	/* a reader opens it too */
	st = open_ok(file, STORE_READ, NULL);
	check_fixture_rows(st);
	assert_int_equal(store_run_begin(st, &(struct store_run){ .vantage = "x" },
	    &(int64_t){ 0 }), -1);
	store_close(st, NULL, 0);
}

static int
copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	size_t n;
	int rc = 0;

	if (in == NULL || out == NULL)
		rc = -1;
	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (in != NULL)
		fclose(in);
	if (out != NULL && fclose(out) != 0)
		rc = -1;
	return rc;
}

/* A result of several flows keeps, per scale, the flows and how many the
 * verdict was a problem on; one flow's rows leave both NULL (v6); and the
 * branch where its flows part, each side's addresses joined by commas,
 * NULL on the scales without one (v8). */
static void
test_flows_columns(void **state)
{
	struct store_run run = { .start = { FIXTURE_TIME, 0 }, .vantage = "lab",
	    .settings = "scales=0,7,14 rate=100", .program = "test_store" };
	static const int flows[] = { 1, 8 };	/* results 0 and 1 */
	struct flow_branch branch[RESULT_MAX_SCALES] = { { 0 } };
	char file[128];
	struct store *st;
	int64_t run_id;

	(void)state;
	path_in(file, sizeof(file), "flows.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	for (unsigned r = 0; r < 2; r++) {
		struct storegen g;

		storegen_make(&g, r, FIXTURE_TIME, false);
		g.res.flows = flows[r];
		for (int i = 0; i < g.res.nscales && flows[r] > 1; i++)
			g.res.flows_affected[i] = i;
		if (flows[r] > 1) {
			assert_int_equal(addr_parse("198.18.31.2", &branch[1].problem[0]), 0);
			assert_int_equal(addr_parse("198.18.32.2", &branch[1].clean[0]), 0);
			assert_int_equal(addr_parse("fd00::2", &branch[1].clean[1]), 0);
			branch[1].hop_index = 3;
			branch[1].nproblem = 1;
			branch[1].nclean = 2;
			g.res.flow_branch = branch;
		}
		if (store_add(st, run_id, &g.res) != 0)
			fail_msg("store_add %u: %s", r, store_error(st));
		storegen_free(&g);
	}
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "paths p ON p.id = s.path_id WHERE p.address = '198.19.0.1' AND flows = 8 AND "
	    "flows_affected = idx"), 3);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "paths p ON p.id = s.path_id WHERE p.address = '198.19.0.0' AND flows IS NULL "
	    "AND flows_affected IS NULL"), 3);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "paths p ON p.id = s.path_id WHERE p.address = '198.19.0.1' AND idx = 1 AND "
	    "branch_hop = 3 AND branch_problem = '198.18.31.2' AND "
	    "branch_clean = '198.18.32.2,fd00::2'"), 1);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results WHERE "
	    "branch_hop IS NULL AND branch_problem IS NULL AND branch_clean IS NULL"), 5);
	assert_int_equal(store_close(st, NULL, 0), 0);
}

static void
test_fixtures(void **state)
{
	DIR *d = opendir(FIXTURE_DIR);
	struct dirent *e;
	int seen[STORE_SCHEMA_VERSION + 1] = { 0 };
	char *ids[STORE_SCHEMA_VERSION + 1] = { NULL };

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char from[512], to[512], *s;
		struct store *st;
		unsigned v;
		sqlite3 *db;

		if (sscanf(e->d_name, "v%u.sqlite", &v) != 1)
			continue;
		assert_true(v >= 1 && v <= STORE_SCHEMA_VERSION);
		seen[v] = 1;
		snprintf(from, sizeof(from), "%s/%s", FIXTURE_DIR, e->d_name);
		path_in(to, sizeof(to), e->d_name);
		assert_int_equal(copy_file(from, to), 0);
		st = open_ok(to, STORE_WRITE, NULL);
		assert_int_equal(store_query_int(st, "PRAGMA user_version"),
		    STORE_SCHEMA_VERSION);
		check_fixture_rows(st);
		/* and it takes new results */
		write_results(st, 1000, 4, FIXTURE_TIME + 3600, true);
		assert_int_equal(store_close(st, NULL, 0), 0);
		assert_int_equal(sqlite3_open(to, &db), SQLITE_OK);
		s = query_text(db, "PRAGMA integrity_check");
		assert_string_equal(s, "ok");
		free(s);
		assert_null(query_text(db, "PRAGMA foreign_key_check"));
		/* an identity, made once: v9's fixture keeps its own; the
		 * others get one each when migrated, none alike */
		ids[v] = query_text(db, "SELECT store FROM store_identity WHERE id = 1"
		    " AND length(store) = 32 AND store NOT GLOB '*[^0-9a-f]*'");
		assert_non_null(ids[v]);
		if (v == 9)
			assert_string_equal(ids[v], "787bd7c6210ba7db7f5974b798f7759c");
		sqlite3_close(db);
	}
	closedir(d);
	for (unsigned v = 1; v <= STORE_SCHEMA_VERSION; v++)
		for (unsigned w = v + 1; w <= STORE_SCHEMA_VERSION; w++)
			if (ids[v] != NULL && ids[w] != NULL)
				assert_string_not_equal(ids[v], ids[w]);
	for (unsigned v = 1; v <= STORE_SCHEMA_VERSION; v++)
		free(ids[v]);
	/* a fixture for every version this binary knows */
	for (unsigned v = 1; v <= STORE_SCHEMA_VERSION; v++)
		if (!seen[v])
			fail_msg("no fixture %s/v%u.sqlite", FIXTURE_DIR, v);
}

/* Silent TTLs inside a box's interval (schema v4's hop_silent): a store
 * of v3 gets them from its hops table where those tell (a TTL no variant
 * heard, between the last clean hop and the box), NULL elsewhere; a new
 * result stores its own, NULL when the hop is exact. */
static void
test_silent_column(void **state)
{
	char from[512], to[512];
	struct store *st;
	struct storegen g;
	struct store_run run = { .start = { FIXTURE_TIME + 7200, 0 }, .vantage = "lab",
	    .settings = "scales=0,7,14 rate=100", .program = "test_store" };
	int64_t run_id;
	sqlite3 *db;

	(void)state;
	snprintf(from, sizeof(from), "%s/v3.sqlite", FIXTURE_DIR);
	path_in(to, sizeof(to), "silent.sqlite");
	assert_int_equal(copy_file(from, to), 0);
	/* 198.19.0.1's box moved to hop 5: its TTL 4 ('none') is inside
	 * (2, 5); every other interval is (2, 3], with nothing inside */
	assert_int_equal(sqlite3_open(to, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE scale_results SET hop_index = 5, "
	    "hop_address = '198.18.5.2' WHERE verdict = 'rewritten' AND path_id = "
	    "(SELECT id FROM paths WHERE address = '198.19.0.1')", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	st = open_ok(to, STORE_WRITE, NULL);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN paths p "
	    "ON p.id = s.path_id WHERE p.address = '198.19.0.1' AND hop_silent = 16"), 2);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results "
	    "WHERE hop_silent IS NOT NULL"), 2);
	assert_true(store_query_int(st, "SELECT count(*) FROM scale_results "
	    "WHERE hop_index IS NOT NULL AND hop_silent IS NULL") > 0);
	/* a new result: scale 7 not exact (TTLs 2 and 4 silent), 14 exact */
	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	storegen_make(&g, 1, FIXTURE_TIME + 7200, false);
	assert_true(g.res.verdicts[1].hop.present && g.res.verdicts[2].hop.present);
	g.res.verdicts[1].hop.silent = (1u << 2) | (1u << 4);
	assert_int_equal(store_add(st, run_id, &g.res), 0);
	storegen_free(&g);
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "path_results pr ON pr.id = s.path_result_id WHERE pr.run_id = (SELECT max(id) "
	    "FROM runs) AND s.idx = 1 AND s.hop_silent = 20"), 1);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results s JOIN "
	    "path_results pr ON pr.id = s.path_result_id WHERE pr.run_id = (SELECT max(id) "
	    "FROM runs) AND s.idx = 2 AND s.hop_index IS NOT NULL AND s.hop_silent IS NULL"), 1);
	assert_int_equal(store_close(st, NULL, 0), 0);
}

static size_t
read_all(const char *file, char *buf, size_t len)
{
	FILE *f = fopen(file, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}

static void
make_sqlite(const char *file, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(file, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void
write_bytes(const char *file, const void *b, size_t n)
{
	FILE *f = fopen(file, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* Each bad file: refused (both modes) in one line naming the file and
 * what is wrong, not a byte changed, no journal left beside it. */
static void
test_refuse(void **state)
{
	static const struct {
		const char *name, *why;
	} cases[] = {
		{ "foreign.sqlite", "not a scaleprobe store (application_id 0x12345678" },
		{ "plain.sqlite", "not a scaleprobe store (application_id 0x00000000" },
		{ "newer.sqlite", "schema version 99 is newer" },
		{ "garbage.sqlite", "not a SQLite database" },
		{ "truncated.sqlite", "" },
		{ "text.sqlite", "not a SQLite database" },
	};
	char file[128], good[128], garbage[4096];
	static char before[1 << 20], after[1 << 20];

	(void)state;
	path_in(file, sizeof(file), "foreign.sqlite");
	make_sqlite(file, "PRAGMA application_id = 305419896; CREATE TABLE t (x);"
	    "INSERT INTO t VALUES (1);");
	path_in(file, sizeof(file), "plain.sqlite");
	make_sqlite(file, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
	path_in(file, sizeof(file), "newer.sqlite");
	make_sqlite(file, "PRAGMA application_id = 1396920402; PRAGMA user_version = 99;"
	    "CREATE TABLE t (x);");
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 7919 % 251);
	path_in(file, sizeof(file), "garbage.sqlite");
	write_bytes(file, garbage, sizeof(garbage));
	path_in(file, sizeof(file), "text.sqlite");
	write_bytes(file, "# targets\n198.18.100.1\n", 23);
	/* a real store cut after its header: the schema page is gone */
	path_in(good, sizeof(good), "good.sqlite");
	store_close(open_ok(good, STORE_WRITE, NULL), NULL, 0);
	{
		size_t n = read_all(good, before, sizeof(before));

		assert_true(n > 200);
		memset(before + 100, 0x5a, n - 100);	/* the schema page trampled */
		path_in(file, sizeof(file), "truncated.sqlite");
		write_bytes(file, before, n);
	}

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int mode = STORE_READ; mode <= STORE_WRITE; mode++) {
			char err[STORE_ERRLEN] = "", wal[160];
			size_t n0, n1;
			struct stat sb;

			path_in(file, sizeof(file), cases[i].name);
			n0 = read_all(file, before, sizeof(before));
			assert_null(store_open(file, (enum store_mode)mode, NULL, err,
			    sizeof(err)));
			n1 = read_all(file, after, sizeof(after));
			if (strstr(err, file) == NULL || strstr(err, cases[i].why) == NULL ||
			    strchr(err, '\n') != NULL || strlen(err) < strlen(file) + 5)
				fail_msg("%s: '%s'", cases[i].name, err);
			/* final: the daemon exits 2 and is not restarted */
			if (!store_open_refused())
				fail_msg("%s: refusal not final: '%s'", cases[i].name, err);
			assert_int_equal(n0, n1);
			assert_memory_equal(before, after, n0);
			snprintf(wal, sizeof(wal), "%s-wal", file);
			assert_int_not_equal(stat(wal, &sb), 0);
			snprintf(wal, sizeof(wal), "%s-journal", file);
			assert_int_not_equal(stat(wal, &sb), 0);
		}
	/* a reader does not create what is missing */
	{
		char err[STORE_ERRLEN] = "";
		struct stat sb;

		path_in(file, sizeof(file), "missing.sqlite");
		assert_null(store_open(file, STORE_READ, NULL, err, sizeof(err)));
		assert_non_null(strstr(err, "No such file"));
		assert_int_not_equal(stat(file, &sb), 0);
	}
	/* a writer's directory it cannot write (root writes any mode: a
	 * directory that is a file stands for it); a good store opens and
	 * the flag is down again */
	{
		char err[STORE_ERRLEN] = "";

		path_in(file, sizeof(file), "text.sqlite/x.sqlite");
		assert_null(store_open(file, STORE_WRITE, NULL, err, sizeof(err)));
		assert_true(store_open_refused());
		store_close(open_ok(good, STORE_WRITE, NULL), NULL, 0);
		assert_false(store_open_refused());
	}
}

/* A writer (another process, as the daemon is) stores 100,000 results in
 * runs of one batch each; the reader checks each snapshot holds whole
 * batches only and never fails. */
#define CONC_TOTAL	100000
#define CONC_BATCH	1000

static void
test_concurrent(void **state)
{
	struct store_opts o = { .batch_rows = CONC_BATCH, .batch_ns = 3600ull * 1000000000u };
	char file[128];
	struct store *st, *rd;
	int64_t seen_mid = 0, queries = 0, last = 0;
	int status;
	pid_t pid;

	(void)state;
	path_in(file, sizeof(file), "conc.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	store_close(st, NULL, 0);

	/* the reader opened after the fork: a child must not inherit an
	 * open SQLite connection (its locks and -shm mapping are the
	 * parent's: SQLite's "how to corrupt" 2.6) */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[STORE_ERRLEN];

		st = store_open(file, STORE_WRITE, &o, err, sizeof(err));
		if (st == NULL)
			_exit(3);
		for (unsigned b = 0; b < CONC_TOTAL / CONC_BATCH; b++)
			write_results(st, b * CONC_BATCH, CONC_BATCH, FIXTURE_TIME + b, b % 4 == 0);
		_exit(store_close(st, err, sizeof(err)) == 0 ? 0 : 4);
	}
	rd = open_ok(file, STORE_READ, NULL);
	for (;;) {
		int64_t n, partial, runs;
		pid_t w = waitpid(pid, &status, WNOHANG);

		/* one snapshot: both counts in one read transaction */
		assert_int_equal(store_exec(rd, "BEGIN"), 0);
		n = store_query_int(rd, "SELECT count(*) FROM path_results");
		partial = store_query_int(rd, "SELECT count(*) FROM (SELECT run_id, count(*) "
		    "AS n FROM path_results GROUP BY run_id HAVING n != 1000)");
		runs = store_query_int(rd, "SELECT count(*) FROM runs");
		if (n < 0 || partial < 0 || runs < 0)
			fail_msg("reader: %s", store_error(rd));
		assert_int_equal(store_exec(rd, "COMMIT"), 0);
		assert_int_equal(partial, 0);
		assert_int_equal(n, runs * CONC_BATCH);
		assert_true(n >= last);
		last = n;
		queries++;
		if (n > 0 && n < CONC_TOTAL)
			seen_mid++;
		if (w == pid)
			break;
		usleep(20000);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(store_query_int(rd, "SELECT count(*) FROM path_results"), CONC_TOTAL);
	assert_int_equal(store_query_int(rd, "SELECT count(*) FROM scale_results"),
	    3 * CONC_TOTAL);
	print_message("# %lld reader snapshots, %lld while the writer was half-way\n",
	    (long long)queries, (long long)seen_mid);
	/* the reader really read while the writer wrote */
	assert_true(seen_mid > 0);
	store_close(rd, NULL, 0);
}


/* A writer killed in the middle of a batch (kill -9): what it committed is
 * there, whole; the open batch is not; the file is sound. */
static void
test_killed_writer(void **state)
{
	struct store_opts o = { .batch_rows = CONC_BATCH, .batch_ns = 3600ull * 1000000000u };
	char file[128], *s;
	struct store *rd, *st;
	int64_t n = 0;
	sqlite3 *db;
	pid_t pid;

	(void)state;
	path_in(file, sizeof(file), "killed.sqlite");
	store_close(open_ok(file, STORE_WRITE, &o), NULL, 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[STORE_ERRLEN];

		if ((st = store_open(file, STORE_WRITE, &o, err, sizeof(err))) == NULL)
			_exit(3);
		for (unsigned b = 0;; b++)
			write_results(st, b * CONC_BATCH, CONC_BATCH, FIXTURE_TIME + b, false);
	}
	rd = open_ok(file, STORE_READ, NULL);	/* after the fork, as above */
	for (int i = 0; i < 3000 && n < 5 * CONC_BATCH; i++) {
		usleep(10000);
		n = store_query_int(rd, "SELECT count(*) FROM path_results");
	}
	/* mid-batch: half of one batch's time after a commit was seen */
	usleep(5000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_true(n >= 5 * CONC_BATCH);
	store_close(rd, NULL, 0);

	st = open_ok(file, STORE_WRITE, NULL);	/* recovers the WAL */
	n = store_query_int(st, "SELECT count(*) FROM path_results");
	assert_int_equal(n % CONC_BATCH, 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM runs"), n / CONC_BATCH);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results"), 3 * n);
	store_close(st, NULL, 0);
	assert_int_equal(sqlite3_open(file, &db), SQLITE_OK);
	s = query_text(db, "PRAGMA integrity_check");
	assert_string_equal(s, "ok");
	free(s);
	sqlite3_close(db);
}

/* A batch that does not fill commits by its age: the idle writer's timer
 * (store_flush without force) hands it to readers. */
static void
test_flush_by_time(void **state)
{
	struct store_opts o = { .batch_rows = 1000, .batch_ns = 50 * 1000000u };
	char file[128];
	struct store *st, *rd;

	(void)state;
	path_in(file, sizeof(file), "age.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	rd = open_ok(file, STORE_READ, NULL);
	write_results(st, 0, 3, FIXTURE_TIME, false);
	assert_int_equal(store_flush(st, false), 0);	/* too young */
	assert_int_equal(store_query_int(rd, "SELECT count(*) FROM path_results"), 0);
	assert_int_equal(store_pending(st), 3);		/* the writer's backlog */
	usleep(80000);
	assert_int_equal(store_flush(st, false), 0);
	assert_int_equal(store_query_int(rd, "SELECT count(*) FROM path_results"), 3);
	assert_int_equal(store_pending(st), 0);
	/* and a result added after the age commits with it */
	write_results(st, 3, 1, FIXTURE_TIME + 1, false);
	usleep(80000);
	write_results(st, 4, 1, FIXTURE_TIME + 2, false);
	assert_int_equal(store_query_int(rd, "SELECT count(*) FROM path_results"), 5);
	assert_int_equal(store_get_stats(st)->batches, 2);
	store_close(rd, NULL, 0);
	store_close(st, NULL, 0);
}

/* A result whose hops are refused half way (a trigger here, RAISE(FAIL)
 * at its third hop) is refused whole, and the batch keeps the others: the
 * writer's statements of several rows run OR FAIL, without a statement
 * journal, so the two hops that went in are gone by the result's undo, not
 * by SQLite. */
static void
test_hops_refused(void **state)
{
	char file[128];
	struct store *st;
	struct storegen g;

	(void)state;
	path_in(file, sizeof(file), "hops_refused.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	assert_int_equal(store_exec(st, "CREATE TRIGGER refuse_hop BEFORE INSERT ON hops "
	    "WHEN NEW.ttl = 3 AND (SELECT p.address FROM path_results pr JOIN paths p ON "
	    "p.id = pr.path_id WHERE pr.id = NEW.path_result_id) = '198.19.0.5' "
	    "BEGIN SELECT RAISE(FAIL, 'hop refused'); END"), 0);
	write_results(st, 0, 5, FIXTURE_TIME, true);	/* 1 traced */
	storegen_make(&g, 5, FIXTURE_TIME, true);	/* traced, refused */
	assert_int_equal(store_add(st, lab_run(st, FIXTURE_TIME + 1), &g.res), -1);
	assert_non_null(strstr(store_error(st), "hop refused"));
	storegen_free(&g);
	write_results(st, 6, 2, FIXTURE_TIME + 1, true);	/* in the same batch */
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 7);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM paths p JOIN path_results "
	    "pr ON pr.path_id = p.id WHERE p.address = '198.19.0.5'"), 0);
	/* none of its rows left behind (its id is the next result's again, so
	 * a hop left would be that result's), the other traced result whole */
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM hops h JOIN path_results "
	    "pr ON pr.id = h.path_result_id JOIN paths p ON p.id = pr.path_id WHERE "
	    "p.address <> '198.19.0.1'"), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM hops WHERE path_result_id "
	    "NOT IN (SELECT id FROM path_results)"), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results WHERE "
	    "path_result_id NOT IN (SELECT id FROM path_results)"), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM side_findings WHERE "
	    "path_result_id NOT IN (SELECT id FROM path_results)"), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM evidence WHERE "
	    "path_result_id NOT IN (SELECT id FROM path_results)"), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM hops"), 5);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results"), 21);
	assert_int_equal(store_close(st, NULL, 0), 0);
}

/* The two questions the indexes are for are answered by them, not by a
 * scan (so no one drops one unnoticed). */
static void
test_query_plans(void **state)
{
	static const struct {
		const char *sql, *plan;
	} cases[] = {
		/* the history of one host */
		{ "SELECT s.* FROM paths p JOIN path_results pr ON pr.path_id = p.id "
		  "JOIN scale_results s ON s.path_result_id = pr.id WHERE p.address = '198.19.0.1' "
		  "AND pr.time_ns >= 0 ORDER BY pr.time_ns", "path_results_path" },
		{ "SELECT pr.* FROM targets t JOIN path_results pr ON pr.target_id = t.id "
		  "WHERE t.spec = 'host1.example' ORDER BY pr.time_ns", "path_results_target" },
		/* every broken path since T */
		{ "SELECT s.path_id, s.verdict FROM scale_results s WHERE s.problem "
		  "AND s.time_ns >= 1764000000000000000", "scale_results_problems" },
	};
	char file[128];
	struct store *st;
	sqlite3 *db;

	(void)state;
	path_in(file, sizeof(file), "plans.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	write_results(st, 0, 400, FIXTURE_TIME, false);
	store_exec(st, "ANALYZE");
	store_close(st, NULL, 0);
	assert_int_equal(sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char sql[1024], plan[2048] = "";
		sqlite3_stmt *q;
		size_t n = 0;

		snprintf(sql, sizeof(sql), "EXPLAIN QUERY PLAN %s", cases[i].sql);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW && n < sizeof(plan))
			n += (size_t)snprintf(plan + n, sizeof(plan) - n, "%s; ",
			    (const char *)sqlite3_column_text(q, 3));
		sqlite3_finalize(q);
		if (strstr(plan, cases[i].plan) == NULL)
			fail_msg("%s\n  plan: %s", cases[i].sql, plan);
	}
	sqlite3_close(db);
}

/* --- retention (its table of histories: test_store_engines, both engines) -- */

/* Pruning gives the pages back: the file shrinks, no free page is left. */
static void
test_prune_vacuum(void **state)
{
	char file[128];
	struct store *st;
	struct stat a, b;

	(void)state;
	path_in(file, sizeof(file), "vacuum.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	for (unsigned r = 0; r < 20; r++)
		write_results(st, 0, 500, FIXTURE_TIME + r * 3600, true);
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)"), 0);
	assert_int_equal(stat(file, &a), 0);
	/* every old result of an unchanging path goes but its first and last */
	assert_true(store_prune(st, (FIXTURE_TIME + 19 * 3600) * 1000000000ll) > 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 2 * 500);
	assert_int_equal(store_query_int(st, "PRAGMA freelist_count"), 0);
	assert_int_equal(stat(file, &b), 0);
	print_message("# %lld bytes before pruning, %lld after\n", (long long)a.st_size,
	    (long long)b.st_size);
	assert_true(b.st_size < a.st_size / 4);
	store_close(st, NULL, 0);
}

/* Retention never removes a result the shared store has not taken
 * (upload_cursor): of 20 runs of 100 paths, with the cursor after the
 * 5th run, only the 5 runs' old results before it go. */
static void
test_prune_keeps_unuploaded(void **state)
{
	char file[128];
	struct store *st;
	int64_t cut;

	(void)state;
	path_in(file, sizeof(file), "upload.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	for (unsigned r = 0; r < 20; r++)
		write_results(st, 0, 100, FIXTURE_TIME + r * 3600, false);
	assert_int_equal(store_flush(st, true), 0);
	cut = store_query_int(st, "SELECT max(id) FROM path_results WHERE time_ns < "
	    "(SELECT min(time_ns) FROM path_results) + 5 * 3600000000000");
	assert_true(cut > 0);
	{
		char sql[160];

		snprintf(sql, sizeof(sql), "INSERT INTO upload_cursor (id, last_id) VALUES "
		    "(1, %lld)", (long long)cut);
		assert_int_equal(store_exec(st, sql), 0);
	}
	assert_true(store_prune(st, (FIXTURE_TIME + 19 * 3600) * 1000000000ll) > 0);
	/* the first run kept (a path's first result), runs 2-5 gone, 6-20 kept */
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 16 * 100);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results WHERE id > "
	    "(SELECT last_id FROM upload_cursor)"), 15 * 100);
	store_close(st, NULL, 0);
}

static int
write_fixture(const char *file)
{
	char err[STORE_ERRLEN];
	struct store *st = store_open(file, STORE_WRITE, NULL, err, sizeof(err));

	if (st == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	write_results(st, 0, FIXTURE_PATHS, FIXTURE_TIME, true);
	if (store_close(st, err, sizeof(err)) != 0 ||
	    (st = store_open(file, STORE_WRITE, NULL, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	/* one file, no WAL beside it */
	store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)");
	store_exec(st, "PRAGMA journal_mode = DELETE");
	store_close(st, NULL, 0);
	return 0;
}

/* The daemon's cycles: a run marked as a group's cycle, a state per
 * target (once), and after a crash the results of the target that left
 * no state discarded while those with one stay. */
static void
test_states(void **state)
{
	char file[128];
	struct store *st;
	struct store_run run = { .start = { FIXTURE_TIME, 0 }, .vantage = "lab",
	    .settings = "x", .program = "test_store" };
	struct store_state s = { .group = "web", .target = "host1.example", .cycle = 5,
	    .state = "measured", .paths = 1, .time_ns = 1, .next_due_ns = 2 };
	int64_t run_id;

	(void)state;
	path_in(file, sizeof(file), "states.sqlite");
	st = open_ok(file, STORE_WRITE, NULL);
	assert_int_equal(store_last_cycle(st, "web"), -1);
	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	assert_int_equal(store_run_cycle(st, run_id, "web", 5), 0);
	for (unsigned i = 1; i <= 3; i++) {
		struct storegen g;

		storegen_make(&g, i, FIXTURE_TIME, false);
		assert_int_equal(store_add(st, run_id, &g.res), 0);
		storegen_free(&g);
	}
	assert_int_equal(store_state_add(st, run_id, &s), 0);
	assert_int_equal(store_state_add(st, run_id, &s), 0);	/* ignored */
	s.target = "host3.example";
	s.state = "missed";
	assert_int_equal(store_state_add(st, 0, &s), 0);	/* no run */
	s.state = "bogus";
	s.cycle = 6;
	assert_int_not_equal(store_state_add(st, 0, &s), 0);	/* CHECK refuses */
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM target_states"), 2);
	assert_int_equal(store_state_has(st, "web", "host1.example", 5), 1);
	assert_int_equal(store_state_has(st, "web", "host2.example", 5), 0);
	assert_int_equal(store_state_has(st, "web", "host1.example", 4), 0);
	assert_int_equal(store_last_cycle(st, "web"), 5);
	/* host2 and host3 left no state of their run: theirs go */
	assert_int_equal(store_discard_unfinished(st), 2);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 1);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results WHERE "
	    "path_result_id NOT IN (SELECT id FROM path_results)"), 0);
	/* a CLI run (no cycle) is never touched */
	write_results(st, 10, 2, FIXTURE_TIME, false);
	assert_int_equal(store_discard_unfinished(st), 0);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 3);
	store_close(st, NULL, 0);
}

/* Results i of run vantage, as write_results without its run. */
static void
add_results(struct store *st, int64_t run_id, unsigned first, unsigned n)
{
	for (unsigned i = first; i < first + n; i++) {
		struct storegen g;

		storegen_make(&g, i, FIXTURE_TIME, i % 4 == 1);
		if (store_add(st, run_id, &g.res) != 0)
			fail_msg("store_add %u: %s", i, store_error(st));
		storegen_free(&g);
	}
}

static int64_t
begin_run(struct store *st, const char *vantage)
{
	struct store_run run = { .start = { FIXTURE_TIME, 0 }, .vantage = vantage,
	    .settings = "scales=0,7,14", .program = "test_store" };
	int64_t id;

	assert_int_equal(store_run_begin(st, &run, &id), 0);
	return id;
}

/* Every path result's address and port are its target's (storegen's
 * hostI.example is result I's), its scale rows name the same path, and
 * its run is the one expected[I] names; returns the rows seen. */
static unsigned
check_own_address(const char *file, const char *const expected[], unsigned nexp)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	unsigned rows = 0;

	assert_int_equal(sqlite3_open_v2(file, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT t.spec, p.address, p.port, r.vantage, "
	    "(SELECT count(*) FROM scale_results s WHERE s.path_result_id = pr.id AND "
	    "s.path_id <> pr.path_id) FROM path_results pr JOIN targets t ON t.id = "
	    "pr.target_id JOIN paths p ON p.id = pr.path_id JOIN runs r ON r.id = pr.run_id",
	    -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *spec = (const char *)sqlite3_column_text(s, 0);
		const char *address = (const char *)sqlite3_column_text(s, 1);
		const char *vantage = (const char *)sqlite3_column_text(s, 3);
		char want[ADDR_STRLEN];
		struct storegen g;
		unsigned i;

		assert_int_equal(sscanf(spec, "host%u.example", &i), 1);
		assert_true(i < nexp);
		storegen_make(&g, i, FIXTURE_TIME, false);
		addr_format(&g.res.dst, want, sizeof(want));
		if (strcmp(address, want) != 0 || sqlite3_column_int(s, 2) != g.res.port)
			fail_msg("%s stored under [%s]:%d, not its own [%s]:%u", spec, address,
			    sqlite3_column_int(s, 2), want, g.res.port);
		if (strchr(expected[i], vantage[0]) == NULL)
			fail_msg("%s stored in run %s, not in one of %s", spec, vantage,
			    expected[i]);
		assert_int_equal(sqlite3_column_int(s, 4), 0);
		storegen_free(&g);
		rows++;
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return rows;
}

/* A COMMIT fails (the disk is full) with new targets, paths and a run in
 * its batch; the next batch names new ones, which SQLite gives the ids
 * the rolled-back rows had, and a later one the failed batch's targets
 * again.  Each result is stored once the disk has room, under its own
 * address, target and run: none lost, none under another's ids. */
static void
test_commit_fails(void **state)
{
	struct store_opts o = { .batch_rows = 1000, .batch_ns = 3600000000000u };
	static const char *const run_of[] = {
		"A", "A", "A", "A", "A",	/* committed */
		"BF", "BF", "BF", "BF", "BF",	/* the failed batch, again in F */
		"C", "C", "C", "C", "C",	/* after the failure */
		"D", "D", "D",			/* begun while failing */
	};
	struct store_state sd = { .group = "web", .target = "host15.example", .cycle = 7,
	    .state = "measured", .paths = 3, .time_ns = 1 };
	char file[128];
	struct store *st;
	int64_t a, b, c, d, f;
	unsigned rows;

	(void)state;
	assert_int_equal(faultvfs_install(), 0);
	path_in(file, sizeof(file), "full.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	a = begin_run(st, "A");
	add_results(st, a, 0, 5);
	assert_int_equal(store_flush(st, true), 0);
	b = begin_run(st, "B");
	add_results(st, b, 5, 5);
	faultvfs_full = true;
	assert_int_equal(store_flush(st, true), -1);	/* the disk is full */
	assert_true(faultvfs_refused > 0);
	faultvfs_full = false;
	c = begin_run(st, "C");
	add_results(st, c, 10, 5);
	assert_int_equal(store_flush(st, true), 0);
	f = begin_run(st, "F");
	add_results(st, f, 5, 5);
	assert_int_equal(store_flush(st, true), 0);
	/* the disk fills again: a run, its cycle, results and a state come
	 * while nothing can be written */
	faultvfs_full = true;
	d = begin_run(st, "D");
	assert_int_equal(store_run_cycle(st, d, "web", 7), 0);
	add_results(st, d, 15, 3);
	assert_int_equal(store_state_add(st, d, &sd), 0);
	assert_int_equal(store_flush(st, true), -1);
	faultvfs_full = false;
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_close(st, NULL, 0), 0);
	rows = check_own_address(file, run_of, 18);
	print_message("# %u results stored of 5 + 5 + 5 + 5 + 3 (5 twice)\n", rows);
	assert_int_equal(rows, 5 + 5 + 5 + 5 + 3);
	st = open_ok(file, STORE_READ, NULL);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM runs"), 5);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM target_states s JOIN "
	    "runs r ON r.id = s.run_id WHERE r.vantage = 'D' AND r.grp = 'web' AND "
	    "r.cycle = 7"), 1);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM evidence"),
	    store_query_int(st, "SELECT count(*) FROM path_results p JOIN targets t ON "
	    "t.id = p.target_id WHERE CAST(substr(t.spec, 5) AS INTEGER) % 4 = 1"));
	store_close(st, NULL, 0);
}

/* While the store fails it says so, keeps what fits in keep_bytes and
 * counts the rest as dropped; what it kept is stored after, each under
 * its own address. */
#define BOUND_RESULTS	250

static void
test_commit_fails_bound(void **state)
{
	struct store_opts o = { .batch_rows = 50, .batch_ns = 3600000000000u,
	    .keep_bytes = 200000, .retry_ns = 3600000000000u };
	static const char *run_of[BOUND_RESULTS];
	const struct store_stats *ss;
	char file[128];
	struct store *st;
	int64_t r;
	uint64_t dropped;

	(void)state;
	for (unsigned i = 0; i < BOUND_RESULTS; i++)
		run_of[i] = "E";
	assert_int_equal(faultvfs_install(), 0);
	path_in(file, sizeof(file), "bound.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	r = begin_run(st, "E");
	faultvfs_full = true;
	add_results(st, r, 0, 20);
	assert_int_equal(store_flush(st, true), -1);
	assert_true(store_failing(st));
	assert_non_null(strstr(store_error(st), "kept in memory"));
	for (unsigned i = 20; i < BOUND_RESULTS; i++) {
		struct storegen g;

		storegen_make(&g, i, FIXTURE_TIME, false);
		(void)store_add(st, r, &g.res);		/* -1 once dropped */
		storegen_free(&g);
	}
	ss = store_get_stats(st);
	dropped = ss->dropped;
	assert_true(dropped > 0 && dropped < BOUND_RESULTS);
	assert_true(ss->failed_writes >= 1);
	assert_true(store_pending(st) == BOUND_RESULTS - dropped);
	faultvfs_full = false;
	assert_int_equal(store_flush(st, true), 0);
	assert_false(store_failing(st));
	assert_int_equal(store_pending(st), 0);
	assert_int_equal(store_close(st, NULL, 0), 0);
	assert_int_equal(check_own_address(file, run_of, BOUND_RESULTS), BOUND_RESULTS - dropped);
	print_message("# %llu of %u results dropped at a bound of 200,000 bytes\n",
	    (unsigned long long)dropped, BOUND_RESULTS);
}

/* The checkpointer copies the WAL into the file while the writer is open
 * (the file grows: a connection that never read the file did nothing),
 * says when its checkpoints fail (the database file alone failing:
 * commits still go into the WAL, the store is not failing) and, by
 * itself, when they succeed again; nothing is lost. */
static void
test_checkpointer(void **state)
{
	struct store_opts o = { .batch_rows = 1000, .batch_ns = 3600000000000u,
	    .ckpt_ns = 20 * 1000000u };
	static const char *run_of[400];
	char file[128], why[STORE_ERRLEN];
	struct store *st;
	struct stat sb;
	off_t before;
	int64_t r;
	int i;

	(void)state;
	for (unsigned k = 0; k < 400; k++)
		run_of[k] = "K";
	assert_int_equal(faultvfs_install(), 0);
	path_in(file, sizeof(file), "ckpt.sqlite");
	st = open_ok(file, STORE_WRITE, &o);	/* a turn every 20 ms */
	assert_int_equal(stat(file, &sb), 0);
	before = sb.st_size;
	r = begin_run(st, "K");
	add_results(st, r, 0, 200);
	assert_int_equal(store_flush(st, true), 0);
	for (i = 0; i < 500 && stat(file, &sb) == 0 && sb.st_size <= before; i++)
		usleep(10000);
	print_message("# the file %lld -> %lld bytes while the writer is open\n",
	    (long long)before, (long long)sb.st_size);
	assert_true(sb.st_size > before);
	assert_false(store_ckpt_failed(st, why, sizeof(why)));
	faultvfs_db_failing = true;
	add_results(st, r, 200, 200);
	assert_int_equal(store_flush(st, true), 0);
	for (i = 0; i < 500 && !store_ckpt_failed(st, why, sizeof(why)); i++)
		usleep(10000);
	assert_true(store_ckpt_failed(st, why, sizeof(why)));
	print_message("# %s\n", why);
	assert_non_null(strstr(why, "checkpoint"));
	assert_false(store_failing(st));
	faultvfs_db_failing = false;
	for (i = 0; i < 500 && store_ckpt_failed(st, NULL, 0); i++)
		usleep(10000);
	assert_false(store_ckpt_failed(st, NULL, 0));
	assert_int_equal(store_close(st, NULL, 0), 0);
	assert_int_equal(check_own_address(file, run_of, 400), 400);
}

/* Waits up to 5 s for *counter to pass than; whether it did. */
static bool
passes(volatile unsigned long *counter, unsigned long than)
{
	for (int i = 0; i < 500 && *counter <= than; i++)
		usleep(10000);
	return *counter > than;
}

/* Waits up to 5 s for store_ckpt_failed to say failed; whether it did. */
static bool
ckpt_says(struct store *st, bool failed)
{
	for (int i = 0; i < 500 && store_ckpt_failed(st, NULL, 0) != failed; i++)
		usleep(10000);
	return store_ckpt_failed(st, NULL, 0) == failed;
}

/* Checkpoint attempts counted (*counter's steps) over 0.3 s, once the
 * first is seen: at a turn every 0.1 s, three, and one more when the
 * window's edges meet two. */
static void
attempts_in_turns(volatile unsigned long *counter, const char *what)
{
	unsigned long w;

	assert_true(passes(counter, *counter));
	w = *counter;
	usleep(300000);
	print_message("# %lu %s checkpoint attempts in 0.3 s, a turn every 0.1 s\n",
	    *counter - w, what);
	assert_true(*counter - w <= 4);
	assert_true(passes(counter, *counter));		/* and still tried */
}

/* A busy or failed checkpoint is tried again at the thread's next turn
 * (ckpt_ns), not at once, also when the WAL is past the threshold that
 * wakes the thread: a disk that stays full, or another connection's
 * checkpoint, is not retried in a loop that takes a core and the
 * writer's checkpoint lock.  A failed attempt is one write refused (the
 * first page it copies into the file), a busy one a lock refused. */
static void
test_checkpointer_failing_waits(void **state)
{
	struct store_opts o = { .ckpt_ns = 100 * 1000000u };
	char file[128];
	struct store *st;

	(void)state;
	assert_int_equal(faultvfs_install(), 0);
	faultvfs_db_failing = false;
	path_in(file, sizeof(file), "ckpt_wait.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	assert_int_equal(store_exec(st, "CREATE TABLE pad(b BLOB)"), 0);
	faultvfs_ckpt_busy = true;
	/* some 1,200 pages of 4,096 bytes: past the threshold of 1,000 */
	assert_int_equal(store_exec(st, "INSERT INTO pad VALUES (zeroblob(5000000))"), 0);
	attempts_in_turns(&faultvfs_busied, "busy");
	assert_false(store_ckpt_failed(st, NULL, 0));	/* busy is no failure */
	faultvfs_db_failing = true;
	faultvfs_ckpt_busy = false;
	assert_true(ckpt_says(st, true));
	attempts_in_turns(&faultvfs_refused, "failed");
	faultvfs_db_failing = false;
	assert_true(ckpt_says(st, false));
	assert_int_equal(store_close(st, NULL, 0), 0);
	st = open_ok(file, STORE_READ, NULL);
	assert_int_equal(store_query_int(st, "SELECT length(b) FROM pad"), 5000000);
	store_close(st, NULL, 0);
}

/* A checkpoint refused busy after a failed one leaves it to be tried again
 * at the next turn, commit or not: the failure is not said forever once
 * the disk is back. */
static void
test_checkpointer_busy_retries(void **state)
{
	struct store_opts o = { .batch_rows = 1000, .batch_ns = 3600000000000u,
	    .ckpt_ns = 20 * 1000000u };
	static const char *const run_of[3] = { "B", "B", "B" };
	char file[128];
	struct store *st;

	(void)state;
	assert_int_equal(faultvfs_install(), 0);
	faultvfs_db_failing = faultvfs_ckpt_busy = false;	/* a test failed before */
	path_in(file, sizeof(file), "ckpt_busy.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	faultvfs_db_failing = true;
	add_results(st, begin_run(st, "B"), 0, 3);
	assert_int_equal(store_flush(st, true), 0);
	assert_true(ckpt_says(st, true));
	faultvfs_ckpt_busy = true;
	faultvfs_db_failing = false;
	assert_true(passes(&faultvfs_busied, faultvfs_busied));	/* refused busy */
	faultvfs_ckpt_busy = false;
	assert_true(ckpt_says(st, false));
	assert_int_equal(store_close(st, NULL, 0), 0);
	assert_int_equal(check_own_address(file, run_of, 3), 3);
}

/* A store that keeps failing is tried again after retry_ns, then twice as
 * long each time (every retry writes all it keeps again); the first
 * success ends it. */
static void
test_retry_backoff(void **state)
{
	struct store_opts o = { .batch_rows = 1000, .batch_ns = 3600000000000u,
	    .retry_ns = 100 * 1000000u };
	char file[128];
	struct store *st;
	unsigned long w;

	(void)state;
	assert_int_equal(faultvfs_install(), 0);
	path_in(file, sizeof(file), "backoff.sqlite");
	st = open_ok(file, STORE_WRITE, &o);
	add_results(st, begin_run(st, "G"), 0, 3);
	faultvfs_full = true;
	assert_int_equal(store_flush(st, true), -1);	/* retry in 100 ms */
	w = faultvfs_refused;
	assert_int_equal(store_flush(st, false), -1);
	assert_true(faultvfs_refused == w);		/* not yet tried */
	usleep(120000);
	assert_int_equal(store_flush(st, false), -1);	/* tried: next in 200 ms */
	assert_true(faultvfs_refused > w);
	w = faultvfs_refused;
	usleep(100000);
	assert_int_equal(store_flush(st, false), -1);
	assert_true(faultvfs_refused == w);		/* 100 of 200 ms */
	faultvfs_full = false;
	usleep(150000);
	assert_int_equal(store_flush(st, false), 0);	/* tried, and written */
	assert_false(store_failing(st));
	assert_int_equal(store_get_stats(st)->failed_writes, 2);
	assert_int_equal(store_close(st, NULL, 0), 0);
	st = open_ok(file, STORE_READ, NULL);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), 3);
	store_close(st, NULL, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_flows_columns),
		cmocka_unit_test(test_prune_keeps_unuploaded),
		cmocka_unit_test(test_silent_column),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_killed_writer),
		cmocka_unit_test(test_flush_by_time),
		cmocka_unit_test(test_hops_refused),
		cmocka_unit_test(test_query_plans),
		cmocka_unit_test(test_prune_vacuum),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_commit_fails),
		cmocka_unit_test(test_commit_fails_bound),
		cmocka_unit_test(test_retry_backoff),
		cmocka_unit_test(test_checkpointer),
		cmocka_unit_test(test_checkpointer_failing_waits),
		cmocka_unit_test(test_checkpointer_busy_retries),
	};
	const char *fixture = getenv("STORE_WRITE_FIXTURE");

	if (fixture != NULL)
		return write_fixture(fixture);
	return cmocka_run_group_tests(tests, setup, teardown);
}
