/*
 * test_mbox_rules.c -- the lab emulator's rules file (tests/lab/mbox_rules.c).
 *
 * Table-driven: a file's text goes in; out come either its rules printed
 * back normalized, or every error, exactly as the user sees them, from one
 * pass.  Then lookups, action names, and a large file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lab/mbox_rules.h"

struct rules_case {
	const char	*name;
	const char	*text;
	size_t		 len;		/* 0: strlen(text) */
	int		 nerrors;
	const char	*out;		/* normalized rules, or the errors */
};

#define T_ACTIONS "expected an action (pass, ws-set, ws-cap, ws-nop, " \
	"ws-strip, drop-ws, mss-clamp, ts-strip, quote-8byte, quote-silent, " \
	"quote-full), got "

#define T_NUL "198.18.2.2 ws-nop\n198.18.2.3 ws\0nop\n198.18.2.4 x\n"

static const struct rules_case cases[] = {
	{ "empty", "", 0, 0, "" },
	{ "comments and blanks", "# lab rules\n\n   \t\n  # more\n", 0, 0, "" },
	{ "every action",
	  "# r1 rewrites, r2 quotes 8 bytes\n"
	  "198.18.2.2 ws-set 0\n"
	  "198.18.2.3\tws-cap 4   # trailing comment\n"
	  "  198.18.2.4 ws-nop\n"
	  "198.18.2.5 ws-strip\r\n"
	  "198.18.2.6 drop-ws\n"
	  "198.18.2.7 mss-clamp 1400\n"
	  "198.18.2.8 ts-strip\n"
	  "198.18.2.9 pass\n"
	  "fd00:2::2 ws-set 14\n"
	  "FD00:2:0:0:0:0:0:3 quote-8byte\n"
	  "fd00:2::4 quote-silent\n"
	  "fd00:2::5 quote-full\n"
	  "198.18.2.2 quote-8byte\n",
	  0, 0,
	  "198.18.2.2 ws-set 0\n"
	  "198.18.2.2 quote-8byte\n"
	  "198.18.2.3 ws-cap 4\n"
	  "198.18.2.4 ws-nop\n"
	  "198.18.2.5 ws-strip\n"
	  "198.18.2.6 drop-ws\n"
	  "198.18.2.7 mss-clamp 1400\n"
	  "198.18.2.8 ts-strip\n"
	  "198.18.2.9 pass\n"
	  "fd00:2::2 ws-set 14\n"
	  "fd00:2::3 quote-8byte\n"
	  "fd00:2::4 quote-silent\n"
	  "fd00:2::5 quote-full\n" },
	{ "limits", "198.18.2.2 ws-set 255\n198.18.2.3 ws-cap 0\n"
	  "198.18.2.4 mss-clamp 65535\n198.18.2.5 mss-clamp 0\n", 0, 0,
	  "198.18.2.2 ws-set 255\n198.18.2.3 ws-cap 0\n"
	  "198.18.2.4 mss-clamp 65535\n198.18.2.5 mss-clamp 0\n" },
	{ "no final newline", "198.18.2.2 ws-set 7", 0, 0,
	  "198.18.2.2 ws-set 7\n" },
	{ "comment without a space", "198.18.2.2 ws-nop# why not\n", 0, 0,
	  "198.18.2.2 ws-nop\n" },
	{ "every error in one pass",
	  "198.18.2 ws-set 0\n"			/* 1 */
	  "198.18.2.2\n"			/* 2 */
	  "198.18.2.2 ws-zero\n"		/* 3 */
	  "198.18.2.2 ws-set\n"			/* 4 */
	  "198.18.2.2 ws-set 256\n"		/* 5 */
	  "198.18.2.2 mss-clamp -1\n"		/* 6 */
	  "198.18.2.2 mss-clamp 65536\n"	/* 7 */
	  "198.18.2.2 ws-cap 0x7\n"		/* 8 */
	  "198.18.2.2 ws-nop 3\n"		/* 9 */
	  "198.18.2.2 ws-set 0 extra\n"		/* 10 */
	  "198.18.2.2 ws-set 0\n"		/* 11: fine */
	  "198.18.2.2 ts-strip\n"		/* 12 */
	  "198.18.2.2 quote-silent\n"		/* 13: fine */
	  "198.18.2.2 quote-full\n"		/* 14 */
	  "198.18.0.0/24 pass\n"		/* 15 */
	  "fd00::1%eth0 pass\n"			/* 16 */
	  "198.18.2.3 WS-SET 0\n"		/* 17 */
	  "ws-set 198.18.2.3 0\n"		/* 18 */
	  "198.18.2.3 quote-8byte 8\n",		/* 19 */
	  0, 17,
	  "f:1: expected an IPv4 or IPv6 address, got '198.18.2'\n"
	  "f:2: expected an action after the address\n"
	  "f:3: " T_ACTIONS "'ws-zero'\n"
	  "f:4: ws-set: expected a shift count 0..255\n"
	  "f:5: ws-set: expected a shift count 0..255, got '256'\n"
	  "f:6: mss-clamp: expected an MSS 0..65535, got '-1'\n"
	  "f:7: mss-clamp: expected an MSS 0..65535, got '65536'\n"
	  "f:8: ws-cap: expected a shift count 0..255, got '0x7'\n"
	  "f:9: ws-nop: expected the end of the line, got '3'\n"
	  "f:10: ws-set: expected the end of the line, got 'extra'\n"
	  "f:12: expected at most one SYN action per address "
	  "(line 11 has ws-set)\n"
	  "f:14: expected at most one quote action per address "
	  "(line 13 has quote-silent)\n"
	  "f:15: expected an IPv4 or IPv6 address, got '198.18.0.0/24'\n"
	  "f:16: expected an IPv4 or IPv6 address, got 'fd00::1%eth0'\n"
	  "f:17: " T_ACTIONS "'WS-SET'\n"
	  "f:18: expected an IPv4 or IPv6 address, got 'ws-set'\n"
	  "f:19: quote-8byte: expected the end of the line, got '8'\n" },
	{ "one address, two spellings", "fd00::1 ws-set 0\nfd00:0::1 ws-cap 3\n",
	  0, 1, "f:2: expected at most one SYN action per address "
	  "(line 1 has ws-set)\n" },
	{ "NUL byte", T_NUL, sizeof(T_NUL) - 1, 2, "f:2: expected text, got a NUL byte\n"
	  "f:3: " T_ACTIONS "'x'\n" },
	{ "bytes made printable", "198.18.2.2 \x01\xff\\\n", 0, 1,
	  "f:1: " T_ACTIONS "'\\x01\\xff\\x5c'\n" },
	{ "long token cut short",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa pass\n",
	  0, 1, "f:1: expected an IPv4 or IPv6 address, got "
	  "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'\n" },
	{ "CRLF and tabs only", "\r\n\t\r\n", 0, 0, "" },
};
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static void
test_rules_case(void **state)
{
	const struct rules_case *c = *state;
	struct mbox_rules rs;
	char out[4096] = "", line[128];
	size_t i, o = 0;
	int n;

	n = mbox_rules_parse(&rs, "f", c->text, c->len ? c->len : strlen(c->text));
	assert_int_equal(n, c->nerrors);
	assert_int_equal(rs.nerrors, c->nerrors);
	if (c->nerrors > 0) {
		assert_non_null(rs.errors);
		assert_string_equal(rs.errors, c->out);
		assert_int_equal(rs.errors_len, strlen(c->out));
		assert_int_equal(rs.nrules, 0);	/* all or nothing */
	} else {
		assert_null(rs.errors);
		for (i = 0; i < rs.nrules; i++) {
			n = mbox_rules_format(&rs.rule[i], line, sizeof(line));
			assert_int_equal(n, (int)strlen(line));
			assert_true(o + strlen(line) < sizeof(out));
			memcpy(out + o, line, strlen(line) + 1);
			o += strlen(line);
		}
		assert_string_equal(out, c->out);
	}
	mbox_rules_free(&rs);
}

