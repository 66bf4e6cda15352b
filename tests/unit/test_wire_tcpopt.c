/*
 * test_wire_tcpopt.c -- wire_tcpopt_parse on the options of every captured
 * TCP header (sent, received and quoted) against scapy's reading, on every
 * cut of them, and on hand-made option areas with every kind of bad length;
 * wire_tcpopt_kinds' NOP-run folding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "wire_tcpopt.h"
#include "wire_testutil.h"

/* The option area of sample s: its own TCP header's, or its quote's. */
static const uint8_t *
sample_opts(const struct sample *s, const struct sample_tcp **t, size_t *n)
{
	size_t	tcp_off;

	if (s->tcp.present) {
		*t = &s->tcp;
		tcp_off = s->l4_off;
	} else if (s->qtcp.present && s->qtcp.complete) {
		*t = &s->qtcp;
		tcp_off = s->l4_off + 8 + s->q_l4_off;	/* after the ICMP header */
	} else
		return NULL;
	*n = (*t)->hdr_len - 20u;
	return s->bytes + tcp_off + 20;
}

static void
check_against(const struct tcpopts *o, const struct sample_tcp *t)
{
	unsigned	i;

	assert_int_equal(o->has_mss, t->mss >= 0);
	if (t->mss >= 0)
		assert_int_equal(o->mss, t->mss);
	assert_int_equal(o->has_wscale, t->wscale >= 0);
	if (t->wscale >= 0)
		assert_int_equal(o->wscale, t->wscale);
	assert_int_equal(o->sack_perm, t->sack_perm);
	assert_int_equal(o->has_ts, t->ts);
	assert_int_equal(o->ts_val, t->ts_val);
	assert_int_equal(o->ts_ecr, t->ts_ecr);
	assert_int_equal(o->n, t->n_kinds);
	for (i = 0; i < o->n; i++) {
		assert_int_equal(o->opt[i].kind, t->kinds[i]);
		assert_int_equal(o->opt[i].flags, 0);
		if (i > 0)
			assert_int_equal(o->opt[i].off,
			    o->opt[i - 1].off + o->opt[i - 1].len);
	}
}

static void
test_tcpopt_samples(void **state)
{
	const struct sample_tcp	*t;
	const uint8_t		*p;
	struct tcpopts		 o;
	size_t			 i, n;
	unsigned		 seen = 0;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		if ((p = sample_opts(&samples[i], &t, &n)) == NULL)
			continue;
		assert_int_equal(wire_tcpopt_parse(p, n, n, &o), WIRE_OK);
		check_against(&o, t);
		assert_int_equal(o.n_bad, 0);
		assert_false(o.has_eol);
		seen++;
		wt_cases++;
	}
	/* every TCP sample and the quoted SYNs */
	assert_int_equal(seen, 14);
}

/* Every cut of every real option area is truncated; what was decoded
 * before the cut is what the whole area decodes to. */
static void
test_tcpopt_truncations(void **state)
{
	const struct sample_tcp	*t;
	const uint8_t		*p;
	struct tcpopts		 o, whole;
	size_t			 i, n, cut;

	(void)state;
	for (i = 0; i < n_samples; i++) {
		if ((p = sample_opts(&samples[i], &t, &n)) == NULL)
			continue;
		assert_int_equal(wire_tcpopt_parse(p, n, n, &whole), WIRE_OK);
		for (cut = 0; cut < n; cut++) {
			assert_int_equal(wire_tcpopt_parse(p, cut, n, &o),
			    WIRE_TRUNCATED);
			assert_true(o.n <= whole.n);
			if (o.has_wscale)
				assert_int_equal(o.wscale, whole.wscale);
			if (o.has_ts)
				assert_int_equal(o.ts_val, whole.ts_val);
			assert_int_equal(o.n_bad, 0);
			wt_truncations++;
		}
	}
}

static enum wire_result
parse(const char *bytes, size_t n, struct tcpopts *o)
{
	return wire_tcpopt_parse((const uint8_t *)bytes, n, n, o);
}

