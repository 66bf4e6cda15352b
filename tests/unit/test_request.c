/*
 * test_request.c -- the window test's requests (prober/request.c): the
 * exact GET, what a host or contact may not smuggle in, and a ClientHello
 * taken apart field by field as a TLS server would; --payload files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "request.h"
#include "version.h"

static void
check_http(const char *host, const char *contact, const char *want)
{
	uint8_t buf[REQUEST_MAX];
	size_t n = request_http(buf, sizeof(buf), host, contact);

	assert_int_equal(n, strlen(want));
	assert_memory_equal(buf, want, n);
	/* every shorter buffer is refused whole, never truncated */
	for (size_t cap = 0; cap < n; cap++)
		assert_int_equal(request_http(buf, cap, host, contact), 0);
	assert_int_equal(request_http(buf, n, host, contact), n);
}

static void
test_http_exact(void **state)
{
	(void)state;
	check_http("srv.lab", NULL,
	    "GET / HTTP/1.1\r\nHost: srv.lab\r\n"
	    "User-Agent: scaleprobe/" SCALEPROBE_VERSION " (TCP window scale path measurement)\r\n"
	    "Accept: */*\r\nConnection: close\r\n\r\n");
	check_http("198.18.1.10", "",
	    "GET / HTTP/1.1\r\nHost: 198.18.1.10\r\n"
	    "User-Agent: scaleprobe/" SCALEPROBE_VERSION " (TCP window scale path measurement)\r\n"
	    "Accept: */*\r\nConnection: close\r\n\r\n");
	check_http("fd00:1::10", "https://example.net/scaleprobe",
	    "GET / HTTP/1.1\r\nHost: [fd00:1::10]\r\n"
	    "User-Agent: scaleprobe/" SCALEPROBE_VERSION " (TCP window scale path measurement; "
	    "+https://example.net/scaleprobe)\r\n"
	    "Accept: */*\r\nConnection: close\r\n\r\n");
	check_http("[fd00:1::10]", "mailto:noc@example.net",
	    "GET / HTTP/1.1\r\nHost: [fd00:1::10]\r\n"
	    "User-Agent: scaleprobe/" SCALEPROBE_VERSION " (TCP window scale path measurement; "
	    "+mailto:noc@example.net)\r\nFrom: noc@example.net\r\n"
	    "Accept: */*\r\nConnection: close\r\n\r\n");
}

static void
test_http_refused(void **state)
{
	static const char *bad_hosts[] = {
		"", "a b", "srv.lab\r\nX-Evil: 1", "srv\n", "tab\there", "caf\xc3\xa9",
		"\x7f",
	};
	static const char *bad_contacts[] = {
		"https://x/\r\nX: y", "a b", "(+x)", "x)", "back\\slash", "\x01",
	};
	uint8_t buf[REQUEST_MAX];
	char longname[REQUEST_NAME_MAX + 4];

	(void)state;
	for (size_t i = 0; i < sizeof(bad_hosts) / sizeof(bad_hosts[0]); i++)
		assert_int_equal(request_http(buf, sizeof(buf), bad_hosts[i], NULL), 0);
	assert_int_equal(request_http(buf, sizeof(buf), NULL, NULL), 0);
	for (size_t i = 0; i < sizeof(bad_contacts) / sizeof(bad_contacts[0]); i++)
		assert_int_equal(request_http(buf, sizeof(buf), "srv.lab",
		    bad_contacts[i]), 0);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(request_http(buf, sizeof(buf), longname, NULL), 0);
	longname[REQUEST_NAME_MAX] = '\0';
	assert_true(request_http(buf, sizeof(buf), longname, NULL) > 0);
}

/* --- TLS ---------------------------------------------------------------- */

static unsigned
be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

struct hello {
	size_t len;
	const uint8_t *random, *sid;
	size_t nsuites;
	const uint8_t *suites;
	int next;
	unsigned ext_type[32];
	const uint8_t *ext_data[32];
	unsigned ext_len[32];
	size_t hs_len;			/* the handshake message, with its header */
};

