/*
 * test_http_req.c -- the metrics endpoint's request handling
 * (prober/daemon/http_req.c): a table of requests and what each asks
 * for, every prefix of a request still waiting, the verdict unchanged by
 * what follows the head, the size limit, and the replies' heads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "http_req.h"

struct row {
	const char *in;
	enum http_req want;
};

#define ROW(s, w) { s, w }

static const struct row rows[] = {
	/* what scrapers send */
	ROW("GET /metrics HTTP/1.1\r\nHost: 198.18.0.1:9464\r\nUser-Agent: Prometheus/2.45\r\n"
	    "Accept: text/plain\r\n\r\n", HTTP_REQ_METRICS),
	ROW("GET /metrics HTTP/1.0\r\n\r\n", HTTP_REQ_METRICS),
	ROW("GET /metrics HTTP/1.0\n\n", HTTP_REQ_METRICS),
	ROW("GET /metrics?name[]=x HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_REQ_METRICS),
	ROW("\r\nGET /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_METRICS),
	ROW("GET /metrics HTTP/1.1\r\nX-Tab:\ta\r\n\r\n", HTTP_REQ_METRICS),
	/* not complete yet */
	ROW("", HTTP_REQ_MORE),
	ROW("GET /metrics HTTP/1.1\r\n", HTTP_REQ_MORE),
	ROW("GET /metrics HTTP/1.1\r\nHost: a\r\n\r", HTTP_REQ_MORE),
	ROW("\r\n\r\n", HTTP_REQ_MORE),
	/* other paths and methods */
	ROW("GET / HTTP/1.1\r\n\r\n", HTTP_REQ_NOT_FOUND),
	ROW("GET /metricsx HTTP/1.1\r\n\r\n", HTTP_REQ_NOT_FOUND),
	ROW("GET /metric HTTP/1.1\r\n\r\n", HTTP_REQ_NOT_FOUND),
	ROW("GET /metrics/ HTTP/1.1\r\n\r\n", HTTP_REQ_NOT_FOUND),
	ROW("GET http://a/metrics HTTP/1.1\r\n\r\n", HTTP_REQ_NOT_FOUND),
	ROW("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", HTTP_REQ_METHOD),
	ROW("HEAD /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_METHOD),
	ROW("get /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_METHOD),
	ROW("GETX /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_METHOD),
	/* not HTTP/1.x */
	ROW("GET /metrics\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics HTTP/2.0\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics HTTP/1.10\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics HTTP/1.2\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET  /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics  HTTP/1.1\r\n\r\n", HTTP_REQ_BAD),
	ROW(" GET /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET\t/metrics HTTP/1.1\r\n\r\n", HTTP_REQ_BAD),
	ROW("\r\n\r\n\r\nGET /metrics HTTP/1.1\r\n\r\n", HTTP_REQ_BAD),
	ROW("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", HTTP_REQ_BAD),
	/* control bytes: refused before the head ends, and a bare CR */
	ROW("GET /met\x01rics HTTP/1.1\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics HTTP/1.1\r\nX: \x7f\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics HTTP/1.1\rX: a\r\n\r\n", HTTP_REQ_BAD),
	ROW("GET /metrics HTTP/1.1\r\nX: \x1b[2J\r\n\r\n", HTTP_REQ_BAD),
	/* what follows the head is not the request's */
	ROW("GET /metrics HTTP/1.1\r\n\r\n\x01\x02", HTTP_REQ_METRICS),
};

static void
test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum http_req got = http_req_parse(rows[i].in, strlen(rows[i].in), HTTP_REQ_MAX);

		if (got != rows[i].want)
			fail_msg("row %zu \"%s\": got %d, want %d", i, rows[i].in, got, rows[i].want);
	}
	/* a NUL byte, which strlen would hide */
	assert_int_equal(http_req_parse("GET /metrics\0 HTTP/1.1\r\n\r\n", 26, HTTP_REQ_MAX),
	    HTTP_REQ_BAD);
}

/* Every strict prefix of a complete request waits (or is already refused
 * for good); the verdict once given stays as bytes are added. */
static void
test_prefixes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *in = rows[i].in;
		size_t n = strlen(in);
		enum http_req first = HTTP_REQ_MORE;

		for (size_t k = 0; k <= n; k++) {
			enum http_req got = http_req_parse(in, k, HTTP_REQ_MAX);

			if (first != HTTP_REQ_MORE && got != first)
				fail_msg("row %zu: %d at %zu bytes after %d", i, got, k, first);
			if (first == HTTP_REQ_MORE)
				first = got;
		}
		assert_int_equal(first, rows[i].want);
	}
}

/* Headers that never end: 431 at max bytes, not a byte later; a head
 * that ends at max bytes exactly is served. */
static void
test_limit(void **state)
{
	char *buf = malloc(HTTP_REQ_MAX + 64);
	const char *line = "GET /metrics HTTP/1.1\r\n";
	size_t n = strlen(line), k;

	(void)state;
	memcpy(buf, line, n);
	for (k = n; k < HTTP_REQ_MAX + 64; k++)
		buf[k] = (k - n) % 40 == 39 ? '\n' : 'a';
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX - 1, HTTP_REQ_MAX), HTTP_REQ_MORE);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX, HTTP_REQ_MAX), HTTP_REQ_TOO_LARGE);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX + 64, HTTP_REQ_MAX), HTTP_REQ_TOO_LARGE);
	assert_int_equal(http_req_parse(buf, 100, 100), HTTP_REQ_TOO_LARGE);
	memcpy(buf + HTTP_REQ_MAX - 4, "\r\n\r\n", 4);
	assert_int_equal(http_req_parse(buf, HTTP_REQ_MAX, HTTP_REQ_MAX), HTTP_REQ_METRICS);
	free(buf);
}

static void
test_reply_head(void **state)
{
	char out[256];
	size_t n;

	(void)state;
	n = http_reply_head(HTTP_REQ_METRICS, 2133, out, sizeof(out));
	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "HTTP/1.0 200 OK\r\n"
	    "Content-Type: text/plain; version=0.0.4\r\n"
	    "Content-Length: 2133\r\nConnection: close\r\n\r\n");
	http_reply_head(HTTP_REQ_METHOD, 0, out, sizeof(out));
	assert_string_equal(out, "HTTP/1.0 405 Method Not Allowed\r\nAllow: GET\r\n"
	    "Content-Length: 0\r\nConnection: close\r\n\r\n");
	http_reply_head(HTTP_REQ_NOT_FOUND, 0, out, sizeof(out));
	assert_string_equal(out, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n"
	    "Connection: close\r\n\r\n");
	http_reply_head(HTTP_REQ_TOO_LARGE, 0, out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.0 431 ", 13) == 0);
	http_reply_head(HTTP_REQ_BAD, 0, out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.0 400 ", 13) == 0);
	/* too small a buffer: 0 and an empty string, never a cut head */
	assert_int_equal(http_reply_head(HTTP_REQ_METRICS, 1, out, 20), 0);
	assert_string_equal(out, "");
	assert_int_equal(http_reply_head(HTTP_REQ_METRICS, 1, out, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_reply_head),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
