/*
 * test_schedule.c -- the daemon's scheduler on an injected clock: one run
 * per target and cycle, inside its cycle; starts spread so that no second
 * exceeds the spread's bound; overruns counted as missed cycles.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "schedule.h"

#define SEC 1000000000ull
#define MS 1000000ull

static const uint8_t key[SCHED_KEY_LEN] = "schedule-test-k!";

static char **
names(size_t n)
{
	char **v = calloc(n, sizeof(*v));

	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		v[i] = malloc(32);
		assert_non_null(v[i]);
		snprintf(v[i], 32, "host%zu.example", i);
	}
	return v;
}

static void
names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Runs the clock from start to end in steps, every due target finished at
 * once; counts starts per second and per (target, cycle). */
struct sim {
	uint32_t *per_second;	/* indexed by (due - start) / SEC */
	uint32_t *runs;		/* per target */
	size_t nsec, n;
	uint64_t late_max;	/* the most a start came after its due time */
};

static void
simulate(struct sched *s, size_t group, uint64_t start, uint64_t end, uint64_t step,
    struct sim *sim)
{
	struct sched_due_item it[256];

	for (uint64_t now = start; now <= end; now += step) {
		size_t k;

		while ((k = sched_due(s, now, it, 256)) > 0) {
			for (size_t i = 0; i < k; i++) {
				assert_int_equal(it[i].group, group);
				assert_true(it[i].due <= now);
				if (now - it[i].due > sim->late_max)
					sim->late_max = now - it[i].due;
				if (it[i].due >= start && (it[i].due - start) / SEC < sim->nsec)
					sim->per_second[(it[i].due - start) / SEC]++;
				sim->runs[it[i].target]++;
				assert_int_equal(sched_finished(s, it[i].group, it[i].target, now), 0);
			}
		}
	}
}

static void
test_spread_bound(void **state)
{
	const size_t n = 10000;
	const uint64_t interval = 3600 * SEC, jitter = 300 * SEC;
	char **v = names(n);
	struct sched *s = sched_new(key, 42, 0);
	struct sim sim = { 0 };
	uint32_t max = 0, bound;
	int g;

	(void)state;
	assert_non_null(s);
	g = sched_group_add(s, "sites", interval, jitter, (const char *const *)v, n, 0);
	assert_int_equal(g, 0);
	sim.nsec = 3 * 3600;
	sim.n = n;
	sim.per_second = calloc(sim.nsec, sizeof(uint32_t));
	sim.runs = calloc(n, sizeof(uint32_t));
	simulate(s, 0, 0, 3 * interval - 1, 10 * MS, &sim);
	for (size_t i = 0; i < sim.nsec; i++)
		if (sim.per_second[i] > max)
			max = sim.per_second[i];
	/* n slots share interval - jitter: at most ceil(n / that in s) + 1
	 * starts in any second (a slot straddles a second's edge) */
	bound = (uint32_t)((n * SEC + (interval - jitter) - 1) / (interval - jitter)) + 1;
	print_message("# %zu targets over %llu s: busiest second %u starts, bound %u, "
	    "first second %u, latest start %.0f ms after due\n", n,
	    (unsigned long long)(interval / SEC), max, bound, sim.per_second[0],
	    (double)sim.late_max / MS);
	assert_true(max <= bound);
	assert_true(max >= 2);	/* the average is 2.8/s: a bound that is not vacuous */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(sim.runs[i], 3);	/* once per cycle */
	free(sim.per_second);
	free(sim.runs);
	sched_free(s);
	names_free(v, n);
}

static void
test_due_inside_its_cycle(void **state)
{
	enum { n = 500 };
	const uint64_t interval = 60 * SEC, jitter = 20 * SEC, epoch = 7 * SEC;
	char **v = names(n);
	struct sched *s = sched_new(key, 1, epoch);
	struct sched_due_item it[n];
	uint64_t now = epoch;
	size_t got = 0;

	(void)state;
	assert_int_equal(sched_group_add(s, "g", interval, jitter, (const char *const *)v, n, now), 0);
	for (int c = 0; c < 4; c++) {
		got = 0;
		for (; got < n; now += 100 * MS) {
			size_t k = sched_due(s, now, it + got, n - got);

			for (size_t i = got; i < got + k; i++) {
				assert_int_equal(it[i].cycle, (uint64_t)c);
				assert_true(it[i].due >= epoch + (uint64_t)c * interval);
				assert_true(it[i].due < epoch + (uint64_t)(c + 1) * interval);
			}
			got += k;
			assert_true(now < epoch + (uint64_t)(c + 2) * interval);
		}
		for (size_t i = 0; i < n; i++)
			sched_finished(s, it[i].group, it[i].target, now);
	}
	sched_free(s);
	names_free(v, n);
}

/* A run that outlasts its interval: the cycles it overran are missed,
 * each counted, and the target is armed for the first cycle still ahead. */
static void
test_overrun_counts_missed(void **state)
{
	const uint64_t interval = 10 * SEC;
	const char *one[] = { "slow.example" };
	struct sched *s = sched_new(key, 3, 0);
	struct sched_due_item it;
	uint64_t t;

	(void)state;
	assert_int_equal(sched_group_add(s, "g", interval, 0, one, 1, 0), 0);
	t = sched_next(s);
	assert_true(t < interval);
	assert_int_equal(sched_due(s, t, &it, 1), 1);
	assert_int_equal(it.cycle, 0);
	assert_int_equal(sched_when(s, 0, 0), UINT64_MAX);	/* running */
	assert_int_equal(sched_due(s, t + 100 * SEC, &it, 1), 0);	/* not twice */
	/* finished 25 s later: cycles 1 and 2 passed while it ran */
	assert_int_equal(sched_finished(s, 0, 0, t + 25 * SEC), 2);
	assert_int_equal(sched_due(s, 3 * interval - 1, &it, 1), 0);
	assert_true(sched_next(s) >= 3 * interval);
	assert_int_equal(sched_due(s, 4 * interval, &it, 1), 1);
	assert_int_equal(it.cycle, 3);
	/* finishing what is not running changes nothing */
	assert_int_equal(sched_finished(s, 0, 5, 0), 0);
	sched_free(s);
}

