/*
 * test_ratelimit.c -- the token bucket: exact counts over long runs at
 * awkward rates, burst caps, the timer hint, and argument checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ratelimit.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

/* Takes as much as it may every tick_ns from t0 to t0 + dur_ns inclusive. */
static uint64_t
run_greedy(struct ratelimit *rl, uint64_t t0, uint64_t dur_ns, uint64_t tick_ns)
{
	uint64_t got = 0;

	for (uint64_t t = t0; t <= t0 + dur_ns; t += tick_ns)
		got += ratelimit_take(rl, t, UINT64_MAX);
	return got;
}

/* Takes one token each time the bucket says one is there, sleeping
 * exactly ratelimit_next() in between: how the engine arms its timer. */
static uint64_t
run_timer(struct ratelimit *rl, uint64_t t0, uint64_t dur_ns)
{
	uint64_t got = 0, t = t0;

	while (t <= t0 + dur_ns) {
		uint64_t wait = ratelimit_next(rl, t);

		if (wait == 0) {
			assert_int_equal(ratelimit_take(rl, t, 1), 1);
			got++;
		} else
			t += wait;
	}
	return got;
}

struct long_run {
	uint64_t rate, burst, tick_ns, dur_ns;
	uint64_t want, slack;
};

/* Start full (burst), then rate per second: burst + rate * seconds,
 * exactly when the ticks divide the token interval, never more. */
static const struct long_run long_runs[] = {
	{ 100, 1, 1 * MS, 10 * SEC, 1000, 1 },
	{ 7, 1, 1 * MS, 10 * SEC, 70, 1 },
	{ 7, 1, 3 * MS, 10 * SEC, 70, 1 },	/* 1/7 s is no multiple of 3 ms */
	{ 3, 1, 1 * MS, 100 * SEC, 300, 1 },
	{ 10000000, 10000, 1 * MS, 10 * SEC, 100000000, 10000 },
	{ 999983, 10000, 1 * MS, 10 * SEC, 9999830, 10000 },	/* a prime rate */
	{ 1, 1, 7 * MS, 60 * SEC, 60, 1 },
};

static void
test_long_runs_greedy(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(long_runs) / sizeof(long_runs[0]); i++) {
		const struct long_run *r = &long_runs[i];
		struct ratelimit rl;
		uint64_t got;

		assert_int_equal(ratelimit_init(&rl, r->rate, r->burst), 0);
		got = run_greedy(&rl, 5 * SEC, r->dur_ns, r->tick_ns);
		if (got + r->slack < r->want || got > r->want + r->slack)
			fail_msg("rate %llu tick %llu: got %llu, want %llu +- %llu",
			    (unsigned long long)r->rate, (unsigned long long)r->tick_ns,
			    (unsigned long long)got, (unsigned long long)r->want,
			    (unsigned long long)r->slack);
		/* and never more than the bucket allows */
		assert_true(got <= r->burst + r->rate * (r->dur_ns / SEC));
	}
}

/* Exact figures: no rounding is ever lost. */
static void
test_exact_counts(void **state)
{
	struct ratelimit rl;

	(void)state;
	/* 100/s, burst 1, greedy every ms for 10 s: 1 at start + 1000 */
	assert_int_equal(ratelimit_init(&rl, 100, 1), 0);
	assert_int_equal(run_greedy(&rl, 0, 10 * SEC, MS), 1001);
	/* 7/s for 10 s: 1 + 70 */
	assert_int_equal(ratelimit_init(&rl, 7, 1), 0);
	assert_int_equal(run_greedy(&rl, 0, 10 * SEC, MS), 71);
	/* 10M/s, burst 10000, 1 ms ticks: 10000 + 10^8 */
	assert_int_equal(ratelimit_init(&rl, 10000000, 10000), 0);
	assert_int_equal(run_greedy(&rl, 0, 10 * SEC, MS), 100010000);
}

/* Driven by its own timer hint, the bucket gives exactly rate * T. */
static void
test_timer_driven(void **state)
{
	static const uint64_t rates[] = { 1, 7, 100, 333, 100000 };

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct ratelimit rl;
		uint64_t got;

		assert_int_equal(ratelimit_init(&rl, rates[i], 1), 0);
		got = run_timer(&rl, 0, 10 * SEC);
		/* the one at t=0 plus one per 1/rate s up to 10 s inclusive */
		if (got != 1 + 10 * rates[i])
			fail_msg("rate %llu: got %llu", (unsigned long long)rates[i],
			    (unsigned long long)got);
	}
	{
		/* 100 ns per token: a 1 ns loss per wake-up would be 1 % */
		struct ratelimit rl;

		assert_int_equal(ratelimit_init(&rl, 10000000, 1), 0);
		assert_int_equal(run_timer(&rl, 0, 1 * SEC), 1 + 10000000);
		assert_int_equal(ratelimit_init(&rl, 9999991, 1), 0);
		assert_int_equal(run_timer(&rl, 0, 1 * SEC), 1 + 9999991);
	}
}

