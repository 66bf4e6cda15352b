/*
 * window.c -- the window test's state machine (window.h): handshake,
 * request, rounds of acknowledgements with a fixed window field W, and the
 * rules that turn the flights seen into a shift.  Pure: the engine sends,
 * captures and keeps time.
 *
 * THE RULES, AND WHY
 *
 * W.  W = max(1, 8192 >> s') with s' = min(s, 14).  If the server applies
 *   shift k to our window fields, it may have W<<k bytes beyond our last
 *   ACK.  W<<s <= 8192 stays below Linux's initial window (10 segments,
 *   14,480 bytes), so the first flight is not capped by the congestion
 *   window when the server applies s or less; and every k in 0..14 gives a
 *   different W<<k.  s' = 14 gives W = 1, 16,384 bytes.
 *
 * Flights.  Round 0 starts with the request, round i with the ACK that
 *   acknowledges everything received so far (same W).  The flight of a
 *   round is F = highest end sequence received - our last ACK (for round 0:
 *   highest end - (server ISN + 1)).  It is never a sum of segment lengths:
 *   tail-loss probes and RTOs resend, and a GRO'd capture glues segments.
 *   Whatever limited the sender, F <= its send window, so every flight
 *   proves W<<k >= F: the lower bound below needs nothing else.
 *
 * A round ends when no new data came for max(3 RTT, 50 ms) (RTT: our SYN
 *   to its SYN-ACK), at once when a segment resends only data this round
 *   already brought (the sender waited for an ACK and gave up: the flight
 *   stopped), at a FIN or RST, or after round_max whatever trickles in
 *   (such a round is cut: a bound, never evidence of a plateau).  A round
 *   with no new data ends after end_wait (1 s, at least 4 RTT), not after
 *   the quiet time: a sender whose window is smaller than its smallest
 *   segment (Linux: 36 bytes with timestamps) sends only from its persist
 *   timer, 200 ms or more after our ACK.  Data resent from before our
 *   last ACK means the ACK was lost: it is sent again (a few per round).
 *
 * Window-limited flights.  Linux sends whole segments only: the segment
 *   that would cross the window's edge waits.  So a window-limited flight
 *   is not W<<k but W<<k minus less than one segment, and where the
 *   segments fall changes from round to round (a small header segment
 *   first, Nagle at the edge).  F is consistent with k when
 *       W<<k >= F  and  W<<k - F < m,
 *   m being the round's largest segment (capped by our MSS and by F).  At
 *   most one k fits: k1 < k2 both fitting would need W<<k2 < F + m <= 2F
 *   <= 2 W<<k1 <= W<<k2.  (Linux bounds its segments to half the largest
 *   window seen once that exceeds 536 bytes, so small windows still hold
 *   whole segments.)
 *
 * Exact.  scale_effective = k when two consecutive rounds are consistent
 *   with the same k, neither of them cut, the round after them brought
 *   new data (so no FIN ended the second), and no flight of the test exceeded W<<k.  Data after
 *   a round proves that round was not data-limited (the sender had more,
 *   and held it back); without the third round a congestion-limited round
 *   followed by the answer's last bytes passes for a plateau (initial
 *   window 1, a 2-segment answer: 1,448 and 1,448 bytes, both within a
 *   segment of 64<<5).  A congestion window that was the limit grows
 *   between rounds instead (slow start doubles it, congestion avoidance
 *   adds a segment: two flights a segment apart never fit one interval
 *   narrower than a segment).  A single round below the initial window is
 *   not taken as proof: initial windows of 1..4 segments exist (RFC 3390,
 *   older stacks), and 2 x 1,448 bytes is consistent with W<<6 at s = 7.
 *   Also exact: a flight above W<<13 allows only k = 14 (no shift beyond
 *   14 exists), e.g. more than 8,192 bytes at W = 1; the test goes on for
 *   one more round when it can, so that a sender ignoring our window
 *   shows itself by overrunning W<<14 (a flight that doubles from below
 *   W<<13 stays within W<<14 once, never twice).
 *
 * Lower bound.  Otherwise scale_effective_min = the smallest k with
 *   W<<k >= the largest flight: a short answer sent whole (a TLS server's
 *   first flight, then it waits) gives a bound at or below the shift the
 *   server really applies, so it never contradicts the scale sent.
 *
 * Inconclusive.  When the bound is 0 (the largest flight is at most W, the
 *   smaller of the windows being told apart), nothing is excluded: no
 *   shift is reported at all.  Likewise with no SYN-ACK, a RST before any
 *   answer, no answer, or data beyond W<<14 (the server ignores our window:
 *   nothing it does then says anything about the shift).
 *
 * Known blind spot: an application that writes exactly W<<k bytes per
 *   ACK-round on its own, or a congestion window that stays within one
 *   segment of W<<k for two rounds, looks window-limited.
 *
 * Hostile input.  Sequence numbers are offsets from the server's ISN + 1
 *   in 32-bit arithmetic (wrap-around is free); data before it, beyond
 *   our ACK + W<<14 + 1 MiB, or with an ack outside what we sent is
 *   ignored; lengths are clipped to max_bytes, so flights never exceed it.
 *   Rounds, bytes and time are capped; after the end, stragglers draw at
 *   most two more RSTs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "window.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10

#define NS_PER_MS 1000000ull
#define MS(x) ((uint64_t)(x) * NS_PER_MS)

#define WINDOW_RFC_MSS 536		/* MSS when the SYN-ACK names none */
#define WINDOW_TS_LEN 12		/* NOP NOP TS */
#define WINDOW_PAYLOAD_MAX 1428		/* 1500 - IPv6 40 - TCP 20 - TS 12 */
#define WINDOW_REQUEST_SEGS 16		/* a request goes in at most this many */
#define WINDOW_RTT_MAX MS(3000)		/* beyond this an RTT is no RTT */
#define WINDOW_QLEN 32			/* actions not yet taken */
#define WINDOW_NIV 16			/* received ranges kept per round */
#define WINDOW_DUP_SYNACKS 3
#define WINDOW_STRAGGLER_RSTS 2
#define WINDOW_DUPACKS 4		/* per round */

