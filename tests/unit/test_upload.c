/*
 * test_upload.c -- the upload's pure parts (db/upload.h): the backoff's
 * steps and bound, the text sent for a hostile local one, and when the
 * upload-stale alert holds; which local store identities are taken; a
 * batch read from a store whose cells were tampered with passes over the
 * results that hold one and reads the others, its cursor past all of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sqlite3.h>

#include "storegen.h"
#include "store.h"

#include "upload.h"
#include "upload_int.h"

static void
test_backoff(void **state)
{
	static const struct { unsigned n, s; } t[] = {
		{ 1, 1 }, { 2, 2 }, { 3, 4 }, { 4, 8 }, { 6, 32 }, { 7, 60 }, { 8, 60 },
		{ 1000, 60 }, { 4294967295u, 60 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(upload_backoff_s(t[i].n), t[i].s);
}

static void
test_clean_text(void **state)
{
	static const struct { const char *in; size_t len; const char *out; } t[] = {
		{ "example.org:443", 64, "example.org:443" },
		{ "a\nb\tc\x7f" "d", 64, "a?b?c?d" },
		{ "\xc3\xa9t\xe9", 64, "??t?" },		/* UTF-8 and not */
		{ "abcdef", 4, "abc" },			/* cut, terminated */
		{ "", 4, "" },
		{ "x", 1, "" },
	};
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		upload_clean_text(t[i].in, out, t[i].len);
		assert_string_equal(out, t[i].out);
	}
	upload_clean_text(NULL, out, sizeof(out));
	assert_string_equal(out, "");
}

static void
test_where(void **state)
{
	static const struct { const char *in, *out; size_t len; } t[] = {
		/* the certificate's files and the key's passphrase left out,
		 * the password cut, the other parameters kept in order */
		{ "postgresql://v:pw@198.18.231.2/db?connect_timeout=5&sslmode=verify-full"
		  "&sslrootcert=/x/ca.crt&sslcert=/x/v.crt&sslkey=/x/v.key&sslpassword=s3&"
		  "application_name=a", "postgresql://v@198.18.231.2/db?connect_timeout=5&"
		  "sslmode=verify-full&application_name=a", 256 },
		/* only left-out parameters: no '?' left */
		{ "postgresql://v@h/db?sslcert=/a&sslkey=/b&sslcrl=/c&sslcrldir=/d&passfile=/e",
		  "postgresql://v@h/db", 256 },
		/* the first kept after a left-out one gets the '?' */
		{ "postgresql://h/db?sslkey=/k&host=/run/sock", "postgresql://h/db?host=/run/sock",
		  256 },
		/* a prefix of a name is not the name; empty parameters dropped */
		{ "postgresql://h/db?sslkeyx=1&&sslke=2&", "postgresql://h/db?sslkeyx=1&sslke=2",
		  256 },
		/* a fragment ends the parameters */
		{ "postgresql://h/db?a=1#sslkey=/k", "postgresql://h/db?a=1", 256 },
		/* a file's path is left as it is; cut at len - 1 */
		{ "/var/lib/scaleprobe/x.db", "/var/lib/scaleprobe/x.db", 256 },
		{ "postgresql://h/db?sslmode=require", "postgresql://h/db?ss", 21 },
	};
	char out[256];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		upload_where(t[i].in, out, t[i].len);
		assert_string_equal(out, t[i].out);
	}
}

