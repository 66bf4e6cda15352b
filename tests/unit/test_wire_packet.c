/*
 * test_wire_packet.c -- wire_packet_parse, the capture path's entry point:
 * every captured sample and a set of hand-made valid packets decode to
 * what scapy read; every cut of each at every byte is reported truncated
 * and stays inside its bytes; packet-level contradictions are malformed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wire_csum.h"
#include "wire_packet.h"
#include "wire_testutil.h"

static void
check_tcp(const struct wire_tcp *th, const struct tcpopts *o,
    const struct sample_tcp *t)
{
	assert_int_equal(th->sport, t->sport);
	assert_int_equal(th->dport, t->dport);
	assert_int_equal(th->seq, t->seq);
	assert_int_equal(th->ack, t->ack);
	assert_int_equal(th->flags, t->flags);
	assert_int_equal(th->window, t->window);
	assert_int_equal(th->hdr_len, t->hdr_len);
	assert_int_equal(o->has_mss, t->mss >= 0);
	assert_int_equal(o->mss, t->mss >= 0 ? t->mss : 0);
	assert_int_equal(o->has_wscale, t->wscale >= 0);
	assert_int_equal(o->wscale, t->wscale >= 0 ? t->wscale : 0);
	assert_int_equal(o->sack_perm, t->sack_perm);
	assert_int_equal(o->has_ts, t->ts);
	assert_int_equal(o->ts_val, t->ts_val);
	assert_int_equal(o->ts_ecr, t->ts_ecr);
	assert_int_equal(o->n, t->n_kinds);
	for (unsigned k = 0; k < o->n; k++)
		assert_int_equal(o->opt[k].kind, t->kinds[k]);
}

/* The table: every real packet, through the one entry point. */
static void
test_packet_samples(void **state)
{
	struct wire_packet	pkt;
	size_t			i;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];

		print_message("# %s: %s\n", s->name, s->what);
		assert_int_equal(wire_packet_parse(s->bytes, s->len, &pkt),
		    WIRE_OK);
		assert_int_equal(pkt.ip_result, WIRE_OK);
		assert_int_equal(pkt.ip.version, s->version);
		assert_int_equal(pkt.ip.proto, s->proto);
		assert_int_equal(pkt.ip.ttl, s->ttl);
		assert_memory_equal(pkt.ip.src, s->src, 16);
		assert_memory_equal(pkt.ip.dst, s->dst, 16);
		assert_int_equal(pkt.ip.l4_off, s->l4_off);
		assert_int_equal(pkt.l4, s->l4);
		assert_int_equal(pkt.l4_result, WIRE_OK);
		assert_int_equal(pkt.l4_csum, s->csum);
		if (s->l4 == WIRE_L4_TCP) {
			assert_int_equal(pkt.opts_result, WIRE_OK);
			check_tcp(&pkt.tcp, &pkt.opts, &s->tcp);
		}
		if (s->l4 == WIRE_L4_ICMP) {
			assert_int_equal(pkt.icmp.type, s->icmp_type);
			assert_int_equal(pkt.icmp.code, s->icmp_code);
			assert_int_equal(pkt.icmp.mtu, s->mtu);
			assert_int_equal(pkt.icmp.quote, s->quote);
			assert_int_equal(pkt.icmp.ip.ttl, s->q_ttl);
			assert_int_equal(pkt.icmp.quote_l4_len, s->q_l4_len);
			assert_int_equal(pkt.icmp.has_tcp, s->qtcp.present);
			if (s->qtcp.present)
				check_tcp(&pkt.icmp.tcp, &pkt.icmp.opts,
				    &s->qtcp);
		}
		wt_cases++;
	}
}

/* Fix the L4 checksum of a hand-made TCP or ICMP(v6) packet. */
static void
fix_l4_csum(uint8_t *b, size_t n)
{
	struct wire_ip	ip;
	uint8_t		*l4;
	size_t		 l4n;
	uint32_t	 sum;

	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_OK);
	l4 = b + ip.l4_off;
	l4n = ip.l4_len;
	if (ip.proto == 6) {
		wire_put16(l4 + 16, 0);
		wire_put16(l4 + 16, ip.version == 4 ?
		    wire_tcp_csum4(ip.src, ip.dst, l4, l4n) :
		    wire_tcp_csum6(ip.src, ip.dst, l4, l4n));
		return;
	}
	wire_put16(l4 + 2, 0);
	if (ip.version == 4)
		wire_put16(l4 + 2, wire_csum(l4, l4n));
	else {
		sum = wire_csum_pseudo6(ip.src, ip.dst, 58, (uint32_t)l4n);
		wire_put16(l4 + 2, wire_csum_fold(wire_csum_add(sum, l4, l4n)));
	}
}

/* An ICMP error like sample name, its quote zero-padded to 128 bytes with
 * the RFC 4884 length set and an MPLS extension after it. */
