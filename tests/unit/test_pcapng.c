/*
 * test_pcapng.c -- the evidence file read back block by block: the section
 * and interface as readers expect them, every packet's bytes, time and
 * comment, lengths that agree at both ends of each block, and a buffer too
 * small refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pcapng.h"
#include "pktbuild.h"

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* Finds option code in the options at p..end; its value and length. */
static const uint8_t *
option(const uint8_t *p, const uint8_t *end, uint16_t code, uint16_t *len)
{
	while (p + 4 <= end) {
		uint16_t c = rd16(p), l = rd16(p + 2);

		if (c == 0)
			return NULL;
		if (c == code) {
			*len = l;
			return p + 4;
		}
		p += 4 + ((l + 3u) & ~3u);
	}
	return NULL;
}

static void
test_round_trip(void **state)
{
	static uint8_t out[4096];
	struct pcapng_buf b = { out, 0, sizeof(out), false };
	struct addr src, dst;
	uint8_t syn[128];
	struct pkt_tcp t;
	size_t synlen, off, n = 0;
	const char *comments[] = { "SYN as sent, window scale 7", NULL, "quote from hop 3" };
	const uint64_t ts[] = { 1764771200123456789ull, 1764771200223456789ull,
	    1764771200323456789ull };

	(void)state;
	assert_int_equal(addr_parse("198.18.1.1", &src), 0);
	assert_int_equal(addr_parse("198.18.100.11", &dst), 0);
	memset(&t, 0, sizeof(t));
	t.src = &src;
	t.dst = &dst;
	t.sport = 61000;
	t.dport = 80;
	t.seq = 1234;
	t.flags = 0x02;
	t.window = 64240;
	t.opts = pkt_linux_synack_opts;
	t.optlen = sizeof(pkt_linux_synack_opts);
	synlen = pkt_build_tcp(syn, sizeof(syn), &t);
	assert_true(synlen > 40);
	assert_int_equal(pcapng_begin(&b, "scaleprobe 0.2.0"), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pcapng_packet(&b, ts[i], syn, synlen - (size_t)i, comments[i]), 0);

	/* the section header */
	assert_int_equal(rd32(out), 0x0A0D0D0Au);
	assert_int_equal(rd32(out + 8), 0x1A2B3C4Du);
	assert_int_equal(rd16(out + 12), 1);
	off = 0;
	for (int block = 0; off < b.len; block++) {
		uint32_t type = rd32(out + off), len = rd32(out + off + 4);
		const uint8_t *body = out + off + 8, *end = out + off + len - 4;
		uint16_t ol;
		const uint8_t *o;

		assert_int_equal(len % 4, 0);
		assert_true(off + len <= b.len);
		assert_int_equal(rd32(out + off + len - 4), len);	/* both ends agree */
		if (block == 0) {
			assert_int_equal(type, 0x0A0D0D0Au);
			o = option(body + 16, end, 4, &ol);
			assert_non_null(o);
			assert_memory_equal(o, "scaleprobe 0.2.0", ol);
		} else if (block == 1) {
			assert_int_equal(type, 1);
			assert_int_equal(rd16(body), PCAPNG_LINKTYPE_RAW);
			o = option(body + 8, end, 9, &ol);
			assert_non_null(o);
			assert_int_equal(ol, 1);
			assert_int_equal(o[0], 9);
		} else {
			uint32_t caplen = rd32(body + 12);

			assert_int_equal(type, 6);
			assert_int_equal(((uint64_t)rd32(body + 4) << 32) | rd32(body + 8), ts[n]);
			assert_int_equal(caplen, synlen - n);
			assert_int_equal(rd32(body + 16), caplen);
			assert_memory_equal(body + 20, syn, caplen);
			o = option(body + 20 + ((caplen + 3u) & ~3u), end, 1, &ol);
			if (comments[n] == NULL) {
				assert_null(o);
			} else {
				assert_non_null(o);
				assert_int_equal(ol, strlen(comments[n]));
				assert_memory_equal(o, comments[n], ol);
			}
			n++;
		}
		off += len;
	}
	assert_int_equal(off, b.len);
	assert_int_equal(n, 3);
}

static void
test_too_small(void **state)
{
	static uint8_t out[4096];
	uint8_t pkt[60] = { 0x45 };

	struct pcapng_buf full = { out, 0, sizeof(out), false };
	size_t need;

	(void)state;
	assert_int_equal(pcapng_begin(&full, "scaleprobe"), 0);
	assert_int_equal(pcapng_packet(&full, 1, pkt, sizeof(pkt), "a comment"), 0);
	need = full.len;
	for (size_t cap = 0; cap < need; cap++) {
		struct pcapng_buf b = { out, 0, cap, false };

		if (pcapng_begin(&b, "scaleprobe") == 0)
			assert_int_equal(pcapng_packet(&b, 1, pkt, sizeof(pkt), "a comment"), -1);
		assert_true(b.overflow);
		assert_true(b.len <= cap);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
