/*
 * test_blocklist.c -- the special-purpose registries: edges of each block,
 * the most specific entry named, global addresses left alone, and --allow
 * (as the lab uses it: 198.18.0.0/15, fd00::/8).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "blocklist.h"

struct check_case {
	const char *addr;
	const char *blocked;	/* the entry's text, or NULL: allowed */
};

static const struct check_case default_cases[] = {
	/* global unicast stays probeable */
	{ "8.8.8.8", NULL },
	{ "1.1.1.1", NULL },
	{ "2606:4700::1111", NULL },
	{ "2001:200::1", NULL },		/* just past 2001::/23 */
	{ "3fff:1000::1", NULL },		/* just past 3fff::/20 */
	{ "fec0::1", NULL },			/* deprecated site-local: not listed */
	{ "192.0.1.1", NULL },
	{ "198.17.255.255", NULL },
	{ "198.20.0.0", NULL },
	{ "223.255.255.255", NULL },
	/* each IPv4 entry, at its edges */
	{ "0.0.0.0", "0.0.0.0/32 (This host on this network)" },
	{ "0.255.255.255", "0.0.0.0/8 (This network)" },
	{ "10.0.0.0", "10.0.0.0/8 (Private-Use)" },
	{ "10.255.255.255", "10.0.0.0/8 (Private-Use)" },
	{ "100.63.255.255", NULL },
	{ "100.64.0.0", "100.64.0.0/10 (Shared Address Space)" },
	{ "100.127.255.255", "100.64.0.0/10 (Shared Address Space)" },
	{ "100.128.0.0", NULL },
	{ "127.0.0.1", "127.0.0.0/8 (Loopback)" },
	{ "169.254.1.1", "169.254.0.0/16 (Link Local)" },
	{ "172.15.255.255", NULL },
	{ "172.16.0.0", "172.16.0.0/12 (Private-Use)" },
	{ "172.31.255.255", "172.16.0.0/12 (Private-Use)" },
	{ "172.32.0.0", NULL },
	{ "192.0.0.5", "192.0.0.0/29 (IPv4 Service Continuity Prefix)" },
	{ "192.0.0.8", "192.0.0.8/32 (IPv4 dummy address)" },
	{ "192.0.0.9", "192.0.0.9/32 (Port Control Protocol Anycast)" },
	{ "192.0.0.10", "192.0.0.10/32 (Traversal Using Relays around NAT Anycast)" },
	{ "192.0.0.11", "192.0.0.0/24 (IETF Protocol Assignments)" },
	{ "192.0.0.170", "192.0.0.170/32 (NAT64/DNS64 Discovery)" },
	{ "192.0.0.171", "192.0.0.171/32 (NAT64/DNS64 Discovery)" },
	{ "192.0.0.255", "192.0.0.0/24 (IETF Protocol Assignments)" },
	{ "192.0.2.1", "192.0.2.0/24 (Documentation (TEST-NET-1))" },
	{ "192.31.196.1", "192.31.196.0/24 (AS112-v4)" },
	{ "192.52.193.1", "192.52.193.0/24 (AMT)" },
	{ "192.88.99.1", "192.88.99.0/24 (Deprecated (6to4 Relay Anycast))" },
	{ "192.168.1.1", "192.168.0.0/16 (Private-Use)" },
	{ "192.175.48.6", "192.175.48.0/24 (Direct Delegation AS112 Service)" },
	{ "198.18.0.1", "198.18.0.0/15 (Benchmarking)" },
	{ "198.19.255.255", "198.18.0.0/15 (Benchmarking)" },
	{ "198.51.100.7", "198.51.100.0/24 (Documentation (TEST-NET-2))" },
	{ "203.0.113.9", "203.0.113.0/24 (Documentation (TEST-NET-3))" },
	{ "224.0.0.1", "224.0.0.0/4 (Multicast)" },
	{ "239.255.255.255", "224.0.0.0/4 (Multicast)" },
	{ "240.0.0.1", "240.0.0.0/4 (Reserved)" },
	{ "255.255.255.254", "240.0.0.0/4 (Reserved)" },
	{ "255.255.255.255", "255.255.255.255/32 (Limited Broadcast)" },
	/* IPv6 */
	{ "::", "::/128 (Unspecified Address)" },
	{ "::1", "::1/128 (Loopback Address)" },
	{ "::2", NULL },
	{ "::ffff:8.8.8.8", "::ffff:0:0/96 (IPv4-mapped Address)" },
	{ "::ffff:198.18.0.1", "::ffff:0:0/96 (IPv4-mapped Address)" },
	{ "64:ff9b::808:808", "64:ff9b::/96 (IPv4-IPv6 Translat.)" },
	{ "64:ff9b:1::1", "64:ff9b:1::/48 (IPv4-IPv6 Translat.)" },
	{ "100::1", "100::/64 (Discard-Only Address Block)" },
	{ "100:0:0:1::1", NULL },
	{ "2001::1", "2001::/32 (TEREDO)" },
	{ "2001:1::1", "2001:1::1/128 (Port Control Protocol Anycast)" },
	{ "2001:1::2", "2001:1::2/128 (Traversal Using Relays around NAT Anycast)" },
	{ "2001:1::3", "2001:1::3/128 (DNS-SD Service Registration Protocol Anycast)" },
	{ "2001:1::4", "2001::/23 (IETF Protocol Assignments)" },
	{ "2001:2::1", "2001:2::/48 (Benchmarking)" },
	{ "2001:3::1", "2001:3::/32 (AMT)" },
	{ "2001:4:112::1", "2001:4:112::/48 (AS112-v6)" },
	{ "2001:10::1", "2001:10::/28 (Deprecated (previously ORCHID))" },
	{ "2001:20::1", "2001:20::/28 (ORCHIDv2)" },
	{ "2001:30::1", "2001:30::/28 (Drone Remote ID Protocol Entity Tags (DETs) Prefix)" },
	{ "2001:1ff:ffff::1", "2001::/23 (IETF Protocol Assignments)" },
	{ "2001:db8::1", "2001:db8::/32 (Documentation)" },
	{ "2002:c000:201::1", "2002::/16 (6to4)" },
	{ "2620:4f:8000::1", "2620:4f:8000::/48 (Direct Delegation AS112 Service)" },
	{ "3fff::1", "3fff::/20 (Documentation)" },
	{ "5f00::1", "5f00::/16 (Segment Routing (SRv6) SIDs)" },
	{ "fc00::1", "fc00::/7 (Unique-Local)" },
	{ "fd00::1", "fc00::/7 (Unique-Local)" },
	{ "fdff:ffff::1", "fc00::/7 (Unique-Local)" },
	{ "fe80::1", "fe80::/10 (Link-Local Unicast)" },
	{ "febf::1", "fe80::/10 (Link-Local Unicast)" },
	{ "ff02::1", "ff00::/8 (Multicast)" },
};

