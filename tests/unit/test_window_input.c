/*
 * test_window_input.c -- the window test's state machine fed by hand: the
 * segments it asks for (seq, ack, flags, window, options), and what it
 * does with hostile or odd input: wrong acks, sequence numbers nowhere
 * near the window, lengths of 4 GB, time running backwards, stragglers
 * after the end, reordering, a range list full of holes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "window.h"
#include "window_ranges.h"

#define MS 1000000ull
#define T0 (5000 * MS)
#define ISN 0xfffffff0u			/* our ISN: wraps during the request */
#define IRS 0x7ffffff0u			/* the server's */
#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_PSH 0x08
#define F_ACK 0x10

static const uint8_t req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
#define REQ_LEN ((uint32_t)sizeof(req) - 1)

struct drv {
	struct window *w;
	uint64_t now;
	struct window_act act[64];
	int nact;
};

static void
drain(struct drv *d)
{
	d->nact = 0;
	while (d->nact < 64 && window_next_action(d->w, 0, &d->act[d->nact]))
		d->nact++;
}

static void
start_with(struct drv *d, int s, const uint8_t *request, size_t len)
{
	struct window_config c;

	window_config_defaults(&c, s);
	c.request = request;
	c.request_len = len;
	memset(d, 0, sizeof(*d));
	d->now = T0;
	d->w = window_start(&c, ISN, d->now);
	assert_non_null(d->w);
	drain(d);
}

static void
start(struct drv *d, int s)
{
	start_with(d, s, req, REQ_LEN);
}

static void
input(struct drv *d, uint32_t seq, uint32_t ack, uint8_t flags, uint32_t len,
    uint64_t dt)
{
	struct window_seg g;

	memset(&g, 0, sizeof(g));
	g.seq = seq;
	g.ack = ack;
	g.flags = flags;
	g.window = 65160;
	g.payload_len = len;
	g.mss = (flags & F_SYN) ? 1460 : -1;
	g.ts = true;
	g.tsval = 777 + (uint32_t)(d->now / MS);
	d->now += dt;
	window_input(d->w, &g, d->now);
	drain(d);
}

/* answer data at offset off (from IRS + 1), acking the whole request */
static void
data(struct drv *d, uint32_t off, uint32_t len, uint64_t dt)
{
	input(d, IRS + 1 + off, ISN + 1 + REQ_LEN, F_ACK, len, dt);
}

static void
timer(struct drv *d, uint64_t at)
{
	d->now = at;
	window_on_timer(d->w, at);
	drain(d);
}

/* handshake done: the SYN-ACK 2 ms after the SYN */
static void
established(struct drv *d, int s)
{
	start(d, s);
	input(d, IRS, ISN + 1, F_SYN | F_ACK, 0, 2 * MS);
	assert_int_equal(d->nact, 2);
}

