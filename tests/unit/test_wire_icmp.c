/*
 * test_wire_icmp.c -- wire_icmp_parse on the captured ICMP and ICMPv6
 * errors against scapy's reading, on every cut of them, and on quotes made
 * from them: RFC 792 8-byte, partial, too short, RFC 4884 with
 * extensions, lengths that lie, types that are not errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wire_icmp.h"
#include "wire_testutil.h"

static enum wire_icmp_kind
kind_of(int version, int type)
{
	if (version == 4)
		return type == 3 ? WIRE_ICMP_UNREACH :
		    type == 11 ? WIRE_ICMP_TIME_EXCEEDED :
		    type == 12 ? WIRE_ICMP_PARAM_PROBLEM : WIRE_ICMP_NOT_ERROR;
	return type == 1 ? WIRE_ICMP_UNREACH :
	    type == 2 ? WIRE_ICMP_PKT_TOO_BIG :
	    type == 3 ? WIRE_ICMP_TIME_EXCEEDED :
	    type == 4 ? WIRE_ICMP_PARAM_PROBLEM : WIRE_ICMP_NOT_ERROR;
}

static void
test_icmp_samples(void **state)
{
	struct wire_icmp	ic;
	size_t			i;
	unsigned		seen = 0;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];
		const struct sample_tcp *t = &s->qtcp;

		if (s->icmp_type < 0)
			continue;
		assert_int_equal(wire_icmp_parse(s->bytes + s->l4_off,
		    s->len - s->l4_off, s->version, &ic), WIRE_OK);
		assert_int_equal(ic.type, s->icmp_type);
		assert_int_equal(ic.code, s->icmp_code);
		assert_int_equal(ic.kind, kind_of(s->version, s->icmp_type));
		assert_int_equal(ic.mtu, s->mtu);
		assert_int_equal(ic.rfc4884_len, 0);
		assert_int_equal(ic.quote, s->quote);
		assert_int_equal(ic.ip.version, s->q_version);
		assert_int_equal(ic.ip.proto, s->q_proto);
		assert_int_equal(ic.ip.ttl, s->q_ttl);
		assert_int_equal(ic.ip.n_ext, s->q_n_ext);
		assert_int_equal(ic.ip.l4_off, s->q_l4_off);
		assert_int_equal(ic.quote_l4_len, s->q_l4_len);
		assert_int_equal(ic.has_tcp, t->present);
		if (t->present) {
			assert_int_equal(ic.tcp.sport, t->sport);
			assert_int_equal(ic.tcp.dport, t->dport);
			assert_int_equal(ic.tcp.seq, t->seq);
			assert_int_equal(ic.tcp.flags, t->flags);
			assert_int_equal(ic.tcp_complete, t->complete);
			assert_int_equal(ic.opts_result, WIRE_OK);
			assert_int_equal(ic.opts.has_wscale, t->wscale >= 0);
			assert_int_equal(ic.opts.wscale,
			    t->wscale >= 0 ? t->wscale : 0);
			assert_int_equal(ic.opts.n, t->n_kinds);
			for (unsigned k = 0; k < ic.opts.n; k++)
				assert_int_equal(ic.opts.opt[k].kind,
				    t->kinds[k]);
		}
		seen++;
		wt_cases++;
	}
	assert_int_equal(seen, 9);
}

/* Every cut of every error: under 8 bytes truncated; past that the quote
 * only gets shorter, and nothing reported lies outside the bytes. */
static void
test_icmp_truncations(void **state)
{
	struct wire_icmp	ic;
	enum wire_result	r;
	size_t			i, cut;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		const struct sample *s = &samples[i];

		if (s->icmp_type < 0)
			continue;
		for (cut = 0; cut < s->len - s->l4_off; cut++) {
			r = wire_icmp_parse(s->bytes + s->l4_off, cut,
			    s->version, &ic);
			if (cut < 8)
				assert_int_equal(r, WIRE_TRUNCATED);
			else if (cut < 8u + s->q_l4_off)
				assert_int_equal(r, WIRE_MALFORMED);
			else
				assert_int_equal(r, WIRE_OK);
			assert_true(ic.quote_off + ic.quote_len <= cut ||
			    cut < 8);
			assert_true(ic.quote_l4_len <= ic.quote_len);
			if (ic.has_tcp)
				assert_true(ic.tcp.have <= ic.quote_l4_len);
			if (cut >= 8u + s->q_l4_off + 8 && s->qtcp.present) {
				assert_true(ic.has_tcp);
				assert_int_equal(ic.tcp.seq, s->qtcp.seq);
			}
			wt_truncations++;
		}
	}
}

