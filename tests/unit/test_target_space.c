/*
 * test_target_space.c -- the target space: every address of every target once,
 * in an order that is not the sorted one; an address two targets hold
 * goes out once, for the first; the same address on two ports twice;
 * what the blocklist refuses whole is left out with the entry named, what
 * it refuses in part is skipped address by address; a /8 is one record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <cmocka.h>

#include "target_space.h"

static const uint8_t key[16] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6 };
static const struct targets_opts large = { true, 0 };

struct walked {
	size_t n;
	struct addr a[70000];
	const char *target[70000];
	uint16_t port[70000];
};

static struct walked w;

/* Parses specs into t, adds them all to s (with bl), freezes, walks. */
static void
walk(struct targets *t, struct target_space *s, const struct blocklist *bl, const char **specs,
    size_t nspecs, int expect_blocked)
{
	struct target_space_rec *rec;
	struct addr a;
	int blocked = 0;

	targets_init(t);
	for (size_t i = 0; i < nspecs; i++)
		assert_int_equal(targets_parse_spec(t, specs[i], &large), 0);
	target_space_init(s, bl);
	for (size_t i = 0; i < t->n; i++) {
		const struct blocklist_entry *why;

		if (target_space_add(s, &t->v[i], i, NULL, &why) == BLOCKLIST_ALL) {
			assert_non_null(why);
			blocked++;
		}
	}
	assert_int_equal(blocked, expect_blocked);
	target_space_freeze(s, key);
	w.n = 0;
	while (target_space_next(s, &rec, &a, NULL) == 1) {
		assert_true(w.n < 70000);
		w.a[w.n] = a;
		w.target[w.n] = rec->target;
		w.port[w.n] = rec->port;
		w.n++;
	}
	assert_int_equal(target_space_next(s, &rec, &a, NULL), 0);
}

static size_t
count_addr(const char *text, uint16_t port, const char **target)
{
	struct addr a;
	size_t n = 0;

	assert_int_equal(addr_parse(text, &a), 0);
	for (size_t i = 0; i < w.n; i++)
		if (addr_equal(&w.a[i], &a) && w.port[i] == port) {
			n++;
			if (target != NULL)
				*target = w.target[i];
		}
	return n;
}

static int
addr_sort(const void *a, const void *b)
{
	return addr_compare(a, b);
}

/* A /16: 65,536 addresses, each once, not in sorted order. */
static void
test_prefix_once(void **state)
{
	const char *specs[] = { "198.19.0.0/16" };
	struct targets t;
	struct target_space s;
	size_t in_order = 0;

	(void)state;
	walk(&t, &s, NULL, specs, 1, 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(w.n, 65536);
	for (size_t i = 1; i < w.n; i++)
		in_order += addr_compare(&w.a[i - 1], &w.a[i]) < 0;
	assert_true(in_order < 65536 * 3 / 4);
	qsort(w.a, w.n, sizeof(w.a[0]), addr_sort);
	for (size_t i = 0; i < w.n; i++) {
		assert_int_equal(w.a[i].bytes[2], i >> 8);
		assert_int_equal(w.a[i].bytes[3], i & 0xff);
	}
	target_space_free(&s);
	targets_free(&t);
}

/* Overlapping targets: the first keeps an address; ports apart are apart. */
static void
test_overlap(void **state)
{
	const char *specs[] = {
		"198.18.0.7:443",	/* 0: first, keeps .7 on 443 */
		"198.18.0.0/24",	/* 1: .0-.255 on 80 */
		"198.18.0.7",		/* 2: .7 on 80 again: dropped */
		"198.18.0.0/24:443",	/* 3: 255 new on 443 */
		"198.18.1.0/30",	/* 4: apart, not checked */
		"fd00::/126",		/* 5 */
		"fd00::2",		/* 6: dropped */
	};
	struct targets t;
	struct target_space s;
	const char *who = NULL;

	(void)state;
	walk(&t, &s, NULL, specs, sizeof(specs) / sizeof(specs[0]), 0);
	assert_int_equal(w.n, 256 + 256 + 4 + 4);
	assert_int_equal(count_addr("198.18.0.7", 443, &who), 1);
	assert_string_equal(who, "198.18.0.7:443");
	assert_int_equal(count_addr("198.18.0.7", 80, &who), 1);
	assert_string_equal(who, "198.18.0.0/24");
	assert_int_equal(count_addr("198.18.0.8", 443, &who), 1);
	assert_string_equal(who, "198.18.0.0/24:443");
	assert_int_equal(count_addr("fd00::2", 80, &who), 1);
	assert_string_equal(who, "fd00::/126");
	assert_int_equal(s.skipped_dup, 3);
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.v[i].check_dup, strcmp(s.v[i].target, "198.18.1.0/30") != 0);
	/* what a name found later would hit */
	{
		struct addr a;

		assert_int_equal(addr_parse("198.18.0.9", &a), 0);
		assert_true(target_space_holds(&s, &a, 80));
		assert_true(target_space_holds(&s, &a, 443));
		assert_false(target_space_holds(&s, &a, 22));
		assert_int_equal(addr_parse("198.18.1.3", &a), 0);
		assert_true(target_space_holds(&s, &a, 80));
		assert_int_equal(addr_parse("198.18.1.4", &a), 0);
		assert_false(target_space_holds(&s, &a, 80));
		assert_int_equal(addr_parse("fd00::3", &a), 0);
		assert_true(target_space_holds(&s, &a, 80));
		assert_int_equal(addr_parse("fd00::4", &a), 0);
		assert_false(target_space_holds(&s, &a, 80));
	}
	target_space_free(&s);
	targets_free(&t);
}