static void
test_choose_w(void **state)
{
	static const struct { int s; uint16_t w; } t[] = {
		{ -1, 8192 }, { 0, 8192 }, { 1, 4096 }, { 5, 256 }, { 7, 64 },
		{ 12, 2 }, { 13, 1 }, { 14, 1 }, { 15, 1 }, { 20, 1 }, { 255, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(window_choose_w(t[i].s), t[i].w);
	for (int s = 0; s <= 13; s++)
		assert_int_equal((unsigned)window_choose_w(s) << s, 8192);
}

/* The segments of a handshake, exactly. */
static void
test_handshake_actions(void **state)
{
	struct drv d;
	uint8_t opt[40];
	uint32_t tsval;

	(void)state;
	start(&d, 7);
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_SYN);
	assert_int_equal(d.act[0].seq, ISN);
	assert_int_equal(window_act_options(&d.act[0], opt, sizeof(opt)), 0);
	tsval = 777 + (uint32_t)(d.now / MS);
	input(&d, IRS, ISN + 1, F_SYN | F_ACK, 0, 2 * MS);
	assert_int_equal(d.nact, 2);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	assert_int_equal(d.act[0].seq, ISN + 1);
	assert_int_equal(d.act[0].ack, IRS + 1);
	assert_int_equal(d.act[0].flags, F_ACK);
	assert_int_equal(d.act[0].window, 64);
	assert_int_equal(d.act[1].kind, WINDOW_ACT_DATA);
	assert_int_equal(d.act[1].seq, ISN + 1);
	assert_int_equal(d.act[1].ack, IRS + 1);
	assert_int_equal(d.act[1].flags, F_ACK | F_PSH);
	assert_int_equal(d.act[1].window, 64);
	assert_int_equal(d.act[1].payload_len, REQ_LEN);
	assert_memory_equal(d.act[1].payload, req, REQ_LEN);
	assert_int_equal(window_act_options(&d.act[1], opt, sizeof(opt)), 12);
	assert_int_equal(opt[0], 1);
	assert_int_equal(opt[1], 1);
	assert_int_equal(opt[2], 8);
	assert_int_equal(opt[3], 10);
	assert_int_equal(((uint32_t)opt[4] << 24 | (uint32_t)opt[5] << 16 |
	    (uint32_t)opt[6] << 8 | opt[7]), (uint32_t)(d.now / MS));
	assert_int_equal(((uint32_t)opt[8] << 24 | (uint32_t)opt[9] << 16 |
	    (uint32_t)opt[10] << 8 | opt[11]), tsval);
	assert_int_equal(window_act_options(&d.act[1], opt, 11), 0);
	window_free(d.w);
}

/* A SYN-ACK must ack our ISN; a RST only counts with the ACK flag and
 * our ISN + 1; silence brings the SYN again, then the end. */
static void
test_synack_checks(void **state)
{
	struct drv d;
	struct window_result r;

	(void)state;
	start(&d, 7);
	input(&d, IRS, ISN + 2, F_SYN | F_ACK, 0, MS);
	input(&d, IRS, ISN + 1, F_SYN, 0, MS);
	input(&d, 0, 0, F_RST, 0, MS);
	input(&d, 0, ISN, F_RST | F_ACK, 0, MS);
	assert_false(window_done(d.w));
	assert_int_equal(d.nact, 0);
	assert_int_equal(window_next_wake(d.w), T0 + 1000 * MS);
	timer(&d, T0 + 1000 * MS);
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_SYN);
	assert_int_equal(d.act[0].seq, ISN);
	timer(&d, T0 + 2000 * MS);
	assert_int_equal(d.nact, 1);
	timer(&d, T0 + 3000 * MS);
	assert_true(window_done(d.w));
	assert_int_equal(d.nact, 0);		/* no connection, no RST */
	assert_int_equal(window_next_wake(d.w), WINDOW_NEVER);
	window_result(d.w, &r);
	assert_int_equal(r.end, WINDOW_END_NO_SYNACK);
	assert_true(r.inconclusive);
	assert_int_equal(r.ignored, 4);
	window_free(d.w);

	start(&d, 7);
	input(&d, 0, ISN + 1, F_RST | F_ACK, 0, MS);
	assert_true(window_done(d.w));
	assert_int_equal(d.nact, 0);
	window_result(d.w, &r);
	assert_int_equal(r.end, WINDOW_END_RST);
	assert_true(r.inconclusive);
	window_free(d.w);
}

/* Junk that must change nothing: data far beyond any window, before the
 * server's ISN, with an ack we never sent, without ACK. */
static void
test_junk_ignored(void **state)
{
	struct drv d;
	struct window_result r;

	(void)state;
	established(&d, 7);
	data(&d, 0x40000000u, 1000, MS);		/* far beyond */
	data(&d, 0xfffff000u, 1000, MS);		/* before IRS + 1 */
	input(&d, IRS + 1, ISN + 1 + REQ_LEN + 1, F_ACK, 64, MS);	/* ack too far */
	input(&d, IRS + 1, ISN, F_ACK, 64, MS);	/* ack before our ISN + 1 */
	input(&d, IRS + 1, ISN + 1 + REQ_LEN, 0, 64, MS);	/* no ACK flag */
	input(&d, IRS + 1 + 5000000, 0, F_RST, 0, MS);	/* RST far off */
	assert_false(window_done(d.w));
	window_result(d.w, &r);
	assert_int_equal(r.ignored, 6);
	assert_int_equal(r.total_bytes, 0);
	/* and the real thing still works */
	data(&d, 0, 64, MS);
	assert_int_equal(window_next_wake(d.w), d.now + WINDOW_QUIET_FLOOR);
	window_free(d.w);
}

