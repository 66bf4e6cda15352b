/*
 * test_target_stream.c -- a target list read as a stream (target_stream.h)
 * and the compact set of what went out (addrset.h), as tables: each input
 * fed in pieces of several sizes must give the same entries and the same
 * file:line errors (CRLF, NUL bytes, comments, a last line without its
 * newline, lines at and past the bound, a 10 MB line, ports); the set
 * exact for IPv4 (a duplicate far apart found, no other pair taken for
 * one), and for IPv6 by its keyed hash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "addrset.h"
#include "target_stream.h"

/* The bytes a read callback hands out, at most piece at a time. */
struct feed {
	const char *p;
	size_t len, off, piece;
	size_t reads;
	size_t fail_at;		/* fail the read once off reaches it; 0: never */
};

static long
feed_read(void *arg, char *buf, size_t cap)
{
	struct feed *f = arg;
	size_t n = f->len - f->off;

	f->reads++;
	if (f->fail_at > 0 && f->off >= f->fail_at)
		return -1;
	if (n > cap)
		n = cap;
	if (n > f->piece)
		n = f->piece;
	memcpy(buf, f->p + f->off, n);
	f->off += n;
	return (long)n;
}

/* Reads the whole input through s in fills of max entries; the entries as
 * "TEXT@PORT ..." and the error lines into out/err. */
static int
read_all(const char *p, size_t len, size_t piece, size_t max, const uint16_t *ports,
    int nports, char *out, size_t outlen, char *err, size_t errlen)
{
	struct feed f = { p, len, 0, piece, 0, 0 };
	struct tstream s;
	struct targets t;
	size_t o = 0;
	int rc, fills = 0;

	out[0] = '\0';
	targets_init(&t);
	tstream_init(&s, "f", feed_read, &f, false, ports, nports);
	do {
		size_t before = t.n;

		rc = tstream_fill(&s, &t, max);
		/* a fill stops at a line's end: never more than a line over */
		assert_true(t.n - before <= max + (size_t)nports);
		fills++;
	} while (rc == 1 && fills < 100000);
	for (size_t i = 0; i < t.n; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%s%s@%u", o ? " " : "",
		    t.v[i].as_given, t.v[i].port);
	snprintf(err, errlen, "%s", strbuf_str(&t.errors));
	targets_free(&t);
	tstream_free(&s);
	return rc;
}

struct stream_case {
	const char *what;
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int nports;		/* of 80, 443 */
	const char *entries;
	const char *errors;
};

#define NUL_LINE "198.18.0.1\n198.18.0\0.2\n198.18.0.3\n"

static const struct stream_case stream_cases[] = {
	{ "plain lines", "198.18.0.1\n198.18.0.2\n", 0, 1,
	    "198.18.0.1@80 198.18.0.2@80", "" },
	{ "CRLF endings", "198.18.0.1\r\n198.18.0.2:8080\r\n", 0, 1,
	    "198.18.0.1@80 198.18.0.2:8080@8080", "" },
	{ "no newline at the end", "198.18.0.1\n198.18.0.9", 0, 1,
	    "198.18.0.1@80 198.18.0.9@80", "" },
	{ "comments and blank lines", "# list\n\n  198.18.0.1  # one\n\t\n", 0, 1,
	    "198.18.0.1@80", "" },
	{ "a NUL byte: that line refused, by number", NUL_LINE, sizeof(NUL_LINE) - 1, 1,
	    "198.18.0.1@80 198.18.0.3@80", "f:2: 198.18.0\\x00.2: NUL byte in target\n" },
	{ "two targets on a line", "198.18.0.1 198.18.0.2\n198.18.0.3\n", 0, 1,
	    "198.18.0.3@80",
	    "f:1: 198.18.0.1: expected one target per line, found more text after it\n" },
	{ "each port, a named port once", "198.18.0.1\n198.18.0.2:22\nex.example\n", 0, 2,
	    "198.18.0.1@80 198.18.0.1@443 198.18.0.2:22@22 ex.example@80 ex.example@443", "" },
	{ "empty input", "", 0, 1, "", "" },
	{ "only a newline", "\n", 0, 1, "", "" },
};

static void
test_stream_table(void **state)
{
	static const uint16_t ports[] = { 80, 443 };
	static const size_t pieces[] = { 1, 2, 3, 7, 64, 65536 };
	static const size_t maxes[] = { 1, 2, 1000 };
	char out[4096], err[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(stream_cases) / sizeof(stream_cases[0]); i++) {
		const struct stream_case *c = &stream_cases[i];
		size_t len = c->len ? c->len : strlen(c->in);

		for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++)
			for (size_t m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
				int rc = read_all(c->in, len, pieces[k], maxes[m], ports,
				    c->nports, out, sizeof(out), err, sizeof(err));

				if (strcmp(out, c->entries) != 0 || strcmp(err, c->errors) != 0 ||
				    rc != 0)
					fail_msg("%s (pieces of %zu, fills of %zu): rc %d, "
					    "entries \"%s\" errors \"%s\"", c->what, pieces[k],
					    maxes[m], rc, out, err);
			}
	}
}