/* The quote of timxceed4 cut to 8 + 20 + l4 bytes. */
static size_t
cut_quote(uint8_t *b, const char *name, size_t l4)
{
	const struct sample	*s = sample_get(name);

	assert_non_null(s);
	memcpy(b, s->bytes + s->l4_off, 8 + s->q_l4_off + l4);
	return 8 + s->q_l4_off + l4;
}

static void
test_icmp_short_quotes(void **state)
{
	const struct sample	*s = sample_get("timxceed4");
	struct wire_icmp	 ic;
	uint8_t			 b[WT_BUF];
	size_t			 n;

	(void)state;
	assert_non_null(s);
	/* RFC 792: IP header + 8 bytes: ports and seq, nothing else */
	n = cut_quote(b, "timxceed4", 8);
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_8BYTE);
	assert_int_equal(ic.ip_result, WIRE_TRUNCATED);
	assert_int_equal(ic.quote_l4_len, 8);
	assert_true(ic.has_tcp);
	assert_false(ic.tcp_complete);
	assert_int_equal(ic.tcp.sport, s->qtcp.sport);
	assert_int_equal(ic.tcp.seq, s->qtcp.seq);
	assert_int_equal(ic.tcp.hdr_len, 0);
	assert_int_equal(ic.opts_result, WIRE_TRUNCATED);
	assert_int_equal(ic.opts.n, 0);
	wt_cases++;

	/* cut inside the options: what is there is decoded, label 8-byte */
	n = cut_quote(b, "timxceed4", 28);
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_8BYTE);
	assert_int_equal(ic.tcp.have, 28);
	assert_int_equal(ic.tcp.hdr_len, 40);
	assert_int_equal(ic.opts_result, WIRE_TRUNCATED);
	assert_true(ic.opts.has_mss);
	assert_true(ic.opts.sack_perm);
	assert_false(ic.opts.has_ts);
	assert_false(ic.opts.has_wscale);
	wt_cases++;

	/* fewer than 8 bytes of TCP: too short to use, still an error */
	n = cut_quote(b, "timxceed4", 6);
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_SHORT);
	assert_false(ic.has_tcp);
	assert_int_equal(ic.quote_l4_len, 6);
	assert_int_equal(ic.kind, WIRE_ICMP_TIME_EXCEEDED);
	wt_cases++;

	/* not even the quoted IP header; nothing at all; no ICMP header */
	n = cut_quote(b, "timxceed4", 0);
	assert_int_equal(wire_icmp_parse(b, n - 8, 4, &ic), WIRE_MALFORMED);
	assert_int_equal(ic.quote, WIRE_QUOTE_SHORT);
	assert_int_equal(wire_icmp_parse(b, 8, 4, &ic), WIRE_MALFORMED);
	assert_int_equal(wire_icmp_parse(b, 7, 4, &ic), WIRE_TRUNCATED);
	wt_cases += 3;

	/* the IPv6 one, 8 bytes after the quoted header chain */
	s = sample_get("timxceed6eh");
	assert_non_null(s);
	n = cut_quote(b, "timxceed6eh", 8);
	assert_int_equal(wire_icmp_parse(b, n, 6, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_8BYTE);
	assert_int_equal(ic.ip.n_ext, 2);
	assert_int_equal(ic.tcp.seq, s->qtcp.seq);
	/* cut inside the quoted destination options: malformed quote */
	n = cut_quote(b, "timxceed6eh", 0);
	assert_int_equal(wire_icmp_parse(b, n - 4, 6, &ic), WIRE_MALFORMED);
	assert_false(ic.ip.l4_known);
	wt_cases += 2;

	/* UDP quotes: whole datagram full, its header alone 8-byte */
	n = cut_quote(b, "portunreach4", 8);
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_8BYTE);
	assert_false(ic.has_tcp);
	n = cut_quote(b, "portunreach4", 4);
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_SHORT);
	wt_cases += 2;
}