/* 4 GB of payload in one segment: a window no sender may have.  The
 * flight stays within max_bytes; nothing is concluded. */
static void
test_huge_length(void **state)
{
	struct drv d;
	struct window_result r;

	(void)state;
	for (int s = 0; s <= 14; s += 7) {
		established(&d, s);
		data(&d, 0, 0xffffffffu, MS);
		timer(&d, window_next_wake(d.w));
		assert_true(window_done(d.w));
		window_result(d.w, &r);
		assert_int_equal(r.end, WINDOW_END_OVERRUN);
		assert_true(r.inconclusive);
		assert_true(r.flight_bytes <= (int64_t)WINDOW_MAX_BYTES);
		assert_true(r.total_bytes <= WINDOW_MAX_BYTES);
		window_free(d.w);
	}
	/* 2 MiB at W = 8192: within 8192<<14, so clipped at max_bytes.  The
	 * bound, 7, exceeds the shift sent without a plateau: after a pause a
	 * second connection (same ISN) measures again with W = 1; it draws no
	 * SYN-ACK, so the first connection's result stands */
	established(&d, 0);
	data(&d, 0, 2u << 20, MS);
	assert_false(window_done(d.w));
	assert_true(d.nact >= 1 && d.act[0].kind == WINDOW_ACT_RST);
	assert_int_equal(window_next_wake(d.w), d.now + 100 * MS);
	timer(&d, window_next_wake(d.w));
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_SYN);
	assert_int_equal(d.act[0].seq, ISN);
	for (int i = 0; i < 10 && !window_done(d.w); i++)
		timer(&d, window_next_wake(d.w));
	assert_true(window_done(d.w));
	window_result(d.w, &r);
	assert_true(r.remeasured);
	assert_int_equal(r.end, WINDOW_END_MAX_BYTES);
	assert_int_equal(r.w, 8192);
	assert_int_equal(r.total_bytes, WINDOW_MAX_BYTES);
	assert_int_equal(r.flight_bytes, WINDOW_MAX_BYTES);
	assert_int_equal(r.scale_effective_min, 7);	/* 8192<<7 = 1 MiB */
	window_free(d.w);
}

/* After the end: copies of the SYN-ACK draw nothing, stragglers with
 * data at most two more RSTs, nothing else changes, time does nothing. */
static void
test_after_done(void **state)
{
	struct drv d;
	struct window_result a, b;
	int rsts = 0;

	(void)state;
	established(&d, 7);
	data(&d, 0, 1000, MS);
	timer(&d, window_next_wake(d.w));		/* round 0 ends */
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	assert_int_equal(d.act[0].ack, IRS + 1 + 1000);
	assert_int_equal(d.act[0].seq, ISN + 1 + REQ_LEN);
	timer(&d, window_next_wake(d.w));		/* nothing more: over */
	assert_true(window_done(d.w));
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_RST);
	assert_int_equal(d.act[0].seq, ISN + 1 + REQ_LEN);
	assert_int_equal(d.act[0].flags, F_RST);
	window_result(d.w, &a);
	assert_int_equal(a.end, WINDOW_END_DATA);
	assert_int_equal(a.scale_effective_min, 4);	/* 1000 bytes need 64<<4 */
	/* copies of the SYN-ACK (a replay) draw nothing: it had its RST */
	for (int i = 0; i < 10; i++) {
		input(&d, IRS, ISN + 1, F_SYN | F_ACK, 0, MS);
		rsts += d.nact;
	}
	assert_int_equal(rsts, 0);
	for (int i = 0; i < 10; i++) {
		data(&d, 1000 + 100 * (uint32_t)i, 100, MS);
		rsts += d.nact;
		input(&d, IRS + 1, ISN + 1 + REQ_LEN, F_RST, 0, MS);
		rsts += d.nact;
		timer(&d, d.now + 10000 * MS);
		rsts += d.nact;
	}
	assert_int_equal(rsts, 2);
	window_result(d.w, &b);
	assert_int_equal(b.scale_effective_min, a.scale_effective_min);
	assert_int_equal(b.flight_bytes, a.flight_bytes);
	assert_int_equal(b.total_bytes, a.total_bytes);
	assert_int_equal(b.end, a.end);
	assert_int_equal(window_next_wake(d.w), WINDOW_NEVER);
	window_free(d.w);
}