/* Takes a ClientHello record apart, checking every length on the way. */
static void
parse_hello(const uint8_t *b, size_t n, struct hello *h)
{
	size_t o, end;

	memset(h, 0, sizeof(*h));
	assert_true(n > 5 + 4 + 2 + 32 + 1);
	assert_int_equal(b[0], 0x16);
	assert_int_equal(be16(b + 1), 0x0301);
	assert_int_equal(be16(b + 3), n - 5);
	assert_int_equal(b[5], 0x01);
	assert_int_equal((size_t)b[6] << 16 | (size_t)be16(b + 7), n - 9);
	h->hs_len = n - 5;
	assert_int_equal(be16(b + 9), 0x0303);
	h->random = b + 11;
	assert_int_equal(b[43], 32);
	h->sid = b + 44;
	o = 76;
	h->nsuites = be16(b + o) / 2;
	assert_int_equal(be16(b + o) % 2, 0);
	h->suites = b + o + 2;
	o += 2 + 2 * h->nsuites;
	assert_int_equal(b[o], 1);
	assert_int_equal(b[o + 1], 0);
	o += 2;
	end = o + 2 + be16(b + o);
	assert_int_equal(end, n);
	for (o += 2; o < end; ) {
		assert_true(o + 4 <= end);
		assert_true(h->next < 32);
		h->ext_type[h->next] = be16(b + o);
		h->ext_len[h->next] = be16(b + o + 2);
		h->ext_data[h->next] = b + o + 4;
		o += 4 + h->ext_len[h->next];
		assert_true(o <= end);
		h->next++;
	}
	h->len = n;
}

static int
find_ext(const struct hello *h, unsigned type)
{
	int found = -1;

	for (int i = 0; i < h->next; i++) {
		if (h->ext_type[i] == type) {
			assert_int_equal(found, -1);	/* never twice */
			found = i;
		}
	}
	return found;
}

static void
test_tls_structure(void **state)
{
	uint8_t buf[REQUEST_MAX];
	struct hello h;
	size_t n;
	int i;
	const uint8_t *d;
	bool tls13 = false, x25519 = false;

	(void)state;
	n = request_tls(buf, sizeof(buf), "srv.lab.", 42);
	parse_hello(buf, n, &h);
	for (size_t k = 0; k < h.nsuites; k++)
		if (be16(h.suites + 2 * k) == 0x1301)
			tls13 = true;
	assert_true(tls13);
	assert_true(h.nsuites >= 10);
	/* server_name: srv.lab without the dot */
	assert_true((i = find_ext(&h, 0x0000)) >= 0);
	d = h.ext_data[i];
	assert_int_equal(h.ext_len[i], 2 + 3 + 7);
	assert_int_equal(be16(d), 3 + 7);
	assert_int_equal(d[2], 0);
	assert_int_equal(be16(d + 3), 7);
	assert_memory_equal(d + 5, "srv.lab", 7);
	/* supported_versions offers 1.3 and 1.2 */
	assert_true((i = find_ext(&h, 0x002b)) >= 0);
	d = h.ext_data[i];
	assert_int_equal(h.ext_len[i], 5);
	assert_int_equal(d[0], 4);
	assert_int_equal(be16(d + 1), 0x0304);
	assert_int_equal(be16(d + 3), 0x0303);
	/* supported_groups names x25519, and key_share holds one */
	assert_true((i = find_ext(&h, 0x000a)) >= 0);
	d = h.ext_data[i];
	assert_int_equal(be16(d), h.ext_len[i] - 2);
	for (unsigned k = 0; k < be16(d) / 2; k++)
		if (be16(d + 2 + 2 * k) == 0x001d)
			x25519 = true;
	assert_true(x25519);
	assert_true((i = find_ext(&h, 0x0033)) >= 0);
	d = h.ext_data[i];
	assert_int_equal(h.ext_len[i], 2 + 4 + 32);
	assert_int_equal(be16(d), 36);
	assert_int_equal(be16(d + 2), 0x001d);
	assert_int_equal(be16(d + 4), 32);
	assert_int_equal(d[6 + 31] & 0x80, 0);
	/* signature_algorithms, ALPN http/1.1, the rest */
	assert_true((i = find_ext(&h, 0x000d)) >= 0);
	assert_int_equal(be16(h.ext_data[i]), h.ext_len[i] - 2);
	assert_true(be16(h.ext_data[i]) >= 16);
	assert_true((i = find_ext(&h, 0x0010)) >= 0);
	assert_int_equal(h.ext_len[i], 2 + 1 + 8);
	assert_memory_equal(h.ext_data[i], "\x00\x09\x08http/1.1", 11);
	assert_true(find_ext(&h, 0x002d) >= 0);
	assert_true(find_ext(&h, 0x0017) >= 0);
	assert_true(find_ext(&h, 0xff01) >= 0);
	assert_true(find_ext(&h, 0x000b) >= 0);
	/* a cut buffer is refused whole */
	for (size_t cap = 0; cap < n; cap++)
		assert_int_equal(request_tls(buf, cap, "srv.lab.", 42), 0);
}