static void
test_find(void **state)
{
	static const uint8_t a4[4] = { 198, 18, 2, 2 }, b4[4] = { 198, 18, 2, 3 };
	static const uint8_t a6[16] = { 0xfd, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0, 0, 2 };
	static const uint8_t m6[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	    198, 18, 2, 2 };
	static const char text[] = "198.18.2.2 mss-clamp 1200\n\n"
	    "fd00:2::2 quote-8byte\n198.18.2.2 quote-silent\n";
	const struct mbox_rule *r;
	struct mbox_rules rs;

	(void)state;
	assert_int_equal(mbox_rules_parse(&rs, "f", text, strlen(text)), 0);
	assert_int_equal(rs.nrules, 2);
	r = mbox_rules_find(&rs, 4, a4);
	assert_non_null(r);
	assert_int_equal(r->syn, MBOX_SYN_MSS_CLAMP);
	assert_int_equal(r->syn_arg, 1200);
	assert_int_equal(r->syn_line, 1);
	assert_int_equal(r->quote, MBOX_QUOTE_SILENT);
	assert_int_equal(r->quote_line, 4);
	r = mbox_rules_find(&rs, 6, a6);
	assert_non_null(r);
	assert_int_equal(r->syn, MBOX_SYN_NONE);
	assert_int_equal(r->quote, MBOX_QUOTE_8BYTE);
	assert_int_equal(r->quote_line, 3);
	assert_null(mbox_rules_find(&rs, 4, b4));
	assert_null(mbox_rules_find(&rs, 6, m6));	/* mapped is not v4 */
	assert_null(mbox_rules_find(&rs, 4, a6));	/* nor v6 bytes as v4 */
	mbox_rules_free(&rs);
	assert_null(mbox_rules_find(&rs, 4, a4));	/* freed: empty */
}