/* Time handed in out of order is taken as no time at all. */
static void
test_time_backwards(void **state)
{
	struct drv d;
	struct window_result r;

	(void)state;
	established(&d, 7);
	data(&d, 0, 64, MS);
	d.now -= 1000 * MS;
	data(&d, 64, 64, 0);
	timer(&d, 0);
	assert_false(window_done(d.w));
	timer(&d, window_next_wake(d.w));
	assert_int_equal(d.nact, 1);			/* the round's ACK */
	window_result(d.w, &r);
	assert_int_equal(r.flight[0], 128);
	window_free(d.w);
}

/* The server repeats its SYN-ACK (our ACK was lost): the ACK and the
 * request go again -- until the answer has begun. */
static void
test_dup_synack(void **state)
{
	struct drv d;

	(void)state;
	established(&d, 7);
	input(&d, IRS, ISN + 1, F_SYN | F_ACK, 0, MS);
	assert_int_equal(d.nact, 2);
	assert_int_equal(d.act[0].seq, ISN + 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	assert_int_equal(d.act[1].kind, WINDOW_ACT_DATA);
	data(&d, 0, 64, MS);
	input(&d, IRS, ISN + 1, F_SYN | F_ACK, 0, MS);
	assert_int_equal(d.nact, 0);
	window_free(d.w);
}

/* No ack of the request and no answer: resent after 1 s, twice, then the
 * test gives up at 3 s; the RSTs cover both rcv_nxt the server may have. */
static void
test_request_resent(void **state)
{
	struct drv d;
	struct window_result r;
	uint64_t t = T0 + 2 * MS;

	(void)state;
	established(&d, 14);
	assert_int_equal(window_next_wake(d.w), t + 1000 * MS);
	timer(&d, t + 1000 * MS);
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_DATA);
	assert_int_equal(d.act[0].seq, ISN + 1);
	assert_int_equal(d.act[0].window, 1);
	timer(&d, t + 2000 * MS);
	assert_int_equal(d.nact, 1);
	timer(&d, t + 3000 * MS);
	assert_true(window_done(d.w));
	assert_int_equal(d.nact, 2);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_RST);
	assert_int_equal(d.act[0].seq, ISN + 1 + REQ_LEN);
	assert_int_equal(d.act[1].seq, ISN + 1);
	window_result(d.w, &r);
	assert_int_equal(r.end, WINDOW_END_NO_DATA);
	assert_true(r.inconclusive);
	window_free(d.w);
}

/* A server whose first window cannot take the request. */
static void
test_request_too_big(void **state)
{
	struct drv d;
	struct window_seg g;
	struct window_result r;

	(void)state;
	start(&d, 7);
	memset(&g, 0, sizeof(g));
	g.seq = IRS;
	g.ack = ISN + 1;
	g.flags = F_SYN | F_ACK;
	g.window = 10;
	g.mss = 1460;
	d.now += MS;
	window_input(d.w, &g, d.now);
	drain(&d);
	/* acknowledged; the request waits for a window (a SYN proxy opens
	 * it later), the ACK is resent twice, one end_wait apart */
	assert_false(window_done(d.w));
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(window_next_wake(d.w), d.now + 1000 * MS);
		timer(&d, window_next_wake(d.w));
		assert_int_equal(d.nact, 1);
		assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	}
	/* a segment whose window still cannot take it changes nothing */
	g.flags = F_ACK;
	g.seq = IRS + 1;
	g.window = 10;
	window_input(d.w, &g, d.now + MS);
	drain(&d);
	assert_int_equal(d.nact, 0);
	timer(&d, window_next_wake(d.w));
	assert_true(window_done(d.w));
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_RST);
	assert_int_equal(d.act[0].seq, ISN + 1);
	window_result(d.w, &r);
	assert_int_equal(r.end, WINDOW_END_REFUSED);
	assert_true(r.inconclusive);
	window_free(d.w);
}

/* A SYN-ACK with window 0 (a SYN proxy's), then a window update: the
 * request leaves with the update, and data follow as usual. */
