/*
 * test_wire_tcp.c -- wire_tcp_parse on the captured TCP segments and on
 * cut and broken headers; the Internet checksum, the pseudo-header
 * checksums of both families, and RFC 1624 updates against recomputation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wire_csum.h"
#include "wire_ip.h"
#include "wire_tcp.h"
#include "wire_testutil.h"

static uint16_t
seg_csum(const struct sample *s, const uint8_t *seg, size_t len)
{
	return s->version == 4 ? wire_tcp_csum4(s->src, s->dst, seg, len) :
	    wire_tcp_csum6(s->src, s->dst, seg, len);
}

/* Every captured TCP segment: header fields as scapy read them, and a
 * checksum that verifies and that we would have computed the same. */
static void
test_tcp_samples(void **state)
{
	struct wire_tcp	th;
	uint8_t		seg[WT_BUF];
	size_t		i, n;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];

		if (!s->tcp.present)
			continue;
		n = s->len - s->l4_off;
		memcpy(seg, s->bytes + s->l4_off, n);
		assert_int_equal(wire_tcp_parse(seg, n, &th), WIRE_OK);
		assert_int_equal(th.sport, s->tcp.sport);
		assert_int_equal(th.dport, s->tcp.dport);
		assert_int_equal(th.seq, s->tcp.seq);
		assert_int_equal(th.ack, s->tcp.ack);
		assert_int_equal(th.flags, s->tcp.flags);
		assert_int_equal(th.window, s->tcp.window);
		assert_int_equal(th.hdr_len, s->tcp.hdr_len);
		assert_int_equal(th.have, s->tcp.hdr_len);
		assert_int_equal(th.opt_len, s->tcp.hdr_len - 20);
		assert_int_equal(th.payload_len, n - s->tcp.hdr_len);

		assert_int_equal(seg_csum(s, seg, n), 0);
		wire_put16(seg + 16, 0);
		assert_int_equal(seg_csum(s, seg, n), th.csum);
		wt_cases++;
	}
}

/* What an RFC 792 quote or a short capture leaves of a header. */
static void
test_tcp_partial(void **state)
{
	const struct sample	*s = sample_get("syn4");
	struct wire_tcp		 th;
	const uint8_t		*seg;

	(void)state;
	assert_non_null(s);
	seg = s->bytes + s->l4_off;
	assert_int_equal(wire_tcp_parse(seg, 8, &th), WIRE_TRUNCATED);
	assert_int_equal(th.have, 8);
	assert_int_equal(th.sport, s->tcp.sport);
	assert_int_equal(th.dport, s->tcp.dport);
	assert_int_equal(th.seq, s->tcp.seq);
	assert_int_equal(th.hdr_len, 0);	/* byte 12 not there */
	wt_cases++;

	assert_int_equal(wire_tcp_parse(seg, 5, &th), WIRE_TRUNCATED);
	assert_int_equal(th.dport, s->tcp.dport);
	assert_int_equal(th.seq, 0);
	assert_int_equal(wire_tcp_parse(seg, 0, &th), WIRE_TRUNCATED);
	assert_int_equal(th.have, 0);
	wt_cases += 2;

	/* the fixed header, options cut: header fields, no options yet */
	assert_int_equal(wire_tcp_parse(seg, 28, &th), WIRE_TRUNCATED);
	assert_int_equal(th.hdr_len, 40);
	assert_int_equal(th.opt_len, 20);
	assert_int_equal(th.have, 28);
	assert_int_equal(th.window, s->tcp.window);
	wt_cases++;
}

static void
test_tcp_malformed(void **state)
{
	uint8_t		b[WT_BUF];
	struct wire_tcp	th;
	size_t		n;

	(void)state;
	n = wt_copy(b, "syn4");
	b[20 + 12] = 0x40;		/* data offset 4 */
	assert_int_equal(wire_tcp_parse(b + 20, n - 20, &th), WIRE_MALFORMED);
	assert_int_equal(th.hdr_len, 16);
	assert_int_equal(th.opt_len, 0);
	b[20 + 12] = 0x00;
	assert_int_equal(wire_tcp_parse(b + 20, n - 20, &th), WIRE_MALFORMED);
	wt_cases += 2;

	/* data offset 15 in a 40-byte segment */
	n = wt_copy(b, "syn4");
	b[20 + 12] = 0xf0;
	assert_int_equal(wire_tcp_parse(b + 20, n - 20, &th), WIRE_TRUNCATED);
	assert_int_equal(th.hdr_len, 60);
	assert_int_equal(th.have, 40);
	wt_cases++;

	/* the AE (ex-NS) bit and the reserved bits land above byte 13 */
	n = wt_copy(b, "synack4");
	b[20 + 12] |= 0x01;
	assert_int_equal(wire_tcp_parse(b + 20, n - 20, &th), WIRE_OK);
	assert_int_equal(th.flags, WIRE_TH_AE | WIRE_TH_SYN | WIRE_TH_ACK);
	wt_cases++;
}