enum wstate { ST_SYN, ST_OPEN, ST_DONE };

struct wround {
	uint32_t flight;
	uint32_t m;			/* largest segment, capped */
	bool eligible;			/* may be half of a plateau */
};

struct window {
	struct window_config cfg;
	uint8_t req[WINDOW_REQUEST_MAX];
	uint16_t w;
	enum wstate st;
	uint64_t now;			/* latest time handed in */
	uint64_t t0, syn_at;
	int syns;
	uint32_t isn;

	/* the handshake */
	bool established;
	uint32_t irs;			/* the server's ISN */
	uint64_t rtt;
	bool ts;			/* agreed by both SYNs */
	uint32_t ts_recent;		/* the server's latest TSval */
	size_t seg_out;			/* our payload per segment */
	uint32_t peer_ack;		/* request bytes the server acked */
	int dup_synacks;
	uint64_t req_at;
	int req_sends;

	/* the answer: offsets from the server's ISN + 1 */
	uint64_t highest;		/* highest end received */
	uint64_t acked;			/* what our last ACK acknowledged */
	uint64_t fmax;			/* largest flight */
	int big_round;			/* first round above W<<13; -1 none */
	uint64_t round_at, last_new_at;
	uint32_t round_m;
	bool round_retrans, round_cut;
	int dupacks_left;		/* re-ACKs allowed this round */
	bool fin, rst_in, overrun;
	uint32_t iv_lo[WINDOW_NIV], iv_hi[WINDOW_NIV];	/* received this round */
	int niv;
	struct wround r[WINDOW_MAX_ROUNDS];
	int nrounds;

	/* the outcome */
	enum window_end end;
	int exact;			/* -1 none */
	uint32_t exact_flight;
	int rst_left;
	uint32_t ignored, retrans;
	char reason[160];

	struct window_act q[WINDOW_QLEN];
	int qhead, qlen;
};

uint16_t
window_choose_w(int s)
{
	int sp = s < 0 ? 0 : s > WINDOW_MAX_SCALE ? WINDOW_MAX_SCALE : s;
	unsigned w = WINDOW_BASE_BYTES >> sp;

	return (uint16_t)(w < 1 ? 1 : w);
}

