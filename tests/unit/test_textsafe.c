/*
 * test_textsafe.c -- the one escaping of every human-readable output, as a
 * table: printable ASCII and UTF-8 kept; C0, DEL, C1, the Unicode controls
 * that reorder a line and every byte of invalid UTF-8 (overlong, surrogate,
 * cut, above U+10FFFF) escaped; each flag's form; the cut at a whole
 * escape; the worst case TEXTSAFE_SIZE promises; and textsafe_shell's
 * words, attack strings among them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "textsafe.h"

#define E(in, fl, out) { in, sizeof(in) - 1, fl, out }
#define A TEXTSAFE_ASCII
#define L TEXTSAFE_LINES
#define K TEXTSAFE_KEEP_BACKSLASH

static const struct {
	const char *in;
	size_t len;
	unsigned flags;
	const char *out;
} cases[] = {
	E("", 0, ""),
	E("198.18.0.1 port 80, as lab-a", 0, "198.18.0.1 port 80, as lab-a"),
	E("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	/* the terminal's own attacks */
	E("\x1b[2J\x1b]0;owned\x07", 0, "\\x1b[2J\\x1b]0;owned\\x07"),
	E("a\nb\tc\rd", 0, "a\\nb\\tc\\x0dd"),
	E("nul\0byte\x7f", 0, "nul\\x00byte\\x7f"),
	E("back\\slash", 0, "back\\\\slash"),
	/* C1 as UTF-8: U+009B is the 8-bit CSI, U+0085 NEL a newline */
	E("x\xc2\x9b" "2J\xc2\x85y\xc2\x80\xc2\x9f\xc2\xa0", 0, "x\\u009b2J\\u0085y\\u0080\\u009f\xc2\xa0"),
	/* what reorders or breaks a line: RLO, LRI..PDI, LRM, RLM, LS, PS */
	E("\xe2\x80\xae" "fdp.exe", 0, "\\u202efdp.exe"),
	E("\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa", 0,
	    "\\u2066\\u2069\\u200e\\u200f\\u2028\\u2029\\u202a"),
	E("\xe2\x80\x8d\xe2\x80\xaf", 0, "\xe2\x80\x8d\xe2\x80\xaf"),	/* ZWJ, NNBSP: kept */
	/* invalid UTF-8, each byte: lone continuation, bare C1 byte, overlong
	 * NUL and '/', surrogate, above U+10FFFF, cut, 0xff */
	E("\x9b" "2J", 0, "\\x9b2J"),
	E("\xc0\x80\xc1\xaf", 0, "\\xc0\\x80\\xc1\\xaf"),
	E("\xe0\x80\xaf", 0, "\\xe0\\x80\\xaf"),
	E("\xed\xa0\x80", 0, "\\xed\\xa0\\x80"),
	E("\xf4\x90\x80\x80\xf5\x80", 0, "\\xf4\\x90\\x80\\x80\\xf5\\x80"),
	E("ab\xe2\x82", 0, "ab\\xe2\\x82"),
	E("\xe2\x82z", 0, "\\xe2\\x82z"),
	E("\xff\xfe", 0, "\\xff\\xfe"),
	/* ASCII: log_escape's form, every byte outside 0x20..0x7e as \xNN */
	E("caf\xc3\xa9\r\n\t\\", A, "caf\\xc3\\xa9\\x0d\\x0a\\x09\\\\"),
	/* LINES: newline kept, the rest escaped */
	E("one\ntwo\x1b[31m\r", L, "one\ntwo\\x1b[31m\\x0d"),
	E("one\ntwo\x1b", L | A, "one\ntwo\\x1b"),
	/* KEEP_BACKSLASH: an already escaped part is not escaped twice */
	E("x \\x1b y\x1b", K, "x \\x1b y\\x1b"),
	E("l1\nl2 \\\\ \xc2\x9b", L | K, "l1\nl2 \\\\ \\u009b"),
};

static void
test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[256];

		assert_ptr_equal(textsafe(buf, sizeof(buf), cases[i].in, cases[i].len,
		    cases[i].flags), buf);
		if (strcmp(buf, cases[i].out) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, buf, cases[i].out);
	}
}

/* What comes out never holds a control byte, a C1 character or invalid
 * UTF-8, whatever goes in: every one- and two-byte input, and every
 * three-byte input that starts a three-byte sequence. */
static int
clean(const char *s, unsigned flags)
{
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '\n' && (flags & TEXTSAFE_LINES))
			continue;
		if (*p < 0x20 || *p == 0x7f)
			return 0;
		if ((flags & TEXTSAFE_ASCII) && *p >= 0x80)
			return 0;
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return 0;
		if (*p >= 0x80 && *p < 0xc2)
			return 0;		/* a sequence must start here */
		if (*p >= 0xc2) {
			int n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;

			for (int k = 1; k < n; k++)
				if ((p[k] & 0xc0) != 0x80)
					return 0;
			p += n - 1;
		}
	}
	return 1;
}

