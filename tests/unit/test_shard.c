/*
 * test_shard.c -- rendezvous hashing of targets over vantages: every
 * target keeps exactly K distinct owners, a fourth vantage added to three
 * takes about K/4 of the assignments and nothing else moves, a vantage
 * removed gives up only its own, the list's order does not matter, the
 * load is even, and the edge cases of n and k; a streamed list of 20,000
 * targets cut chunk by chunk keeps each target with exactly K vantages,
 * its ports together, in order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "shard.h"
#include "targets.h"

#define TARGETS 10000

static void
target_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "198.18.%d.%d", i / 256, i % 256);
}

/* owner names of target as a bit set over all4[] */
static unsigned
owner_set(const char *t, const char *const *v, size_t n, unsigned k, const char *const *all4)
{
	size_t owner[SHARD_MAX_REPLICAS], got, i, j;
	unsigned set = 0;

	got = shard_owners(t, v, n, k, owner);
	for (i = 0; i < got; i++)
		for (j = 0; j < 4; j++)
			if (strcmp(v[owner[i]], all4[j]) == 0)
				set |= 1u << j;
	return set;
}

static int
popcount(unsigned x)
{
	int c = 0;

	for (; x; x &= x - 1)
		c++;
	return c;
}

static void
test_fourth_vantage_moves_a_quarter(void **state)
{
	const char *const four[] = { "fra-1", "fra-2", "ams-1", "par-1" };
	char t[32];
	long moved = 0, total = 0, to_new = 0;
	int i;

	(void)state;
	for (i = 0; i < TARGETS; i++) {
		unsigned before, after;

		target_name(t, sizeof(t), i);
		before = owner_set(t, four, 3, 2, four);
		after = owner_set(t, four, 4, 2, four);
		assert_int_equal(popcount(before), 2);
		assert_int_equal(popcount(after), 2);
		total += 2;
		moved += popcount(before & ~after);
		/* only the new vantage gains: what moved, moved to it */
		to_new += popcount(after & ~before & (1u << 3));
		assert_int_equal(popcount(after & ~before & 7u), 0);
	}
	assert_int_equal(moved, to_new);
	print_message("added a 4th vantage: %ld of %ld assignments moved (%.1f %%)\n", moved,
	    total, 100.0 * (double)moved / (double)total);
	assert_true(moved * 100 >= total * 15);
	assert_true(moved * 100 <= total * 35);
}

static void
test_removed_vantage_gives_up_only_its_own(void **state)
{
	const char *const four[] = { "fra-1", "fra-2", "ams-1", "par-1" };
	const char *const three[] = { "fra-1", "fra-2", "par-1" };	/* ams-1 gone */
	char t[32];
	int i;

	(void)state;
	for (i = 0; i < TARGETS; i++) {
		unsigned before, after;

		target_name(t, sizeof(t), i);
		before = owner_set(t, four, 4, 2, four);
		after = owner_set(t, three, 3, 2, four);
		/* a target ams-1 did not own keeps its owners */
		if (!(before & (1u << 2)))
			assert_int_equal(before, after);
		else
			assert_int_equal(popcount(before & after), 1);
	}
}

static void
test_order_does_not_matter(void **state)
{
	const char *const a[] = { "fra-1", "fra-2", "ams-1", "par-1" };
	const char *const b[] = { "par-1", "ams-1", "fra-1", "fra-2" };
	char t[32];
	int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		target_name(t, sizeof(t), i);
		assert_int_equal(owner_set(t, a, 4, 2, a), owner_set(t, b, 4, 2, a));
		assert_int_equal(owner_set(t, a, 4, 1, a), owner_set(t, b, 4, 1, a));
	}
}

static void
test_load_is_even(void **state)
{
	const char *const four[] = { "fra-1", "fra-2", "ams-1", "par-1" };
	long owned[4] = { 0 };
	char t[32];
	int i, j;

	(void)state;
	for (i = 0; i < TARGETS; i++) {
		target_name(t, sizeof(t), i);
		for (j = 0; j < 4; j++)
			owned[j] += shard_owns(t, four, 4, 2, (size_t)j);
	}
	/* each owns K/N = half, within 5 % of the whole */
	for (j = 0; j < 4; j++) {
		assert_true(owned[j] > TARGETS / 2 - TARGETS / 20);
		assert_true(owned[j] < TARGETS / 2 + TARGETS / 20);
	}
}