void
window_config_defaults(struct window_config *c, int scale)
{
	memset(c, 0, sizeof(*c));
	c->scale_sent = scale;
	c->mss_ours = 1460;
	c->ts = true;
	c->min_quiet_ns = MS(50);
	c->end_wait_ns = MS(1000);
	c->first_data_ns = MS(3000);
	c->round_max_ns = MS(3000);
	c->synack_timeout_ns = MS(1000);
	c->syn_retries = 2;
	c->request_retries = 2;
	c->max_ns = MS(20000);
	c->max_rounds = 8;
	c->max_bytes = WINDOW_MAX_BYTES;
}

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* a + b without wrapping past WINDOW_NEVER */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > WINDOW_NEVER - b ? WINDOW_NEVER : a + b;
}

/* W << k, the window shift k allows. */
static uint64_t
wnd(const struct window *w, int k)
{
	return (uint64_t)w->w << k;
}

/* The smallest k whose window holds f; 15 when none does. */
static int
window_min_shift(const struct window *w, uint64_t f)
{
	int k = 0;

	while (k <= WINDOW_MAX_SCALE && wnd(w, k) < f)
		k++;
	return k;
}

/* The k this flight is window-limited by, if any (unique, see above). */
static int
window_consistent(const struct window *w, const struct wround *r)
{
	if (!r->eligible || r->flight == 0)
		return -1;
	for (int k = 0; k <= WINDOW_MAX_SCALE; k++)
		if (wnd(w, k) >= r->flight && wnd(w, k) - r->flight < r->m)
			return k;
	return -1;
}

/* --- actions --------------------------------------------------------------- */

static uint32_t
window_tsval(uint64_t now)
{
	return (uint32_t)(now / NS_PER_MS);
}

static void
window_push(struct window *w, enum window_act_kind kind, uint32_t seq, uint8_t flags,
    const uint8_t *payload, size_t len)
{
	struct window_act *a;

	if (w->qlen == WINDOW_QLEN)
		return;		/* the engine drains after every call: cannot happen */
	a = &w->q[(w->qhead + w->qlen++) % WINDOW_QLEN];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->seq = seq;
	a->flags = flags;
	a->payload = payload;
	a->payload_len = len;
	a->tsval = window_tsval(w->now);
	if (kind == WINDOW_ACT_SYN)
		return;
	a->window = w->w;
	if (flags & TCP_ACK)
		a->ack = w->irs + 1 + (uint32_t)w->highest;
	a->ts = w->ts;
	a->tsecr = w->ts_recent;
}

/* A pure ACK: after the request once it left, else right after the SYN. */
static void
window_push_ack(struct window *w)
{
	uint32_t sent = w->req_sends > 0 ? (uint32_t)w->cfg.request_len : 0;

	window_push(w, WINDOW_ACT_ACK, w->isn + 1 + sent, TCP_ACK, NULL, 0);
}

/* The request, cut at seg_out, the last piece pushed. */
static void
window_push_request(struct window *w)
{
	size_t len = w->cfg.request_len;

	for (size_t off = 0; off < len; off += w->seg_out) {
		size_t n = min64(w->seg_out, len - off);

		window_push(w, WINDOW_ACT_DATA, w->isn + 1 + (uint32_t)off,
		    TCP_ACK | (off + n == len ? TCP_PSH : 0), w->req + off, n);
	}
	w->req_at = w->now;
	w->req_sends++;
}

/* RST at the server's rcv_nxt (else RFC 5961 has it answer with a
 * challenge ACK and keep the connection): after the whole request, and,
 * while the server has not acknowledged all of it, also where its
 * acknowledgements stopped. */
static void
window_push_rst(struct window *w)
{
	uint32_t all = w->req_sends > 0 ? (uint32_t)w->cfg.request_len : 0;

	window_push(w, WINDOW_ACT_RST, w->isn + 1 + all, TCP_RST, NULL, 0);
	if (w->peer_ack < all)
		window_push(w, WINDOW_ACT_RST, w->isn + 1 + w->peer_ack, TCP_RST, NULL, 0);
}

bool
window_next_action(struct window *w, struct window_act *a)
{
	if (w->qlen == 0)
		return false;
	*a = w->q[w->qhead];
	w->qhead = (w->qhead + 1) % WINDOW_QLEN;
	w->qlen--;
	return true;
}