static void
run_cases(const struct blocklist *bl, const struct check_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct addr a;
		const struct blocklist_entry *e;

		assert_int_equal(addr_parse(cases[i].addr, &a), 0);
		e = blocklist_check(bl, &a);
		if (cases[i].blocked == NULL && e != NULL)
			fail_msg("%s: blocked by %s, want allowed", cases[i].addr, e->text);
		if (cases[i].blocked != NULL &&
		    (e == NULL || strcmp(e->text, cases[i].blocked) != 0))
			fail_msg("%s: %s, want %s", cases[i].addr,
			    e ? e->text : "allowed", cases[i].blocked);
	}
}

static void
test_defaults(void **state)
{
	struct blocklist *bl = blocklist_new();

	(void)state;
	run_cases(bl, default_cases, sizeof(default_cases) / sizeof(default_cases[0]));
	blocklist_free(bl);
}

/* Every entry parsed, is a network (no host bits), and blocks itself. */
static void
test_entries(void **state)
{
	struct blocklist *bl = blocklist_new();
	size_t v4 = 0, v6 = 0;

	(void)state;
	assert_int_equal(blocklist_count(bl), 51);
	for (size_t i = 0; i < blocklist_count(bl); i++) {
		const struct blocklist_entry *e = blocklist_entry(bl, i);
		const struct blocklist_entry *hit = blocklist_check(bl, &e->net);
		char want[128];

		snprintf(want, sizeof(want), "%s (%s)", e->prefix, e->name);
		assert_string_equal(e->text, want);
		assert_non_null(hit);
		assert_true(hit->plen >= e->plen);
		v4 += e->net.family == ADDR_V4;
		v6 += e->net.family == ADDR_V6;
	}
	assert_int_equal(v4, 26);	/* 25 registry entries and multicast */
	assert_int_equal(v6, 25);	/* 24 registry entries and multicast */
	assert_null(blocklist_entry(bl, 51));
	blocklist_free(bl);
}