/* a store's identity is its key's part: exactly 32 lowercase hex digits */
static void
test_store_ok(void **state)
{
	static const struct { const char *s; bool ok; } t[] = {
		{ "0123456789abcdef0123456789abcdef", true },
		{ "dd98ac4a21e2578daf154ed10b8fcf77", true },
		{ "0123456789ABCDEF0123456789abcdef", false },
		{ "0123456789abcdef0123456789abcde", false },
		{ "0123456789abcdef0123456789abcdef0", false },
		{ "0123456789abcdef0123456789abcdeg", false },
		{ "0123456789abcdef 123456789abcdef", false },
		{ "", false },
		{ NULL, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(upload_store_ok(t[i].s), t[i].ok);
}

/* A store of 12 results (ids 1-12) of one run made at file, then sql run
 * on it; open. */
static sqlite3 *
store12(const char *file, const char *sql)
{
	struct store_run run = { .vantage = "v" };
	char err[STORE_ERRLEN];
	struct store *st;
	int64_t run_id;
	sqlite3 *db;

	remove(file);
	assert_non_null(st = store_open(file, STORE_WRITE, NULL, err, sizeof(err)));
	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	for (unsigned k = 0; k < 12; k++) {
		struct storegen g;

		storegen_make(&g, k, 1700000000, true);
		assert_int_equal(store_add(st, run_id, &g.res), 0);
		storegen_free(&g);
	}
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	assert_int_equal(sqlite3_open(file, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	return db;
}

/* Each row: SQL that spoils the cells of some results of a store of 12,
 * and how many of them a batch still reads (its last id always 12). */
static void
test_batch_hostile(void **state)
{
	static const struct { const char *sql; int n; } t[] = {
		{ "SELECT 1", 12 },
		/* a text where an integer is */
		{ "UPDATE path_results SET time_ns = 'x' WHERE id = 2", 11 },
		/* past INTEGER's 32 bits in the shared store */
		{ "UPDATE path_results SET control_mss = 4294967296 WHERE id = 3", 11 },
		{ "UPDATE scale_results SET scale_sent = 1.5 WHERE path_result_id = 5", 11 },
		/* bytes where a text is */
		{ "UPDATE scale_results SET reply = x'6f6b' WHERE path_result_id IN (1, 7)", 10 },
		{ "UPDATE hops SET quote = x'00' WHERE path_result_id = 6", 11 },
		{ "PRAGMA ignore_check_constraints = ON; UPDATE paths SET port = port + 70000", 0 },
		{ "PRAGMA ignore_check_constraints = ON;"
		  " UPDATE paths SET family = 'ipx' WHERE id = 1", 11 },
		{ "UPDATE runs SET vantage = x'76'", 0 },
		{ "UPDATE evidence SET bytes = 'text'", 9 },
		/* a finding without its scale is left out, its result read */
		{ "PRAGMA foreign_keys = OFF; DELETE FROM scale_results WHERE path_result_id = 4"
		  " AND idx = 1", 12 },
	};
	char dir[64], file[128], err[STORE_ERRLEN];

	(void)state;
	assert_int_equal(storegen_scratch(dir, sizeof(dir), "test_upload"), 0);
	snprintf(file, sizeof(file), "%s/h.db", dir);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ubatch *b = ubatch_new();
		int64_t last = 0;
		sqlite3 *db;
		int n;

		db = store12(file, t[i].sql);
		assert_non_null(b);
		n = ubatch_read(b, db, 0, UPLOAD_BATCH, &last, err, sizeof(err));
		if (n != t[i].n)
			fail_msg("%s: %d results read, not %d", t[i].sql, n, t[i].n);
		assert_int_equal(last, 12);
		/* from the cursor on only */
		assert_int_equal(ubatch_read(b, db, 12, UPLOAD_BATCH, &last, err, sizeof(err)), 0);
		sqlite3_close(db);
		ubatch_free(b);
	}
	remove(file);
	assert_int_equal(storegen_scratch_remove(dir), 0);
}

/* Each row: SQL that makes the run a cycle and writes some target states,
 * and how many results a batch reads, its cursor stopping before the first
 * result whose target has no state in that run and cycle (a start would
 * discard it): ids 1-12, results 1-5's targets finished in the first rows. */
static void
test_batch_unfinished(void **state)
{
#define FIN(w)	"INSERT INTO target_states (run_id, target_id, grp, cycle, state, paths," \
	" time_ns) SELECT DISTINCT run_id, target_id, 'g', 1, 'measured', 1, 0 FROM" \
	" path_results WHERE " w ";"
	static const struct { const char *sql; int n; } t[] = {
		/* a run of no cycle (--once, on demand): all */
		{ "SELECT 1", 12 },
		/* a cycle, every target finished: all */
		{ "UPDATE runs SET grp = 'g', cycle = 1;" FIN("1"), 12 },
		/* no target finished: none, the cursor stays */
		{ "UPDATE runs SET grp = 'g', cycle = 1", 0 },
		/* results 1-5's targets finished: up to the first other */
		{ "UPDATE runs SET grp = 'g', cycle = 1;" FIN("id <= 5"), -1 },
		/* a later result finished does not pass an earlier one */
		{ "UPDATE runs SET grp = 'g', cycle = 1;" FIN("id >= 2"), 0 },
		/* a state of another cycle, group or run is not this one's */
		{ "UPDATE runs SET grp = 'g', cycle = 2;" FIN("1"), 0 },
		{ "UPDATE runs SET grp = 'h', cycle = 1;" FIN("1"), 0 },
		{ "UPDATE runs SET grp = 'g', cycle = 1;" FIN("1")
		  " UPDATE target_states SET run_id = NULL", 0 },
	};
#undef FIN
	char dir[64], file[128], err[STORE_ERRLEN];

	(void)state;
	assert_int_equal(storegen_scratch(dir, sizeof(dir), "test_upload"), 0);
	snprintf(file, sizeof(file), "%s/u.db", dir);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ubatch *b = ubatch_new();
		int64_t last = -1, want;
		sqlite3 *db;
		sqlite3_stmt *q;
		int n;

		db = store12(file, t[i].sql);
		want = t[i].n;
		if (want < 0) {
			/* the first result whose target is not one of results 1-5's */
			assert_int_equal(sqlite3_prepare_v2(db, "SELECT min(id) - 1 FROM"
			    " path_results WHERE target_id NOT IN (SELECT target_id FROM"
			    " path_results WHERE id <= 5)", -1, &q, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_step(q), SQLITE_ROW);
			want = sqlite3_column_type(q, 0) == SQLITE_NULL ? 12 :
			    sqlite3_column_int64(q, 0);
			sqlite3_finalize(q);
			assert_true(want >= 5 && want < 12);
		}
		assert_non_null(b);
		n = ubatch_read(b, db, 0, UPLOAD_BATCH, &last, err, sizeof(err));
		if (n != want || last != want)
			fail_msg("%s: %d results read to id %lld, not %lld", t[i].sql, n,
			    (long long)last, (long long)want);
		sqlite3_close(db);
		ubatch_free(b);
	}
	remove(file);
	assert_int_equal(storegen_scratch_remove(dir), 0);
}

static void
test_stale(void **state)
{
	const int64_t s = 1000000000, h = 3600 * s, t0 = 1700000000 * s;
	static const uint32_t after = 12 * 3600;
	static const struct { uint64_t backlog; int64_t last, since, now; bool stale; } t[] = {
		/* nothing waits: never stale however old */
		{ 0, 1 * h, 0, 100 * h, false },
		/* waits, last upload 11 h ago, 13 h ago, exactly 12 h */
		{ 5, -11 * h, -100 * h, 0, false },
		{ 5, -13 * h, -100 * h, 0, true },
		{ 5, -12 * h, -100 * h, 0, false },
		/* never uploaded: from the daemon's start */
		{ 5, 0, -1 * h, 0, false },
		{ 5, 0, -13 * h, 0, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(upload_is_stale(t[i].backlog, t[i].last ? t0 + t[i].last : 0,
		    t0 + t[i].since, t0 + t[i].now, after), t[i].stale);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_clean_text),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_store_ok),
		cmocka_unit_test(test_batch_hostile),
		cmocka_unit_test(test_batch_unfinished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
