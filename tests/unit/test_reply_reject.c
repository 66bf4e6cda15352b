/*
 * test_reply_reject.c -- reply_decode's defect and reply_reject_reason, a
 * table of the packets a hostile host sends (tests/lab/hostile.c makes the
 * same on the wire): every lie in a length, option or checksum named by
 * its first defect, and the packets that are merely not ours (a quote of
 * UDP, of a fragment or of 4 bytes of TCP, whatever their checksum, an
 * echo reply, an error cut after its quote) or that a server may send (a
 * data segment the snaplen cut) named by none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "pktbuild.h"
#include "reply.h"
#include "wire.h"
#include "wire_csum.h"

#define CAP 512

static struct addr us4, them4, us6, them6;

/* A SYN-ACK to our port 40000 with the given options (a multiple of 4). */
static size_t
synack(uint8_t *buf, int v6, const uint8_t *opts, size_t optlen)
{
	struct pkt_tcp t = {
		.src = v6 ? &them6 : &them4, .dst = v6 ? &us6 : &us4,
		.sport = 80, .dport = 40000, .seq = 1000, .ack = 0x12345679,
		.flags = 0x12, .window = 65535, .ttl = 60,
		.opts = opts, .optlen = optlen,
	};

	return pkt_build_tcp(buf, CAP, &t);
}

static size_t
good4(uint8_t *b)
{
	return synack(b, 0, pkt_linux_synack_opts, sizeof(pkt_linux_synack_opts));
}

static size_t
good6(uint8_t *b)
{
	return synack(b, 1, pkt_linux_synack_opts, sizeof(pkt_linux_synack_opts));
}

/* Options that lie (forged SYN-ACKs carry them): length 0, length 1, a
 * timestamp of 10 bytes in 8 of option space. */
static const uint8_t o_len0[] = { 2, 0, 5, 0xb4, 1, 1, 1, 1 };
static const uint8_t o_len1[] = { 1, 3, 1, 7 };
static const uint8_t o_past[] = { 8, 10, 0, 0, 0, 1, 1, 1 };
static const uint8_t o_len0_v6[] = { 3, 0, 7, 1 };

/* Data offset 4: shorter than a TCP header can be. */
static size_t
doff_short(uint8_t *b)
{
	size_t n = synack(b, 0, NULL, 0);

	b[20 + 12] = 4 << 4;
	return n;
}

/* Data offset 15 (60 bytes) in a whole 40-byte datagram. */
static size_t
doff_long(uint8_t *b)
{
	size_t n = synack(b, 0, NULL, 0);

	b[20 + 12] = 15 << 4;
	return n;
}

static size_t
ihl_short(uint8_t *b)
{
	size_t n = good4(b);

	b[0] = 0x44;
	return n;
}

/* IHL 15 (60) in a datagram whose total length is 40, 80 bytes on the
 * wire: the capture filter finds "ports" at 60, so it passes. */
static size_t
ihl_long(uint8_t *b)
{
	size_t n = synack(b, 0, NULL, 0);

	memset(b + n, 0, 80 - n);
	b[0] = 0x4f;
	return 80;
}

/* Total length 30: the datagram ends inside its TCP header, 40 bytes sent. */
static size_t
totlen_short(uint8_t *b)
{
	size_t n = synack(b, 0, NULL, 0);

	wire_put16(b + 2, 30);
	wire_put16(b + 10, 0);
	wire_put16(b + 10, wire_csum(b, 20));
	return n;
}

/* 30 bytes of a 40-byte datagram: the TCP header cut. */
static size_t
truncated4(uint8_t *b)
{
	synack(b, 0, NULL, 0);
	return 30;
}

/* A data segment the snaplen cut after its headers: a server's. */
static size_t
snaplen_cut(uint8_t *b)
{
	size_t n = good4(b);

	wire_put16(b + 2, 1500);
	return n;
}

/* IPv6 payload length 10 before a 20-byte TCP header. */
static size_t
plen_short6(uint8_t *b)
{
	size_t n = synack(b, 1, NULL, 0);

	wire_put16(b + 4, 10);
	return n;
}

/* IPv6 payload length 100, 12 bytes of TCP present. */
static size_t
plen_long6(uint8_t *b)
{
	synack(b, 1, NULL, 0);
	wire_put16(b + 4, 100);
	return 40 + 12;
}

/* An error (time exceeded) quoting q: v6 picks ICMPv6. */
static size_t
icmp(uint8_t *b, int v6, const uint8_t *q, size_t qlen)
{
	return pkt_build_icmp(b, CAP, v6 ? &them6 : &them4, v6 ? &us6 : &us4,
	    v6 ? 3 : 11, 0, q, qlen, 0);
}

/* Our SYN from port 40000, as a router quotes it. */
static size_t
our_syn(uint8_t *b, int v6)
{
	struct pkt_tcp t = {
		.src = v6 ? &us6 : &us4, .dst = v6 ? &them6 : &them4,
		.sport = 40000, .dport = 80, .seq = 0x12345678, .flags = 0x02,
		.window = 64240, .ttl = 1,
	};

	return pkt_build_tcp(b, CAP, &t);
}

