/*
 * test_quote.c -- quote_compare (prober/quote.c) on quotes made the way the
 * lab makes them: scaleprobe's SYN, the lab's own mbox surgery (every SYN
 * action), a hand-made change where mbox has none (NAT, ISN, window, an
 * option added, ...), a router's ICMP error quoting it in full, in 8 bytes,
 * RFC 4884 style or cut, parsed back by wire_icmp_parse.  Every row runs
 * over IPv4 and IPv6.  Then malformed and cut quotes, byte by byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labpath.h"
#include "quote.h"
#include "wire.h"

/* Changes no mbox action makes, done by hand to the SYN on its way. */
enum mut {
	M_NONE,
	M_NAT,		/* source address and port rewritten (a leaking NAT) */
	M_NAT_ADDR,	/* only the source address: ports and TCP bytes as sent */
	M_ISN,		/* sequence number rewritten */
	M_WINDOW,	/* window field rewritten */
	M_TOS,		/* TOS / traffic class rewritten: masked */
	M_IPID,		/* v4 IP ID / v6 flow label rewritten */
	M_SACK_NOP,	/* SACK-permitted overwritten with NOPs */
	M_MSS_NOP,	/* MSS overwritten with NOPs */
	M_ADD_WS,	/* the control's NOPs become NOP + WS 7 */
	M_UNKNOWN_OPT,	/* the control's NOPs become option 30, length 4 */
	M_CSUM,		/* only the TCP checksum changed */
	M_BADOPT,	/* WS length byte 4: the option runs past the area */
};

struct qrow {
	const char *what;
	int scale;		/* -1: the control */
	const char *action;	/* mbox SYN action, or NULL */
	enum mut mut;
	enum lp_quote how;
	size_t cut;		/* LP_QUOTE_CUT: TCP bytes kept */
	enum quote_kind kind;	/* the label wire_icmp gives */
	enum ws_seen ws;
	int ws_value, mss;
	bool sack, ts, other, nat, isn;
};

#define FULL	LP_QUOTE_FULL, 0, QUOTE_FULL
#define Q8	LP_QUOTE_8BYTE, 0, QUOTE_8BYTE
#define Q4884	LP_QUOTE_RFC4884, 0, QUOTE_FULL
#define UNK	WS_UNKNOWN, -1, -1