static void
test_icmp_bad_quotes(void **state)
{
	const struct sample	*s;
	struct wire_icmp	 ic;
	uint8_t			 b[WT_BUF];
	size_t			 n;

	(void)state;
	/* an ICMPv4 error quoting an IPv6 header */
	s = sample_get("timxceed6");
	assert_non_null(s);
	memcpy(b, "\x0b\x00\x00\x00\x00\x00\x00\x00", 8);
	memcpy(b + 8, s->bytes + s->l4_off + 8, s->len - s->l4_off - 8);
	n = s->len - s->l4_off;
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_MALFORMED);
	assert_int_equal(ic.ip.version, 6);
	wt_cases++;

	/* quoted IHL 3 */
	n = cut_quote(b, "timxceed4", 40);
	b[8] = 0x43;
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_MALFORMED);
	assert_int_equal(ic.ip_result, WIRE_MALFORMED);
	wt_cases++;

	/* a quoted non-first fragment: IP usable, no L4 header */
	n = cut_quote(b, "timxceed4", 40);
	wire_put16(b + 8 + 6, 0x0010);
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_SHORT);
	assert_false(ic.has_tcp);
	assert_int_equal(ic.ip.frag_off, 128);
	wt_cases++;

	/* a quoted data offset of 3: ports and seq still there */
	n = cut_quote(b, "timxceed4", 40);
	b[8 + 20 + 12] = 0x30;
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.quote, WIRE_QUOTE_8BYTE);
	assert_true(ic.has_tcp);
	assert_false(ic.tcp_complete);
	assert_int_equal(ic.opts_result, WIRE_MALFORMED);
	wt_cases++;
}

/* Build an RFC 4884 message from sample name: its quote zero-padded to
 * words * unit bytes, the length field set, an MPLS extension after. */
static size_t
make_rfc4884(uint8_t *b, const char *name, unsigned words)
{
	static const uint8_t	ext[] = {
		0x20, 0x00, 0x00, 0x00,		/* version 2, checksum */
		0x00, 0x08, 0x01, 0x01,		/* object: 8 bytes, MPLS stack */
		0x00, 0x01, 0x41, 0x01,		/* label 20, S, TTL 1 */
	};
	const struct sample	*s = sample_get(name);
	size_t			 q, unit;

	assert_non_null(s);
	unit = s->version == 4 ? 4 : 8;
	q = s->len - s->l4_off - 8;
	assert_true(q <= words * unit);
	memset(b, 0, WT_BUF);
	memcpy(b, s->bytes + s->l4_off, 8 + q);
	b[s->version == 4 ? 5 : 4] = (uint8_t)words;
	memcpy(b + 8 + words * unit, ext, sizeof(ext));
	return 8 + words * unit + sizeof(ext);
}

/* An RFC 4884 length holds only when it is at least 128 bytes, within the
 * message, and a version-2 extension header follows it; any other length
 * is recorded and the whole rest of the message is the quote.  Routers
 * send small lengths (6 words) before a whole quote: that is a full quote,
 * and an 8-byte quote stays 8-byte whatever its length byte says. */
/* As make_rfc4884, the quote cut to its IP header and 8 bytes of TCP (an
 * RFC 792 quote), its quoted total length left as sent. */
