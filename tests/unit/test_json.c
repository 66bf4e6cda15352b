/*
 * test_json.c -- the JSON writer: exact documents, string escaping of
 * hostile bytes (controls, quotes, invalid UTF-8), misuse refused,
 * numbers at their limits, and RFC 3339 times across calendar edges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"

/* A path object shaped like the output contract's. */
static void
test_document(void **state)
{
	struct json j;
	struct timespec ts = { 1714566896, 789999999 };
	size_t len;

	(void)state;
	json_init(&j);
	json_object_begin(&j);
	json_kstring(&j, "target", "server.lab:443");
	json_kuint(&j, "port", 443);
	json_ktime(&j, "time", &ts);
	json_key(&j, "control");
	json_object_begin(&j);
	json_kstring(&j, "reply", "syn-ack");
	json_knull(&j, "syn_ack");
	json_object_end(&j);
	json_key(&j, "scales");
	json_array_begin(&j);
	json_object_begin(&j);
	json_kint(&j, "scale_sent", 7);
	json_kbool(&j, "present", true);
	json_kbool(&j, "sack", false);
	json_kstring(&j, "reason", NULL);
	json_key(&j, "side_findings");
	json_array_begin(&j);
	json_array_end(&j);
	json_object_end(&j);
	json_int(&j, -3);	/* array elements need no key */
	json_null(&j);
	json_array_end(&j);
	json_key(&j, "empty");
	json_object_begin(&j);
	json_object_end(&j);
	json_object_end(&j);
	assert_true(json_ok(&j));
	assert_string_equal(json_text(&j, &len),
	    "{\"target\":\"server.lab:443\",\"port\":443,"
	    "\"time\":\"2024-05-01T12:34:56.789Z\","
	    "\"control\":{\"reply\":\"syn-ack\",\"syn_ack\":null},"
	    "\"scales\":[{\"scale_sent\":7,\"present\":true,\"sack\":false,"
	    "\"reason\":null,\"side_findings\":[]},-3,null],\"empty\":{}}");
	assert_int_equal(len, strlen(json_text(&j, NULL)));

	/* the next NDJSON line reuses the buffer */
	json_reset(&j);
	assert_false(json_ok(&j));
	assert_string_equal(json_text(&j, NULL), "");
	json_array_begin(&j);
	json_uint(&j, 1);
	json_uint(&j, 2);
	json_array_end(&j);
	assert_true(json_ok(&j));
	assert_string_equal(json_text(&j, NULL), "[1,2]");
	json_free(&j);
}

struct esc_case {
	const char *in;
	size_t len;
	const char *out;	/* with the quotes */
};

#define E(s, o) { s, sizeof(s) - 1, o }