static void
test_window_update(void **state)
{
	struct drv d;
	struct window_seg g;

	(void)state;
	start(&d, 7);
	memset(&g, 0, sizeof(g));
	g.seq = IRS;
	g.ack = ISN + 1;
	g.flags = F_SYN | F_ACK;
	g.window = 0;
	g.mss = 1400;
	g.wscale = 5;
	g.ttl = 59;
	d.now += MS;
	window_input(d.w, &g, d.now);
	drain(&d);
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	assert_int_equal(d.act[0].seq, ISN + 1);
	/* still 0: nothing; then a field of 1, scaled by the SYN-ACK's shift
	 * (1 << 5 = 32 bytes) takes the 27-byte request */
	memset(&g, 0, sizeof(g));
	g.seq = IRS + 1;
	g.ack = ISN + 1;
	g.flags = F_ACK;
	g.window = 0;
	g.ttl = 59;
	window_input(d.w, &g, d.now);
	drain(&d);
	assert_int_equal(d.nact, 0);
	g.window = 1;
	window_input(d.w, &g, d.now);
	drain(&d);
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_DATA);
	assert_int_equal(d.act[0].payload_len, REQ_LEN);
	window_free(d.w);
}

/* Out of order is not a retransmission; a duplicate is, and ends the
 * round at once; a resend from before our last ACK draws that ACK again. */
static void
test_reorder_and_duplicates(void **state)
{
	struct drv d;

	(void)state;
	established(&d, 0);
	data(&d, 1448, 1448, MS);
	data(&d, 0, 1448, 0);
	assert_int_equal(d.nact, 0);
	data(&d, 2896, 1448, 0);
	data(&d, 1448, 1448, 5 * MS);		/* a tail-loss probe's resend */
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	assert_int_equal(d.act[0].ack, IRS + 1 + 3 * 1448);
	data(&d, 0, 1448, 300 * MS);		/* RTO resend: our ACK was lost */
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].ack, IRS + 1 + 3 * 1448);
	{
		int acks = 0;

		for (int i = 0; i < 10; i++) {
			data(&d, 0, 1448, MS);	/* but not forever */
			acks += d.nact;
		}
		assert_int_equal(acks, 3);	/* 4 a round, one used above */
	}
	window_free(d.w);
}

/* A resend from before our last ACK while the next flight comes: the ACK
 * drawn again acknowledges what the lost one did, not the new data, or
 * the server's right edge would move within the round and its flight
 * pass W<<s (before: a flight of W<<s + the new data, judged a larger
 * shift than the server applies). */
static void
test_reack_keeps_edge(void **state)
{
	struct drv d;
	struct window_result res;

	(void)state;
	established(&d, 7);			/* W 64: W<<7 = 8192 */
	for (uint32_t off = 0; off < 8192; off += 1024)
		data(&d, off, 1024, 0);
	timer(&d, d.now + 60 * MS);		/* quiet: round 1 starts */
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].ack, IRS + 1 + 8192);
	data(&d, 8192, 1024, MS);		/* the next flight begins */
	data(&d, 9216, 1024, 0);
	data(&d, 0, 1024, MS);			/* an RTO's resend of the first */
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	assert_int_equal(d.act[0].ack, IRS + 1 + 8192);
	/* the server keeps to the edge that ACK gave: 8192 more, a plateau */
	for (uint32_t off = 10240; off < 16384; off += 1024)
		data(&d, off, 1024, 0);
	timer(&d, d.now + 60 * MS);
	for (uint32_t off = 16384; off < 24576; off += 1024)
		data(&d, off, 1024, 0);
	timer(&d, d.now + 60 * MS);
	for (int i = 0; i < 8 && !window_done(d.w); i++)
		timer(&d, d.now + 2000 * MS);
	window_result(d.w, &res);
	assert_int_equal(res.scale_effective, 7);
	window_free(d.w);
}

/* More holes than the range list holds: nothing breaks; a fill of a
 * joined-over hole may pass for a resend and end the round early, but no
 * byte is counted twice: the flights add up to the highest end. */
