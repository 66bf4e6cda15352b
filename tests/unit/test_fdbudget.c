/*
 * test_fdbudget.c -- scaleprobed's descriptor budget (fdbudget.h) as a
 * table: each part counted once, targets by name bounded by max-inflight;
 * the refusal: one line, the limit and the need in it, and a max-inflight
 * suggested only when that alone fits, the largest that does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fdbudget.h"

#define FIXED (FDB_BASE + FDB_RUNNER + FDB_STORE + FDB_SPARE)

static const struct row {
	struct fdb_config c;
	size_t total, resolvers;
} rows[] = {
	/* 2,000 addresses: no term per target at all */
	{ { 100, 2000, 0, 1, false, 16, 0, true, false },
	  FIXED + FDB_CONTROL + 32, 0 },
	{ { 1 << 20, 2000, 0, 1, true, 16, FDB_METRICS, true, true },
	  FIXED + FDB_CONTROL + FDB_ALERT + FDB_CAPTURE + FDB_METRICS, 0 },
	/* names: the fewer of them and max-inflight, times the nameservers */
	{ { 1000, 300, 300, 1, false, 16, 0, true, false },
	  FIXED + FDB_CONTROL + 32 + 300, 300 },
	{ { 100, 300, 300, 3, false, 16, 0, false, false },
	  FIXED + 32 + 300, 300 },
	{ { 100, 300, 50, 3, false, 16, 0, false, false },
	  FIXED + 32 + 150, 150 },
	/* no nameserver in resolv.conf: evdns asks 127.0.0.1, one socket */
	{ { 10, 10, 10, 0, false, 16, 0, false, false },
	  FIXED + 32 + 10, 10 },
};

static void
test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fdb_need n;
		char msg[400];

		fdbudget(&rows[i].c, &n);
		assert_int_equal(n.total, rows[i].total);
		assert_int_equal(n.resolvers, rows[i].resolvers);
		assert_int_equal(n.total, n.fixed + n.captures + n.resolvers + n.metrics);
		assert_int_equal(fdbudget_check(&rows[i].c, &n, n.total, msg, sizeof(msg)), 0);
		assert_int_equal(fdbudget_check(&rows[i].c, &n, UINT64_MAX, msg, sizeof(msg)), 0);
		assert_int_equal(fdbudget_check(&rows[i].c, &n, n.total - 1, msg, sizeof(msg)), -1);
		assert_null(strchr(msg, '\n'));
		assert_non_null(strstr(msg, "RLIMIT_NOFILE"));
	}
}

/* The max-inflight suggested fits the limit, one more does not. */
static void
test_suggest(void **state)
{
	struct fdb_config c = { 1000, 300, 300, 1, false, 16, 0, true, false };
	struct fdb_need n;
	char msg[400], want[64];
	const char *p;
	unsigned long fit;

	(void)state;
	for (uint64_t limit = 63; limit <= 400; limit += 7) {
		c.max_inflight = 1000;
		fdbudget(&c, &n);
		if (fdbudget_check(&c, &n, limit, msg, sizeof(msg)) == 0) {
			assert_true(limit >= n.total);
			continue;
		}
		snprintf(want, sizeof(want), "is %llu but", (unsigned long long)limit);
		assert_non_null(strstr(msg, want));
		snprintf(want, sizeof(want), "needs up to %zu", n.total);
		assert_non_null(strstr(msg, want));
		if ((p = strstr(msg, "lower max-inflight to ")) == NULL) {
			/* max-inflight 1 would not fit either */
			c.max_inflight = 1;
			fdbudget(&c, &n);
			assert_true(n.total > limit);
			assert_non_null(strstr(msg, "raise the limit"));
			continue;
		}
		fit = strtoul(p + strlen("lower max-inflight to "), NULL, 10);
		c.max_inflight = fit;
		fdbudget(&c, &n);
		assert_true(n.total <= limit);
		c.max_inflight = fit + 1;
		fdbudget(&c, &n);
		assert_true(n.total > limit);
	}
}

/* Without targets by name nothing but the limit can change. */
static void
test_fixed_only(void **state)
{
	struct fdb_config c = { 1 << 20, 2000, 0, 1, false, 16, FDB_METRICS, true, true };
	struct fdb_need n;
	char msg[400];

	(void)state;
	fdbudget(&c, &n);
	assert_int_equal(fdbudget_check(&c, &n, 64, msg, sizeof(msg)), -1);
	assert_null(strstr(msg, "max-inflight"));
	assert_non_null(strstr(msg, "raise the limit"));
	assert_non_null(strstr(msg, "metrics"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_fixed_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