static size_t
make_rfc4884_cut(uint8_t *b, const char *name, unsigned words)
{
	const struct sample	*s = sample_get(name);
	size_t			 unit, keep, n;

	assert_non_null(s);
	unit = s->version == 4 ? 4 : 8;
	keep = (s->version == 4 ? 20 : 40) + 8;
	n = make_rfc4884(b, name, 32 * 4 / (unsigned)unit);
	(void)n;
	/* zero what lies beyond the 8 bytes, then move the extension */
	memset(b + 8 + keep, 0, WT_BUF - 8 - keep);
	assert_true(keep <= words * unit);
	{
		static const uint8_t ext[] = {
			0x20, 0x00, 0x00, 0x00, 0x00, 0x08, 0x01, 0x01,
			0x00, 0x01, 0x41, 0x01,
		};
		memcpy(b + 8 + words * unit, ext, sizeof(ext));
	}
	b[s->version == 4 ? 5 : 4] = (uint8_t)words;
	return 8 + words * unit + 12;
}

static void
test_icmp_rfc4884(void **state)
{
	static const struct {
		const char *what;
		const char *sample;
		unsigned words;		/* the quote is padded to this */
		int set_len;		/* -1: the length field as built; else this */
		int ext_version;	/* of the extension header written */
		int cut;		/* > 0: the quote keeps IP + 8 bytes only */
		bool holds;
		enum wire_quote quote;
		uint16_t len_field;	/* rfc4884_len expected */
	} t[] = {
		{ "v4, 128 bytes, extension v2", "timxceed4", 32, -1, 2, 0, true, WIRE_QUOTE_FULL, 128 },
		{ "v6, 128 bytes, extension v2", "timxceed6", 16, -1, 2, 0, true, WIRE_QUOTE_FULL, 128 },
		{ "v4, 6 words before a whole quote", "timxceed4", 32, 6, 2, 0, false, WIRE_QUOTE_FULL, 24 },
		{ "v4, 7 words before a whole quote", "timxceed4", 32, 7, 2, 0, false, WIRE_QUOTE_FULL, 28 },
		{ "v6, 3 words before a whole quote", "timxceed6", 16, 3, 2, 0, false, WIRE_QUOTE_FULL, 24 },
		{ "v4, past the end of the message", "timxceed4", 32, 40, 2, 0, false, WIRE_QUOTE_FULL, 160 },
		{ "v6, past the end of the message", "admin6", 16, 255, 2, 0, false, WIRE_QUOTE_FULL, 2040 },
		{ "v4, 128 bytes, no version-2 header", "timxceed4", 32, -1, 1, 0, false, WIRE_QUOTE_FULL, 128 },
		{ "v6, 128 bytes, no version-2 header", "timxceed6", 16, -1, 0, 0, false, WIRE_QUOTE_FULL, 128 },
		{ "v4, 8-byte quote with 7 words", "timxceed4", 7, 7, 2, 1, false, WIRE_QUOTE_8BYTE, 28 },
		{ "v6, 8-byte quote with 6 words", "timxceed6", 6, 6, 2, 1, false, WIRE_QUOTE_8BYTE, 48 },
	};
	struct wire_icmp	ic;
	uint8_t			b[WT_BUF];
	size_t			n;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct sample *smp = sample_get(t[i].sample);
		int v = smp->version;
		size_t unit = v == 4 ? 4 : 8;

		if (t[i].cut) {
			/* IP header + 8 bytes of TCP, padded, length set */
			n = make_rfc4884_cut(b, t[i].sample, t[i].words);
		} else {
			n = make_rfc4884(b, t[i].sample, t[i].words);
		}
		b[8 + t[i].words * unit] = (uint8_t)(t[i].ext_version << 4);
		if (t[i].set_len >= 0)
			b[v == 4 ? 5 : 4] = (uint8_t)t[i].set_len;
		print_message("# %s\n", t[i].what);
		assert_int_equal(wire_icmp_parse(b, n, (uint8_t)v, &ic), WIRE_OK);
		assert_int_equal(ic.rfc4884_len, t[i].len_field);
		assert_int_equal(ic.rfc4884, t[i].holds);
		assert_int_equal(ic.quote, t[i].quote);
		if (t[i].holds) {
			assert_int_equal(ic.quote_len, 128);
			assert_int_equal(ic.ext_off, 136);
			assert_int_equal(ic.ext_len, 12);
		} else {
			assert_int_equal(ic.quote_len, n - 8);
			assert_int_equal(ic.ext_len, 0);
		}
		if (t[i].quote == WIRE_QUOTE_FULL) {
			/* the padding is not quoted TCP: the quoted total
			 * length bounds it */
			assert_true(ic.tcp_complete);
			assert_int_equal(ic.opts.wscale, smp->qtcp.wscale);
		} else {
			/* without a length that holds, the extension's bytes
			 * follow the 8 in the quote: still not a TCP header */
			assert_false(ic.tcp_complete);
			assert_true(ic.has_tcp);
		}
		wt_cases++;
	}
}