static size_t
icmp_good(uint8_t *b)
{
	uint8_t q[CAP];

	return icmp(b, 0, q, our_syn(q, 0));
}

static size_t
icmp_garbage(uint8_t *b)
{
	uint8_t q[48];

	memset(q, 0xa5, sizeof(q));
	return icmp(b, 0, q, sizeof(q));
}

/* A quoted IPv4 header with IHL 3. */
static size_t
icmp_quote_ihl(uint8_t *b)
{
	uint8_t q[CAP];
	size_t n = our_syn(q, 0);

	q[0] = 0x43;
	return icmp(b, 0, q, n);
}

/* ICMPv6 quoting an IPv4 packet. */
static size_t
icmp6_quote_v4(uint8_t *b)
{
	uint8_t q[CAP];

	return icmp(b, 1, q, our_syn(q, 0));
}

static size_t
icmp6_good(uint8_t *b)
{
	uint8_t q[CAP];

	return icmp(b, 1, q, our_syn(q, 1));
}

/* A port unreachable quoting a UDP datagram (a DNS query): not ours. */
static size_t
icmp_udp(uint8_t *b)
{
	uint8_t q[CAP];
	size_t n = our_syn(q, 0);

	q[9] = 17;
	wire_put16(q + 10, 0);
	wire_put16(q + 10, wire_csum(q, 20));
	return pkt_build_icmp(b, CAP, &them4, &us4, 3, 3, q, n, 0);
}

/* Our SYN quoted by only its first 4 TCP bytes (the ports): no sequence
 * number to match, not ours. */
static size_t
icmp_quote_4(uint8_t *b)
{
	uint8_t q[CAP];

	our_syn(q, 0);
	return icmp(b, 0, q, 20 + 4);
}

/* Our SYN quoted as a fragment past the first (offset 8 bytes): no TCP
 * header in it, not ours. */
static size_t
icmp_quote_frag(uint8_t *b)
{
	uint8_t q[CAP];
	size_t n = our_syn(q, 0);

	wire_put16(q + 6, 1);
	wire_put16(q + 10, 0);
	wire_put16(q + 10, wire_csum(q, 20));
	return icmp(b, 0, q, n);
}

/* An echo reply: no error, not ours. */
static size_t
icmp_echo(uint8_t *b)
{
	size_t n = icmp_good(b);

	b[20] = 0;
	b[20 + 2] = b[20 + 3] = 0;
	wire_put16(b + 20 + 2, wire_csum(b + 20, n - 20));
	return n;
}

/* An error whose datagram the capture cut after the quoted ports and
 * sequence number: a snaplen shorter than the error, not a lie. */
static size_t
icmp_cut(uint8_t *b)
{
	size_t n = icmp_good(b);

	wire_put16(b + 2, (uint16_t)(n + 400));
	return 20 + 8 + 20 + 8;
}

/* An ICMP message of 4 bytes in a whole datagram. */
static size_t
icmp_short(uint8_t *b)
{
	icmp_good(b);
	wire_put16(b + 2, 24);
	wire_put16(b + 10, 0);
	wire_put16(b + 10, wire_csum(b, 20));
	return 24;
}

/* A case: a builder, or (build NULL) a SYN-ACK with opts; then the byte
 * at flip_at XORed with flip (a checksum spoiled). */
struct rcase {
	const char *name;
	size_t (*build)(uint8_t *);
	enum reply_type type;
	enum reply_reject defect;
	const uint8_t *opts;
	size_t optlen;
	int v6;
	size_t flip_at;
	uint8_t flip;
};
#define T(type, why) REPLY_T_##type, REPLY_REJECT_##why, NULL, 0, 0, 0, 0
#define OPTS(o, v6) NULL, REPLY_T_TCP, REPLY_REJECT_OPTION, o, sizeof(o), v6, 0, 0
/* the TCP checksum's, the ICMP checksum's byte in an IPv4 packet */
#define TCP_CSUM (20 + 16)
#define ICMP_CSUM (20 + 2)