static const struct check_case lab_cases[] = {
	{ "198.18.0.1", NULL },
	{ "198.19.255.255", NULL },
	{ "fd00::1", NULL },
	{ "fd00:ffff::1", NULL },
	/* the rest of the registries stays blocked */
	{ "fc00::1", "fc00::/7 (Unique-Local)" },
	{ "fe00::1", NULL },
	{ "10.0.0.1", "10.0.0.0/8 (Private-Use)" },
	{ "192.0.2.1", "192.0.2.0/24 (Documentation (TEST-NET-1))" },
	{ "::ffff:198.18.0.1", "::ffff:0:0/96 (IPv4-mapped Address)" },
	{ "8.8.8.8", NULL },
};

static void
test_allow_lab(void **state)
{
	struct blocklist *bl = blocklist_new();
	const char *why = NULL;

	(void)state;
	assert_int_equal(blocklist_allow(bl, "198.18.0.0/15", &why), 0);
	assert_int_equal(blocklist_allow(bl, "fd00::/8", &why), 0);
	run_cases(bl, lab_cases, sizeof(lab_cases) / sizeof(lab_cases[0]));
	blocklist_free(bl);
}

/* A part of an entry, a single host, and everything. */
static void
test_allow_partial(void **state)
{
	static const struct check_case cases[] = {
		{ "10.1.2.3", NULL },
		{ "10.1.255.255", NULL },
		{ "10.2.0.0", "10.0.0.0/8 (Private-Use)" },
		{ "192.0.0.9", NULL },
		{ "192.0.0.10", "192.0.0.10/32 (Traversal Using Relays around NAT Anycast)" },
	};
	struct blocklist *bl = blocklist_new();
	const char *why;
	struct addr a;

	(void)state;
	assert_int_equal(blocklist_allow(bl, "10.1.0.0/16", &why), 0);
	assert_int_equal(blocklist_allow(bl, "192.0.0.9", &why), 0);
	run_cases(bl, cases, sizeof(cases) / sizeof(cases[0]));
	assert_int_equal(blocklist_allow(bl, "0.0.0.0/0", &why), 0);
	assert_int_equal(addr_parse("255.255.255.255", &a), 0);
	assert_null(blocklist_check(bl, &a));
	assert_int_equal(addr_parse("ff02::1", &a), 0);
	assert_non_null(blocklist_check(bl, &a));	/* v4 /0 is not v6 */
	blocklist_free(bl);
}

struct allow_bad {
	const char *cidr, *why;
};

static const struct allow_bad allow_bad[] = {
	{ "198.18.0.1/15", "host bits set after the prefix length" },
	{ "198.18.0.0/33", "prefix length too long for IPv4 (at most 32)" },
	{ "fd00::/200", "prefix length too long for IPv6 (at most 128)" },
	{ "lab", "not an IPv4 or IPv6 address" },
	{ "", "not an IPv4 or IPv6 address" },
	{ "198.18.0.0/", "prefix length is not a number" },
	{ "198.18.0.0/ 15", "prefix length is not a number" },
};