/* Started in the middle of a cycle: what is still ahead in it runs in it,
 * nothing is due at once merely because the daemon started. */
static void
test_start_mid_cycle(void **state)
{
	enum { n = 100 };
	const uint64_t interval = 100 * SEC;
	char **v = names(n);
	struct sched *s = sched_new(key, 9, 0);
	struct sched_due_item it[n];
	size_t this_cycle = 0, next_cycle = 0;

	(void)state;
	assert_int_equal(sched_group_add(s, "g", interval, 0, (const char *const *)v, n,
	    interval / 2), 0);
	assert_true(sched_next(s) >= interval / 2);
	assert_int_equal(sched_due(s, interval / 2 - 1, it, n), 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t w = sched_when(s, 0, i);

		if (w < interval)
			this_cycle++;
		else if (w < 2 * interval)
			next_cycle++;
	}
	assert_int_equal(this_cycle + next_cycle, n);
	assert_true(this_cycle >= n / 2 - 2 && this_cycle <= n / 2 + 2);
	sched_free(s);
	names_free(v, n);
}

/* The order is the key's: the same list gives the same slots, another key
 * other slots. */
static void
test_stable_order(void **state)
{
	const size_t n = 64;
	const uint8_t other[SCHED_KEY_LEN] = "another-key-16b!";
	char **v = names(n);
	struct sched *a = sched_new(key, 5, 0), *b = sched_new(key, 5, 0),
	    *c = sched_new(other, 5, 0);
	size_t differ = 0;

	(void)state;
	assert_int_equal(sched_group_add(a, "g", 64 * SEC, 0, (const char *const *)v, n, 0), 0);
	assert_int_equal(sched_group_add(b, "g", 64 * SEC, 0, (const char *const *)v, n, 0), 0);
	assert_int_equal(sched_group_add(c, "g", 64 * SEC, 0, (const char *const *)v, n, 0), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sched_when(a, 0, i), sched_when(b, 0, i));
		if (sched_when(a, 0, i) / SEC != sched_when(c, 0, i) / SEC)
			differ++;
	}
	assert_true(differ > n / 2);
	sched_free(a);
	sched_free(b);
	sched_free(c);
	names_free(v, n);
}

/* A restart's work: the store's last cycle again when it is the one in
 * progress or the one before; the cycle in progress caught up when the
 * store knows the group but has no run of it; a first start neither. */
static void
test_recovery_table(void **state)
{
	static const struct {
		int64_t last;
		uint64_t cur;
		bool redo, catch_up;
	} t[] = {
		{ -1, 7, false, false },	/* a first start */
		{ 7, 7, true, false },		/* killed in the cycle, after a commit */
		{ 6, 7, true, true },		/* before the cycle's first commit */
		{ 5, 7, false, true },		/* down for a whole cycle: history */
		{ 0, 1000, false, true },
		{ 0, 0, true, false },
		{ 0, 1, true, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool redo = !t[i].redo, up = !t[i].catch_up;

		sched_recovery(t[i].last, t[i].cur, &redo, &up);
		if (redo != t[i].redo || up != t[i].catch_up)
			fail_msg("last %lld cur %llu: redo %d catch_up %d, expected %d %d",
			    (long long)t[i].last, (unsigned long long)t[i].cur, redo, up,
			    t[i].redo, t[i].catch_up);
	}
}

/* The cycle each target is armed for: the one of its due time, none while
 * it runs, the next once it is finished. */
static void
test_armed_cycle(void **state)
{
	static const char *const ten[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" };
	struct sched *s = sched_new(key, 3, 0);
	struct sched_due_item it[10];

	(void)state;
	/* started half-way through cycle 5 of 10 s */
	assert_int_equal(sched_group_add(s, "g", 10 * SEC, 0, ten, 10, 55 * SEC), 0);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(sched_armed_cycle(s, 0, i), sched_when(s, 0, i) / (10 * SEC));
	assert_true(sched_due(s, 60 * SEC, it, 10) > 0);
	assert_int_equal(sched_armed_cycle(s, 0, it[0].target), UINT64_MAX);
	(void)sched_finished(s, 0, it[0].target, 60 * SEC);
	assert_int_equal(sched_armed_cycle(s, 0, it[0].target), it[0].cycle + 1);
	assert_int_equal(sched_armed_cycle(s, 0, 10), UINT64_MAX);
	sched_free(s);
}

static void
test_refuses_bad_groups(void **state)
{
	const char *one[] = { "x" };
	struct sched *s = sched_new(key, 0, 0);

	(void)state;
	assert_int_equal(sched_group_add(s, "g", 0, 0, one, 1, 0), -1);
	assert_int_equal(sched_group_add(s, "g", 10 * SEC, 10 * SEC, one, 1, 0), -1);
	assert_int_equal(sched_group_add(s, "empty", 10 * SEC, 0, NULL, 0, 0), 0);
	assert_int_equal(sched_next(s), UINT64_MAX);
	sched_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread_bound),
		cmocka_unit_test(test_due_inside_its_cycle),
		cmocka_unit_test(test_overrun_counts_missed),
		cmocka_unit_test(test_start_mid_cycle),
		cmocka_unit_test(test_stable_order),
		cmocka_unit_test(test_refuses_bad_groups),
		cmocka_unit_test(test_recovery_table),
		cmocka_unit_test(test_armed_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