static void
test_next(void **state)
{
	struct ratelimit rl;

	(void)state;
	assert_int_equal(ratelimit_init(&rl, 3, 1), 0);
	assert_int_equal(ratelimit_next(&rl, 0), 0);	/* starts full */
	assert_int_equal(ratelimit_take(&rl, 0, 5), 1);
	/* 1/3 s, rounded up: at that time a token is there */
	assert_int_equal(ratelimit_next(&rl, 0), 333333334);
	assert_int_equal(ratelimit_take(&rl, 333333333, 1), 0);
	assert_int_equal(ratelimit_next(&rl, 333333333), 1);
	assert_int_equal(ratelimit_take(&rl, 333333334, 1), 1);
	/* 10M/s: 100 ns per token */
	assert_int_equal(ratelimit_init(&rl, 10000000, 1), 0);
	assert_int_equal(ratelimit_take(&rl, 1000, 1), 1);
	assert_int_equal(ratelimit_next(&rl, 1000), 100);
	assert_int_equal(ratelimit_next(&rl, 1040), 60);
}

static void
test_burst_cap(void **state)
{
	struct ratelimit rl;

	(void)state;
	assert_int_equal(ratelimit_init(&rl, 1000, 50), 0);
	assert_int_equal(ratelimit_available(&rl, 0), 50);
	assert_int_equal(ratelimit_take(&rl, 0, 20), 20);
	assert_int_equal(ratelimit_take(&rl, 0, 100), 30);
	assert_int_equal(ratelimit_take(&rl, 0, 100), 0);
	/* an hour idle refills to the burst, not to 3.6 million */
	assert_int_equal(ratelimit_available(&rl, 3600 * SEC), 50);
	assert_int_equal(ratelimit_take(&rl, 3600 * SEC, 1000), 50);
	/* 10 ms later: 10 tokens, and the hour left a partial one
	 * (0.999999999) that is kept, not rounded away */
	assert_int_equal(ratelimit_take(&rl, 3600 * SEC + 10 * MS, 1000), 10);
	/* 9.5 ms more: 10.499999999 tokens, 10 go */
	assert_int_equal(ratelimit_take(&rl, 3600 * SEC + 19500000, 1000), 10);
	/* 0.5 ms more: 0.999999999, not yet one */
	assert_int_equal(ratelimit_take(&rl, 3600 * SEC + 20 * MS, 1000), 0);
	assert_int_equal(ratelimit_next(&rl, 3600 * SEC + 20 * MS), 1);
	assert_int_equal(ratelimit_take(&rl, 3600 * SEC + 20 * MS + 1, 1000), 1);
}

/* Time going backwards does not mint tokens. */
static void
test_time_backwards(void **state)
{
	struct ratelimit rl;

	(void)state;
	assert_int_equal(ratelimit_init(&rl, 10, 1), 0);
	assert_int_equal(ratelimit_take(&rl, 10 * SEC, 1), 1);
	assert_int_equal(ratelimit_take(&rl, 9 * SEC, 1), 0);
	assert_int_equal(ratelimit_take(&rl, 10 * SEC + 99 * MS, 1), 0);
	assert_int_equal(ratelimit_take(&rl, 10 * SEC + 100 * MS, 1), 1);
}

struct init_case {
	uint64_t rate, burst;
	int want;
};

static const struct init_case init_cases[] = {
	{ 0, 1, -1 },
	{ 1, 1, 0 },
	{ 10000000, 1, 0 },
	{ 10000001, 1, -1 },
	{ 100, 10000000, 0 },
	{ 100, 10000001, -1 },
	{ 100, 0, 0 },		/* default burst */
	{ 0, 0, -1 },
};

static void
test_init(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(init_cases) / sizeof(init_cases[0]); i++) {
		struct ratelimit rl;

		assert_int_equal(ratelimit_init(&rl, init_cases[i].rate,
		    init_cases[i].burst), init_cases[i].want);
	}
	assert_int_equal(ratelimit_default_burst(1), 2);
	assert_int_equal(ratelimit_default_burst(100), 2);
	assert_int_equal(ratelimit_default_burst(1000), 10);
	assert_int_equal(ratelimit_default_burst(10000000), 100000);
}

/* The default burst at 10M/s keeps 1 ms ticks at full rate. */
static void
test_default_burst_full_rate(void **state)
{
	struct ratelimit rl;

	(void)state;
	assert_int_equal(ratelimit_init(&rl, 10000000, 0), 0);
	assert_int_equal(ratelimit_available(&rl, 0), 100000);
	assert_int_equal(run_greedy(&rl, 0, 1 * SEC, MS), 100000 + 10000000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_runs_greedy),
		cmocka_unit_test(test_exact_counts),
		cmocka_unit_test(test_timer_driven),
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_burst_cap),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_default_burst_full_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