/* A line of exactly len bytes: a target, spaces, a comment. */
static char *
line_of(size_t len, const char *target)
{
	char *p = malloc(len + 1);
	size_t n = strlen(target);

	assert_non_null(p);
	memset(p, 'x', len);
	memcpy(p, target, n);
	memcpy(p + n, " #", 2);
	p[len] = '\0';
	return p;
}

/* The bound: a line of TSTREAM_LINE_MAX bytes is read, one byte more is
 * an error naming its line, and so is a 10 MB line, held nowhere; the
 * lines around them are read. */
static void
test_long_lines(void **state)
{
	static const uint16_t port80[] = { 80 };
	static const size_t longs[] = { TSTREAM_LINE_MAX + 1, TSTREAM_BUF, TSTREAM_BUF + 1,
	    10u << 20 };
	char out[4096], err[4096];
	char *at = line_of(TSTREAM_LINE_MAX, "198.18.0.5");
	char *in;
	size_t len;

	(void)state;
	len = strlen(at) + 32;
	in = malloc(len);
	assert_non_null(in);
	len = (size_t)snprintf(in, len, "198.18.0.1\n%s\n198.18.0.2\n", at);
	assert_int_equal(read_all(in, len, 4096, 1000, port80, 1, out, sizeof(out), err,
	    sizeof(err)), 0);
	assert_string_equal(out, "198.18.0.1@80 198.18.0.5@80 198.18.0.2@80");
	assert_string_equal(err, "");
	free(in);
	free(at);

	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		char *big = line_of(longs[i], "198.18.0.7");
		size_t cap = longs[i] + 64;
		char want[128];

		for (int last = 0; last < 2; last++) {
			in = malloc(cap);
			assert_non_null(in);
			/* last: the long line ends the file, no newline */
			len = (size_t)snprintf(in, cap, last ? "198.18.0.1\n198.18.0.2\n%s" :
			    "198.18.0.1\n%s\n198.18.0.2\n", big);
			assert_int_equal(read_all(in, len, 65536, 1000, port80, 1, out,
			    sizeof(out), err, sizeof(err)), 0);
			assert_string_equal(out, "198.18.0.1@80 198.18.0.2@80");
			snprintf(want, sizeof(want), "f:%d: line longer than %d bytes\n",
			    last ? 3 : 2, TSTREAM_LINE_MAX);
			assert_string_equal(err, want);
			free(in);
		}
		free(big);
	}
}

/* A read that fails is one error naming the file; what came before it
 * stays read, and the next fill fails again rather than reading on. */
static void
test_read_error(void **state)
{
	static const uint16_t port80[] = { 80 };
	const char *in = "198.18.0.1\n198.18.0.2\n";
	struct feed f = { in, strlen(in), 0, 11, 0, 11 };
	struct tstream s;
	struct targets t;

	(void)state;
	targets_init(&t);
	tstream_init(&s, "f", feed_read, &f, false, port80, 1);
	assert_int_equal(tstream_fill(&s, &t, 100), -1);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.nerrors, 1);
	assert_non_null(strstr(strbuf_str(&t.errors), "f: "));
	assert_int_equal(tstream_fill(&s, &t, 100), -1);
	targets_free(&t);
	tstream_free(&s);
}

/* Fills of max entries stop at max (a line's ports together) and go on
 * where they stopped: 10,000 lines in fills of 999 are 10,000 entries in
 * order, whatever the piece size. */
static void
test_fills_resume(void **state)
{
	static const uint16_t port80[] = { 80 };
	size_t cap = 10000 * 20, len = 0;
	char *in = malloc(cap);
	struct feed f;
	struct tstream s;
	struct targets t;
	size_t fills = 0;
	int rc;

	(void)state;
	assert_non_null(in);
	for (unsigned i = 0; i < 10000; i++)
		len += (size_t)snprintf(in + len, cap - len, "198.18.%u.%u\n", i >> 8, i & 255);
	f = (struct feed){ in, len, 0, 333, 0, 0 };
	targets_init(&t);
	tstream_init(&s, "f", feed_read, &f, false, port80, 1);
	do {
		size_t before = t.n;

		rc = tstream_fill(&s, &t, 999);
		assert_true(t.n - before == 999 || rc == 0);
		fills++;
	} while (rc == 1);
	assert_int_equal(t.n, 10000);
	assert_int_equal(fills, 11);
	for (unsigned i = 0; i < 10000; i += 997) {
		char want[32];

		snprintf(want, sizeof(want), "198.18.%u.%u", i >> 8, i & 255);
		assert_string_equal(t.v[i].as_given, want);
		assert_int_equal(t.v[i].line, i + 1);
	}
	targets_free(&t);
	tstream_free(&s);
	free(in);
}