/* SNI for names only: none for address literals or nothing; junk is
 * refused; the hello is never 256..511 bytes long (RFC 7685). */
static void
test_tls_sni_and_padding(void **state)
{
	uint8_t buf[REQUEST_MAX];
	char name[REQUEST_NAME_MAX + 2];
	struct hello h;
	size_t n;

	(void)state;
	static const char *nosni[] = { NULL, "", "198.18.1.10", "fd00:1::10" };
	for (size_t i = 0; i < sizeof(nosni) / sizeof(nosni[0]); i++) {
		n = request_tls(buf, sizeof(buf), nosni[i], 7);
		parse_hello(buf, n, &h);
		assert_int_equal(find_ext(&h, 0x0000), -1);
	}
	static const char *bad[] = { "a b", "x\r\ny", "caf\xc3\xa9", ".", "[fd00::1]" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(request_tls(buf, sizeof(buf), bad[i], 7), 0);
	for (size_t len = 1; len <= REQUEST_NAME_MAX; len++) {
		memset(name, 'a', len);
		name[len] = '\0';
		n = request_tls(buf, sizeof(buf), name, 7);
		parse_hello(buf, n, &h);
		assert_true(h.hs_len < 256 || h.hs_len >= 512);
		assert_true(find_ext(&h, 0x0000) >= 0);
		if (h.hs_len <= 512)
			assert_int_equal(h.hs_len, 512);	/* padded exactly */
	}
	memset(name, 'a', REQUEST_NAME_MAX + 1);
	name[REQUEST_NAME_MAX + 1] = '\0';
	assert_int_equal(request_tls(buf, sizeof(buf), name, 7), 0);
}

/* The same seed gives the same bytes; another seed another random,
 * session id and key share, and nothing else changes. */
static void
test_tls_seed(void **state)
{
	uint8_t a[REQUEST_MAX], b[REQUEST_MAX];
	struct hello ha, hb;
	size_t na, nb, differ = 0;

	(void)state;
	na = request_tls(a, sizeof(a), "srv.lab", 1);
	nb = request_tls(b, sizeof(b), "srv.lab", 1);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	nb = request_tls(b, sizeof(b), "srv.lab", 2);
	assert_int_equal(na, nb);
	parse_hello(a, na, &ha);
	parse_hello(b, nb, &hb);
	assert_memory_not_equal(ha.random, hb.random, 32);
	assert_memory_not_equal(ha.sid, hb.sid, 32);
	assert_memory_not_equal(ha.random, ha.sid, 32);
	for (size_t i = 0; i < na; i++)
		differ += a[i] != b[i];
	assert_true(differ <= 96);
	assert_true(differ > 80);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_exact),
		cmocka_unit_test(test_http_refused),
		cmocka_unit_test(test_tls_structure),
		cmocka_unit_test(test_tls_sni_and_padding),
		cmocka_unit_test(test_tls_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
