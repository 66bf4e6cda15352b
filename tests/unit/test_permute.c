/*
 * test_permute.c -- the keyed permutation of [0, n): a bijection for every
 * n tried (1, 2, 3, primes, powers of two and their neighbours, odd
 * sizes), a different order for a different key, no order that is the
 * identity, and neighbours spread apart (a /16 walked in it never gives
 * one /24 more than three addresses in a row).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "permute.h"

static const uint8_t key_a[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t key_b[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17 };

/* Every index of [0, n) exactly once. */
static void
assert_bijection(uint64_t n, const uint8_t *key)
{
	struct permute p;
	uint8_t *seen = calloc((size_t)n, 1);

	assert_non_null(seen);
	assert_int_equal(permute_init(&p, n, key), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t x = permute_at(&p, i);

		assert_true(x < n);
		assert_int_equal(seen[x], 0);
		seen[x] = 1;
	}
	free(seen);
}

static void
test_bijection(void **state)
{
	static const uint64_t sizes[] = {
		1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33, 63, 64, 65,
		97, 100, 127, 128, 129, 251, 255, 256, 257, 1000, 1023, 1024, 1025,
		4093, 4096, 65521, 65535, 65536, 65537, 100003,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_bijection(sizes[i], key_a);
		assert_bijection(sizes[i], key_b);
	}
}

/* Two keys, two orders; neither is the identity. */
static void
test_keys_differ(void **state)
{
	static const uint64_t sizes[] = { 16, 100, 256, 65536 };

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct permute a, b;
		uint64_t same = 0, fixed = 0, n = sizes[s];

		assert_int_equal(permute_init(&a, n, key_a), 0);
		assert_int_equal(permute_init(&b, n, key_b), 0);
		for (uint64_t i = 0; i < n; i++) {
			same += permute_at(&a, i) == permute_at(&b, i);
			fixed += permute_at(&a, i) == i;
		}
		/* a random pair agrees on about one index, whatever n */
		assert_true(same < n / 4);
		assert_true(fixed < n / 4);
	}
}

/* The same key gives the same order: a run can be resumed or repeated. */
static void
test_deterministic(void **state)
{
	struct permute a, b;

	(void)state;
	assert_int_equal(permute_init(&a, 1000, key_a), 0);
	assert_int_equal(permute_init(&b, 1000, key_a), 0);
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(permute_at(&a, i), permute_at(&b, i));
}

/* A /16 in walk order: the longest run of one /24 (the index's high
 * byte), and the most of one /24 among any 256 consecutive indices (a
 * second at 256 paths per second), stay near what chance gives. */
static void
test_spread(void **state)
{
	struct permute p;
	int run = 1, longest = 1, most = 0;
	uint64_t prev = UINT64_MAX;
	int window[256];

	(void)state;
	assert_int_equal(permute_init(&p, 65536, key_a), 0);
	for (uint64_t start = 0; start < 65536; start += 256) {
		memset(window, 0, sizeof(window));
		for (uint64_t i = start; i < start + 256; i++) {
			uint64_t x = permute_at(&p, i);

			if (++window[x >> 8] > most)
				most = window[x >> 8];
			if (prev != UINT64_MAX && (x >> 8) == (prev >> 8)) {
				if (++run > longest)
					longest = run;
			} else
				run = 1;
			prev = x;
		}
	}
	/* sorted, both would be 256 */
	assert_true(longest <= 3);
	assert_true(most <= 8);
}

static void
test_bad_sizes(void **state)
{
	struct permute p;

	(void)state;
	assert_int_equal(permute_init(&p, 0, key_a), -1);
	assert_int_equal(permute_init(&p, PERMUTE_MAX + 1, key_a), -1);
	assert_int_equal(permute_init(&p, PERMUTE_MAX, key_a), 0);
	/* the largest domain still gives values inside */
	for (uint64_t i = 0; i < 100; i++)
		assert_true(permute_at(&p, PERMUTE_MAX - 1 - i) < PERMUTE_MAX);
	assert_int_equal(permute_init(&p, 1ULL << 32, key_a), 0);
	assert_true(permute_at(&p, (1ULL << 32) - 1) < (1ULL << 32));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bijection),
		cmocka_unit_test(test_keys_differ),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_bad_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