static const uint8_t key[SIPHASH_KEY_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16 };

static struct addr
v4(uint32_t x)
{
	struct addr a = { ADDR_V4, { 0 } };

	a.bytes[0] = (uint8_t)(x >> 24);
	a.bytes[1] = (uint8_t)(x >> 16);
	a.bytes[2] = (uint8_t)(x >> 8);
	a.bytes[3] = (uint8_t)x;
	return a;
}

struct set_case {
	const char *a;
	uint16_t port;
	bool added;		/* new to the set */
};

/* In order: the same address on another port is another pair; the same
 * pair again, however late, is not new; the families do not mix. */
static const struct set_case set_cases[] = {
	{ "198.18.0.1", 80, true },
	{ "198.18.0.1", 443, true },
	{ "198.18.0.2", 80, true },
	{ "198.18.0.1", 80, false },
	{ "0.0.0.0", 0, true },
	{ "255.255.255.255", 65535, true },
	{ "0.0.0.0", 0, false },
	{ "fd00::1", 80, true },
	{ "fd00::1", 81, true },
	{ "fd00::1", 80, false },
	{ "::ffff:198.18.0.1", 80, true },	/* an IPv6 address, not the IPv4 one */
	{ "255.255.255.255", 65535, false },
};

static void
test_set_table(void **state)
{
	struct addrset s;

	(void)state;
	addrset_init(&s, key);
	assert_false(addrset_has(&s, &(struct addr){ ADDR_V4, { 198, 18, 0, 1 } }, 80));
	for (size_t i = 0; i < sizeof(set_cases) / sizeof(set_cases[0]); i++) {
		struct addr a;

		assert_int_equal(addr_parse(set_cases[i].a, &a), 0);
		if (addrset_add(&s, &a, set_cases[i].port) != set_cases[i].added)
			fail_msg("case %zu: %s port %u: added %d", i, set_cases[i].a,
			    set_cases[i].port, !set_cases[i].added);
		assert_true(addrset_has(&s, &a, set_cases[i].port));
	}
	assert_int_equal(s.n, 8);
	addrset_free(&s);
}

/* Exact for IPv4: 2^18 pairs (a /16 on four ports, in an order that
 * scatters them) all new, each found, none of the pairs next to them
 * (the next port, the /16 beside) taken for one; then each again, far
 * from where it was first, refused; the memory under 6 bytes a pair (4
 * and the array's slack) plus the index and the stage. */
static void
test_set_far_duplicates(void **state)
{
	static const uint16_t ports[] = { 80, 443, 8080, 1 };
	const uint32_t base = (198u << 24) | (19u << 16), n = 1u << 18;
	struct addrset s;

	(void)state;
	addrset_init(&s, key);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = (i * 40503u) & (n - 1);	/* odd: a permutation */
		struct addr a = v4(base + (k >> 2));

		assert_true(addrset_add(&s, &a, ports[k & 3]));
	}
	assert_int_equal(s.n, n);
	for (uint32_t i = 0; i < n; i++) {
		struct addr a = v4(base + (i >> 2)), other = v4(base + 65536 + (i >> 2));

		assert_true(addrset_has(&s, &a, ports[i & 3]));
		assert_false(addrset_has(&s, &a, 2));
		assert_false(addrset_has(&s, &other, ports[i & 3]));
		assert_false(addrset_add(&s, &a, ports[i & 3]));
	}
	assert_int_equal(s.n, n);
	addrset_flush(&s);
	assert_true(s.bytes <= (size_t)n * 6 + (ADDRSET_BUCKETS + 1) * 4 + ADDRSET_STAGE * 8);
	addrset_free(&s);
}

/* IPv6: 65,536 addresses of a /112 on one port, each found, the next
 * port not. */
static void
test_set_v6(void **state)
{
	struct addrset s;
	struct addr a;

	(void)state;
	addrset_init(&s, key);
	assert_int_equal(addr_parse("fd00:5ca1:19::", &a), 0);
	for (unsigned i = 0; i < 65536; i++) {
		a.bytes[14] = (uint8_t)(i >> 8);
		a.bytes[15] = (uint8_t)i;
		assert_true(addrset_add(&s, &a, 80));
	}
	for (unsigned i = 0; i < 65536; i++) {
		a.bytes[14] = (uint8_t)(i >> 8);
		a.bytes[15] = (uint8_t)i;
		assert_true(addrset_has(&s, &a, 80));
		assert_false(addrset_has(&s, &a, 81));
	}
	assert_int_equal(s.n, 65536);
	addrset_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_table),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_fills_resume),
		cmocka_unit_test(test_set_table),
		cmocka_unit_test(test_set_far_duplicates),
		cmocka_unit_test(test_set_v6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