static const struct qrow rows[] = {
	/* what			scale action		mut	quote	ws		val  mss   sack   ts    other  nat    isn */
	{ "pass",		7, "pass",		M_NONE,	FULL,	WS_INTACT,	7, 1460, false, false, false, false, false },
	{ "ws-set 0",		7, "ws-set 0",		M_NONE,	FULL,	WS_CHANGED,	0, 1460, false, false, false, false, false },
	{ "ws-set 0 on 0",	0, "ws-set 0",		M_NONE,	FULL,	WS_INTACT,	0, 1460, false, false, false, false, false },
	{ "ws-set 5 on 14",	14, "ws-set 5",		M_NONE,	FULL,	WS_CHANGED,	5, 1460, false, false, false, false, false },
	{ "ws-cap 7 on 14",	14, "ws-cap 7",		M_NONE,	FULL,	WS_CHANGED,	7, 1460, false, false, false, false, false },
	{ "ws-cap 7 on 7",	7, "ws-cap 7",		M_NONE,	FULL,	WS_INTACT,	7, 1460, false, false, false, false, false },
	{ "ws-nop",		7, "ws-nop",		M_NONE,	FULL,	WS_NOPPED,	-1, 1460, false, false, false, false, false },
	{ "ws-strip",		7, "ws-strip",		M_NONE,	FULL,	WS_REMOVED,	-1, 1460, false, false, false, false, false },
	{ "mss-clamp 1200",	7, "mss-clamp 1200",	M_NONE,	FULL,	WS_INTACT,	7, 1200, false, false, false, false, false },
	{ "mss-clamp 1500",	7, "mss-clamp 1500",	M_NONE,	FULL,	WS_INTACT,	7, 1460, false, false, false, false, false },
	{ "ts-strip",		7, "ts-strip",		M_NONE,	FULL,	WS_INTACT,	7, 1460, false, true, false, false, false },
	{ "shift 255 as sent",	255, "pass",		M_NONE,	FULL,	WS_INTACT,	255, 1460, false, false, false, false, false },
	{ "shift 255 capped",	255, "ws-cap 14",	M_NONE,	FULL,	WS_CHANGED,	14, 1460, false, false, false, false, false },
	{ "control, pass",	-1, "pass",		M_NONE,	FULL,	WS_NOT_SENT,	-1, 1460, false, false, false, false, false },
	{ "control, ws-set 0",	-1, "ws-set 0",		M_NONE,	FULL,	WS_NOT_SENT,	-1, 1460, false, false, false, false, false },
	{ "control, ws-strip",	-1, "ws-strip",		M_NONE,	FULL,	WS_NOT_SENT,	-1, 1460, false, false, false, false, false },
	{ "control, ts-strip",	-1, "ts-strip",		M_NONE,	FULL,	WS_NOT_SENT,	-1, 1460, false, true, false, false, false },
	{ "control, WS added",	-1, NULL,		M_ADD_WS, FULL,	WS_ADDED,	7, 1460, false, false, false, false, false },
	{ "control, option 30",	-1, NULL,		M_UNKNOWN_OPT, FULL, WS_NOT_SENT, -1, 1460, false, false, true, false, false },
	{ "8-byte, pass",	7, "pass",		M_NONE,	Q8,	UNK,			false, false, false, false, false },
	{ "8-byte, ws-set 0",	7, "ws-set 0",		M_NONE,	Q8,	UNK,			false, false, false, false, false },
	{ "8-byte, ws-strip",	7, "ws-strip",		M_NONE,	Q8,	UNK,			false, false, false, false, false },
	{ "8-byte, ws-nop",	7, "ws-nop",		M_NONE,	Q8,	UNK,			false, false, false, false, false },
	{ "8-byte, mss-clamp",	7, "mss-clamp 1200",	M_NONE,	Q8,	UNK,			false, false, false, false, false },
	{ "8-byte, ts-strip",	7, "ts-strip",		M_NONE,	Q8,	UNK,			false, false, false, false, false },
	{ "rfc4884, pass",	7, "pass",		M_NONE,	Q4884,	WS_INTACT,	7, 1460, false, false, false, false, false },
	{ "rfc4884, ws-set 0",	7, "ws-set 0",		M_NONE,	Q4884,	WS_CHANGED,	0, 1460, false, false, false, false, false },
	{ "rfc4884, ws-strip",	7, "ws-strip",		M_NONE,	Q4884,	WS_REMOVED,	-1, 1460, false, false, false, false, false },
	{ "NAT, pass",		7, "pass",		M_NAT,	FULL,	WS_INTACT,	7, 1460, false, false, false, true, false },
	{ "NAT, ws-set 0",	7, "ws-set 0",		M_NAT,	FULL,	WS_CHANGED,	0, 1460, false, false, false, true, false },
	{ "NAT, ws-strip",	7, "ws-strip",		M_NAT,	FULL,	WS_REMOVED,	-1, 1460, false, false, false, true, false },
	{ "NAT, ts-strip",	7, "ts-strip",		M_NAT,	FULL,	WS_INTACT,	7, 1460, false, true, false, true, false },
	{ "NAT, address only",	7, "pass",		M_NAT_ADDR, FULL, WS_INTACT,	7, 1460, false, false, false, true, false },
	{ "NAT, 8-byte",	7, "ws-set 0",		M_NAT,	Q8,	UNK,			false, false, false, true, false },
	{ "NAT, rfc4884",	7, "ws-set 0",		M_NAT,	Q4884,	WS_CHANGED,	0, 1460, false, false, false, true, false },
	{ "ISN rewritten",	7, "pass",		M_ISN,	FULL,	WS_INTACT,	7, 1460, false, false, false, false, true },
	{ "ISN rewritten, 8-byte", 7, "pass",		M_ISN,	Q8,	UNK,			false, false, false, false, true },
	{ "window rewritten",	7, "pass",		M_WINDOW, FULL,	WS_INTACT,	7, 1460, false, false, true, false, false },
	{ "TOS and TTL: masked", 7, "ws-set 0",		M_TOS,	FULL,	WS_CHANGED,	0, 1460, false, false, false, false, false },
	{ "IP ID / flow label",	7, "pass",		M_IPID,	FULL,	WS_INTACT,	7, 1460, false, false, true, false, false },
	{ "IP ID / flow, 8-byte", 7, "pass",		M_IPID,	Q8,	UNK,			false, false, true, false, false },
	{ "SACK-perm NOPed",	7, "pass",		M_SACK_NOP, FULL, WS_INTACT,	7, 1460, true, false, false, false, false },
	{ "MSS NOPed",		7, "pass",		M_MSS_NOP, FULL, WS_INTACT,	7, -1, false, false, true, false, false },
	{ "TCP checksum alone",	7, "pass",		M_CSUM,	FULL,	WS_INTACT,	7, 1460, false, false, true, false, false },
	{ "cut in the options",	7, "ws-set 0",		M_NONE,	LP_QUOTE_CUT, 30, QUOTE_8BYTE, UNK,	false, false, false, false, false },
	{ "cut after 8 bytes",	7, "ws-strip",		M_NONE,	LP_QUOTE_CUT, 8, QUOTE_8BYTE, UNK,	false, false, false, false, false },
	{ "options malformed",	7, "pass",		M_BADOPT, FULL,	UNK,			false, false, false, false, false },
};

