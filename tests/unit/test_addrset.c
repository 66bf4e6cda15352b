/*
 * test_addrset.c -- the compact (address, port) set of addrset.h as
 * tables: the bounds of both families (the lowest and highest pair, pairs
 * one bit apart anywhere in the 48), pairs added one at a time and in
 * bulk, a duplicate found wherever it waits (the array, the stage, sorted
 * or not), the count exact through merges, the array's order and bucket
 * index whole after each merge, and the memory a pair costs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "addrset.h"

static const uint8_t key[SIPHASH_KEY_LEN] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6 };

static struct addr
v4(uint32_t x)
{
	struct addr a = { .family = ADDR_V4 };

	a.bytes[0] = (uint8_t)(x >> 24);
	a.bytes[1] = (uint8_t)(x >> 16);
	a.bytes[2] = (uint8_t)(x >> 8);
	a.bytes[3] = (uint8_t)x;
	return a;
}

/* The array of each family sorted, each bucket's start where the values
 * of the bucket before it end, the last start its length. */
static void
check_whole(const struct addrset *s)
{
	for (int f = 0; f < 2; f++) {
		const struct addrset_fam *fm = &s->f[f];

		if (fm->start == NULL) {
			assert_int_equal(fm->n, 0);
			continue;
		}
		assert_int_equal(fm->start[0], 0);
		assert_int_equal(fm->start[ADDRSET_BUCKETS], fm->n);
		assert_true(fm->n <= fm->cap);
		for (size_t b = 0; b < ADDRSET_BUCKETS; b++) {
			assert_true(fm->start[b] <= fm->start[b + 1]);
			for (size_t i = fm->start[b] + 1; i < fm->start[b + 1]; i++) {
				uint64_t x = f == 0 ? ((uint32_t *)fm->v)[i - 1] :
				    ((uint64_t *)fm->v)[i - 1];
				uint64_t y = f == 0 ? ((uint32_t *)fm->v)[i] :
				    ((uint64_t *)fm->v)[i];

				if (x >= y)
					fail_msg("family %d bucket %zu: %zu not above %zu", f, b,
					    i, i - 1);
			}
			/* an IPv6 value keeps its bucket in its top bits */
			for (size_t i = fm->start[b]; f == 1 && i < fm->start[b + 1]; i++)
				assert_int_equal(((uint64_t *)fm->v)[i] >> 48, b);
		}
	}
}

enum op { ADD, PUT, FLUSH, HAS, HASNT };

struct set_step {
	enum op op;
	const char *a;
	uint16_t port;
	bool want;		/* ADD: new */
};

/* In order: the lowest and highest pairs of each family, the same address
 * on another port, an IPv4 address as IPv6 (another pair), a pair put
 * twice, a put pair added again (there, before and after the flush), a
 * pair added then put (counted once). */
static const struct set_step steps[] = {
	{ HASNT, "0.0.0.0", 0, false },
	{ ADD, "0.0.0.0", 0, true },
	{ ADD, "255.255.255.255", 65535, true },
	{ ADD, "0.0.0.0", 65535, true },
	{ ADD, "255.255.255.255", 0, true },
	{ ADD, "0.0.0.0", 0, false },
	{ ADD, "255.255.255.255", 65535, false },
	{ HASNT, "0.0.0.0", 1, false },
	{ HASNT, "255.255.255.254", 65535, false },
	{ ADD, "::", 0, true },
	{ ADD, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535, true },
	{ ADD, "::ffff:0.0.0.0", 0, true },
	{ ADD, "::", 0, false },
	{ HASNT, "::", 1, false },
	{ PUT, "198.18.0.1", 80, false },
	{ PUT, "198.18.0.1", 80, false },
	{ HAS, "198.18.0.1", 80, false },
	{ ADD, "198.18.0.1", 80, false },
	{ PUT, "198.18.0.2", 80, false },
	{ FLUSH, NULL, 0, false },
	{ ADD, "198.18.0.2", 80, false },
	{ HAS, "198.18.0.1", 80, false },
	{ HASNT, "198.18.0.1", 81, false },
	{ ADD, "198.18.0.3", 80, true },
	{ PUT, "198.18.0.3", 80, false },
	{ PUT, "fd00::1", 80, false },
	{ FLUSH, NULL, 0, false },
	{ HAS, "198.18.0.3", 80, false },
	{ HAS, "fd00::1", 80, false },
	{ HAS, "255.255.255.255", 0, false },
	{ HAS, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535, false },
};

