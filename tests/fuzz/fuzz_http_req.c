/*
 * fuzz_http_req.c -- libFuzzer harness for /metrics' request handling
 * (http_req_parse, http_reply_head).  Input: byte 0 picks the size limit
 * (0: HTTP_REQ_MAX, else 1 to 255 bytes, so the limit is reached often),
 * the rest is what a client sent, copied to a buffer of its exact size.
 * Beyond "no crash", it checks what the server relies on:
 *   - the verdict is one of the enum's;
 *   - fed byte by byte, the first verdict other than "more" is the one
 *     the whole input gets (the server decides as bytes arrive);
 *   - "more" only below the limit, so a client cannot keep a buffer full;
 *   - GET /metrics only for a head that starts so;
 *   - each verdict's reply head is "HTTP/1.0 ", printable, CRLF-ended,
 *     and names the body's length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_req.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void
check_head(enum http_req r, size_t body)
{
	char out[256], cl[64];
	size_t n = http_reply_head(r, body, out, sizeof(out));

	CHECK(n > 0 && n == strlen(out));
	CHECK(strncmp(out, "HTTP/1.0 ", 9) == 0);
	CHECK(n >= 4 && memcmp(out + n - 4, "\r\n\r\n", 4) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK((out[i] >= 0x20 && out[i] < 0x7f) || out[i] == '\r' || out[i] == '\n');
	snprintf(cl, sizeof(cl), "\r\nContent-Length: %zu\r\n", body);
	CHECK(strstr(out, cl) != NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max, len, k, lead;
	enum http_req whole, first = HTTP_REQ_MORE;
	char *buf;

	if (size < 1)
		return 0;
	max = data[0] == 0 ? HTTP_REQ_MAX : data[0];
	len = size - 1;
	buf = malloc(len > 0 ? len : 1);
	memcpy(buf, data + 1, len);
	whole = http_req_parse(buf, len, max);
	CHECK(whole >= HTTP_REQ_MORE && whole <= HTTP_REQ_TOO_LARGE);
	if (whole == HTTP_REQ_MORE)
		CHECK(len < max);
	if (whole == HTTP_REQ_METRICS) {
		for (lead = 0; lead < len && (buf[lead] == '\r' || buf[lead] == '\n'); lead++)
			;
		CHECK(len - lead >= 13 && memcmp(buf + lead, "GET /metrics", 12) == 0 &&
		    (buf[lead + 12] == ' ' || buf[lead + 12] == '?'));
	}
	/* as the server sees it: growing prefixes, the first verdict kept */
	for (k = 0; k <= len && k <= max; k++) {
		enum http_req r = http_req_parse(buf, k, max);

		if (r != HTTP_REQ_MORE) {
			first = r;
			break;
		}
	}
	CHECK(first == whole);
	if (whole != HTTP_REQ_MORE)
		check_head(whole, len);
	free(buf);
	return 0;
}