/* Every action's name parses back to the action. */
static void
test_names(void **state)
{
	struct mbox_rules rs;
	char text[64];
	int a;

	(void)state;
	for (a = MBOX_SYN_PASS; a <= MBOX_SYN_TS_STRIP; a++) {
		int arg = a == MBOX_SYN_WS_SET || a == MBOX_SYN_WS_CAP ||
		    a == MBOX_SYN_MSS_CLAMP;

		snprintf(text, sizeof(text), "198.18.2.2 %s%s\n",
		    mbox_rules_syn_name((enum mbox_syn_action)a), arg ? " 9" : "");
		assert_int_equal(mbox_rules_parse(&rs, "f", text, strlen(text)),
		    0);
		assert_int_equal(rs.rule[0].syn, a);
		assert_int_equal(rs.rule[0].syn_arg, arg ? 9 : 0);
		mbox_rules_free(&rs);
	}
	for (a = MBOX_QUOTE_8BYTE; a <= MBOX_QUOTE_FULL; a++) {
		snprintf(text, sizeof(text), "fd00::9 %s\n",
		    mbox_rules_quote_name((enum mbox_quote_action)a));
		assert_int_equal(mbox_rules_parse(&rs, "f", text, strlen(text)),
		    0);
		assert_int_equal(rs.rule[0].quote, a);
		mbox_rules_free(&rs);
	}
	assert_string_equal(mbox_rules_syn_name(MBOX_SYN_NONE), "");
	assert_string_equal(mbox_rules_quote_name(MBOX_QUOTE_NONE), "");
}

/* A buffer too small is filled as snprintf would, never overrun. */
static void
test_format_short(void **state)
{
	static const char text[] = "fd00:2::2 mss-clamp 536\nfd00:2::2 quote-full\n";
	struct mbox_rules rs;
	char buf[64];
	size_t sz;
	int need;

	(void)state;
	assert_int_equal(mbox_rules_parse(&rs, "f", text, strlen(text)), 0);
	need = mbox_rules_format(&rs.rule[0], NULL, 0);
	assert_int_equal(need, (int)strlen(text));
	for (sz = 1; sz < sizeof(buf); sz++) {
		char *b = malloc(sz);

		assert_non_null(b);
		assert_int_equal(mbox_rules_format(&rs.rule[0], b, sz), need);
		assert_int_equal(strlen(b), sz - 1 < (size_t)need ? sz - 1 :
		    (size_t)need);
		assert_memory_equal(b, text, strlen(b));
		free(b);
	}
	mbox_rules_free(&rs);
}

/* Many addresses: the table grows, lookups find the last one. */
static void
test_many(void **state)
{
	char *text = malloc(2000 * 32);
	struct mbox_rules rs;
	uint8_t a[4] = { 198, 19, 0, 0 };
	size_t o = 0;
	int i;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < 2000; i++)
		o += (size_t)sprintf(text + o, "198.19.%d.%d ws-cap %d\n",
		    i / 256, i % 256, i % 15);
	assert_int_equal(mbox_rules_parse(&rs, "f", text, o), 0);
	assert_int_equal(rs.nrules, 2000);
	a[2] = 1999 / 256, a[3] = 1999 % 256;
	assert_non_null(mbox_rules_find(&rs, 4, a));
	assert_int_equal(mbox_rules_find(&rs, 4, a)->syn_arg, 1999 % 15);
	mbox_rules_free(&rs);
	free(text);
}

static struct CMUnitTest tests[NCASES + 4];

int
main(void)
{
	size_t i;

	for (i = 0; i < NCASES; i++)
		tests[i] = (struct CMUnitTest){ cases[i].name, test_rules_case,
		    NULL, NULL, (void *)&cases[i] };
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_find);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_names);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_format_short);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_many);
	return cmocka_run_group_tests_name("mbox_rules", tests, NULL, NULL);
}