static void
test_steps(void **state)
{
	struct addrset s;

	(void)state;
	addrset_init(&s, key);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct set_step *st = &steps[i];
		struct addr a;
		bool got = st->want;

		if (st->a != NULL)
			assert_int_equal(addr_parse(st->a, &a), 0);
		switch (st->op) {
		case ADD:
			got = addrset_add(&s, &a, st->port);
			break;
		case PUT:
			addrset_put(&s, &a, st->port);
			break;
		case FLUSH:
			addrset_flush(&s);
			check_whole(&s);
			break;
		case HAS:
		case HASNT:
			/* want is whether the pair is found as the step says */
			got = addrset_has(&s, &a, st->port) == (st->op == HAS);
			break;
		}
		if (got != (st->op == HAS || st->op == HASNT ? true : st->want))
			fail_msg("step %zu: %s port %u: got %d", i, st->a ? st->a : "flush",
			    st->port, got);
		if (st->op == ADD || st->op == PUT)
			assert_true(addrset_has(&s, &a, st->port));
	}
	/* 4 + 3 IPv6 + 3 put/added IPv4 + fd00::1 */
	assert_int_equal(s.n, 11);
	addrset_free(&s);
}

/* Every pair one bit away from a pair held, for each of the 48 bits, is
 * not taken for it: the bijection loses nothing anywhere in the range. */
static void
test_one_bit_apart(void **state)
{
	const uint32_t base = 0xc6120a05u;	/* 198.18.10.5 */
	const uint16_t port = 0x5a5a;
	struct addrset s;
	struct addr a = v4(base);

	(void)state;
	addrset_init(&s, key);
	assert_true(addrset_add(&s, &a, port));
	for (int bit = 0; bit < 48; bit++) {
		struct addr b = v4(bit >= 16 ? base ^ (1u << (bit - 16)) : base);
		uint16_t p = bit < 16 ? (uint16_t)(port ^ (1u << bit)) : port;

		if (addrset_has(&s, &b, p))
			fail_msg("bit %d: taken for the pair held", bit);
		assert_true(addrset_add(&s, &b, p));
	}
	assert_int_equal(s.n, 49);
	for (int bit = 0; bit < 48; bit++) {
		struct addr b = v4(bit >= 16 ? base ^ (1u << (bit - 16)) : base);
		uint16_t p = bit < 16 ? (uint16_t)(port ^ (1u << bit)) : port;

		assert_false(addrset_add(&s, &b, p));
	}
	addrset_flush(&s);
	check_whole(&s);
	addrset_free(&s);
}

/* 2^20 IPv4 pairs (a /14 on four ports: 2^16 and more than stages merge
 * at each), put in an order that scatters them, half of them put twice
 * far apart; each found after, a pair of a /14 beside or of another port
 * not; each added again refused; the count exact; the memory used 4 bytes
 * a pair in the array plus the index and the stage, and the array's
 * reserve at most half again. */