/* Lengths 0 and 1, a length byte missing, an option past the area. */
static void
test_tcpopt_broken(void **state)
{
	struct tcpopts	o;

	(void)state;
	assert_int_equal(parse("\x01\x02\x00\x05\xb4\x01\x01\x01", 8, &o),
	    WIRE_MALFORMED);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.opt[1].kind, 2);
	assert_int_equal(o.opt[1].len, 0);
	assert_int_equal(o.opt[1].flags, WIRE_TCPOPT_F_BROKEN);
	assert_false(o.has_mss);
	assert_int_equal(o.n_bad, 1);
	wt_cases++;

	assert_int_equal(parse("\x03\x01\x07\x01", 4, &o), WIRE_MALFORMED);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.opt[0].flags, WIRE_TCPOPT_F_BROKEN);
	assert_false(o.has_wscale);
	wt_cases++;

	/* timestamps claiming 10 bytes where 4 are left */
	assert_int_equal(parse("\x01\x01\x08\x0a\x00\x00", 6, &o),
	    WIRE_MALFORMED);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.opt[2].off, 2);
	assert_int_equal(o.opt[2].len, 10);
	assert_int_equal(o.opt[2].flags, WIRE_TCPOPT_F_BROKEN);
	assert_false(o.has_ts);
	wt_cases++;

	/* a kind in the area's last byte: its length byte is missing */
	assert_int_equal(parse("\x01\x01\x01\x03", 4, &o), WIRE_MALFORMED);
	assert_int_equal(o.n, 4);
	assert_int_equal(o.opt[3].flags, WIRE_TCPOPT_F_BROKEN);
	wt_cases++;

	/* the same when only the bytes end (a quote): truncated, cut */
	assert_int_equal(wire_tcpopt_parse((const uint8_t *)"\x01\x01\x01\x03",
	    4, 8, &o), WIRE_TRUNCATED);
	assert_int_equal(o.opt[3].flags, WIRE_TCPOPT_F_CUT);
	assert_int_equal(wire_tcpopt_parse((const uint8_t *)"\x01\x01\x08\x0a",
	    4, 12, &o), WIRE_TRUNCATED);
	assert_int_equal(o.opt[2].flags, WIRE_TCPOPT_F_CUT);
	assert_int_equal(o.opt[2].len, 10);
	assert_int_equal(o.n_bad, 0);
	/* ... but an option past the area itself is malformed even so */
	assert_int_equal(wire_tcpopt_parse((const uint8_t *)"\x01\x01\x08\x0a",
	    4, 8, &o), WIRE_MALFORMED);
	wt_cases += 3;

	/* areas that no TCP header can have */
	assert_int_equal(wire_tcpopt_parse((const uint8_t *)"\x01", 1, 44, &o),
	    WIRE_MALFORMED);
	assert_int_equal(wire_tcpopt_parse((const uint8_t *)"\x01\x01", 2, 1,
	    &o), WIRE_MALFORMED);
	assert_int_equal(wire_tcpopt_parse(NULL, 0, 0, &o), WIRE_OK);
	assert_int_equal(o.n, 0);
	wt_cases += 3;
}

/* Known kinds with the wrong length: flagged, skipped by their length,
 * the walk goes on. */