static void
test_exhaustive(void **state)
{
	static const unsigned flags[] = { 0, TEXTSAFE_ASCII, TEXTSAFE_LINES,
	    TEXTSAFE_LINES | TEXTSAFE_KEEP_BACKSLASH };
	char out[TEXTSAFE_SIZE(3)];

	(void)state;
	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
		for (unsigned a = 0; a < 256; a++) {
			for (unsigned b = 0; b < 256; b++) {
				unsigned char in[3] = { (unsigned char)a, (unsigned char)b, 0x80 };

				textsafe(out, sizeof(out), in, 2, flags[f]);
				if (!clean(out, flags[f]))
					fail_msg("%02x %02x flags %u: \"%s\"", a, b, flags[f], out);
				if (a >= 0xe0 && a <= 0xef) {
					textsafe(out, sizeof(out), in, 3, flags[f]);
					if (!clean(out, flags[f]))
						fail_msg("%02x %02x 80: \"%s\"", a, b, out);
				}
			}
			unsigned char one = (unsigned char)a;

			textsafe(out, sizeof(out), &one, 1, flags[f]);
			assert_true(clean(out, flags[f]));
			assert_true(strlen(out) < TEXTSAFE_SIZE(1));
		}
}

/* Cut at a whole escape or character, always terminated, never past the
 * buffer; TEXTSAFE_SIZE is enough for the worst input. */
static void
test_bounds(void **state)
{
	char small[6], worst[TEXTSAFE_SIZE(8)];

	(void)state;
	textsafe(small, sizeof(small), "ab\x1b", 3, 0);
	assert_string_equal(small, "ab");		/* "\x1b" does not fit */
	textsafe(small, sizeof(small), "a\xc2\x9b", 3, 0);
	assert_string_equal(small, "a");		/* nor "\u009b" */
	textsafe(small, sizeof(small), "ab\xe2\x82\xac", 5, 0);
	assert_string_equal(small, "ab\xe2\x82\xac");	/* the euro sign whole */
	textsafe(small, sizeof(small), "abc\xe2\x82\xac", 6, 0);
	assert_string_equal(small, "abc");		/* never half of it */
	textsafe(small, 1, "abc", 3, 0);
	assert_string_equal(small, "");
	textsafe(worst, sizeof(worst), "\xff\xff\xff\xff\xff\xff\xff\xff", 8, 0);
	assert_int_equal(strlen(worst), 32);
	assert_string_equal(textsafe_str(NULL, small, sizeof(small)), "");
	assert_string_equal(textsafe_str("a\tb", small, sizeof(small)), "a\\tb");
}

/* A shell word: plain when it can be, else single-quoted with ' as '\'';
 * refused when it holds a control or non-ASCII byte, or does not fit. */
static void
test_shell(void **state)
{
	static const struct {
		const char *in, *out;	/* out NULL: refused */
	} w[] = {
		{ "198.18.0.1/32", "198.18.0.1/32" },
		{ "fd00:5ca1::30", "fd00:5ca1::30" },
		{ "br-lan.100_x", "br-lan.100_x" },
		{ "", "''" },
		{ "$(reboot)", "'$(reboot)'" },
		{ "`id`", "'`id`'" },
		{ "a;b && c | d > e", "'a;b && c | d > e'" },
		{ "it's", "'it'\\''s'" },
		{ "'", "''\\'''" },
		{ "*?[~#!", "'*?[~#!'" },
		{ "a\nreboot", NULL },
		{ "a\rb", NULL },
		{ "\x1b[2J", NULL },
		{ "caf\xc3\xa9", NULL },
		{ "\x7f", NULL },
	};
	char buf[64], tiny[4];

	(void)state;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		const char *got = textsafe_shell(w[i].in, buf, sizeof(buf));

		if (w[i].out == NULL) {
			if (got != NULL)
				fail_msg("'%s' not refused: %s", w[i].in, got);
			continue;
		}
		if (got == NULL || strcmp(got, w[i].out) != 0)
			fail_msg("'%s': got %s, want %s", w[i].in, got ? got : "NULL", w[i].out);
	}
	assert_null(textsafe_shell("abcd", tiny, sizeof(tiny)));
	assert_string_equal(textsafe_shell("abc", tiny, sizeof(tiny)), "abc");
	assert_null(textsafe_shell("a b", tiny, sizeof(tiny)));	/* 'a b' is 5 */
	assert_null(textsafe_shell("'", tiny, sizeof(tiny)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_exhaustive),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_shell),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