/* Words 2 by type: pointer, MTU; types that are not errors. */
static void
test_icmp_types(void **state)
{
	struct wire_icmp	ic;
	uint8_t			b[WT_BUF];
	size_t			n;

	(void)state;
	n = cut_quote(b, "timxceed4", 40);
	b[0] = 12;
	b[4] = 9;
	assert_int_equal(wire_icmp_parse(b, n, 4, &ic), WIRE_OK);
	assert_int_equal(ic.kind, WIRE_ICMP_PARAM_PROBLEM);
	assert_int_equal(ic.pointer, 9);
	assert_int_equal(ic.rfc4884_len, 0);
	wt_cases++;

	/* ICMPv6 parameter problem: a 32-bit pointer, no RFC 4884 length */
	n = cut_quote(b, "timxceed6", 40);
	b[0] = 4;
	wire_put32(b + 4, 0x28000006);
	assert_int_equal(wire_icmp_parse(b, n, 6, &ic), WIRE_OK);
	assert_int_equal(ic.kind, WIRE_ICMP_PARAM_PROBLEM);
	assert_int_equal(ic.pointer, 0x28000006);
	assert_int_equal(ic.rfc4884_len, 0);
	assert_int_equal(ic.quote, WIRE_QUOTE_FULL);
	wt_cases++;

	/* packet too big: the MTU's top byte is not a length */
	n = cut_quote(b, "toobig6", 40);
	wire_put32(b + 4, 0x10000500);
	assert_int_equal(wire_icmp_parse(b, n, 6, &ic), WIRE_OK);
	assert_int_equal(ic.kind, WIRE_ICMP_PKT_TOO_BIG);
	assert_int_equal(ic.mtu, 0x10000500);
	assert_int_equal(ic.rfc4884_len, 0);
	wt_cases++;

	/* echo reply, echo request, v6 neighbour solicitation */
	memcpy(b, "\x00\x00\x12\x34\x00\x01\x00\x02", 8);
	assert_int_equal(wire_icmp_parse(b, 8, 4, &ic), WIRE_UNSUPPORTED);
	assert_int_equal(ic.kind, WIRE_ICMP_NOT_ERROR);
	assert_int_equal(ic.type, 0);
	assert_int_equal(ic.csum, 0x1234);
	b[0] = 128;
	assert_int_equal(wire_icmp_parse(b, 8, 6, &ic), WIRE_UNSUPPORTED);
	b[0] = 135;
	assert_int_equal(wire_icmp_parse(b, 8, 6, &ic), WIRE_UNSUPPORTED);
	assert_int_equal(ic.type, 135);
	/* ICMPv4 type 1 is not an ICMPv6 destination unreachable */
	b[0] = 1;
	assert_int_equal(wire_icmp_parse(b, 8, 4, &ic), WIRE_UNSUPPORTED);
	assert_int_equal(wire_icmp_parse(b, 8, 5, &ic), WIRE_UNSUPPORTED);
	wt_cases += 5;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_icmp_samples),
		cmocka_unit_test(test_icmp_truncations),
		cmocka_unit_test(test_icmp_short_quotes),
		cmocka_unit_test(test_icmp_bad_quotes),
		cmocka_unit_test(test_icmp_rfc4884),
		cmocka_unit_test(test_icmp_types),
	};

	return cmocka_run_group_tests(tests, NULL, wt_report);
}
