/*
 * test_wire_ip.c -- wire_ip_parse on the captured samples (against
 * scapy's reading), on every truncation of them, and on hand-made
 * malformed IPv4 headers and IPv6 extension-header chains.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wire_ip.h"
#include "wire_testutil.h"

/* Every sample parses whole, with the fields scapy read. */
static void
test_ip_samples(void **state)
{
	struct wire_ip	ip;
	size_t		i;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];

		assert_int_equal(wire_ip_parse(s->bytes, s->len, &ip), WIRE_OK);
		assert_int_equal(ip.version, s->version);
		assert_int_equal(ip.proto, s->proto);
		assert_int_equal(ip.ttl, s->ttl);
		assert_memory_equal(ip.src, s->src, 16);
		assert_memory_equal(ip.dst, s->dst, 16);
		assert_true(ip.l4_known);
		assert_int_equal(ip.l4_off, s->l4_off);
		assert_int_equal(ip.l4_len, s->len - s->l4_off);
		assert_int_equal(ip.tot_len, s->len);
		assert_int_equal(ip.n_ext, s->n_ext);
		assert_int_equal(ip.frag, s->frag);
		assert_int_equal(ip.frag_off, s->frag_off);
		assert_true(ip.csum_ok);
		wt_cases++;
	}
}

/* Every prefix of every sample is truncated, and stays inside itself. */
static void
test_ip_truncations(void **state)
{
	struct wire_ip	ip;
	size_t		i, cut;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		for (cut = 0; cut < samples[i].len; cut++) {
			assert_int_equal(wire_ip_parse(samples[i].bytes, cut,
			    &ip), WIRE_TRUNCATED);
			if (ip.l4_known)
				assert_true(ip.l4_off + ip.l4_len <= cut);
			wt_truncations++;
		}
	}
}

static void
test_ip4_bad_headers(void **state)
{
	uint8_t		b[WT_BUF];
	struct wire_ip	ip;
	size_t		n;

	(void)state;
	/* IHL 4 and 0: shorter than the fixed header */
	n = wt_copy(b, "syn4");
	b[0] = 0x44;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	assert_int_equal(ip.hdr_len, 16);
	assert_false(ip.l4_known);
	b[0] = 0x40;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	wt_cases += 2;

	/* IHL 10 (40 bytes) with only 30 captured: truncated, not malformed */
	n = wt_copy(b, "syn4");
	b[0] = 0x4a;
	assert_int_equal(wire_ip_parse(b, 30, &ip), WIRE_TRUNCATED);
	assert_false(ip.l4_known);
	assert_int_equal(ip.ttl, sample_get("syn4")->ttl);	/* fixed part read */
	wt_cases++;

	/* total length below the header length */
	n = wt_copy(b, "syn4");
	wt_set_ip_len(b, 19);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	assert_false(ip.l4_known);
	wt_cases++;

	/* total length beyond the bytes: truncated, L4 bounded by the bytes */
	n = wt_copy(b, "syn4");
	wt_set_ip_len(b, 100);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_TRUNCATED);
	assert_true(ip.l4_known);
	assert_int_equal(ip.tot_len, 100);
	assert_int_equal(ip.l4_len, n - 20);
	wt_cases++;

	/* link padding after the datagram is not L4 */
	n = wt_copy(b, "rst4");
	assert_int_equal(wire_ip_parse(b, n + 6, &ip), WIRE_OK);
	assert_int_equal(ip.l4_len, 20);
	wt_cases++;

	/* versions other than 4 and 6; nothing at all */
	n = wt_copy(b, "syn4");
	b[0] = 0x55;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_UNSUPPORTED);
	assert_int_equal(ip.version, 5);
	b[0] = 0x05;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_UNSUPPORTED);
	assert_int_equal(wire_ip_parse(b, 0, &ip), WIRE_TRUNCATED);
	assert_int_equal(ip.version, 0);
	wt_cases += 3;

	/* a wrong header checksum is reported, not fatal */
	n = wt_copy(b, "syn4");
	b[10] ^= 0x01;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_OK);
	assert_false(ip.csum_ok);
	assert_int_equal(ip.csum, (b[10] << 8) | b[11]);
	wt_cases++;
}