size_t
window_act_options(const struct window_act *a, uint8_t *buf, size_t cap)
{
	if (!a->ts || a->kind == WINDOW_ACT_SYN || cap < WINDOW_TS_LEN)
		return 0;
	buf[0] = 1;
	buf[1] = 1;
	buf[2] = 8;
	buf[3] = 10;
	for (int i = 0; i < 4; i++) {
		buf[4 + i] = (uint8_t)(a->tsval >> (24 - 8 * i));
		buf[8 + i] = (uint8_t)(a->tsecr >> (24 - 8 * i));
	}
	return WINDOW_TS_LEN;
}

/* --- start and end ------------------------------------------------------------ */

struct window *
window_start(const struct window_config *cfg, uint32_t isn, uint64_t now)
{
	struct window *w;

	if (cfg->request_len > WINDOW_REQUEST_MAX ||
	    (cfg->request_len > 0 && cfg->request == NULL))
		return NULL;
	w = xcalloc(1, sizeof(*w));
	w->cfg = *cfg;
	if (w->cfg.request_len > 0)
		memcpy(w->req, cfg->request, cfg->request_len);
	w->cfg.request = NULL;
	if (w->cfg.mss_ours == 0)
		w->cfg.mss_ours = 1460;
	if (w->cfg.max_bytes == 0 || w->cfg.max_bytes > WINDOW_MAX_BYTES)
		w->cfg.max_bytes = WINDOW_MAX_BYTES;
	if (w->cfg.max_rounds < 2)
		w->cfg.max_rounds = 2;
	if (w->cfg.max_rounds > WINDOW_MAX_ROUNDS)
		w->cfg.max_rounds = WINDOW_MAX_ROUNDS;
	if (w->cfg.syn_retries < 0)
		w->cfg.syn_retries = 0;
	if (w->cfg.request_retries < 0)
		w->cfg.request_retries = 0;
	w->w = window_choose_w(cfg->scale_sent);
	w->isn = isn;
	w->now = w->t0 = w->syn_at = now;
	w->exact = -1;
	w->big_round = -1;
	w->rst_left = WINDOW_STRAGGLER_RSTS;
	w->syns = 1;
	window_push(w, WINDOW_ACT_SYN, isn, TCP_SYN, NULL, 0);
	return w;
}

void
window_free(struct window *w)
{
	free(w);
}

bool
window_done(const struct window *w)
{
	return w->st == ST_DONE;
}

static void
window_finish(struct window *w, enum window_end end)
{
	if (w->st == ST_DONE)
		return;
	if (w->established && !w->rst_in)
		window_push_rst(w);
	w->st = ST_DONE;
	w->end = end;
}

/* --- rounds ----------------------------------------------------------------- */

static void
window_next_round(struct window *w)
{
	w->acked = w->highest;
	w->niv = 0;
	w->round_m = 0;
	w->round_retrans = w->round_cut = false;
	w->dupacks_left = WINDOW_DUPACKS;
	w->round_at = w->now;
	window_push_ack(w);
}

/* Closes the current round and decides: finish, or acknowledge and go on.
 * forced: why the test must stop anyway (WINDOW_END_NONE: it need not). */