/* RFC 1071's worked example, odd lengths, chained sums. */
static void
test_csum_basics(void **state)
{
	static const uint8_t	rfc1071[] = {
		0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7
	};
	static const uint8_t	odd[] = { 0x01, 0x02, 0x03 };
	const struct sample	*s = sample_get("needfrag4");
	uint32_t		 sum;

	(void)state;
	assert_int_equal(wire_csum_add(0, rfc1071, 8), 0xddf2);
	assert_int_equal(wire_csum(rfc1071, 8), 0x220d);
	assert_int_equal(wire_csum(odd, 3), (uint16_t)~0x0402);
	assert_int_equal(wire_csum(odd, 0), 0xffff);
	wt_cases += 3;

	/* pieces of even length chain to the sum of the whole */
	assert_non_null(s);
	sum = wire_csum_add(0, s->bytes, 100);
	sum = wire_csum_add(sum, s->bytes + 100, 301);
	assert_int_equal(wire_csum_fold(sum), wire_csum(s->bytes, 401));
	/* a real ICMP message and a real IPv4 header verify to 0 */
	assert_int_equal(wire_csum(s->bytes + 20, s->len - 20), 0);
	assert_int_equal(wire_csum(s->bytes, 20), 0);
	wt_cases += 2;
}

static uint32_t
xorshift(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* RFC 1624's own example, and random patches of every captured segment:
 * the updated checksum is bit-identical to a recomputed one. */
static void
test_csum_update(void **state)
{
	uint8_t		seg[WT_BUF], src[16], dst[16], ip4[20];
	uint32_t	x = 0x2545f491, oldv, newv;
	uint16_t	c, o16, n16;
	size_t		i, n, k;

	(void)state;
	assert_int_equal(wire_csum_update16(0xdd2f, 0x5555, 0x3285), 0x0000);
	wt_cases++;

	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];

		if (!s->tcp.present)
			continue;
		n = s->len - s->l4_off;
		memcpy(seg, s->bytes + s->l4_off, n);
		memcpy(src, s->src, 16);
		memcpy(dst, s->dst, 16);
		for (k = 0; k < 500; k++) {
			c = wire_get16(seg + 16);
			/* seq, as the engine patches the ISN */
			oldv = wire_get32(seg + 4);
			newv = xorshift(&x);
			wire_put32(seg + 4, newv);
			c = wire_csum_update32(c, oldv, newv);
			/* source port */
			o16 = wire_get16(seg);
			n16 = (uint16_t)xorshift(&x);
			wire_put16(seg, n16);
			c = wire_csum_update16(c, o16, n16);
			/* the destination address, through the pseudo-header */
			{
				uint8_t	old[16];

				memcpy(old, dst, 16);
				for (size_t j = 0; j < 16; j++)
					dst[j] = (uint8_t)xorshift(&x);
				c = wire_csum_update(c, old, dst,
				    s->version == 4 ? 4 : 16);
			}
			wire_put16(seg + 16, 0);
			assert_int_equal(c, s->version == 4 ?
			    wire_tcp_csum4(src, dst, seg, n) :
			    wire_tcp_csum6(src, dst, seg, n));
			wire_put16(seg + 16, c);
		}
		wt_cases++;
	}

	/* the IPv4 header checksum when the TTL changes, as trace probes do */
	memcpy(ip4, sample_get("syn4")->bytes, 20);
	for (k = 1; k <= 30; k++) {
		o16 = wire_get16(ip4 + 8);
		ip4[8] = (uint8_t)k;
		c = wire_csum_update16(wire_get16(ip4 + 10), o16,
		    wire_get16(ip4 + 8));
		wire_put16(ip4 + 10, 0);
		assert_int_equal(c, wire_csum(ip4, 20));
		wire_put16(ip4 + 10, c);
		assert_int_equal(wire_csum(ip4, 20), 0);
	}
	wt_cases++;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_samples),
		cmocka_unit_test(test_tcp_partial),
		cmocka_unit_test(test_tcp_malformed),
		cmocka_unit_test(test_csum_basics),
		cmocka_unit_test(test_csum_update),
	};

	return cmocka_run_group_tests(tests, NULL, wt_report);
}