static size_t
build_rfc4884(uint8_t *b, const char *name)
{
	static const uint8_t	ext[] = {
		0x20, 0x00, 0x00, 0x00, 0x00, 0x08, 0x01, 0x01,
		0x00, 0x01, 0x41, 0x01,
	};
	const struct sample	*s = sample_get(name);
	size_t			 n;

	assert_non_null(s);
	memset(b, 0, WT_BUF);
	memcpy(b, s->bytes, s->len);
	memset(b + s->len, 0, 128 - (s->len - s->l4_off - 8));
	n = s->l4_off + 8 + 128;
	memcpy(b + n, ext, sizeof(ext));
	n += sizeof(ext);
	b[s->l4_off + (s->version == 4 ? 5 : 4)] = s->version == 4 ? 32 : 16;
	wt_set_ip_len(b, n);
	fix_l4_csum(b, n);
	return n;
}

/* An RFC 792 style error: sample name's quote cut to IP header + 8. */
static size_t
build_8byte(uint8_t *b, const char *name)
{
	const struct sample	*s = sample_get(name);
	size_t			 n;

	assert_non_null(s);
	n = s->l4_off + 8 + s->q_l4_off + 8;
	memcpy(b, s->bytes, n);
	wt_set_ip_len(b, n);
	fix_l4_csum(b, n);
	return n;
}

/* syn6's TCP behind an AH and a routing header. */
static size_t
build_ah_routing(uint8_t *b)
{
	const struct sample	*s = sample_get("syn6");

	assert_non_null(s);
	memcpy(b, s->bytes, 40);
	memset(b + 40, 0, 28);
	b[6] = 51;
	b[40] = 43;
	b[41] = 1;
	b[52] = 6;
	b[53] = 1;
	memcpy(b + 68, s->bytes + 40, s->len - 40);
	wt_set_ip_len(b, 68 + s->len - 40);
	return 68 + s->len - 40;
}

/* syn4 with 4 bytes of IPv4 options. */
static size_t
build_ip4_options(uint8_t *b)
{
	const struct sample	*s = sample_get("syn4");

	assert_non_null(s);
	memcpy(b, s->bytes, 20);
	memcpy(b + 20, "\x01\x01\x01\x00", 4);
	memcpy(b + 24, s->bytes + 20, s->len - 20);
	b[0] = 0x46;
	wt_set_ip_len(b, s->len + 4);
	return s->len + 4;
}

struct made {
	const char	*name;
	size_t		(*build)(uint8_t *);
	enum wire_l4	 l4;
	enum wire_quote	 quote;
	enum wire_csum_state csum;
};

static size_t b_rfc4884_4(uint8_t *b) { return build_rfc4884(b, "timxceed4"); }
static size_t b_rfc4884_6(uint8_t *b) { return build_rfc4884(b, "timxceed6eh"); }
static size_t b_8byte_4(uint8_t *b) { return build_8byte(b, "timxceed4"); }
static size_t b_8byte_6(uint8_t *b) { return build_8byte(b, "admin6"); }

static const struct made made[] = {
	{ "rfc4884-v4", b_rfc4884_4, WIRE_L4_ICMP, WIRE_QUOTE_FULL,
	  WIRE_CSUM_OK },
	{ "rfc4884-v6-eh", b_rfc4884_6, WIRE_L4_ICMP, WIRE_QUOTE_FULL,
	  WIRE_CSUM_OK },
	{ "8byte-v4", b_8byte_4, WIRE_L4_ICMP, WIRE_QUOTE_8BYTE, WIRE_CSUM_OK },
	{ "8byte-v6", b_8byte_6, WIRE_L4_ICMP, WIRE_QUOTE_8BYTE, WIRE_CSUM_OK },
	{ "ah-routing-v6", build_ah_routing, WIRE_L4_TCP, WIRE_QUOTE_SHORT,
	  WIRE_CSUM_UNCHECKED },
	{ "ip4-options", build_ip4_options, WIRE_L4_TCP, WIRE_QUOTE_SHORT,
	  WIRE_CSUM_OK },
};

static void
test_packet_made(void **state)
{
	struct wire_packet	pkt;
	uint8_t			b[WT_BUF];
	size_t			i, n;

	(void)state;
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		n = made[i].build(b);
		print_message("# made: %s\n", made[i].name);
		assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_OK);
		assert_int_equal(pkt.l4, made[i].l4);
		assert_int_equal(pkt.l4_csum, made[i].csum);
		if (made[i].l4 == WIRE_L4_ICMP) {
			assert_int_equal(pkt.icmp.quote, made[i].quote);
			/* the two rfc4884 rows carry a length that holds */
			assert_int_equal(pkt.icmp.rfc4884,
			    strncmp(made[i].name, "rfc4884", 7) == 0);
			assert_true(pkt.icmp.has_tcp);
		} else {
			assert_int_equal(pkt.opts_result, WIRE_OK);
			assert_true(pkt.opts.has_wscale);
		}
		wt_cases++;
	}
}