/* Blocked whole: left out.  Blocked in part (an --allow inside): each
 * address checked. */
static void
test_blocked(void **state)
{
	const char *specs[] = { "10.1.0.0/24", "198.18.0.0/23", "192.0.0.0/23" };
	struct blocklist *bl = blocklist_new();
	const char *why;
	struct targets t;
	struct target_space s;

	(void)state;
	assert_int_equal(blocklist_allow(bl, "198.18.1.0/24", &why), 0);
	walk(&t, &s, bl, specs, 3, 1);
	/* 198.18.1.0/24 allowed, 198.18.0.0/24 not; 192.0.1.0/24 free,
	 * 192.0.0.0/24 blocked */
	assert_int_equal(w.n, 512);
	assert_int_equal(count_addr("198.18.1.9", 80, NULL), 1);
	assert_int_equal(count_addr("198.18.0.9", 80, NULL), 0);
	assert_int_equal(count_addr("192.0.1.9", 80, NULL), 1);
	assert_int_equal(count_addr("192.0.0.9", 80, NULL), 0);
	assert_int_equal(s.skipped_blocked, 512);
	target_space_free(&s);
	targets_free(&t);

	/* the same walk in slices of at most 2 skips: the same addresses */
	{
		struct target_space_rec *rec;
		struct addr a;
		size_t got = 0, later = 0;
		int rc;

		walk(&t, &s, bl, specs, 3, 1);
		target_space_free(&s);
		targets_free(&t);
		targets_init(&t);
		for (size_t i = 0; i < 3; i++)
			assert_int_equal(targets_parse_spec(&t, specs[i], &large), 0);
		target_space_init(&s, bl);
		for (size_t i = 0; i < t.n; i++) {
			const struct blocklist_entry *e;
			(void)target_space_add(&s, &t.v[i], i, NULL, &e);
		}
		target_space_freeze(&s, key);
		for (;;) {
			uint64_t budget = 2;

			rc = target_space_next(&s, &rec, &a, &budget);
			if (rc == 0)
				break;
			if (rc == TARGET_SPACE_LATER) {
				later++;
				continue;
			}
			assert_true(addr_equal(&a, &w.a[got]));
			got++;
		}
		assert_int_equal(got, 512);
		/* runs of two blocked addresses or more paused the walk */
		assert_true(later > 0);
		assert_int_equal(s.skipped_blocked, 512);
	}
	target_space_free(&s);
	targets_free(&t);
	blocklist_free(bl);
}