static void
window_round_end(struct window *w, enum window_end forced)
{
	struct wround *r = &w->r[w->nrounds];
	uint64_t f = w->highest - w->acked;

	r->flight = (uint32_t)f;
	r->m = (uint32_t)min64(w->round_m, f);
	r->eligible = f > 0 && !w->round_cut && !w->rst_in &&
	    forced == WINDOW_END_NONE && w->highest < w->cfg.max_bytes;
	w->nrounds++;
	w->fmax = max64(w->fmax, f);

	if (w->overrun) {
		window_finish(w, WINDOW_END_OVERRUN);
		return;
	}
	if (w->big_round < 0 && f > wnd(w, WINDOW_MAX_SCALE - 1))
		w->big_round = w->nrounds - 1;
	if (w->big_round >= 0 && w->big_round < w->nrounds - 1) {
		/* a round after it stayed within W<<14: window_result says 14 */
		window_finish(w, WINDOW_END_EXACT);
		return;
	}
	if (w->nrounds >= 3 && f > 0) {
		const struct wround *a = &w->r[w->nrounds - 3], *b = &w->r[w->nrounds - 2];
		int k1 = window_consistent(w, a);
		int k2 = window_consistent(w, b);

		if (k1 >= 0 && k1 == k2 && window_min_shift(w, w->fmax) <= k1) {
			w->exact = k1;
			w->exact_flight = b->flight;
			window_finish(w, WINDOW_END_EXACT);
			return;
		}
	}
	if (forced != WINDOW_END_NONE)
		window_finish(w, forced);
	else if (w->rst_in)
		window_finish(w, WINDOW_END_RST);
	else if (w->fin)
		window_finish(w, WINDOW_END_FIN);
	else if (f == 0)
		window_finish(w, w->nrounds == 1 ? WINDOW_END_NO_DATA : WINDOW_END_DATA);
	else if (w->highest >= w->cfg.max_bytes)
		window_finish(w, WINDOW_END_MAX_BYTES);
	else if (w->nrounds >= w->cfg.max_rounds)
		window_finish(w, WINDOW_END_MAX_ROUNDS);
	else
		window_next_round(w);
}

/* --- what arrives ---------------------------------------------------------- */

/* Joins the two neighbouring ranges with the smallest gap (kept sorted,
 * so neighbours in the array are neighbours on the sequence line). */
static void
window_iv_join_closest(struct window *w)
{
	uint32_t gap = UINT32_MAX;
	int best = 0;

	for (int i = 0; i + 1 < w->niv; i++) {
		if (w->iv_lo[i + 1] - w->iv_hi[i] < gap) {
			gap = w->iv_lo[i + 1] - w->iv_hi[i];
			best = i;
		}
	}
	w->iv_hi[best] = w->iv_hi[best + 1];
	for (int i = best + 1; i + 1 < w->niv; i++) {
		w->iv_lo[i] = w->iv_lo[i + 1];
		w->iv_hi[i] = w->iv_hi[i + 1];
	}
	w->niv--;
}

/* Adds [lo, hi) to the ranges received this round; returns the bytes that
 * were not there yet.  When the list is full the closest two ranges are
 * joined: the gap between them then counts as received, so at worst a
 * resend that fills it is taken for a retransmission (a round ends early;
 * it never grows a flight). */
static uint64_t
window_iv_add(struct window *w, uint32_t lo, uint32_t hi)
{
	uint64_t covered = 0, len = hi - lo;
	int i, j;

	for (i = 0; i < w->niv; i++) {
		uint32_t a = w->iv_lo[i] > lo ? w->iv_lo[i] : lo;
		uint32_t b = w->iv_hi[i] < hi ? w->iv_hi[i] : hi;

		if (b > a)
			covered += b - a;
	}
	for (;;) {
		/* merge everything touching [lo, hi) into it */
		for (i = j = 0; i < w->niv; i++) {
			if (w->iv_hi[i] < lo || w->iv_lo[i] > hi) {
				w->iv_lo[j] = w->iv_lo[i];
				w->iv_hi[j] = w->iv_hi[i];
				j++;
				continue;
			}
			if (w->iv_lo[i] < lo)
				lo = w->iv_lo[i];
			if (w->iv_hi[i] > hi)
				hi = w->iv_hi[i];
		}
		w->niv = j;
		if (w->niv < WINDOW_NIV)
			break;
		window_iv_join_closest(w);
		/* the joined range may now cover [lo, hi): merge again */
	}
	for (i = w->niv; i > 0 && w->iv_lo[i - 1] > lo; i--) {
		w->iv_lo[i] = w->iv_lo[i - 1];
		w->iv_hi[i] = w->iv_hi[i - 1];
	}
	w->iv_lo[i] = lo;
	w->iv_hi[i] = hi;
	w->niv++;
	/* ranges are disjoint, so covered <= len; kept as a guard */
	return len > covered ? len - covered : 0;
}