static const struct addr *
dst(int family)
{
	static struct addr d4, d6;

	if (d4.family == 0 && (addr_parse("198.18.100.11", &d4) != 0 ||
	    addr_parse("fd00:5ca1:100::11", &d6) != 0))
		abort();
	return family == ADDR_V4 ? &d4 : &d6;
}

static void
mutate(enum mut m, uint8_t *pkt, size_t len)
{
	size_t t = pkt[0] >> 4 == 4 ? 20 : 40;	/* the TCP header */
	struct addr nat;

	switch (m) {
	case M_NONE:
		return;
	case M_NAT:
	case M_NAT_ADDR:
		if (addr_parse(pkt[0] >> 4 == 4 ? "198.18.2.100" : "fd00:5ca1:2::100", &nat) != 0)
			abort();
		lp_snat(pkt, len, &nat, (uint16_t)(wire_get16(pkt + t) ^
		    (m == M_NAT ? 0x3c3c : 0)));
		return;
	case M_ISN:
		wire_put32(pkt + t + 4, wire_get32(pkt + t + 4) + 0x01000000u);
		break;
	case M_WINDOW:
		wire_put16(pkt + t + 14, 1024);
		break;
	case M_TOS:
		if (t == 20) {
			pkt[1] = 0xb9;
		} else {
			pkt[0] = 0x6b;
			pkt[1] = (uint8_t)(0x90 | (pkt[1] & 0x0f));
		}
		return;		/* the router fixes the IPv4 header checksum */
	case M_IPID:
		if (t == 20) {
			wire_put16(pkt + 4, 0x1234);
		} else {
			pkt[1] = (uint8_t)((pkt[1] & 0xf0) | 0x01);
			pkt[2] = 0x23;
			pkt[3] = 0x45;
		}
		return;
	case M_SACK_NOP:
		memset(pkt + t + 24, 0x01, 2);
		break;
	case M_MSS_NOP:
		memset(pkt + t + 20, 0x01, 4);
		break;
	case M_ADD_WS:
		memcpy(pkt + t + 36, "\x01\x03\x03\x07", 4);
		break;
	case M_UNKNOWN_OPT:
		memcpy(pkt + t + 36, "\x1e\x04\xab\xcd", 4);
		break;
	case M_CSUM:
		pkt[t + 16] ^= 0x55;
		return;
	case M_BADOPT:
		pkt[t + 38] = 4;
		break;
	}
	lp_fix_csums(pkt, len);
}

/* The SYN of a row, what the path made of it, and its quote compared. */
static void
run_row(const struct qrow *r, int family, struct hop_quote *hq)
{
	struct addr prober = lp_hop_addr(family, 0), router = lp_hop_addr(family, 3);
	uint8_t sent[LP_PKT_MAX], pkt[LP_PKT_MAX];
	size_t sent_len, len, hl = family == ADDR_V4 ? 20 : 40;

	sent_len = lp_syn(sent, sizeof(sent), &prober, dst(family), r->scale, 3,
	    40001, 0x5ca1e103u);
	assert_int_not_equal(sent_len, 0);
	memcpy(pkt, sent, sent_len);
	len = sent_len;
	pkt[family == ADDR_V4 ? 8 : 7] = 1;	/* as it reaches hop 3 */
	if (r->action != NULL)
		assert_false(lp_mbox(r->action, pkt, &len));
	mutate(r->mut, pkt, len);
	assert_true(lp_router_quote(sent, sent_len, pkt, len, &router, &prober,
	    r->how, hl + r->cut, hq));
}