static void
test_many_holes(void **state)
{
	struct drv d;
	struct window_result r;

	(void)state;
	established(&d, 0);
	for (uint32_t i = 0; i < 40; i++)
		data(&d, 20 * i, 10, 0);
	assert_int_equal(d.nact, 0);
	for (uint32_t i = 40; i-- > 0;)
		data(&d, 20 * i + 10, 10, 0);
	data(&d, 790, 100, 0);
	timer(&d, window_next_wake(d.w));
	window_result(d.w, &r);
	assert_in_range(r.rounds, 1, 2);
	assert_int_equal(r.total_bytes, 890);
	assert_int_equal(r.flight[0] + (r.rounds == 2 ? r.flight[1] : 0), 890);
	window_free(d.w);
}

/* A FIN ends the round, not one beyond any window; the server's RST at
 * its snd_nxt ends the test without a RST of ours. */
static void
test_fin_and_rst(void **state)
{
	struct drv d;
	struct window_result r;

	(void)state;
	established(&d, 7);
	data(&d, 0, 64, MS);
	input(&d, IRS + 1 + 0x20000000u, ISN + 1 + REQ_LEN, F_ACK | F_FIN, 0, MS);
	assert_int_equal(d.nact, 0);
	input(&d, IRS + 1 + 64, ISN + 1 + REQ_LEN, F_ACK | F_FIN, 0, MS);
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_RST);
	window_result(d.w, &r);
	assert_int_equal(r.end, WINDOW_END_FIN);
	assert_true(r.inconclusive);		/* 64 bytes = W: nothing excluded */
	assert_int_equal(r.scale_effective_min, -1);
	window_free(d.w);

	established(&d, 7);
	data(&d, 0, 64, MS);
	timer(&d, window_next_wake(d.w));
	data(&d, 64, 64, MS);
	input(&d, IRS + 1 + 128, 0, F_RST, 0, MS);
	assert_true(window_done(d.w));
	assert_int_equal(d.nact, 0);
	window_result(d.w, &r);
	assert_int_equal(r.end, WINDOW_END_RST);
	window_free(d.w);
}

/* TSecr echoes the newest TSval, across the wrap, not an older one. */
static void
test_ts_echo(void **state)
{
	struct drv d;
	struct window_seg g;

	(void)state;
	start(&d, 7);
	memset(&g, 0, sizeof(g));
	g.seq = IRS;
	g.ack = ISN + 1;
	g.flags = F_SYN | F_ACK;
	g.window = 65160;
	g.mss = 1460;
	g.ts = true;
	g.tsval = 0xffffff00u;
	window_input(d.w, &g, d.now);
	drain(&d);
	assert_int_equal(d.act[0].tsecr, 0xffffff00u);
	g.flags = F_ACK;
	g.seq = IRS + 1;
	g.ack = ISN + 1 + REQ_LEN;
	g.payload_len = 32;
	g.tsval = 0xfffffff0u;
	window_input(d.w, &g, d.now);
	g.seq += 32;
	g.tsval = 0x10;			/* later, across the wrap */
	window_input(d.w, &g, d.now);
	g.seq += 32;
	g.tsval = 0xffffff80u;		/* older */
	window_input(d.w, &g, d.now);
	drain(&d);
	timer(&d, window_next_wake(d.w));
	assert_int_equal(d.nact, 1);
	assert_int_equal(d.act[0].tsecr, 0x10);
	window_free(d.w);
}

/* The range set on its own: fresh bytes counted once, neighbours and
 * overlaps merged, kept sorted and disjoint; a full list joins its
 * closest pair, whose gap then counts as received. */
static void
check_sorted(const struct window_ranges *r)
{
	for (int i = 0; i < r->n; i++) {
		assert_true(r->lo[i] < r->hi[i]);
		if (i > 0)
			assert_true(r->hi[i - 1] < r->lo[i]);
	}
}