static void
window_on_synack(struct window *w, const struct window_seg *s)
{
	size_t mss = s->mss > 0 ? (size_t)s->mss : WINDOW_RFC_MSS;
	size_t len = w->cfg.request_len;

	if ((s->flags & (TCP_SYN | TCP_ACK | TCP_RST)) == (TCP_ACK | TCP_RST) &&
	    s->ack == w->isn + 1) {
		w->rst_in = true;	/* refused: closed port, or a box */
		window_finish(w, WINDOW_END_RST);
		return;
	}
	if ((s->flags & (TCP_SYN | TCP_ACK | TCP_RST)) != (TCP_SYN | TCP_ACK) ||
	    s->ack != w->isn + 1) {
		w->ignored++;
		return;
	}
	w->established = true;
	w->irs = s->seq;
	w->rtt = min64(w->now - w->syn_at, WINDOW_RTT_MAX);
	w->ts = w->cfg.ts && s->ts;
	w->ts_recent = s->tsval;
	if (mss > w->cfg.mss_ours)
		mss = w->cfg.mss_ours;
	if (w->ts)
		mss = mss > WINDOW_TS_LEN + 64 ? mss - WINDOW_TS_LEN : 64;
	w->seg_out = min64(mss, WINDOW_PAYLOAD_MAX);
	if (w->seg_out < 64)
		w->seg_out = 64;
	/* a tiny MSS must not split the request into more segments than the
	 * action queue holds */
	if (len > w->seg_out * WINDOW_REQUEST_SEGS)
		w->seg_out = (len + WINDOW_REQUEST_SEGS - 1) / WINDOW_REQUEST_SEGS;
	w->st = ST_OPEN;
	w->round_at = w->now;
	w->dupacks_left = WINDOW_DUPACKS;
	window_push_ack(w);
	if (len > s->window) {
		window_finish(w, WINDOW_END_REFUSED);
		return;
	}
	window_push_request(w);
}

/* Data [start, start + len) of the answer, offsets from ISN + 1. */
static void
window_on_data(struct window *w, uint64_t start, uint64_t len)
{
	uint64_t edge = w->acked + wnd(w, WINDOW_MAX_SCALE);
	uint64_t limit = min64(edge, w->cfg.max_bytes);
	uint64_t end = start + len, lo, hi, fresh;

	if (start >= edge + WINDOW_MAX_BYTES) {
		w->ignored++;		/* nowhere near any window: junk */
		return;
	}
	if (end > edge)
		w->overrun = true;	/* a sender that ignores our window */
	lo = max64(start, w->acked);
	hi = min64(end, limit);
	if (hi <= lo) {
		if (end <= w->acked) {
			/* resent from before our last ACK: that ACK was lost */
			w->retrans++;
			if (w->dupacks_left > 0) {
				w->dupacks_left--;
				window_push_ack(w);
			}
		}
		return;
	}
	fresh = window_iv_add(w, (uint32_t)lo, (uint32_t)hi);
	if (fresh == 0) {
		w->retrans++;
		if (w->highest > w->acked)
			w->round_retrans = true;
		return;
	}
	w->last_new_at = w->now;
	w->round_m = (uint32_t)max64(w->round_m, min64(len, w->cfg.mss_ours));
	if (hi > w->highest)
		w->highest = hi;
}

static void
window_on_open(struct window *w, const struct window_seg *s)
{
	uint32_t rel = s->seq - (w->irs + 1);
	uint32_t ackrel = s->ack - (w->isn + 1);

	if (s->flags & TCP_RST) {
		/* RFC 5961 would want rcv_nxt exactly; anything from our ACK
		 * to a window past the answer is the server's own RST */
		if (rel >= w->acked && rel <= w->highest + WINDOW_MAX_BYTES) {
			w->rst_in = true;
			window_round_end(w, WINDOW_END_NONE);
		} else {
			w->ignored++;
		}
		return;
	}
	if (s->flags & TCP_SYN) {
		/* our ACK got lost: the server repeats its SYN-ACK */
		if ((s->flags & TCP_ACK) && s->seq == w->irs && s->ack == w->isn + 1 &&
		    w->highest == 0 && w->dup_synacks < WINDOW_DUP_SYNACKS) {
			w->dup_synacks++;
			window_push(w, WINDOW_ACT_ACK, w->isn + 1, TCP_ACK, NULL, 0);
			window_push_request(w);
		} else {
			w->ignored++;
		}
		return;
	}
	if (!(s->flags & TCP_ACK) || ackrel > w->cfg.request_len || rel >= 0x80000000u) {
		w->ignored++;
		return;
	}
	if (ackrel > w->peer_ack)
		w->peer_ack = ackrel;
	if (w->ts && s->ts && (int32_t)(s->tsval - w->ts_recent) >= 0)
		w->ts_recent = s->tsval;
	if (s->payload_len > 0)
		window_on_data(w, rel, s->payload_len);
	if (s->flags & TCP_FIN) {
		uint64_t at = (uint64_t)rel + s->payload_len;

		if (at >= w->acked && at <= w->acked + wnd(w, WINDOW_MAX_SCALE))
			w->fin = true;
	}
	if (w->fin || w->round_retrans)
		window_round_end(w, WINDOW_END_NONE);
	else if (w->highest >= w->cfg.max_bytes)
		window_round_end(w, WINDOW_END_MAX_BYTES);
}