/* A /8 and a name's addresses: records, not addresses. */
static void
test_large_is_small(void **state)
{
	const char *specs[] = { "198.0.0.0/8", "server.lab" };
	const struct blocklist_entry *why;
	struct target_space_rec *rec;
	struct targets t;
	struct target_space s;
	struct addr a, b;

	(void)state;
	targets_init(&t);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(targets_parse_spec(&t, specs[i], &large), 0);
	target_space_init(&s, NULL);
	assert_int_equal(target_space_add(&s, &t.v[0], 0, NULL, &why), BLOCKLIST_NONE);
	assert_int_equal(addr_parse("198.18.0.5", &a), 0);
	assert_int_equal(addr_parse("fd00::5", &b), 0);
	assert_int_equal(target_space_add(&s, &t.v[1], 1, &a, &why), BLOCKLIST_NONE);
	assert_int_equal(target_space_add(&s, &t.v[1], 1, &b, &why), BLOCKLIST_NONE);
	target_space_freeze(&s, key);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.total, (1u << 24) + 2);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(target_space_next(&s, &rec, &a, NULL), 1);
		assert_int_equal(a.bytes[0], rec->host != NULL && a.family == ADDR_V6 ? 0xfd :
		    198);
	}
	target_space_free(&s);
	targets_free(&t);
}

/* A /8 walked without sending: every address it hands out is new and
 * inside, in bounded memory.  TARGET_SPACE_WALK=all walks all 2^24 and prints
 * the time and peak RSS (the figures of prober/design-notes.md); by default the
 * first 2^18, to stay quick under the sanitizers. */
static void
test_walk_8(void **state)
{
	const char *specs[] = { "10.0.0.0/8" };
	const char *env = getenv("TARGET_SPACE_WALK");
	uint64_t want = env != NULL && strcmp(env, "all") == 0 ? 1ULL << 24 : 1ULL << 18;
	uint8_t *seen = calloc((1u << 24) / 8, 1);
	struct timespec t0, t1, t2;
	struct target_space_rec *rec;
	struct targets t;
	struct target_space s;
	struct rusage ru;
	struct addr a;
	uint64_t n = 0;

	(void)state;
	assert_non_null(seen);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, specs[0], &large), 0);
	target_space_init(&s, NULL);
	{
		const struct blocklist_entry *why;
		assert_int_equal(target_space_add(&s, &t.v[0], 0, NULL, &why), BLOCKLIST_NONE);
	}
	target_space_freeze(&s, key);
	assert_int_equal(target_space_next(&s, &rec, &a, NULL), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	do {
		uint32_t k = (uint32_t)a.bytes[1] << 16 | (uint32_t)a.bytes[2] << 8 | a.bytes[3];

		assert_int_equal(a.bytes[0], 10);
		assert_int_equal(seen[k / 8] >> (k % 8) & 1, 0);
		seen[k / 8] |= (uint8_t)(1u << (k % 8));
	} while (++n < want && target_space_next(&s, &rec, &a, NULL) == 1);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	assert_int_equal(n, want);
	if (want == 1ULL << 24)
		assert_int_equal(target_space_next(&s, &rec, &a, NULL), 0);
	getrusage(RUSAGE_SELF, &ru);
	print_message("# /8 walked without sending: first address after %.3f ms, %llu "
	    "addresses in %.2f s (%.0f ns each), peak RSS %.1f MiB (2 MiB of it this "
	    "test's bitmap)\n",
	    ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e6,
	    (unsigned long long)n,
	    (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) / 1e9,
	    ((double)(t2.tv_sec - t1.tv_sec) * 1e9 + (double)(t2.tv_nsec - t1.tv_nsec)) /
	    (double)n, (double)ru.ru_maxrss / 1024.0);
	free(seen);
	target_space_free(&s);
	targets_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_once),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_large_is_small),
		cmocka_unit_test(test_walk_8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