static void
test_allow_errors(void **state)
{
	struct blocklist *bl = blocklist_new();
	struct addr a;

	(void)state;
	for (size_t i = 0; i < sizeof(allow_bad) / sizeof(allow_bad[0]); i++) {
		const char *why = NULL;

		assert_int_equal(blocklist_allow(bl, allow_bad[i].cidr, &why), -1);
		assert_string_equal(why, allow_bad[i].why);
	}
	/* nothing was allowed by the failures */
	assert_int_equal(addr_parse("198.18.0.1", &a), 0);
	assert_string_equal(blocklist_check(bl, &a)->text, "198.18.0.0/15 (Benchmarking)");
	blocklist_free(bl);
}

/* How much of a prefix is blocked: all (inside an entry), some (an entry
 * inside it, or an --allow inside a blocked one), none (apart, or under
 * an --allow); the entry named is the most specific that holds it. */
static void
test_classify(void **state)
{
	static const struct {
		const char *prefix;
		enum blocklist_part part;
		const char *named;	/* its prefix, NULL for none */
	} cases[] = {
		{ "10.1.0.0/16", BLOCKLIST_ALL, "10.0.0.0/8" },
		{ "10.0.0.0/8", BLOCKLIST_ALL, "10.0.0.0/8" },
		{ "192.0.0.9/32", BLOCKLIST_ALL, "192.0.0.9/32" },
		{ "8.0.0.0/8", BLOCKLIST_NONE, NULL },
		{ "8.8.8.8/32", BLOCKLIST_NONE, NULL },
		{ "0.0.0.0/0", BLOCKLIST_SOME, "0.0.0.0/8" },
		{ "192.0.0.0/23", BLOCKLIST_SOME, "192.0.0.0/24" },
		{ "198.18.0.0/16", BLOCKLIST_SOME, "198.18.0.0/15" },	/* allow inside */
		{ "198.18.7.0/24", BLOCKLIST_NONE, NULL },		/* allowed whole */
		{ "fd00::/16", BLOCKLIST_ALL, "fc00::/7" },
		{ "2001:4860::/32", BLOCKLIST_NONE, NULL },
	};
	struct blocklist *bl = blocklist_new();
	const char *why;

	(void)state;
	assert_int_equal(blocklist_allow(bl, "198.18.7.0/24", &why), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct blocklist_entry *e;
		struct addr net;
		unsigned plen;

		assert_int_equal(addr_parse_prefix(cases[i].prefix, &net, &plen, &why), 0);
		if (blocklist_classify(bl, &net, plen, &e) != cases[i].part)
			fail_msg("%s: expected part %d", cases[i].prefix, (int)cases[i].part);
		if (cases[i].named == NULL)
			assert_null(e);
		else {
			assert_non_null(e);
			assert_string_equal(e->prefix, cases[i].named);
		}
	}
	blocklist_free(bl);

	/* an opt-out is never lifted: all of what it holds, part of what
	 * holds it, even under an --allow */
	bl = blocklist_new();
	assert_int_equal(blocklist_allow(bl, "198.18.0.0/15", &why), 0);
	{
		const struct blocklist_entry *e;
		struct addr net;
		unsigned plen;

		assert_int_equal(addr_parse_prefix("198.18.5.0/24", &net, &plen, &why), 0);
		blocklist_block(bl, &net, plen, "198.18.5.0/24", "opt-out");
		assert_int_equal(addr_parse_prefix("198.18.5.0/25", &net, &plen, &why), 0);
		assert_int_equal(blocklist_classify(bl, &net, plen, &e), BLOCKLIST_ALL);
		assert_string_equal(e->name, "opt-out");
		assert_int_equal(addr_parse_prefix("198.18.0.0/16", &net, &plen, &why), 0);
		assert_int_equal(blocklist_classify(bl, &net, plen, &e), BLOCKLIST_SOME);
		assert_string_equal(e->name, "opt-out");
		assert_int_equal(addr_parse_prefix("198.19.0.0/16", &net, &plen, &why), 0);
		assert_int_equal(blocklist_classify(bl, &net, plen, &e), BLOCKLIST_NONE);
	}
	blocklist_free(bl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_allow_lab),
		cmocka_unit_test(test_allow_partial),
		cmocka_unit_test(test_allow_errors),
		cmocka_unit_test(test_classify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