static void
test_edges(void **state)
{
	const char *const two[] = { "a", "b" };
	const char *many[SHARD_MAX_VANTAGES + 1];
	char longname[2000];
	size_t owner[SHARD_MAX_REPLICAS];
	size_t i;

	(void)state;
	for (i = 0; i <= SHARD_MAX_VANTAGES; i++)
		many[i] = "v";
	assert_int_equal(shard_owners("t", two, 0, 2, owner), 0);
	assert_int_equal(shard_owners("t", two, 2, 0, owner), 0);
	assert_int_equal(shard_owners("t", two, 2, 5, owner), 2);	/* k > n: every vantage */
	assert_int_not_equal(owner[0], owner[1]);
	assert_int_equal(shard_owners("t", many, SHARD_MAX_VANTAGES + 1, 1, owner), 0);
	assert_int_equal(shard_owners("t", many, SHARD_MAX_VANTAGES, 40, owner),
	    SHARD_MAX_REPLICAS);
	assert_false(shard_owns("t", two, 2, 0, 0));
	/* a pair longer than the hash's buffer still weighs by both names */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_not_equal(shard_weight(longname, "a"), shard_weight(longname, "b"));
	longname[0] = 'y';
	assert_int_not_equal(shard_weight(longname, "a"), shard_weight(longname + 1, "a"));
	/* the weight is of the pair, not of the concatenation */
	assert_int_not_equal(shard_weight("ab", "c"), shard_weight("a", "bc"));
}

/* targets from..to of a 20,000-line file, each line one target on two
 * ports (adjacent entries of one text), appended to t */
static void
add_lines(struct targets *t, int from, int to)
{
	for (int i = from; i < to; i++) {
		char spec[32];
		struct targets_opts o80 = { false, 80 }, o443 = { false, 443 };

		snprintf(spec, sizeof(spec), "198.18.%d.%d", 20 + i / 250, 1 + i % 250);
		assert_int_equal(targets_parse_spec(t, spec, &o80), 0);
		assert_int_equal(targets_parse_spec(t, spec, &o443), 0);
	}
}

static void
test_keep_cuts_a_stream(void **state)
{
	static const char *const names[] = { "a", "b", "c" };
	static unsigned char owners[20000];
	uint64_t kept_all = 0;

	(void)state;
	memset(owners, 0, sizeof(owners));
	for (size_t v = 0; v < 3; v++) {
		struct shard_sel sel = { names, 3, 2, v };
		struct targets t;
		uint64_t seen = 0, kept = 0;
		int last = -1;

		targets_init(&t);
		/* as the walk reads it: chunks, each cut from where it began */
		for (int c = 0; c < 20000; c += 7000) {
			size_t from = t.n;

			add_lines(&t, c, c + 7000 < 20000 ? c + 7000 : 20000);
			shard_keep(&t, from, &sel, &seen, &kept);
		}
		assert_int_equal(seen, 20000);
		assert_int_equal(t.n, 2 * kept);
		for (size_t i = 0; i < t.n; i += 2) {
			unsigned a, b;
			int k;

			assert_int_equal(sscanf(t.v[i].as_given, "198.18.%u.%u", &a, &b), 2);
			k = (int)(a - 20) * 250 + (int)b - 1;
			assert_true(k > last && k < 20000);	/* in order, once */
			last = k;
			/* its two ports together */
			assert_string_equal(t.v[i + 1].as_given, t.v[i].as_given);
			assert_int_equal(t.v[i].port, 80);
			assert_int_equal(t.v[i + 1].port, 443);
			assert_true(shard_owns(t.v[i].as_given, names, 3, 2, v));
			owners[k]++;
		}
		kept_all += kept;
		targets_free(&t);
	}
	assert_int_equal(kept_all, 40000);
	for (int k = 0; k < 20000; k++)
		if (owners[k] != 2)
			fail_msg("target %d: %u owners", k, owners[k]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fourth_vantage_moves_a_quarter),
		cmocka_unit_test(test_removed_vantage_gives_up_only_its_own),
		cmocka_unit_test(test_order_does_not_matter),
		cmocka_unit_test(test_load_is_even),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_keep_cuts_a_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