static void
test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct qrow *r = &rows[i];

		for (int family = ADDR_V4; family <= ADDR_V6; family += 2) {
			struct hop_quote q;
			struct addr router;
			char where[64];

			snprintf(where, sizeof(where), "%s, IPv%d", r->what, family);
			run_row(r, family, &q);
			if (q.quote != r->kind)
				fail_msg("%s: quote label %d, want %d", where, q.quote, r->kind);
			if (q.ws != r->ws || q.ws_value != r->ws_value)
				fail_msg("%s: ws %d value %d, want %d value %d", where,
				    q.ws, q.ws_value, r->ws, r->ws_value);
			if (q.mss != r->mss || q.mss_sent != 1460)
				fail_msg("%s: mss %d (sent %d), want %d", where, q.mss,
				    q.mss_sent, r->mss);
			if (q.sack_stripped != r->sack || q.ts_stripped != r->ts)
				fail_msg("%s: sack/ts stripped %d/%d, want %d/%d", where,
				    q.sack_stripped, q.ts_stripped, r->sack, r->ts);
			if (q.other_changed != r->other || q.nat != r->nat ||
			    q.isn_rewritten != r->isn)
				fail_msg("%s: other/nat/isn %d/%d/%d, want %d/%d/%d", where,
				    q.other_changed, q.nat, q.isn_rewritten, r->other,
				    r->nat, r->isn);
			router = lp_hop_addr(family, 3);
			assert_true(addr_equal(&q.from, &router));
			assert_int_equal(quote_is_full(&q), r->ws != WS_UNKNOWN);
		}
	}
}

/* A full quote and the SYN it quotes, as bytes. */
static void
full_quote(int family, const char *action, uint8_t *sent, size_t *sent_len,
    uint8_t *quote, size_t *quote_len)
{
	struct addr prober = lp_hop_addr(family, 0);

	*sent_len = lp_syn(sent, LP_PKT_MAX, &prober, dst(family), 7, 2, 40008,
	    0x5ca1e902u);
	memcpy(quote, sent, *sent_len);
	*quote_len = *sent_len;
	quote[family == ADDR_V4 ? 8 : 7] = 1;
	assert_false(lp_mbox(action, quote, quote_len));
}

/* Exact-size heap copies, so the sanitizer build sees any overread. */
static void
compare_exact(const uint8_t *sent, size_t sent_len, const uint8_t *quote,
    size_t quote_len, enum quote_kind kind, struct hop_quote *out)
{
	uint8_t *s = malloc(sent_len ? sent_len : 1), *q = malloc(quote_len ? quote_len : 1);

	assert_non_null(s);
	assert_non_null(q);
	memcpy(s, sent, sent_len);
	memcpy(q, quote, quote_len);
	quote_compare(s, sent_len, q, quote_len, kind, out);
	free(s);
	free(q);
}

static void
assert_claims_nothing(const struct hop_quote *q)
{
	assert_int_equal(q->ws, WS_UNKNOWN);
	assert_int_equal(q->ws_value, -1);
	assert_int_equal(q->mss, -1);
	assert_false(q->sack_stripped || q->ts_stripped || q->other_changed ||
	    q->nat || q->isn_rewritten);
	assert_false(quote_is_full(q));
}

/* Every cut of a full quote, labelled full (a lying label) and 8-byte:
 * nothing about options before the header is whole, nothing at all
 * before 8 TCP bytes, and never a read past the bytes given. */
static void
test_every_cut(void **state)
{
	(void)state;
	for (int family = ADDR_V4; family <= ADDR_V6; family += 2) {
		uint8_t sent[LP_PKT_MAX], quote[LP_PKT_MAX];
		size_t sent_len, quote_len, hl = family == ADDR_V4 ? 20 : 40;

		full_quote(family, "ws-set 0", sent, &sent_len, quote, &quote_len);
		for (size_t cut = 0; cut <= quote_len; cut++) {
			struct hop_quote q;

			compare_exact(sent, sent_len, quote, cut, QUOTE_FULL, &q);
			assert_int_equal(q.quote, QUOTE_FULL);
			assert_int_equal(q.mss_sent, 1460);
			if (cut < hl + 8) {
				assert_claims_nothing(&q);
			} else if (cut < quote_len) {
				assert_int_equal(q.ws, WS_UNKNOWN);
				assert_false(q.nat || q.isn_rewritten || q.other_changed);
			} else {
				assert_int_equal(q.ws, WS_CHANGED);
				assert_int_equal(q.ws_value, 0);
			}
			compare_exact(sent, sent_len, quote, cut, QUOTE_8BYTE, &q);
			assert_int_equal(q.ws, WS_UNKNOWN);
			/* and the SYN we sent cut short is no reference at all */
			compare_exact(sent, cut, quote, quote_len, QUOTE_FULL, &q);
			if (cut < sent_len)
				assert_claims_nothing(&q);
		}
	}
}