static const struct esc_case esc_cases[] = {
	E("", "\"\""),
	E("plain text", "\"plain text\""),
	E("say \"hi\"", "\"say \\\"hi\\\"\""),
	E("back\\slash", "\"back\\\\slash\""),
	E("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\""),
	E("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\""),
	E("nul\0byte", "\"nul\\u0000byte\""),
	E("/", "\"/\""),
	/* valid UTF-8 passes as it is: 2, 3 and 4 bytes */
	E("caf\xc3\xa9", "\"caf\xc3\xa9\""),
	E("\xe2\x82\xac", "\"\xe2\x82\xac\""),
	E("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""),
	E("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""),		/* U+10FFFF */
	E("\xef\xbf\xbd", "\"\xef\xbf\xbd\""),			/* U+FFFD itself */
	/* line separators of JavaScript */
	E("a\xe2\x80\xa8" "b\xe2\x80\xa9", "\"a\\u2028b\\u2029\""),
	/* invalid UTF-8: one U+FFFD per bad byte */
	E("\xff", "\"\\ufffd\""),
	E("\x80", "\"\\ufffd\""),				/* lone continuation */
	E("\xc3", "\"\\ufffd\""),				/* truncated */
	E("\xc3(", "\"\\ufffd(\""),
	E("\xc0\xaf", "\"\\ufffd\\ufffd\""),			/* overlong '/' */
	E("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""),		/* overlong */
	E("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""),		/* surrogate D800 */
	E("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""), /* > U+10FFFF */
	E("\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""),
	E("\xe2\x82", "\"\\ufffd\\ufffd\""),			/* truncated euro */
	E("ok\xe2\x82" "x", "\"ok\\ufffd\\ufffdx\""),
};

static void
test_escaping(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		struct json j;

		json_init(&j);
		json_string_len(&j, esc_cases[i].in, esc_cases[i].len);
		assert_true(json_ok(&j));
		if (strcmp(json_text(&j, NULL), esc_cases[i].out) != 0)
			fail_msg("case %zu: got %s, want %s", i, json_text(&j, NULL),
			    esc_cases[i].out);
		json_free(&j);
	}
}

/* Keys are escaped the same way. */
static void
test_key_escaping(void **state)
{
	struct json j;

	(void)state;
	json_init(&j);
	json_object_begin(&j);
	json_kint(&j, "a\"b\n", 1);
	json_object_end(&j);
	assert_string_equal(json_text(&j, NULL), "{\"a\\\"b\\n\":1}");
	json_free(&j);
}

/* Each misuse sequence: 'o' '}' '[' ']' 'k' key, 'v' value. */
struct misuse_case {
	const char *steps;
	bool ok;
};

static const struct misuse_case misuse_cases[] = {
	{ "o}", true },
	{ "okv}", true },
	{ "[vv]", true },
	{ "v", true },
	{ "", false },			/* nothing written */
	{ "ov}", false },		/* value without key */
	{ "okk", false },		/* two keys */
	{ "ok}", false },		/* key without value */
	{ "[k]", false },		/* key in an array */
	{ "o]", false },		/* mismatched end */
	{ "[}", false },
	{ "}", false },
	{ "o", false },			/* unclosed */
	{ "vv", false },		/* two top-level values */
	{ "o}o}", false },
	{ "k", false },			/* key at top level */
};

static void
run_steps(struct json *j, const char *steps)
{
	for (const char *p = steps; *p != '\0'; p++) {
		switch (*p) {
		case 'o': json_object_begin(j); break;
		case '}': json_object_end(j); break;
		case '[': json_array_begin(j); break;
		case ']': json_array_end(j); break;
		case 'k': json_key(j, "k"); break;
		case 'v': json_int(j, 1); break;
		}
	}
}

static void
test_misuse(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(misuse_cases) / sizeof(misuse_cases[0]); i++) {
		struct json j;

		json_init(&j);
		run_steps(&j, misuse_cases[i].steps);
		if (json_ok(&j) != misuse_cases[i].ok)
			fail_msg("'%s': ok %d", misuse_cases[i].steps, json_ok(&j));
		json_free(&j);
	}
}

static void
test_depth(void **state)
{
	struct json j;

	(void)state;
	json_init(&j);
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		json_array_begin(&j);
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		json_array_end(&j);
	assert_true(json_ok(&j));
	assert_int_equal(strlen(json_text(&j, NULL)), 2 * JSON_MAX_DEPTH);
	json_reset(&j);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_array_begin(&j);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_array_end(&j);
	assert_false(json_ok(&j));
	json_free(&j);
}

static void
test_numbers(void **state)
{
	struct json j;

	(void)state;
	json_init(&j);
	json_array_begin(&j);
	json_int(&j, INT64_MIN);
	json_int(&j, INT64_MAX);
	json_int(&j, 0);
	json_uint(&j, UINT64_MAX);
	json_bool(&j, false);
	json_double(&j, 0.3456);
	json_double(&j, 12.0);
	json_double(&j, NAN);
	json_double(&j, INFINITY);
	json_array_end(&j);
	assert_string_equal(json_text(&j, NULL),
	    "[-9223372036854775808,9223372036854775807,0,18446744073709551615,false,"
	    "0.346,12.000,null,null]");
	json_free(&j);
}

/* A string far past the first buffer. */
static void
test_growth(void **state)
{
	size_t n = 100000;
	char *big = malloc(n);
	struct json j;
	size_t len;
	const char *text;

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (i % 100 == 99) ? '\n' : 'a';
	json_init(&j);
	json_string_len(&j, big, n);
	text = json_text(&j, &len);
	assert_int_equal(len, 2 + n + n / 100);	/* quotes, and \n is two */
	assert_int_equal(text[0], '"');
	assert_int_equal(text[len - 1], '"');
	assert_memory_equal(text + 100, "\\n", 2);
	json_free(&j);
	free(big);
}

struct time_case {
	int64_t sec;
	long nsec;
	const char *want;	/* NULL: refused */
};

static const struct time_case time_cases[] = {
	{ 0, 0, "1970-01-01T00:00:00.000Z" },
	{ 1714566896, 789999999, "2024-05-01T12:34:56.789Z" },	/* truncated */
	{ 1709164800, 0, "2024-02-29T00:00:00.000Z" },
	{ 951782400, 1000000, "2000-02-29T00:00:00.001Z" },
	{ 4107456000, 0, "2100-02-28T00:00:00.000Z" },
	{ 4107542400, 0, "2100-03-01T00:00:00.000Z" },		/* 2100: no leap day */
	{ -1, 999000000, "1969-12-31T23:59:59.999Z" },
	{ -2208988800, 0, "1900-01-01T00:00:00.000Z" },
	{ -11670912000, 0, "1600-03-01T00:00:00.000Z" },
	{ -62167219200, 0, "0000-01-01T00:00:00.000Z" },
	{ 253402300799, 999999999, "9999-12-31T23:59:59.999Z" },
	{ 253402300800, 0, NULL },
	{ -62167219201, 0, NULL },
	{ 0, 1000000000, NULL },
	{ 0, -1, NULL },
};

static void
test_time(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
		const struct time_case *c = &time_cases[i];
		struct timespec ts = { (time_t)c->sec, c->nsec };
		char buf[JSON_TIME_LEN];
		struct json j;
		int rc = json_format_time(buf, sizeof(buf), &ts);

		json_init(&j);
		json_time(&j, &ts);
		if (c->want == NULL) {
			assert_int_equal(rc, -1);
			assert_string_equal(json_text(&j, NULL), "null");
		} else {
			char quoted[64];

			if (rc != 0 || strcmp(buf, c->want) != 0)
				fail_msg("%lld.%09ld: got %s, want %s", (long long)c->sec,
				    c->nsec, rc == 0 ? buf : "(refused)", c->want);
			snprintf(quoted, sizeof(quoted), "\"%s\"", c->want);
			assert_string_equal(json_text(&j, NULL), quoted);
		}
		json_free(&j);
	}
	{
		struct timespec ts = { 0, 0 };
		char small[JSON_TIME_LEN - 1];
		struct json j;

		assert_int_equal(json_format_time(small, sizeof(small), &ts), -1);
		json_init(&j);
		json_time(&j, NULL);
		assert_string_equal(json_text(&j, NULL), "null");
		json_free(&j);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_key_escaping),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