/* IPv4 options (IHL 6) move L4; a non-first fragment has no L4 header. */
static void
test_ip4_options_fragments(void **state)
{
	const struct sample	*s = sample_get("syn4");
	uint8_t			 b[WT_BUF];
	struct wire_ip		 ip;

	(void)state;
	assert_non_null(s);
	memcpy(b, s->bytes, 20);
	memcpy(b + 20, "\x01\x01\x01\x00", 4);	/* NOP NOP NOP EOL */
	memcpy(b + 24, s->bytes + 20, s->len - 20);
	b[0] = 0x46;
	wt_set_ip_len(b, s->len + 4);
	assert_int_equal(wire_ip_parse(b, s->len + 4, &ip), WIRE_OK);
	assert_true(ip.csum_ok);
	assert_int_equal(ip.hdr_len, 24);
	assert_int_equal(ip.l4_off, 24);
	assert_int_equal(ip.l4_len, 40);
	assert_int_equal(ip.proto, 6);
	wt_cases++;

	s = sample_get("frag4b");
	assert_non_null(s);
	assert_int_equal(wire_ip_parse(s->bytes, s->len, &ip), WIRE_OK);
	assert_true(ip.frag);
	assert_true(ip.frag_off > 0);
	assert_int_equal(ip.frag_id, ip.ip_id);
	s = sample_get("frag4a");
	assert_non_null(s);
	assert_int_equal(wire_ip_parse(s->bytes, s->len, &ip), WIRE_OK);
	assert_true(ip.frag);
	assert_true(ip.more_frags);
	assert_int_equal(ip.frag_off, 0);
	wt_cases += 2;
}

/* The real SYN with hop-by-hop + destination options, walked. */
static void
test_ip6_chain_real(void **state)
{
	uint8_t		b[WT_BUF];
	struct wire_ip	ip;
	size_t		n;

	(void)state;
	n = wt_copy(b, "syn6eh");
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_OK);
	assert_int_equal(ip.n_ext, 2);
	assert_int_equal(ip.ext[0].type, WIRE_IP6_HOPOPTS);
	assert_int_equal(ip.ext[0].off, 40);
	assert_int_equal(ip.ext[0].len, 8);
	assert_int_equal(ip.ext[0].next, WIRE_IP6_DSTOPTS);
	assert_int_equal(ip.ext[1].type, WIRE_IP6_DSTOPTS);
	assert_int_equal(ip.ext[1].off, 48);
	assert_int_equal(ip.ext[1].next, 6);
	assert_int_equal(ip.l4_off, 56);
	assert_int_equal(ip.proto, 6);
	wt_cases++;

	/* destination options claiming 88 bytes: past the payload length */
	b[49] = 10;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	assert_false(ip.l4_known);
	wt_cases++;

	/* ... and with the payload length raised to cover it, past the bytes */
	wt_set_ip_len(b, 48 + 88 + 20);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_TRUNCATED);
	assert_false(ip.l4_known);
	wt_cases++;

	/* hop-by-hop anywhere but first */
	n = wt_copy(b, "syn6eh");
	b[6] = WIRE_IP6_DSTOPTS;
	b[40] = WIRE_IP6_HOPOPTS;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	assert_int_equal(ip.n_ext, 1);
	wt_cases++;

	/* payload length 0 with hop-by-hop: a jumbogram */
	n = wt_copy(b, "syn6eh");
	wire_put16(b + 4, 0);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_UNSUPPORTED);
	wt_cases++;

	/* payload length 4: hop-by-hop's 8 bytes run past it */
	n = wt_copy(b, "syn6eh");
	wire_put16(b + 4, 4);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	/* payload length 1: not even its first two bytes fit */
	wire_put16(b + 4, 1);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	assert_int_equal(ip.n_ext, 0);
	wt_cases += 2;
}

/* Build IPv6 + k destination-options headers of 8 bytes + syn6's TCP. */
static size_t
build_dstopts_chain(uint8_t *b, unsigned k)
{
	const struct sample	*s = sample_get("syn6");
	size_t			 off = 40, tcp_len;
	unsigned		 i;

	assert_non_null(s);
	tcp_len = s->len - 40;
	memcpy(b, s->bytes, 40);
	b[6] = k ? WIRE_IP6_DSTOPTS : 6;
	for (i = 0; i < k; i++, off += 8) {
		memcpy(b + off, "\x3c\x00\x01\x04\x00\x00\x00\x00", 8);
		if (i == k - 1)
			b[off] = 6;
	}
	memcpy(b + off, s->bytes + 40, tcp_len);
	wt_set_ip_len(b, off + tcp_len);
	return off + tcp_len;
}

