/*
 * test_cookie.c -- the ISN layout (hash input bytes, TTL in the low bits)
 * and every validator, for what it must accept and what it must refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cookie.h"

static struct cookie_key key;
static struct addr us4, them4, other4, us6, them6;

static int
setup(void **state)
{
	uint8_t k[16];

	(void)state;
	for (int i = 0; i < 16; i++)
		k[i] = (uint8_t)(0xa0 + i);
	cookie_key_init(&key, k);
	assert_int_equal(addr_parse("198.18.0.1", &us4), 0);
	assert_int_equal(addr_parse("198.18.1.10", &them4), 0);
	assert_int_equal(addr_parse("198.18.1.11", &other4), 0);
	assert_int_equal(addr_parse("fd00::1", &us6), 0);
	assert_int_equal(addr_parse("fd00:1::10", &them6), 0);
	return 0;
}

/* The documented layout, built by hand: family, src, dst, sport, dport. */
static uint32_t
expected_isn(const struct addr *src, const struct addr *dst, uint16_t sport,
    uint16_t dport, unsigned ttl)
{
	uint8_t msg[37];
	size_t alen = src->family == ADDR_V4 ? 4 : 16, o = 0;

	msg[o++] = src->family;
	memcpy(msg + o, src->bytes, alen);
	o += alen;
	memcpy(msg + o, dst->bytes, alen);
	o += alen;
	msg[o++] = (uint8_t)(sport >> 8);
	msg[o++] = (uint8_t)(sport & 0xff);
	msg[o++] = (uint8_t)(dport >> 8);
	msg[o++] = (uint8_t)(dport & 0xff);
	return ((uint32_t)siphash24(key.bytes, msg, o) & ~0x1fu) | ttl;
}

static void
test_isn_layout(void **state)
{
	(void)state;
	for (unsigned ttl = 0; ttl <= COOKIE_TAG_WINDOW; ttl++) {
		assert_int_equal(cookie_isn(&key, &us4, &them4, 40001, 80, ttl),
		    expected_isn(&us4, &them4, 40001, 80, ttl));
		assert_int_equal(cookie_isn(&key, &us6, &them6, 40001, 443, ttl),
		    expected_isn(&us6, &them6, 40001, 443, ttl));
		assert_int_equal(cookie_isn(&key, &us4, &them4, 40001, 80, ttl) & 0x1f, ttl);
	}
	/* bits above the TTL field are ignored */
	assert_int_equal(cookie_isn(&key, &us4, &them4, 40001, 80, 32 + 7),
	    cookie_isn(&key, &us4, &them4, 40001, 80, 7));
}

/* Each part of the tuple and of the key moves the ISN. */
static void
test_isn_inputs(void **state)
{
	uint32_t base = cookie_isn(&key, &us4, &them4, 40001, 80, 0);
	struct cookie_key k2 = key;

	(void)state;
	assert_int_not_equal(cookie_isn(&key, &us4, &other4, 40001, 80, 0), base);
	assert_int_not_equal(cookie_isn(&key, &them4, &us4, 40001, 80, 0), base);
	assert_int_not_equal(cookie_isn(&key, &us4, &them4, 40002, 80, 0), base);
	assert_int_not_equal(cookie_isn(&key, &us4, &them4, 40001, 81, 0), base);
	assert_int_not_equal(cookie_isn(&key, &us4, &them4, 80, 40001, 0), base);
	k2.bytes[15] ^= 1;
	assert_int_not_equal(cookie_isn(&k2, &us4, &them4, 40001, 80, 0), base);
}

struct synack_case {
	const char *what;
	int32_t ack_delta;	/* ack = ISN + delta */
	unsigned ttl;		/* of the probe */
	bool ok;
	int want_ttl;
};

static const struct synack_case synack_cases[] = {
	{ "ack = ISN + 1, handshake", 1, 0, true, 0 },
	{ "ack = ISN + 1, trace ttl 1", 1, 1, true, 1 },
	{ "ack = ISN + 1, trace ttl 30", 1, 30, true, 30 },
	{ "ack = ISN + 1, ttl 31 carries", 1, 31, true, 31 },
	{ "ack = ISN (no +1)", 0, 0, false, -1 },
	{ "ack = ISN + 33: past the TTL field", 33, 0, false, -1 },
	{ "ack = ISN + 1 - 32", 1 - 32, 0, false, -1 },
	{ "ack = ISN + 1 + 2^31", (int32_t)0x80000001u, 0, false, -1 },
};

static void
test_synack(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(synack_cases) / sizeof(synack_cases[0]); i++) {
		const struct synack_case *c = &synack_cases[i];
		uint32_t ack = cookie_isn(&key, &us4, &them4, 40001, 80, c->ttl) +
		    (uint32_t)c->ack_delta;
		int ttl = -1;
		bool ok = cookie_check_synack(&key, &us4, &them4, 40001, 80, ack, &ttl);

		if (ok != c->ok || (ok && ttl != c->want_ttl))
			fail_msg("%s: ok %d ttl %d", c->what, ok, ttl);
	}
}