void
window_input(struct window *w, const struct window_seg *s, uint64_t now)
{
	w->now = max64(w->now, now);
	switch (w->st) {
	case ST_SYN:
		window_on_synack(w, s);
		break;
	case ST_OPEN:
		window_on_open(w, s);
		break;
	case ST_DONE:
		/* a straggler: our RST may have been lost */
		w->ignored++;
		if (w->established && !w->rst_in && !(s->flags & TCP_RST) &&
		    (s->payload_len > 0 || (s->flags & (TCP_FIN | TCP_SYN))) &&
		    w->rst_left > 0) {
			w->rst_left--;
			window_push_rst(w);
		}
		break;
	}
}

/* --- time ------------------------------------------------------------------- */

static uint64_t
window_quiet(const struct window *w)
{
	return max64(3 * w->rtt, w->cfg.min_quiet_ns);
}

static uint64_t
window_end_wait(const struct window *w)
{
	return max64(w->cfg.end_wait_ns, 4 * w->rtt);
}

/* When the current round ends unless something arrives. */
static uint64_t
window_round_due(const struct window *w)
{
	uint64_t cap = add_sat(w->round_at, max64(w->cfg.round_max_ns, 10 * w->rtt));
	uint64_t t;

	if (w->highest > w->acked)
		t = add_sat(w->last_new_at, window_quiet(w));
	else if (w->nrounds == 0)
		t = add_sat(w->round_at, max64(w->cfg.first_data_ns, 4 * w->rtt));
	else
		t = add_sat(w->round_at, window_end_wait(w));
	return min64(t, cap);
}

/* When the request is resent: only while no answer came and the server
 * has not acknowledged it. */
static uint64_t
window_request_due(const struct window *w)
{
	if (w->cfg.request_len == 0 || w->highest > 0 ||
	    w->peer_ack >= w->cfg.request_len ||
	    w->req_sends > w->cfg.request_retries)
		return WINDOW_NEVER;
	return add_sat(w->req_at, window_end_wait(w));
}

uint64_t
window_next_wake(const struct window *w)
{
	uint64_t deadline = add_sat(w->t0, w->cfg.max_ns);

	switch (w->st) {
	case ST_SYN:
		return min64(deadline, add_sat(w->syn_at, w->cfg.synack_timeout_ns));
	case ST_OPEN:
		return min64(deadline, min64(window_round_due(w), window_request_due(w)));
	default:
		return WINDOW_NEVER;
	}
}

void
window_on_timer(struct window *w, uint64_t now)
{
	uint64_t deadline = add_sat(w->t0, w->cfg.max_ns);

	w->now = max64(w->now, now);
	now = w->now;
	if (w->st == ST_SYN) {
		if (now >= deadline) {
			window_finish(w, WINDOW_END_NO_SYNACK);
		} else if (now >= add_sat(w->syn_at, w->cfg.synack_timeout_ns)) {
			if (w->syns > w->cfg.syn_retries) {
				window_finish(w, WINDOW_END_NO_SYNACK);
			} else {
				w->syns++;
				w->syn_at = now;
				window_push(w, WINDOW_ACT_SYN, w->isn, TCP_SYN, NULL, 0);
			}
		}
		return;
	}
	if (w->st != ST_OPEN)
		return;
	if (now >= deadline) {
		w->round_cut = true;
		window_round_end(w, WINDOW_END_TIMEOUT);
		return;
	}
	if (now >= window_request_due(w))
		window_push_request(w);	/* each segment carries the ACK */
	if (now >= window_round_due(w)) {
		if (now >= add_sat(w->round_at, max64(w->cfg.round_max_ns, 10 * w->rtt)))
			w->round_cut = true;
		window_round_end(w, WINDOW_END_NONE);
	}
}