/* Cut packet b (n bytes, valid) at every byte; all truncated, and every
 * length reported lies inside the bytes that were there. */
static void
sweep(const uint8_t *b, size_t n)
{
	struct wire_packet	pkt;
	size_t			cut;

	for (cut = 0; cut < n; cut++) {
		assert_int_equal(wire_packet_parse(b, cut, &pkt),
		    WIRE_TRUNCATED);
		assert_int_equal(pkt.l4_csum, WIRE_CSUM_UNCHECKED);
		if (pkt.l4 != WIRE_L4_NONE)
			assert_true(pkt.ip.l4_off + pkt.ip.l4_len <= cut);
		if (pkt.l4 == WIRE_L4_TCP)
			assert_true(pkt.tcp.have <= pkt.ip.l4_len);
		if (pkt.l4 == WIRE_L4_ICMP)
			assert_true(pkt.icmp.quote_off + pkt.icmp.quote_len <=
			    pkt.ip.l4_len || pkt.ip.l4_len < 8);
		wt_truncations++;
	}
}

static void
test_packet_truncations(void **state)
{
	uint8_t	b[WT_BUF];
	size_t	i;

	(void)state;
	for (i = 0; i < n_samples; i++)
		sweep(samples[i].bytes, samples[i].len);
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		sweep(b, made[i].build(b));
}

static void
test_packet_malformed(void **state)
{
	struct wire_packet	pkt;
	uint8_t			b[WT_BUF];
	size_t			n;

	(void)state;
	/* a data offset past a complete datagram: malformed; past a cut
	 * one: truncated */
	n = wt_copy(b, "rst4");
	b[20 + 12] = 0x60;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_MALFORMED);
	assert_int_equal(pkt.l4_result, WIRE_MALFORMED);
	wt_set_ip_len(b, 60);
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_TRUNCATED);
	wt_cases += 2;

	/* a broken option is a finding: the packet is still OK */
	n = wt_copy(b, "synack4");
	b[20 + 20 + 1] = 0;		/* MSS length 0 */
	fix_l4_csum(b, n);
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_OK);
	assert_int_equal(pkt.opts_result, WIRE_MALFORMED);
	assert_int_equal(pkt.l4_csum, WIRE_CSUM_OK);
	assert_true(pkt.tcp.flags & WIRE_TH_SYN);
	wt_cases++;

	/* a flipped payload bit fails the checksum, not the parse */
	n = wt_copy(b, "syn6");
	b[40 + 14] ^= 0x40;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_OK);
	assert_int_equal(pkt.l4_csum, WIRE_CSUM_BAD);
	n = wt_copy(b, "timxceed6");
	b[n - 1] ^= 0x01;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_OK);
	assert_int_equal(pkt.l4_csum, WIRE_CSUM_BAD);
	n = wt_copy(b, "admin4");
	b[n - 1] ^= 0x01;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_OK);
	assert_int_equal(pkt.l4_csum, WIRE_CSUM_BAD);
	wt_cases += 3;

	/* link padding is ignored, checksum and all */
	n = wt_copy(b, "rst6");
	memset(b + n, 0xee, 6);
	assert_int_equal(wire_packet_parse(b, n + 6, &pkt), WIRE_OK);
	assert_int_equal(pkt.l4_csum, WIRE_CSUM_OK);
	assert_int_equal(pkt.tcp.payload_len, 0);
	wt_cases++;

	/* an ICMP message of 4 bytes in a whole datagram */
	n = wt_copy(b, "timxceed4");
	wt_set_ip_len(b, 24);
	assert_int_equal(wire_packet_parse(b, 24, &pkt), WIRE_MALFORMED);
	assert_int_equal(pkt.l4, WIRE_L4_ICMP);
	wt_cases++;

	/* an echo request: not an error, unsupported */
	n = wt_copy(b, "timxceed4");
	b[20] = 8;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_UNSUPPORTED);
	assert_int_equal(pkt.l4, WIRE_L4_ICMP);
	wt_cases++;

	/* ICMPv4's protocol number inside IPv6 is just another protocol */
	n = wt_copy(b, "timxceed6");
	b[6] = 1;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_OK);
	assert_int_equal(pkt.l4, WIRE_L4_OTHER);
	wt_cases++;

	/* a bad IP header stops everything */
	n = wt_copy(b, "syn4");
	b[0] = 0x43;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_MALFORMED);
	assert_int_equal(pkt.l4, WIRE_L4_NONE);
	b[0] = 0x75;
	assert_int_equal(wire_packet_parse(b, n, &pkt), WIRE_UNSUPPORTED);
	wt_cases += 2;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet_samples),
		cmocka_unit_test(test_packet_made),
		cmocka_unit_test(test_packet_truncations),
		cmocka_unit_test(test_packet_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, wt_report);
}