/* A reply for another tuple, or the tuple in the reply's direction, fails. */
static void
test_synack_tuple(void **state)
{
	uint32_t ack = cookie_isn(&key, &us4, &them4, 40001, 80, 0) + 1;
	uint32_t ack6 = cookie_isn(&key, &us6, &them6, 40001, 80, 0) + 1;
	int ttl = 99;

	(void)state;
	assert_true(cookie_check_synack(&key, &us4, &them4, 40001, 80, ack, NULL));
	assert_false(cookie_check_synack(&key, &them4, &us4, 80, 40001, ack, &ttl));
	assert_false(cookie_check_synack(&key, &us4, &other4, 40001, 80, ack, &ttl));
	assert_false(cookie_check_synack(&key, &us4, &them4, 40002, 80, ack, &ttl));
	assert_false(cookie_check_synack(&key, &us4, &them4, 40001, 8080, ack, &ttl));
	assert_false(cookie_check_synack(&key, &us4, &them6, 40001, 80, ack, &ttl));
	assert_int_equal(ttl, 99);	/* untouched on failure */
	assert_true(cookie_check_synack(&key, &us6, &them6, 40001, 80, ack6, &ttl));
	assert_int_equal(ttl, 0);
	assert_false(cookie_check_synack(&key, &us6, &them6, 40001, 80, ack, NULL));
}

struct rst_case {
	const char *what;
	int32_t ack_delta;
	unsigned ttl;
	bool ack_flag;
	bool ok;
	int want_ttl;
};

static const struct rst_case rst_cases[] = {
	{ "RST-ACK ack = ISN + 1", 1, 0, true, true, 0 },
	{ "RST-ACK ack = ISN", 0, 0, true, true, 0 },
	{ "RST-ACK ack = ISN + 1, trace ttl 9", 1, 9, true, true, 9 },
	/* the two readings overlap for trace probes: ISN + 1 of ttl 8 wins */
	{ "RST-ACK ack = ISN, trace ttl 9", 0, 9, true, true, 8 },
	{ "RST-ACK ack = ISN, trace ttl 31", 0, 31, true, true, 30 },
	{ "RST without ACK, ack = ISN + 1", 1, 0, false, false, -1 },
	{ "RST-ACK ack = ISN - 1", -1, 0, true, false, -1 },
	{ "RST-ACK ack = ISN + 64", 64, 0, true, false, -1 },
};

static void
test_rst(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rst_cases) / sizeof(rst_cases[0]); i++) {
		const struct rst_case *c = &rst_cases[i];
		uint32_t ack = cookie_isn(&key, &us6, &them6, 50000, 443, c->ttl) +
		    (uint32_t)c->ack_delta;
		int ttl = -1;
		bool ok = cookie_check_rst(&key, &us6, &them6, 50000, 443, ack,
		    c->ack_flag, &ttl);

		if (ok != c->ok || (ok && ttl != c->want_ttl))
			fail_msg("%s: ok %d ttl %d", c->what, ok, ttl);
	}
	/* a RST with ack 0 and no ACK flag, the forgeable kind */
	assert_false(cookie_check_rst(&key, &us6, &them6, 50000, 443, 0, false, NULL));
}

static void
test_quote(void **state)
{
	(void)state;
	for (unsigned t = 1; t <= 30; t++) {
		uint32_t seq = cookie_isn(&key, &us4, &them4, 40003, 80, t);
		int ttl = -1;

		assert_true(cookie_check_quote(&key, &us4, &them4, 40003, 80, seq, &ttl));
		assert_int_equal(ttl, (int)t);
		/* the quote holds the probe itself: seq, not seq + 1 */
		assert_false(cookie_check_quote(&key, &us4, &them4, 40003, 80,
		    seq + 32, NULL));
		assert_false(cookie_check_quote(&key, &them4, &us4, 80, 40003, seq, NULL));
		assert_false(cookie_check_quote(&key, &us4, &them4, 40003, 81, seq, NULL));
	}
}

/* A forger without the key: of 2^16 random-looking acks, about 2^16 / 2^27
 * pass -- expect none, and exactly the 32 acks ISN+1 .. ISN+32 around the
 * real one. */
static void
test_blind_forgery(void **state)
{
	uint32_t isn = cookie_isn(&key, &us4, &them4, 40001, 80, 0);
	unsigned hits = 0;

	(void)state;
	for (uint32_t i = 0; i < 65536; i++)
		hits += cookie_check_synack(&key, &us4, &them4, 40001, 80,
		    i * 2654435761u, NULL);
	assert_int_equal(hits, 0);
	for (uint32_t d = 0; d < 100; d++)
		hits += cookie_check_synack(&key, &us4, &them4, 40001, 80,
		    isn - 50 + d, NULL);
	assert_int_equal(hits, 32);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isn_layout),
		cmocka_unit_test(test_isn_inputs),
		cmocka_unit_test(test_synack),
		cmocka_unit_test(test_synack_tuple),
		cmocka_unit_test(test_rst),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_blind_forgery),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