/* --- the result --------------------------------------------------------- */

const char *
window_end_name(enum window_end e)
{
	static const char *names[] = {
		"running", "plateau", "answer over", "FIN", "RST", "round limit",
		"byte limit", "time limit", "no SYN-ACK", "no answer",
		"data beyond any window", "request does not fit",
	};

	if ((unsigned)e >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[e];
}

void
window_result(const struct window *w, struct window_result *res)
{
	int kmin = window_min_shift(w, w->fmax);

	memset(res, 0, sizeof(*res));
	res->scale_sent = w->cfg.scale_sent;
	res->w = w->w;
	res->end = w->end;
	res->synack = w->established;
	res->total_bytes = (uint32_t)w->highest;
	res->rounds = w->nrounds;
	for (int i = 0; i < w->nrounds; i++)
		res->flight[i] = w->r[i].flight;
	res->rtt_us = (uint32_t)(w->rtt / 1000u);
	res->ignored = w->ignored;
	res->retransmissions = w->retrans;
	res->scale_effective = -1;
	res->scale_effective_min = -1;
	res->flight_bytes = w->nrounds > 0 && w->fmax > 0 ? (int64_t)w->fmax : -1;

	if (w->exact < 0 && w->st == ST_DONE && !w->overrun && kmin == WINDOW_MAX_SCALE) {
		res->scale_effective = res->scale_effective_min = WINDOW_MAX_SCALE;
		res->flight_bytes = (int64_t)w->fmax;
		snprintf(res->reason, sizeof(res->reason),
		    "a flight of %llu bytes exceeds W<<13 = %llu: only shift 14 "
		    "allows it", (unsigned long long)w->fmax,
		    (unsigned long long)wnd(w, 13));
		return;
	}
	if (w->exact >= 0) {
		res->scale_effective = res->scale_effective_min = w->exact;
		res->flight_bytes = w->exact_flight;
		snprintf(res->reason, sizeof(res->reason),
		    "the flight plateaus at %u bytes, window-limited by "
		    "W<<%d = %llu: the server applies shift %d",
		    w->exact_flight, w->exact,
		    (unsigned long long)wnd(w, w->exact), w->exact);
		return;
	}
	res->inconclusive = true;
	if (w->st != ST_DONE) {
		snprintf(res->reason, sizeof(res->reason), "the window test is still running");
	} else if (!w->established) {
		snprintf(res->reason, sizeof(res->reason), "%s",
		    w->end == WINDOW_END_RST ? "the server refused the connection (RST)" :
		    "no SYN-ACK to the window test's SYN");
	} else if (w->end == WINDOW_END_OVERRUN) {
		snprintf(res->reason, sizeof(res->reason),
		    "the server sent beyond W<<14 = %llu bytes: it ignores our window",
		    (unsigned long long)wnd(w, WINDOW_MAX_SCALE));
	} else if (w->end == WINDOW_END_REFUSED) {
		snprintf(res->reason, sizeof(res->reason),
		    "the request is larger than the server's first window");
	} else if (w->fmax == 0) {
		snprintf(res->reason, sizeof(res->reason), "no answer to the request (%s)",
		    window_end_name(w->end));
	} else if (kmin == 0) {
		snprintf(res->reason, sizeof(res->reason),
		    "the largest flight, %llu bytes, never exceeded W = %u: no shift "
		    "can be excluded (%s)", (unsigned long long)w->fmax, w->w,
		    window_end_name(w->end));
	} else {
		res->inconclusive = false;
		res->scale_effective_min = kmin;
		snprintf(res->reason, sizeof(res->reason),
		    "the largest flight, %llu bytes, needs shift %d or more; the "
		    "flights did not plateau (%s)", (unsigned long long)w->fmax, kmin,
		    window_end_name(w->end));
	}
}