static void
test_tcpopt_badlen(void **state)
{
	struct tcpopts	o;

	(void)state;
	/* WS of length 4, then a good MSS */
	assert_int_equal(parse("\x03\x04\x07\x00\x02\x04\x05\xb4", 8, &o),
	    WIRE_MALFORMED);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.opt[0].flags, WIRE_TCPOPT_F_BADLEN);
	assert_false(o.has_wscale);
	assert_true(o.has_mss);
	assert_int_equal(o.mss, 1460);
	assert_int_equal(o.n_bad, 1);
	wt_cases++;

	/* WS of length 2 */
	assert_int_equal(parse("\x03\x02\x01\x01", 4, &o), WIRE_MALFORMED);
	assert_int_equal(o.opt[0].flags, WIRE_TCPOPT_F_BADLEN);
	assert_int_equal(o.n, 3);
	wt_cases++;

	/* MSS of length 3 and 6 */
	assert_int_equal(parse("\x02\x03\x05\x01", 4, &o), WIRE_MALFORMED);
	assert_false(o.has_mss);
	assert_int_equal(o.opt[0].flags, WIRE_TCPOPT_F_BADLEN);
	assert_int_equal(parse("\x02\x06\x05\xb4\x00\x00\x01\x01", 8, &o),
	    WIRE_MALFORMED);
	assert_false(o.has_mss);
	assert_int_equal(o.n, 3);
	wt_cases += 2;

	/* SACK-permitted of length 3, timestamps of length 8 */
	assert_int_equal(parse("\x04\x03\x00\x01", 4, &o), WIRE_MALFORMED);
	assert_false(o.sack_perm);
	assert_int_equal(parse("\x08\x08\x00\x00\x00\x01\x00\x00", 8, &o),
	    WIRE_MALFORMED);
	assert_false(o.has_ts);
	wt_cases += 2;

	/* SACK: 9 bytes of blocks is not a whole number of them; 0 blocks */
	assert_int_equal(parse("\x05\x0b\x00\x00\x00\x01\x00\x00\x00\x02\x00"
	    "\x01", 12, &o), WIRE_MALFORMED);
	assert_int_equal(o.n_sack, 0);
	assert_int_equal(o.opt[0].flags, WIRE_TCPOPT_F_BADLEN);
	assert_int_equal(o.opt[1].off, 11);
	assert_int_equal(parse("\x05\x02\x01\x01", 4, &o), WIRE_MALFORMED);
	assert_int_equal(o.n_sack, 0);
	/* a block and a half: 14 bytes */
	assert_int_equal(parse("\x05\x0e\x00\x00\x00\x01\x00\x00\x00\x02"
	    "\x00\x00\x00\x03\x01\x01", 16, &o), WIRE_MALFORMED);
	assert_int_equal(o.n_sack, 0);
	assert_int_equal(o.opt[0].flags, WIRE_TCPOPT_F_BADLEN);
	assert_int_equal(o.n, 3);
	wt_cases += 3;
}

static void
test_tcpopt_values(void **state)
{
	struct tcpopts	o;

	(void)state;
	/* two SACK blocks after the NOP NOP Linux puts first */
	assert_int_equal(parse("\x01\x01\x05\x12"
	    "\x00\x00\x00\x10\x00\x00\x00\x20"
	    "\xff\xff\xff\xf0\x00\x00\x00\x05", 20, &o), WIRE_OK);
	assert_int_equal(o.n_sack, 2);
	assert_int_equal(o.sack[0].left, 0x10);
	assert_int_equal(o.sack[0].right, 0x20);
	assert_int_equal(o.sack[1].left, 0xfffffff0);
	assert_int_equal(o.sack[1].right, 5);
	assert_int_equal(o.opt[2].len, 18);
	wt_cases++;

	/* shifts above 14 are kept as sent; the receiver clamps */
	assert_int_equal(parse("\x03\x03\xff\x00", 4, &o), WIRE_OK);
	assert_true(o.has_wscale);
	assert_int_equal(o.wscale, 255);
	assert_true(o.has_eol);
	wt_cases++;

	/* a second WS: listed, flagged, the first one's value kept */
	assert_int_equal(parse("\x03\x03\x07\x03\x03\x0e\x01\x01", 8, &o),
	    WIRE_OK);
	assert_int_equal(o.wscale, 7);
	assert_int_equal(o.opt[1].flags, WIRE_TCPOPT_F_DUP);
	assert_int_equal(o.n, 4);
	wt_cases++;

	/* unknown kinds (MPTCP 30, TFO 34, 253 experimental): kind, len, off */
	assert_int_equal(parse("\x1e\x04\xaa\xbb\x22\x02\xfd\x03\x99\x01\x01"
	    "\x01", 12, &o), WIRE_OK);
	assert_int_equal(o.n_unknown, 3);
	assert_int_equal(o.n, 6);
	assert_int_equal(o.opt[0].kind, 30);
	assert_int_equal(o.opt[0].len, 4);
	assert_int_equal(o.opt[0].off, 0);
	assert_int_equal(o.opt[1].kind, 34);
	assert_int_equal(o.opt[1].len, 2);
	assert_int_equal(o.opt[1].off, 4);
	assert_int_equal(o.opt[2].kind, 253);
	assert_int_equal(o.opt[2].off, 6);
	assert_int_equal(o.n_bad, 0);
	wt_cases++;
}