static void
test_ranges(void **state)
{
	struct window_ranges r;

	(void)state;
	window_ranges_clear(&r);
	assert_int_equal(window_ranges_add(&r, 0, 10), 10);
	assert_int_equal(window_ranges_add(&r, 5, 15), 5);
	assert_int_equal(window_ranges_add(&r, 0, 15), 0);
	assert_int_equal(window_ranges_add(&r, 15, 20), 5);
	assert_int_equal(r.n, 1);
	assert_int_equal(window_ranges_add(&r, 30, 40), 10);
	assert_int_equal(window_ranges_add(&r, 25, 28), 3);
	assert_int_equal(r.n, 3);
	check_sorted(&r);
	assert_int_equal(window_ranges_add(&r, 18, 32), 7);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.lo[0], 0);
	assert_int_equal(r.hi[0], 40);

	window_ranges_clear(&r);
	for (uint32_t i = 0; i < WINDOW_RANGES; i++)
		assert_int_equal(window_ranges_add(&r, 100 * i + 50, 100 * i + 60), 10);
	assert_int_equal(r.n, WINDOW_RANGES);
	/* one more: the closest pair (all gaps 90: the first) is joined */
	assert_int_equal(window_ranges_add(&r, 5000, 5010), 10);
	assert_int_equal(r.n, WINDOW_RANGES);
	check_sorted(&r);
	assert_int_equal(r.lo[0], 50);
	assert_int_equal(r.hi[0], 160);
	assert_int_equal(window_ranges_add(&r, 60, 150), 0);	/* taken as seen */
	assert_int_equal(window_ranges_add(&r, 160, 250), 90);
	check_sorted(&r);
	/* held: [50, 260) (the join, 160..250, and 250..260 touching it),
	 * 13 more ranges of 10, and [5000, 5010) */
	assert_int_equal(window_ranges_add(&r, 0, 6000), 6000 - (210 + 13 * 10 + 10));
	assert_int_equal(r.n, 1);
}

static void
test_start_refuses(void **state)
{
	struct window_config c;
	static uint8_t big[WINDOW_REQUEST_MAX + 1];

	(void)state;
	window_config_defaults(&c, 7);
	c.request = big;
	c.request_len = sizeof(big);
	assert_null(window_start(&c, ISN, T0));
	c.request = NULL;
	c.request_len = 10;
	assert_null(window_start(&c, ISN, T0));
}

/* A machine is small (at 512 paths of three tests each, every byte of it
 * is 1,536 bytes of the engine's), and a request it holds as one queue
 * entry still leaves as whole segments in order, PSH on the last only:
 * 3,000 bytes at MSS 1460 with timestamps: 1,428 bytes a segment (room
 * for IPv6). */
static void
test_machine_size_and_pieces(void **state)
{
	static uint8_t long_req[3000];
	struct drv d;
	uint32_t at = 0;

	(void)state;
	assert_true(window_bytes() <= 1536);
	for (size_t i = 0; i < sizeof(long_req); i++)
		long_req[i] = (uint8_t)(i * 7);
	start_with(&d, 7, long_req, sizeof(long_req));
	input(&d, IRS, ISN + 1, F_SYN | F_ACK, 0, MS);
	assert_int_equal(d.nact, 1 + 3);
	assert_int_equal(d.act[0].kind, WINDOW_ACT_ACK);
	for (int i = 1; i < d.nact; i++) {
		const struct window_act *a = &d.act[i];

		assert_int_equal(a->kind, WINDOW_ACT_DATA);
		assert_int_equal(a->seq, ISN + 1 + at);
		assert_int_equal(a->ack, IRS + 1);
		assert_int_equal(a->payload_len, i < 3 ? 1428 : 3000 - 2 * 1428);
		assert_memory_equal(a->payload, long_req + at, a->payload_len);
		assert_int_equal(a->flags, i < 3 ? F_ACK : F_ACK | F_PSH);
		assert_true(a->ts);
		at += (uint32_t)a->payload_len;
	}
	assert_int_equal(at, sizeof(long_req));
	assert_false(window_pending(d.w));
	window_free(d.w);
}

/* A segment of the server's with the kernel's receive stamp at, read at
 * T0 + read_ms: the SYN-ACK (len 0) or answer data at offset off. */
static void
stamped(struct drv *d, uint32_t off, uint32_t len, uint64_t at, uint64_t read_ms)
{
	struct window_seg g;

	memset(&g, 0, sizeof(g));
	g.seq = len == 0 ? IRS : IRS + 1 + off;
	g.ack = len == 0 ? ISN + 1 : ISN + 1 + REQ_LEN;
	g.flags = len == 0 ? F_SYN | F_ACK : F_ACK;
	g.window = 65160;
	g.mss = len == 0 ? 1460 : -1;
	g.ts = true;
	g.payload_len = len;
	g.at = at;
	d->now = T0 + read_ms * MS;
	window_input(d->w, &g, d->now);
	drain(d);
}

