/*
 * test_srcrange.c -- --source-range (srcrange.c): what parses and what is
 * refused with which reason, the addresses of a range across byte
 * boundaries, and the pick: the same source every time a path asks, every
 * source used, spread evenly, another key another choice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "srcrange.h"

static const struct {
	const char *in;
	uint32_t n;			/* 0: refused */
	const char *why;		/* a word of the reason */
	const char *first, *last;
} rows[] = {
	{ "198.18.0.1-198.18.0.255", 255, NULL, "198.18.0.1", "198.18.0.255" },
	{ "198.18.0.7", 1, NULL, "198.18.0.7", "198.18.0.7" },
	{ "198.18.0.0/24", 256, NULL, "198.18.0.0", "198.18.0.255" },
	{ "198.18.0.0/20", 4096, NULL, "198.18.0.0", "198.18.15.255" },
	{ "198.18.255.250-198.19.0.5", 12, NULL, "198.18.255.250", "198.19.0.5" },
	{ "fd00::1-fd00::10", 16, NULL, "fd00::1", "fd00::10" },
	{ "fd00::ff:fff0/124", 16, NULL, "fd00::ff:fff0", "fd00::ff:ffff" },
	{ "fd00::ffff-fd00::1:0", 2, NULL, "fd00::ffff", "fd00::1:0" },
	{ "198.18.0.0/19", 0, "more than 4096", NULL, NULL },
	{ "198.18.0.0-198.18.16.0", 0, "more than 4096", NULL, NULL },
	{ "fd00::-fd00::1:0:0", 0, "more than 4096", NULL, NULL },
	{ "fd00::/64", 0, "more than 4096", NULL, NULL },
	{ "198.18.0.5-198.18.0.4", 0, "ends before", NULL, NULL },
	{ "198.18.0.1-fd00::1", 0, "mixes", NULL, NULL },
	{ "224.0.0.1-224.0.0.2", 0, "multicast", NULL, NULL },
	{ "223.255.255.255-224.0.0.0", 0, "224.0.0.0 is multicast", NULL, NULL },
	{ "127.0.0.1", 0, "loopback", NULL, NULL },
	{ "0.0.0.1", 0, "0.0.0.0/8", NULL, NULL },
	{ "255.255.255.255", 0, "broadcast", NULL, NULL },
	{ "::-::1", 0, "unspecified", NULL, NULL },
	{ "ff02::1", 0, "multicast", NULL, NULL },
	{ "198.18.0.1/24", 0, "host bits", NULL, NULL },
	{ "198.18.0.1-", 0, "not A-B", NULL, NULL },
	{ "somewhere", 0, "not A-B", NULL, NULL },
};

static void
test_parse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct srcrange r;
		char why[200] = "", t[ADDR_STRLEN];
		int rc = srcrange_parse(rows[i].in, &r, why, sizeof(why));

		print_message("%s -> %d %u %s\n", rows[i].in, rc, r.n, why);
		if (rows[i].n == 0) {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(why, rows[i].why));
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(r.n, rows[i].n);
		struct addr a = srcrange_addr(&r, 0), b = srcrange_addr(&r, r.n - 1);
		assert_string_equal(addr_format(&a, t, sizeof(t)), rows[i].first);
		assert_string_equal(addr_format(&b, t, sizeof(t)), rows[i].last);
	}
}

/* 65,536 paths over 256 sources: each path the same source every time,
 * every source used, none with more than twice its share */
static void
test_pick(void **state)
{
	static unsigned count[256];
	uint8_t key[SIPHASH_KEY_LEN] = { 1, 2, 3 }, key2[SIPHASH_KEY_LEN] = { 9 };
	struct srcrange r;
	char why[100];
	unsigned lo = ~0u, hi = 0, moved = 0;

	(void)state;
	assert_int_equal(srcrange_parse("198.18.128.0/24", &r, why, sizeof(why)), 0);
	for (unsigned i = 0; i < 65536; i++) {
		struct addr d = { .family = ADDR_V4, .bytes = { 198, 19, (uint8_t)(i >> 8),
			(uint8_t)i } };
		uint32_t k = srcrange_pick(&r, key, &d, 8080);

		assert_true(k < r.n);
		assert_int_equal(srcrange_pick(&r, key, &d, 8080), k);
		moved += srcrange_pick(&r, key2, &d, 8080) != k;
		count[k]++;
	}
	for (unsigned k = 0; k < 256; k++) {
		lo = count[k] < lo ? count[k] : lo;
		hi = count[k] > hi ? count[k] : hi;
	}
	print_message("256 sources: %u..%u paths each (256 even), %u of 65536 moved "
	    "with another key\n", lo, hi, moved);
	assert_true(lo >= 128 && hi <= 512);
	assert_true(moved > 60000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
