/*
 * test_upload.c -- the upload's pure parts (db/upload.h): the backoff's
 * steps and bound, the text sent for a hostile local one, and when the
 * upload-stale alert holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "upload.h"

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