static const struct rcase cases[] = {
	{ "good SYN-ACK", good4, T(TCP, NONE) },
	{ "good SYN-ACK v6", good6, T(TCP, NONE) },
	{ "option length 0", OPTS(o_len0, 0) },
	{ "option length 1", OPTS(o_len1, 0) },
	{ "option past the header", OPTS(o_past, 0) },
	{ "option length 0 v6", OPTS(o_len0_v6, 1) },
	{ "bad TCP checksum", good4, REPLY_T_TCP, REPLY_REJECT_CHECKSUM, NULL, 0, 0,
	    TCP_CSUM, 1 },
	{ "data offset 4", doff_short, T(OTHER, HEADER) },
	{ "data offset past the datagram", doff_long, T(OTHER, HEADER) },
	{ "IHL 4", ihl_short, T(OTHER, HEADER) },
	{ "IHL past the total length", ihl_long, T(OTHER, HEADER) },
	{ "total length inside TCP", totlen_short, T(OTHER, HEADER) },
	{ "cut inside TCP", truncated4, T(OTHER, TRUNCATED) },
	{ "snaplen cut after TCP", snaplen_cut, T(TCP, NONE) },
	{ "IPv6 payload length short", plen_short6, T(OTHER, HEADER) },
	{ "IPv6 payload length long", plen_long6, T(OTHER, TRUNCATED) },
	{ "ICMP quoting our SYN", icmp_good, T(ICMP, NONE) },
	{ "ICMPv6 quoting our SYN", icmp6_good, T(ICMP, NONE) },
	{ "ICMP bad checksum", icmp_good, REPLY_T_ICMP, REPLY_REJECT_CHECKSUM, NULL, 0, 0,
	    ICMP_CSUM, 0x40 },
	{ "ICMP quoting garbage", icmp_garbage, T(OTHER, BAD_QUOTE) },
	{ "ICMP quoting IHL 3", icmp_quote_ihl, T(OTHER, BAD_QUOTE) },
	{ "ICMPv6 quoting IPv4", icmp6_quote_v4, T(OTHER, BAD_QUOTE) },
	{ "ICMP quoting UDP", icmp_udp, T(OTHER, NONE) },
	/* not ours whatever its checksum: ignored, not rejected */
	{ "ICMP quoting UDP, bad checksum", icmp_udp, REPLY_T_OTHER, REPLY_REJECT_NONE, NULL,
	    0, 0, ICMP_CSUM, 0x40 },
	{ "ICMP quoting 4 bytes of TCP", icmp_quote_4, T(OTHER, NONE) },
	{ "ICMP quoting 4 bytes of TCP, bad checksum", icmp_quote_4, REPLY_T_OTHER,
	    REPLY_REJECT_NONE, NULL, 0, 0, ICMP_CSUM, 0x40 },
	{ "ICMP quoting a fragment", icmp_quote_frag, T(OTHER, NONE) },
	{ "ICMP quoting a fragment, bad checksum", icmp_quote_frag, REPLY_T_OTHER,
	    REPLY_REJECT_NONE, NULL, 0, 0, ICMP_CSUM, 0x40 },
	{ "ICMP echo reply", icmp_echo, T(OTHER, NONE) },
	{ "ICMP cut after the quote", icmp_cut, T(OTHER, NONE) },
	{ "ICMP of 4 bytes", icmp_short, T(OTHER, HEADER) },
};

/* Every row is tried, each wrong one named, before the test fails. */
static void
test_table(void **state)
{
	unsigned wrong = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[CAP];
		struct reply r;
		size_t n;

		memset(buf, 0, sizeof(buf));
		n = cases[i].build != NULL ? cases[i].build(buf) :
		    synack(buf, cases[i].v6, cases[i].opts, cases[i].optlen);
		buf[cases[i].flip_at] ^= cases[i].flip;
		assert_true(n > 0);
		if (reply_decode(buf, n, &r) != cases[i].type || r.defect != cases[i].defect) {
			print_error("%s: type %d defect %s, want type %d defect %s\n",
			    cases[i].name, r.type, reply_reject_name(r.defect), cases[i].type,
			    reply_reject_name(cases[i].defect));
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

/* The reason: the defect first, else the validation that failed. */
static void
test_reason(void **state)
{
	uint8_t buf[CAP];
	struct reply r;
	size_t n;

	(void)state;
	reply_decode(buf, good4(buf), &r);
	assert_int_equal(reply_reject_reason(&r, REPLY_REJECT_FLOW), REPLY_REJECT_FLOW);
	reply_decode(buf, synack(buf, 0, o_len1, sizeof(o_len1)), &r);
	assert_int_equal(reply_reject_reason(&r, REPLY_REJECT_FLOW), REPLY_REJECT_OPTION);
	reply_decode(buf, icmp_good(buf), &r);
	assert_int_equal(reply_reject_reason(&r, REPLY_REJECT_QUOTE), REPLY_REJECT_QUOTE);
	n = icmp_good(buf);
	buf[ICMP_CSUM] ^= 0x40;
	reply_decode(buf, n, &r);
	assert_int_equal(reply_reject_reason(&r, REPLY_REJECT_QUOTE), REPLY_REJECT_CHECKSUM);
}

/* Every reason has its own name; none names two. */
static void
test_names(void **state)
{
	(void)state;
	for (int i = 0; i < REPLY_REJECT_COUNT; i++) {
		assert_non_null(reply_reject_name((enum reply_reject)i));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(reply_reject_name((enum reply_reject)i),
			    reply_reject_name((enum reply_reject)j));
	}
	assert_string_equal(reply_reject_name(REPLY_REJECT_COUNT), "none");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_reason),
		cmocka_unit_test(test_names),
	};

	addr_parse("198.18.1.1", &us4);
	addr_parse("198.18.100.1", &them4);
	addr_parse("fd00:5ca1:1::1", &us6);
	addr_parse("fd00:5ca1:100::1", &them6);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
