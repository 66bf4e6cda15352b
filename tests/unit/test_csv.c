/*
 * test_csv.c -- RFC 4180 records byte for byte: plain fields, fields that
 * need quoting (comma, quote, CR, LF), empty and NULL fields, CRLF ends.
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
	{ { "cr\r" }, 1, "\"cr\r\"\r\n" },
	{ { "", NULL, "z" }, 3, ",,z\r\n" },
	{ { "\"" }, 1, "\"\"\"\"\r\n" },
	{ { "fd00:5ca1:100::11", "rewritten" }, 2, "fd00:5ca1:100::11,rewritten\r\n" },
};

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