static void
test_whole_range_bulk(void **state)
{
	static const uint16_t ports[] = { 1, 80, 443, 65535 };
	const uint32_t base = 0xc6100000u, n = 1u << 20;	/* 198.16.0.0/14 */
	struct addrset s;

	(void)state;
	addrset_init(&s, key);
	for (uint32_t i = 0; i < n + n / 2; i++) {
		uint32_t k = (uint32_t)((i % n) * 0x9e3779b1u) & (n - 1);
		struct addr a = v4(base + (k >> 2));

		addrset_put(&s, &a, ports[k & 3]);
		if (i == n / 3) {
			/* a pair of the stage, not merged, is found */
			assert_true(addrset_has(&s, &a, ports[k & 3]));
			assert_false(addrset_add(&s, &a, ports[k & 3]));
		}
	}
	addrset_flush(&s);
	check_whole(&s);
	assert_int_equal(s.n, n);
	for (uint32_t i = 0; i < n; i++) {
		struct addr a = v4(base + (i >> 2)), beside = v4(base + n / 4 + (i >> 2));

		if (!addrset_has(&s, &a, ports[i & 3]))
			fail_msg("pair %u lost", i);
		assert_false(addrset_has(&s, &a, (uint16_t)(ports[i & 3] + 1)));
		assert_false(addrset_has(&s, &beside, ports[i & 3]));
		assert_false(addrset_add(&s, &a, ports[i & 3]));
	}
	assert_int_equal(s.n, n);
	assert_int_equal(s.bytes, (size_t)n * 4 + (ADDRSET_BUCKETS + 1) * sizeof(uint32_t) +
	    ADDRSET_STAGE * sizeof(uint64_t));
	assert_true(s.f[0].cap <= (size_t)n + n / 2 + 4096);
	print_message("addrset: %u pairs, %zu bytes held: %.2f bytes a pair\n", n, s.bytes,
	    (double)s.bytes / n);
	addrset_free(&s);
}

/* One at a time (a name's addresses): 2^17 IPv4 pairs and 2^16 IPv6 ones
 * added, interleaved, each new once and refused after, whether it waits
 * in the stage or was merged; puts of half of them between change
 * nothing. */
static void
test_one_at_a_time(void **state)
{
	const uint32_t n = 1u << 17;
	struct addrset s;
	struct addr six;

	(void)state;
	addrset_init(&s, key);
	assert_int_equal(addr_parse("fd00:5ca1:19::", &six), 0);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = (i * 40503u) & (n - 1);
		struct addr a = v4(0xc6130000u + (k >> 1));

		if (!addrset_add(&s, &a, (uint16_t)(80 + (k & 1))))
			fail_msg("pair %u taken as there", k);
		/* one at a time moves a bounded stage, never the array */
		assert_true(s.f[0].nstage <= ADDRSET_ADD_STAGE);
		if ((i & 1) == 0) {
			six.bytes[14] = (uint8_t)(i >> 9);
			six.bytes[15] = (uint8_t)(i >> 1);
			assert_true(addrset_add(&s, &six, 443));
			addrset_put(&s, &six, 443);
		}
		if ((i & 7) == 3)
			addrset_put(&s, &a, (uint16_t)(80 + (k & 1)));
		assert_false(addrset_add(&s, &a, (uint16_t)(80 + (k & 1))));
	}
	assert_int_equal(s.n, n + n / 2);
	addrset_flush(&s);
	check_whole(&s);
	assert_int_equal(s.n, n + n / 2);
	for (uint32_t i = 0; i < n; i++) {
		struct addr a = v4(0xc6130000u + (i >> 1));

		assert_true(addrset_has(&s, &a, (uint16_t)(80 + (i & 1))));
		assert_false(addrset_has(&s, &a, 82));
		six.bytes[13] = (uint8_t)(i >> 16);	/* the upper half: never added */
		six.bytes[14] = (uint8_t)(i >> 8);
		six.bytes[15] = (uint8_t)i;
		assert_int_equal(addrset_has(&s, &six, 443), i < n / 2);
		assert_false(addrset_has(&s, &six, 80));
	}
	addrset_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_one_bit_apart),
		cmocka_unit_test(test_whole_range_bulk),
		cmocka_unit_test(test_one_at_a_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
