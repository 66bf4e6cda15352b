/*
 * test_when.c -- times as users write them, as a table: RFC 3339 with and
 * without offsets and fractions, bare dates, ages; and what is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "when.h"

#define NOW 1764771200	/* 2025-12-03T14:13:20Z */

static const struct row {
	const char *in;
	int ok;
	int64_t want;
} rows[] = {
	{ "1970-01-01T00:00:00Z", 1, 0 },
	{ "2025-12-03T14:13:20Z", 1, NOW },
	{ "2025-12-03t14:13:20z", 1, NOW },
	{ "2025-12-03 14:13:20Z", 1, NOW },
	{ "2025-12-03T15:13:20+01:00", 1, NOW },
	{ "2025-12-03T09:43:20-04:30", 1, NOW },
	{ "2025-12-03T14:13:20.999999Z", 1, NOW },
	{ "2025-12-03", 1, NOW - (14 * 3600 + 13 * 60 + 20) },
	{ "2024-02-29T00:00:00Z", 1, 1709164800 },
	{ "2000-02-29", 1, 951782400 },
	{ "2016-12-31T23:59:60Z", 1, 1483228799 },
	{ "7d", 1, NOW - 7 * 86400 },
	{ "24h", 1, NOW - 86400 },
	{ "90m", 1, NOW - 5400 },
	{ "30s", 1, NOW - 30 },
	{ "2w", 1, NOW - 14 * 86400 },
	{ "0d", 1, NOW },
	{ "", 0, 0 },
	{ "7", 0, 0 },
	{ "7x", 0, 0 },
	{ "d7", 0, 0 },
	{ "-7d", 0, 0 },
	{ "7d ", 0, 0 },
	{ "99999999999d", 0, 0 },
	{ "2023-02-29", 0, 0 },
	{ "1900-02-29", 0, 0 },
	{ "2025-13-01", 0, 0 },
	{ "2025-00-10", 0, 0 },
	{ "2025-04-31", 0, 0 },
	{ "2025-12-03T24:00:00Z", 0, 0 },
	{ "2025-12-03T10:60:00Z", 0, 0 },
	{ "2025-12-03T10:00:00", 0, 0 },
	{ "2025-12-03T10:00:00+1:00", 0, 0 },
	{ "2025-12-03T10:00:00.Z", 0, 0 },
	{ "2025-12-03T10:00Z", 0, 0 },
	{ "25-12-03", 0, 0 },
	{ "2025-12-03Tjunk", 0, 0 },
};

static void
test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int64_t got = -1;
		char err[160] = "";
		int r = when_parse(rows[i].in, NOW, &got, err, sizeof(err));

		print_message("# '%s': %s\n", rows[i].in, r == 0 ? "ok" : err);
		assert_int_equal(r == 0, rows[i].ok);
		if (rows[i].ok)
			assert_int_equal(got, rows[i].want);
		else
			assert_non_null(strstr(err, "expected a date"));
	}
}

/* Formatting agrees with the C library's gmtime over four centuries of
 * days, and parses back to the same second. */
static void
test_format_round_trip(void **state)
{
	(void)state;
	for (int64_t t = -86400LL * 365 * 60; t < 86400LL * 365 * 400; t += 86400 * 7 + 3599) {
		char mine[WHEN_RFC3339_LEN], libc[32];
		time_t tt = (time_t)t;
		struct tm tm;
		int64_t back;
		char err[160];

		when_format_utc(t, mine);
		assert_non_null(gmtime_r(&tt, &tm));
		strftime(libc, sizeof(libc), "%Y-%m-%dT%H:%M:%SZ", &tm);
		assert_string_equal(mine, libc);
		assert_int_equal(when_parse(mine, 0, &back, err, sizeof(err)), 0);
		assert_int_equal(back, t);
	}
	char b[WHEN_RFC3339_LEN];
	when_format_utc(-62167219201LL, b);	/* the year -1 */
	assert_string_equal(b, "-");
}

/* ns to timespec: tv_nsec in 0..999999999 on both sides of the epoch */
static void
test_ns_timespec(void **state)
{
	static const struct { int64_t ns; int64_t sec; long nsec; } ns_rows[] = {
		{ 0, 0, 0 },
		{ 1, 0, 1 },
		{ 999999999, 0, 999999999 },
		{ 1000000000, 1, 0 },
		{ -1, -1, 999999999 },
		{ -1000000000, -1, 0 },
		{ -1000000001, -2, 999999999 },
		{ 1796202900043000000, 1796202900, 43000000 },
		{ INT64_MIN, INT64_MIN / 1000000000 - 1, 1000000000 + INT64_MIN % 1000000000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ns_rows) / sizeof(ns_rows[0]); i++) {
		struct timespec ts = when_ns_timespec(ns_rows[i].ns);

		if ((int64_t)ts.tv_sec != ns_rows[i].sec || ts.tv_nsec != ns_rows[i].nsec)
			fail_msg("%lld ns: got %lld s %ld ns, want %lld s %ld ns",
			    (long long)ns_rows[i].ns, (long long)ts.tv_sec, ts.tv_nsec,
			    (long long)ns_rows[i].sec, ns_rows[i].nsec);
	}
}

/* a capture's wall-clock stamp on the monotonic clock, by the offset
 * read now; never later than now, and now when it cannot be trusted */
static void
test_stamp_mono(void **state)
{
	static const int64_t R = 1796202900000000000;	/* wall clock now */
	static const uint64_t M = 5000000000000;	/* monotonic now */
	static const struct {
		int64_t sec, usec, real; uint64_t mono, want; const char *why;
	} stamp_rows[] = {
		{ 1796202900, 0, R, M, M, "received just now" },
		{ 1796202899, 999000, R, M, M - 1000000, "1 ms before it was read" },
		{ 1796202899, 987654, R, M, M - 12346000, "12.346 ms" },
		{ 1796202899, 0, R, M, M - 1000000000, "1 s: the oldest trusted" },
		{ 1796202898, 999999, R, M, M, "older than 1 s: the clock stepped" },
		{ 1796202900, 1, R, M, M, "in the future: the clock stepped back" },
		{ 0, 0, R, M, M, "no stamp" },
		{ -5, 0, R, M, M, "negative" },
		{ 1796202899, 1000000, R, M, M, "usec out of range" },
		{ 1796202899, -1, R, M, M, "usec negative" },
		{ INT64_MAX, 0, R, M, M, "seconds that overflow ns" },
		{ 1796202899, 999000, 0, M, M, "no wall clock" },
		{ 1796202899, 500000, R, 400000000, 400000000, "older than the monotonic clock" },
		{ 1796202899, 500000, R, 500000000, 0, "exactly the monotonic clock's start" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(stamp_rows) / sizeof(stamp_rows[0]); i++) {
		uint64_t got = when_stamp_mono(stamp_rows[i].sec, stamp_rows[i].usec, stamp_rows[i].real,
		    stamp_rows[i].mono);

		if (got != stamp_rows[i].want)
			fail_msg("%s: got %llu, want %llu", stamp_rows[i].why,
			    (unsigned long long)got, (unsigned long long)stamp_rows[i].want);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_ns_timespec),
		cmocka_unit_test(test_stamp_mono),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