/* A chain may be WIRE_IP6_MAX_EXT long, not longer (repeats, "loops"). */
static void
test_ip6_chain_limits(void **state)
{
	uint8_t		b[WT_BUF];
	struct wire_ip	ip;
	size_t		n;

	(void)state;
	n = build_dstopts_chain(b, WIRE_IP6_MAX_EXT);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_OK);
	assert_int_equal(ip.n_ext, WIRE_IP6_MAX_EXT);
	assert_int_equal(ip.l4_off, 40 + 8 * WIRE_IP6_MAX_EXT);
	assert_int_equal(ip.proto, 6);
	wt_cases++;

	n = build_dstopts_chain(b, WIRE_IP6_MAX_EXT + 1);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_UNSUPPORTED);
	assert_false(ip.l4_known);
	wt_cases++;

	/* every header naming another until the payload runs out */
	n = wt_copy(b, "syn6");
	memset(b + 40, 0, n - 40);
	b[6] = WIRE_IP6_DSTOPTS;
	for (size_t off = 40; off < n; off += 8)
		b[off] = WIRE_IP6_DSTOPTS;
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_MALFORMED);
	assert_int_equal(ip.n_ext, 5);	/* 40 bytes of payload, 8 each */
	wt_cases++;
}

/* AH counts in 32-bit words, routing and the rest in 64-bit words;
 * no-next-header ends the chain; fragments stop it when not first. */
static void
test_ip6_ext_kinds(void **state)
{
	const struct sample	*s = sample_get("syn6");
	uint8_t			 b[WT_BUF];
	struct wire_ip		 ip;
	size_t			 n;

	(void)state;
	assert_non_null(s);
	memcpy(b, s->bytes, 40);
	memset(b + 40, 0, 24);
	b[6] = WIRE_IP6_AH;
	b[40] = WIRE_IP6_ROUTING;
	b[41] = 1;			/* AH: (1 + 2) * 4 = 12 bytes */
	b[52] = 6;
	b[53] = 1;			/* routing: (1 + 1) * 8 = 16 bytes */
	memcpy(b + 68, s->bytes + 40, s->len - 40);
	n = 68 + s->len - 40;
	wt_set_ip_len(b, n);
	assert_int_equal(wire_ip_parse(b, n, &ip), WIRE_OK);
	assert_int_equal(ip.n_ext, 2);
	assert_int_equal(ip.ext[0].type, WIRE_IP6_AH);
	assert_int_equal(ip.ext[0].len, 12);
	assert_int_equal(ip.ext[1].type, WIRE_IP6_ROUTING);
	assert_int_equal(ip.ext[1].len, 16);
	assert_int_equal(ip.l4_off, 68);
	assert_int_equal(ip.l4_len, 40);
	wt_cases++;

	memcpy(b, s->bytes, 40);
	b[6] = WIRE_IP6_NONXT;
	wt_set_ip_len(b, 40);
	assert_int_equal(wire_ip_parse(b, 40, &ip), WIRE_OK);
	assert_int_equal(ip.proto, WIRE_IP6_NONXT);
	assert_int_equal(ip.l4_len, 0);
	wt_cases++;

	s = sample_get("frag6b");
	assert_non_null(s);
	assert_int_equal(wire_ip_parse(s->bytes, s->len, &ip), WIRE_OK);
	assert_int_equal(ip.ext[0].type, WIRE_IP6_FRAGMENT);
	assert_true(ip.frag_off > 0);
	assert_int_equal(ip.proto, 17);
	assert_int_equal(ip.l4_off, 48);
	s = sample_get("frag6a");
	assert_non_null(s);
	assert_int_equal(wire_ip_parse(s->bytes, s->len, &ip), WIRE_OK);
	assert_true(ip.more_frags);
	assert_int_equal(ip.frag_off, 0);
	assert_int_equal(ip.proto, 17);
	assert_int_equal(ip.frag_id, wire_get32(s->bytes + 44));
	wt_cases += 2;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip_samples),
		cmocka_unit_test(test_ip_truncations),
		cmocka_unit_test(test_ip4_bad_headers),
		cmocka_unit_test(test_ip4_options_fragments),
		cmocka_unit_test(test_ip6_chain_real),
		cmocka_unit_test(test_ip6_chain_limits),
		cmocka_unit_test(test_ip6_ext_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, wt_report);
}