/* The kernel's receive stamp (seg.at), not the time the segment was read,
 * gives the RTT and a flight's quiet: a loop that reads late neither
 * stretches the quiet time (3 RTT) nor moves the round's end. SYN at T0,
 * the SYN-ACK read 20 ms later. */
static void
test_kernel_stamps(void **state)
{
	static const struct { uint64_t at; uint32_t rtt_us; const char *why; } rows[] = {
		{ T0 + 1 * MS, 1000, "stamped 1 ms after the SYN" },
		{ T0 + 300000, 300, "0.3 ms" },
		{ 0, 20000, "no stamp: when it was read" },
		{ T0 + 25 * MS, 20000, "stamped after it was read: read" },
		{ T0 - MS, 0, "stamped before the SYN left: 0" },
	};
	struct window_result res;
	struct drv d;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		start(&d, 7);
		stamped(&d, 0, 0, rows[i].at, 20);
		window_result(d.w, &res);
		if (res.rtt_us != rows[i].rtt_us)
			fail_msg("%s: rtt %u us, want %u", rows[i].why, res.rtt_us,
			    rows[i].rtt_us);
		window_free(d.w);
	}

	/* RTT 1 ms (quiet: the 10 ms floor); the request left at T0 + 20 ms,
	 * the flight's segment came at T0 + 22 ms but was read at T0 + 60 ms:
	 * the round ends 10 ms after it came, not after it was read */
	start(&d, 7);
	stamped(&d, 0, 0, T0 + MS, 20);
	stamped(&d, 0, 1000, T0 + 22 * MS, 60);
	assert_int_equal(window_next_wake(d.w), T0 + 32 * MS);
	/* a later segment stamped earlier (two captures) does not move it back */
	stamped(&d, 1000, 1000, T0 + 21 * MS, 60);
	assert_int_equal(window_next_wake(d.w), T0 + 32 * MS);
	window_free(d.w);
}

/* Stragglers after our RST: the ones that can have been on their way
 * before it reached the server (within max(2 RTT, the 10 ms floor) of its
 * leaving; RTT 2 ms here) draw no RST, later ones (our RST was lost) at
 * most two. */
static void
test_straggler_calm(void **state)
{
	static const struct {
		uint64_t after;		/* since our RST left */
		int rsts;		/* RSTs it draws */
	} t[] = {
		{ 1 * MS, 0 }, { 5 * MS, 0 }, { WINDOW_QUIET_FLOOR - 1, 0 },
		{ WINDOW_QUIET_FLOOR, 1 }, { 200 * MS, 1 }, { 400 * MS, 0 },
	};
	struct drv d;
	uint64_t rst_at;

	(void)state;
	established(&d, 7);
	data(&d, 0, 1000, MS);
	timer(&d, window_next_wake(d.w));		/* round 0 ends */
	timer(&d, window_next_wake(d.w));		/* nothing more: over */
	assert_true(window_done(d.w));
	assert_int_equal(d.act[0].kind, WINDOW_ACT_RST);
	rst_at = d.now;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		d.now = rst_at + t[i].after;
		data(&d, 1000 + 100 * (uint32_t)i, 100, 0);
		assert_int_equal(d.nact, t[i].rsts);
	}
	window_free(d.w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_w),
		cmocka_unit_test(test_handshake_actions),
		cmocka_unit_test(test_synack_checks),
		cmocka_unit_test(test_junk_ignored),
		cmocka_unit_test(test_huge_length),
		cmocka_unit_test(test_after_done),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_dup_synack),
		cmocka_unit_test(test_request_resent),
		cmocka_unit_test(test_request_too_big),
		cmocka_unit_test(test_window_update),
		cmocka_unit_test(test_reorder_and_duplicates),
		cmocka_unit_test(test_reack_keeps_edge),
		cmocka_unit_test(test_many_holes),
		cmocka_unit_test(test_fin_and_rst),
		cmocka_unit_test(test_ts_echo),
		cmocka_unit_test(test_start_refuses),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_machine_size_and_pieces),
		cmocka_unit_test(test_kernel_stamps),
		cmocka_unit_test(test_straggler_calm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