/* EOL ends the list; zero padding after it is fine, anything else not. */
static void
test_tcpopt_eol(void **state)
{
	struct tcpopts	o;

	(void)state;
	assert_int_equal(parse("\x02\x04\x05\xb4\x00\x00\x00\x00", 8, &o),
	    WIRE_OK);
	assert_int_equal(o.n, 2);
	assert_true(o.has_eol);
	assert_int_equal(o.eol_off, 4);
	assert_false(o.data_after_eol);
	wt_cases++;

	/* EOL mid-options: the WS after it is not an option */
	assert_int_equal(parse("\x02\x04\x05\xb4\x00\x03\x03\x07", 8, &o),
	    WIRE_MALFORMED);
	assert_int_equal(o.n, 2);
	assert_true(o.data_after_eol);
	assert_false(o.has_wscale);
	assert_true(o.has_mss);
	wt_cases++;

	/* EOL in a quote cut before the padding ends */
	assert_int_equal(wire_tcpopt_parse((const uint8_t *)"\x01\x00", 2, 4,
	    &o), WIRE_TRUNCATED);
	assert_true(o.has_eol);
	wt_cases++;
}

/* NOP runs fold, so a stripper's NOPs and a stack's padding compare. */
static void
test_tcpopt_kinds(void **state)
{
	static const uint8_t	want_sent[] = { 2, 4, 8, 1, 3 };
	static const uint8_t	want_strip[] = { 2, 4, 8, 1 };
	uint8_t			sent[40], strip[40], k[40];
	struct tcpopts		o;
	size_t			n;

	(void)state;
	memcpy(sent, "\x02\x04\x05\xb4\x04\x02\x08\x0a\x00\x00\x00\x01"
	    "\x00\x00\x00\x00\x01\x03\x03\x07", 20);
	memcpy(strip, sent, 20);
	memset(strip + 17, 1, 3);	/* xt_TCPOPTSTRIP: WS -> NOP NOP NOP */

	assert_int_equal(wire_tcpopt_parse(sent, 20, 20, &o), WIRE_OK);
	n = wire_tcpopt_kinds(&o, k, sizeof(k));
	assert_int_equal(n, sizeof(want_sent));
	assert_memory_equal(k, want_sent, n);
	assert_int_equal(wire_tcpopt_parse(strip, 20, 20, &o), WIRE_OK);
	assert_int_equal(o.n, 7);
	n = wire_tcpopt_kinds(&o, k, sizeof(k));
	assert_int_equal(n, sizeof(want_strip));
	assert_memory_equal(k, want_strip, n);
	wt_cases += 2;

	/* different NOP padding, same list */
	assert_int_equal(parse("\x01\x01\x01\x03\x03\x07\x01\x01", 8, &o),
	    WIRE_OK);
	n = wire_tcpopt_kinds(&o, k, sizeof(k));
	assert_int_equal(n, 3);
	assert_memory_equal(k, "\x01\x03\x01", 3);
	assert_int_equal(parse("\x01\x03\x03\x07\x01\x01\x01\x01", 8, &o),
	    WIRE_OK);
	assert_int_equal(wire_tcpopt_kinds(&o, k, sizeof(k)), 3);
	assert_memory_equal(k, "\x01\x03\x01", 3);
	/* and the cap is honoured */
	assert_int_equal(wire_tcpopt_kinds(&o, k, 2), 2);
	wt_cases += 2;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcpopt_samples),
		cmocka_unit_test(test_tcpopt_truncations),
		cmocka_unit_test(test_tcpopt_broken),
		cmocka_unit_test(test_tcpopt_badlen),
		cmocka_unit_test(test_tcpopt_values),
		cmocka_unit_test(test_tcpopt_eol),
		cmocka_unit_test(test_tcpopt_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, wt_report);
}
