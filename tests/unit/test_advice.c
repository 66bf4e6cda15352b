/*
 * test_advice.c -- what to do per verdict and side, as a table: the exact
 * route command (v4, v6, on link, route unknown), the shift it makes Linux
 * offer, the global fallback, the box to report, and no advice where none
 * is due.
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
	  { VERDICT_SYN_DROPPED, false, 7, -1, -1, "198.18.100.16", false, 80, NULL, NULL, NULL, -1, NULL, -1 },
	  ADVICE_SERVER, 0, "", "", { "A box on the path (not located", "export --pcap DIR", NULL, NULL },
	  { NULL, NULL } },
	{ "ok: nothing to do",
	  { VERDICT_OK, false, 7, 7, 7, "198.18.100.1", false, 80, NULL, NULL, NULL, -1, NULL, -1 },
	  ADVICE_CLIENT, -1, "", "", { NULL, NULL, NULL, NULL }, { NULL, NULL } },
	{ "closed: not a path problem",
	  { VERDICT_CLOSED, false, 7, -1, -1, "198.18.100.3", false, 9, NULL, NULL, NULL, -1, NULL, -1 },
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

/* The window that makes Linux offer shift s: ilog2(window) - 15 == s
 * (tcp_select_initial_window), and it is the largest window s can carry. */
static void
test_route_window_shift(void **state)
{
	(void)state;
	for (int s = 0; s <= 14; s++) {
		struct advice_in in = { VERDICT_REWRITTEN, false, 14, s, -1, "192.0.2.9", false, 80,
		    "10.0.0.1", "eth0", NULL, -1, NULL, -1 };
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
	    NULL, NULL, NULL, -1, NULL, -1 };
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
