/*
 * test_startq.c -- the daemon's units waiting for room in the runner
 * (startq.h), driven as cycle.c drives it: a --once cycle of thousands of
 * units under a max-inflight, units ending in a shuffled order (some as
 * they start), never more in the runner than the limit, each started once
 * and in the order it was due, the cycle always completing; a reload's
 * units dropped with their configuration; the ring growing while it wraps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "startq.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const struct row {
	size_t units, limit;
	unsigned instant_pct;	/* units that end as they start */
	size_t want_peak;	/* the most in the runner at once */
} rows[] = {
	{ 2000, 100, 0, 100 },
	{ 2000, 100, 30, 100 },
	{ 2000, 1, 0, 1 },
	{ 2000, 0, 0, 1 },		/* 0 counts as 1: the cycle advances */
	{ 50, 1024, 0, 50 },		/* fewer units than room: all at once */
	{ 5000, 4096, 50, 4096 },
	{ 3, 2, 100, 0 },		/* every unit ends as it starts */
};

static void
test_cycle(void **state)
{
	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *w = &rows[r];
		struct startq q;
		struct startq_item it;
		size_t *running = calloc(w->units, sizeof(*running));
		unsigned *started = calloc(w->units, sizeof(*started));
		size_t nrun = 0, peak = 0, done = 0, order = 0;
		int owner;

		assert_non_null(running);
		assert_non_null(started);
		startq_init(&q);
		for (size_t i = 0; i < w->units; i++)
			startq_push(&q, (void *)(uintptr_t)(i + 1), &owner, 7);
		/* admit while there is room; end a random running unit; again */
		while (done < w->units) {
			while (startq_admit(&q, nrun, w->limit, &it)) {
				size_t u = (uintptr_t)it.unit - 1;

				assert_int_equal(it.cycle, 7);
				assert_ptr_equal(it.owner, &owner);
				assert_int_equal(u, order++);	/* in the order due */
				started[u]++;
				if (next_rand() % 100 < w->instant_pct) {
					done++;		/* ended as it started */
					continue;
				}
				running[nrun++] = u;
				if (nrun > peak)
					peak = nrun;
			}
			if (nrun == 0) {
				assert_int_equal(done, w->units);
				break;
			}
			size_t k = next_rand() % nrun;
			running[k] = running[--nrun];
			done++;
		}
		assert_int_equal(q.n, 0);
		assert_false(startq_admit(&q, 0, w->limit, &it));
		for (size_t i = 0; i < w->units; i++)
			assert_int_equal(started[i], 1);
		if (w->instant_pct == 0 || w->instant_pct == 100)
			assert_int_equal(peak, w->want_peak);
		else
			assert_true(peak <= w->want_peak && peak > 0);
		startq_free(&q);
		free(running);
		free(started);
	}
}

/* A reload: the old configuration's waiting units go, the new one's stay
 * in order. */
static void
test_drop(void **state)
{
	struct startq q;
	struct startq_item it;
	int old, cur;

	(void)state;
	startq_init(&q);
	for (uintptr_t i = 1; i <= 300; i++)
		startq_push(&q, (void *)i, i % 3 == 0 ? (void *)&cur : (void *)&old, i);
	assert_int_equal(startq_drop(&q, &old), 200);
	assert_int_equal(startq_drop(&q, &old), 0);
	assert_int_equal(q.n, 100);
	for (uintptr_t i = 3; i <= 300; i += 3) {
		assert_true(startq_admit(&q, 0, 1, &it));
		assert_int_equal((uintptr_t)it.unit, i);
		assert_ptr_equal(it.owner, &cur);
		assert_int_equal(it.cycle, i);
	}
	assert_false(startq_admit(&q, 0, 1, &it));
	startq_free(&q);
}

/* No room: nothing handed out, nothing lost. */
static void
test_full(void **state)
{
	struct startq q;
	struct startq_item it;

	(void)state;
	startq_init(&q);
	assert_false(startq_admit(&q, 0, 10, &it));
	startq_push(&q, (void *)1, NULL, 1);
	assert_false(startq_admit(&q, 10, 10, &it));
	assert_false(startq_admit(&q, 11, 10, &it));
	assert_int_equal(q.n, 1);
	assert_true(startq_admit(&q, 9, 10, &it));
	startq_free(&q);
}

/* Pushed and popped in turns so the ring wraps, then grown while wrapped:
 * the order holds. */
static void
test_wrap(void **state)
{
	struct startq q;
	struct startq_item it;
	uintptr_t in = 1, out = 1;

	(void)state;
	startq_init(&q);
	for (int round = 0; round < 40; round++) {
		for (int k = 0; k < 10 + round * 3; k++)
			startq_push(&q, (void *)in++, NULL, 0);
		for (int k = 0; k < 9 + round * 2; k++) {
			assert_true(startq_admit(&q, 0, 1, &it));
			assert_int_equal((uintptr_t)it.unit, out++);
		}
	}
	while (startq_admit(&q, 0, 1, &it))
		assert_int_equal((uintptr_t)it.unit, out++);
	assert_int_equal(in, out);
	startq_free(&q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
