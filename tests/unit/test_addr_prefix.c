/*
 * test_addr_prefix.c -- addr_parse_prefix (what it takes, each refusal and
 * its reason) and addr_mask, the two helpers targets and blocklist share.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "addr.h"

struct prefix_case {
	const char *in;
	const char *net;	/* canonical text, or NULL: refused */
	unsigned plen;
	const char *why;
};

static const struct prefix_case prefix_cases[] = {
	{ "198.18.0.0/15", "198.18.0.0", 15, NULL },
	{ "198.18.0.1", "198.18.0.1", 32, NULL },
	{ "0.0.0.0/0", "0.0.0.0", 0, NULL },
	{ "198.18.0.7/32", "198.18.0.7", 32, NULL },
	{ "198.18.0.0/015", "198.18.0.0", 15, NULL },
	{ "fd00::/8", "fd00::", 8, NULL },
	{ "::/0", "::", 0, NULL },
	{ "fd00::1", "fd00::1", 128, NULL },
	{ "2001:db8:8000::/33", "2001:db8:8000::", 33, NULL },
	{ "198.18.0.1/15", NULL, 0, "host bits set after the prefix length" },
	{ "198.19.0.0/15", NULL, 0, "host bits set after the prefix length" },
	{ "2001:db8:8000::/32", NULL, 0, "host bits set after the prefix length" },
	{ "198.18.0.0/33", NULL, 0, "prefix length too long for IPv4 (at most 32)" },
	{ "::/129", NULL, 0, "prefix length too long for IPv6 (at most 128)" },
	{ "::/1280", NULL, 0, "prefix length is not a number" },
	{ "198.18.0.0/", NULL, 0, "prefix length is not a number" },
	{ "198.18.0.0/0x8", NULL, 0, "prefix length is not a number" },
	{ "198.18.0.0/-1", NULL, 0, "prefix length is not a number" },
	{ "198.18.0.0/8/8", NULL, 0, "prefix length is not a number" },
	{ "198.18.0/24", NULL, 0, "not an IPv4 or IPv6 address" },
	{ "/24", NULL, 0, "not an IPv4 or IPv6 address" },
	{ "fd00::1%eth0", NULL, 0, "not an IPv4 or IPv6 address" },
	{ "0000:0000:0000:0000:0000:0000:0000:0000:0000/64", NULL, 0,
	  "not an IPv4 or IPv6 address" },
};

static void
test_parse_prefix(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(prefix_cases) / sizeof(prefix_cases[0]); i++) {
		const struct prefix_case *c = &prefix_cases[i];
		struct addr net;
		unsigned plen = 999;
		const char *why = NULL;
		char buf[ADDR_STRLEN];
		int rc = addr_parse_prefix(c->in, &net, &plen, &why);

		if (c->net == NULL) {
			if (rc != -1 || why == NULL || strcmp(why, c->why) != 0)
				fail_msg("'%s': rc %d why '%s', want '%s'", c->in, rc,
				    why ? why : "", c->why);
			continue;
		}
		if (rc != 0)
			fail_msg("'%s': refused (%s)", c->in, why);
		assert_string_equal(addr_format(&net, buf, sizeof(buf)), c->net);
		assert_int_equal(plen, c->plen);
	}
}

struct mask_case {
	const char *in;
	unsigned plen;
	const char *out;
};

static const struct mask_case mask_cases[] = {
	{ "198.18.255.255", 15, "198.18.0.0" },
	{ "198.19.255.255", 15, "198.18.0.0" },
	{ "255.255.255.255", 0, "0.0.0.0" },
	{ "255.255.255.255", 32, "255.255.255.255" },
	{ "255.255.255.255", 1, "128.0.0.0" },
	{ "255.255.255.255", 31, "255.255.255.254" },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 8, "fd00::" },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 7, "fc00::" },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 127, "fdff:ffff:ffff:ffff:ffff:ffff:ffff:fffe" },
	{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 128, "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
	{ "2001:db8:abcd:1234::1", 50, "2001:db8:abcd:0::" },
};

static void
test_mask(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mask_cases) / sizeof(mask_cases[0]); i++) {
		struct addr a, want;

		assert_int_equal(addr_parse(mask_cases[i].in, &a), 0);
		assert_int_equal(addr_parse(mask_cases[i].out, &want), 0);
		addr_mask(&a, mask_cases[i].plen);
		if (!addr_equal(&a, &want)) {
			char buf[ADDR_STRLEN];

			fail_msg("%s/%u: got %s, want %s", mask_cases[i].in,
			    mask_cases[i].plen, addr_format(&a, buf, sizeof(buf)),
			    mask_cases[i].out);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_prefix),
		cmocka_unit_test(test_mask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