/* Quotes that are not of our SYN's kind claim nothing; the caller's
 * from and rtt_us survive. */
static void
test_malformed(void **state)
{
	uint8_t sent[LP_PKT_MAX], quote[LP_PKT_MAX], other[LP_PKT_MAX], s6[LP_PKT_MAX];
	size_t sent_len, quote_len, other_len, olen;
	struct hop_quote q;
	struct addr from = lp_hop_addr(ADDR_V4, 2);

	(void)state;
	full_quote(ADDR_V4, "pass", sent, &sent_len, quote, &quote_len);

	memset(&q, 0, sizeof(q));
	q.from = from;
	q.rtt_us = 1234;
	quote_compare(sent, sent_len, NULL, 0, QUOTE_FULL, &q);
	assert_claims_nothing(&q);
	assert_true(addr_equal(&q.from, &from));
	assert_int_equal(q.rtt_us, 1234);

	quote_compare(NULL, 0, quote, quote_len, QUOTE_FULL, &q);
	assert_claims_nothing(&q);
	assert_int_equal(q.mss_sent, -1);

	/* a silent hop: nothing to compare, whatever the bytes */
	quote_compare(sent, sent_len, quote, quote_len, QUOTE_NONE, &q);
	assert_int_equal(q.quote, QUOTE_NONE);
	assert_claims_nothing(&q);

	/* not TCP */
	memcpy(other, quote, quote_len);
	other[9] = 17;
	compare_exact(sent, sent_len, other, quote_len, QUOTE_FULL, &q);
	assert_claims_nothing(&q);

	/* IHL < 5 */
	memcpy(other, quote, quote_len);
	other[0] = 0x44;
	compare_exact(sent, sent_len, other, quote_len, QUOTE_FULL, &q);
	assert_claims_nothing(&q);

	/* data offset < 5 */
	memcpy(other, quote, quote_len);
	other[20 + 12] = 0x40;
	compare_exact(sent, sent_len, other, quote_len, QUOTE_FULL, &q);
	assert_claims_nothing(&q);

	/* a fragment */
	memcpy(other, quote, quote_len);
	other[6] = 0x20;	/* MF */
	compare_exact(sent, sent_len, other, quote_len, QUOTE_FULL, &q);
	assert_claims_nothing(&q);

	/* another family than the SYN's */
	full_quote(ADDR_V6, "pass", s6, &other_len, other, &olen);
	compare_exact(sent, sent_len, other, olen, QUOTE_FULL, &q);
	assert_claims_nothing(&q);

	/* a complete quote labelled 8-byte is read as 8-byte */
	compare_exact(sent, sent_len, quote, quote_len, QUOTE_8BYTE, &q);
	assert_int_equal(q.quote, QUOTE_8BYTE);
	assert_int_equal(q.ws, WS_UNKNOWN);
	assert_false(quote_is_full(&q));

	/* the same quote labelled full says the option is intact */
	compare_exact(sent, sent_len, quote, quote_len, QUOTE_FULL, &q);
	assert_int_equal(q.ws, WS_INTACT);
	assert_true(quote_is_full(&q));
}

/* An RFC 4884 quote padded with zeros past the datagram: the padding is
 * not TCP payload, so no length differs. */
static void
test_rfc4884_padding(void **state)
{
	(void)state;
	for (int family = ADDR_V4; family <= ADDR_V6; family += 2) {
		uint8_t sent[LP_PKT_MAX], quote[LP_PKT_MAX];
		size_t sent_len, quote_len;
		struct hop_quote q;

		full_quote(family, "ws-strip", sent, &sent_len, quote, &quote_len);
		memset(quote + quote_len, 0, 128 - quote_len);
		compare_exact(sent, sent_len, quote, 128, QUOTE_FULL, &q);
		assert_int_equal(q.ws, WS_REMOVED);
		assert_false(q.other_changed);
		/* cut before the padding ends: still whole */
		compare_exact(sent, sent_len, quote, quote_len, QUOTE_FULL, &q);
		assert_int_equal(q.ws, WS_REMOVED);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rfc4884_padding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
