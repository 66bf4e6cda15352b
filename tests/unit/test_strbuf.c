/*
 * test_strbuf.c -- the growing text buffer: empty, growth past each
 * doubling with the text intact, taking it out, and vprintf's va_list used
 * twice (sizing, then writing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "strbuf.h"

static void
test_empty(void **state)
{
	struct strbuf b = { 0 };
	char *s;

	(void)state;
	assert_string_equal(strbuf_str(&b), "");
	s = strbuf_take(&b);
	assert_string_equal(s, "");
	free(s);
	strbuf_free(&b);
	assert_null(b.p);
}

static void
test_growth(void **state)
{
	struct strbuf b = { 0 };
	char want[8192], *s;
	size_t n = 0;

	(void)state;
	/* 1,000 lines of 1..9 bytes: crosses 256, 512, ... 4096 */
	for (int i = 0; i < 1000; i++) {
		int w = 1 + i % 9;

		strbuf_printf(&b, "%0*d\n", w - 1 > 0 ? w - 1 : 1, i % 10);
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%0*d\n",
		    w - 1 > 0 ? w - 1 : 1, i % 10);
		assert_int_equal(b.len, n);
		assert_int_equal(strlen(b.p), n);
		assert_true(b.cap > b.len);
	}
	assert_string_equal(b.p, want);
	s = strbuf_take(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	assert_string_equal(s, want);
	free(s);
	/* empty after take: usable again */
	strbuf_printf(&b, "%s=%u", "rate", 100u);
	assert_string_equal(strbuf_str(&b), "rate=100");
	strbuf_free(&b);
}

static void add_v(struct strbuf *b, const char *fmt, ...) LOG_PRINTF(2, 3);

static void
add_v(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

static void
test_vprintf(void **state)
{
	struct strbuf b = { 0 };
	char big[600];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* the first call must grow: the list is walked once to size it */
	add_v(&b, "%s:%d:%s", "f.conf", 12, big);
	assert_int_equal(b.len, strlen("f.conf:12:") + sizeof(big) - 1);
	assert_memory_equal(b.p, "f.conf:12:xxx", 13);
	strbuf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_vprintf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
