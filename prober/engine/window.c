/*
 * window.c -- the window test's connection (window.h): handshake, request,
 * rounds of acknowledgements with a fixed window field W, the flight of
 * each round measured, and the end.  Which shift the flights prove is
 * window_judge.c's business.  Pure: the engine sends, captures and keeps
 * time.
 *
 * Flights.  Round 0 starts with the request, round i with the ACK that
 *   acknowledges everything received so far (same W).  The flight of a
 *   round is F = highest end sequence received - our last ACK (for round 0:
 *   highest end - (server ISN + 1)).  It is never a sum of segment lengths:
 *   tail-loss probes and RTOs resend, and a GRO'd capture glues segments.
 *   Whatever limited the sender, F <= its send window, so every flight
 *   proves W<<k >= F (window_judge.c takes it from there).
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
 * A SYN-ACK whose window cannot take the request (a SYN proxy's has 0: it
 *   answers the SYN itself and opens the window only once its own
 *   connection to the server stands) is acknowledged, and the request
 *   waits for a segment that opens the window (end_wait per try; the ACK
 *   is resent request_retries times, for a proxy never opens without
 *   it).  Sent at once, the request reached the proxy before the server
 *   connection and was lost, and the test ended refused.  A SYN-ACK with
 *   window 0 followed by such an update, or a SYN-ACK whose TTL differs
 *   from the data's, is a proxy's: the result says so, so that nobody
 *   reads its options as the server's.
 *
 * A second connection.  When the connection ends with a flight larger
 *   than W<<s allows (a box raised the shift) but no plateau (the
 *   congestion window capped the flights long before W<<s''), a second
 *   connection (from its own source port, isn_second, after a pause for
 *   the first one's stragglers; without isn_second on the same 4-tuple
 *   and ISN) measures again with W = 1: every shift up to 14 then
 *   fits under the flight a server can send at once, so the shift comes
 *   out exact.  (Lowering W within the first connection would shrink its
 *   right edge, which TCP discourages.)  Each connection has max_ns.
 *
 * Hostile input.  Sequence numbers are offsets from the server's ISN + 1
 *   in 32-bit arithmetic (wrap-around is free); data before it, beyond
 *   our ACK + W<<14 + 1 MiB, or with an ack outside what we sent is
 *   ignored; lengths are clipped to max_bytes, so flights never exceed it.
 *   Rounds, bytes and time are capped; after the end, stragglers with data
 *   or a FIN draw at most two more RSTs, copies of the SYN-ACK none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "window.h"
#include "window_judge.h"
#include "window_ranges.h"

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
#define WINDOW_DUP_SYNACKS 3
#define WINDOW_STRAGGLER_RSTS 2
#define WINDOW_DUPACKS 4		/* per round */
#define WINDOW_PAUSE MS(100)		/* between the connections, at least */
#define WINDOW_TTL_INIT(t) ((t) <= 64 ? 64 : (t) <= 128 ? 128 : 255)

enum wstate { ST_SYN, ST_OPEN, ST_PAUSE, ST_DONE };

struct window {
	struct window_config cfg;	/* cfg.request: the caller's, shared by
					   the tests of a path (not copied) */
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
	int peer_ws;			/* the server's shift for its windows */
	bool req_held;			/* the request waits for the window */
	uint64_t held_at;
	int held_acks;			/* ACKs resent while it waits */
	uint16_t synack_window;
	uint8_t synack_ttl, data_ttl;
	bool win_update;		/* a segment opened a closed window */

	/* the answer: offsets from the server's ISN + 1 */
	uint64_t highest;		/* highest end received */
	uint64_t acked;			/* what our last ACK acknowledged */
	uint64_t round_at, last_new_at;
	uint64_t left_at;		/* our latest segment left (the engine took
					   it): the server can answer from then */
	uint32_t round_m;
	bool round_retrans, round_cut;
	int dupacks_left;		/* re-ACKs allowed this round */
	bool fin, rst_in;
	struct window_ranges got;	/* received this round */
	struct wj_flights fl;		/* the rounds so far */

	/* the outcome */
	enum window_end end;
	int rst_left;
	uint32_t ignored, retrans;

	/* the first connection, when a second one measures again */
	bool second;
	uint64_t pause_until;
	struct window_result first;
	bool proxy;			/* a proxy's evidence, either connection */
	uint16_t proxy_window;
	uint8_t proxy_ttl, proxy_data_ttl;

	struct window_act q[WINDOW_QLEN];
	int qhead, qlen;
};

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

	/* The engine sends an action when --rate grants it a token, so actions
	 * may wait here.  An ACK or SYN still waiting is superseded by the
	 * next of its kind (acknowledgements are cumulative, a SYN is the same
	 * SYN), which keeps the queue within what one round can push. */
	if (w->qlen > 0 && (kind == WINDOW_ACT_ACK || kind == WINDOW_ACT_SYN)) {
		a = &w->q[(w->qhead + w->qlen - 1) % WINDOW_QLEN];
		if (a->kind == kind)
			w->qlen--;
	}
	if (w->qlen == WINDOW_QLEN)
		return;		/* bounded by the pushes of one round: cannot happen */
	a = &w->q[(w->qhead + w->qlen++) % WINDOW_QLEN];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->second = w->second && w->cfg.isn_second != 0;
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

/* Our last ACK again (the server resent from before it: it was lost).
 * It acknowledges what that ACK did, the round's start, not what came
 * since: acknowledging the new data would move the server's right edge
 * within the round, and the flight (highest - acked) could then pass
 * W<<s by what it acknowledged, a shift larger than the server applies
 * (seen under load, where the server's RTO fires while our ACK waits). */
static void
window_push_reack(struct window *w)
{
	struct window_act *a;

	window_push_ack(w);
	if (w->qlen == 0)
		return;
	a = &w->q[(w->qhead + w->qlen - 1) % WINDOW_QLEN];
	if (a->kind == WINDOW_ACT_ACK)
		a->ack = w->irs + 1 + (uint32_t)w->acked;
}

/* The request, cut at seg_out, the last piece pushed. */
static void
window_push_request(struct window *w)
{
	size_t len = w->cfg.request_len;

	/* a resend while the request still waits for its tokens adds nothing */
	for (int i = 0; i < w->qlen; i++)
		if (w->q[(w->qhead + i) % WINDOW_QLEN].kind == WINDOW_ACT_DATA)
			return;

	for (size_t off = 0; off < len; off += w->seg_out) {
		size_t n = min64(w->seg_out, len - off);

		window_push(w, WINDOW_ACT_DATA, w->isn + 1 + (uint32_t)off,
		    TCP_ACK | (off + n == len ? TCP_PSH : 0), w->cfg.request + off, n);
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
window_pending(const struct window *w)
{
	return w->qlen > 0;
}

int
window_next_kind(const struct window *w)
{
	return w->qlen > 0 ? (int)w->q[w->qhead].kind : -1;
}

bool
window_next_action(struct window *w, uint64_t now, struct window_act *a)
{
	if (w->qlen == 0)
		return false;
	*a = w->q[w->qhead];
	/* Timers run from when a segment left, not from when it was asked
	 * for: under --rate it may wait for a token, and the server cannot
	 * answer what it has not received. */
	now = max64(now, w->now);
	w->left_at = now;
	if (a->kind == WINDOW_ACT_SYN)
		w->syn_at = now;
	else if (a->kind == WINDOW_ACT_DATA)
		w->req_at = now;
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
	wj_init(&w->fl, w->w);
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

size_t
window_bytes(void)
{
	return sizeof(struct window);
}

bool
window_done(const struct window *w)
{
	return w->st == ST_DONE;
}

static void window_result_one(const struct window *w, bool done,
    struct window_result *res);

/* Keeps the evidence of a SYN proxy, from whichever connection shows it
 * first.  A TTL of 0 is unknown (no packet arrives with it). */
static void
window_note_proxy(struct window *w)
{
	if (!w->established || w->proxy)
		return;
	if ((w->synack_window == 0 && w->win_update) ||
	    (w->synack_ttl != 0 && w->data_ttl != 0 && w->synack_ttl != w->data_ttl)) {
		w->proxy = true;
		w->proxy_window = w->synack_window;
		w->proxy_ttl = w->synack_ttl;
		w->proxy_data_ttl = w->data_ttl;
	}
}

/* Whether the connection that just ended calls for a second one with
 * W = 1: its flights prove a larger shift than the one sent, and none
 * plateaued (the congestion window, not ours, was the limit). */
static bool
window_wants_second(const struct window *w)
{
	struct window_result r;
	int sent = w->cfg.scale_sent < 0 ? 0 : w->cfg.scale_sent > WINDOW_MAX_SCALE ?
	    WINDOW_MAX_SCALE : w->cfg.scale_sent;

	if (w->second || w->w <= 1 || !w->established || w->fl.overrun)
		return false;
	window_result_one(w, true, &r);
	return !r.inconclusive && r.scale_effective < 0 && r.scale_effective_min > sent;
}

static void
window_finish(struct window *w, enum window_end end)
{
	if (w->st == ST_DONE || w->st == ST_PAUSE)
		return;
	if (w->established && !w->rst_in)
		window_push_rst(w);
	w->end = end;
	window_note_proxy(w);
	if (window_wants_second(w)) {
		window_result_one(w, true, &w->first);
		w->st = ST_PAUSE;
		/* the first connection's stragglers die out meanwhile */
		w->pause_until = add_sat(w->now, max64(WINDOW_PAUSE, 4 * w->rtt));
		return;
	}
	w->st = ST_DONE;
}

/* The second connection: same 4-tuple and ISN, W = 1, a fresh budget. */
static void
window_restart(struct window *w)
{
	w->second = true;
	if (w->cfg.isn_second != 0)
		w->isn = w->cfg.isn_second;	/* its own port: no straggler of
						   the first, no state a box kept */
	w->w = window_choose_w(WINDOW_MAX_SCALE);
	w->st = ST_SYN;
	w->t0 = w->syn_at = w->now;
	w->syns = 1;
	w->established = false;
	w->irs = 0;
	w->rtt = 0;
	w->ts = false;
	w->ts_recent = 0;
	w->seg_out = 0;
	w->peer_ack = 0;
	w->dup_synacks = 0;
	w->req_at = 0;
	w->req_sends = 0;
	w->peer_ws = 0;
	w->req_held = false;
	w->held_at = 0;
	w->held_acks = 0;
	w->synack_window = 0;
	w->synack_ttl = w->data_ttl = 0;
	w->win_update = false;
	w->highest = w->acked = 0;
	w->round_at = w->last_new_at = w->left_at = 0;
	w->round_m = 0;
	w->round_retrans = w->round_cut = false;
	w->dupacks_left = 0;
	w->fin = w->rst_in = false;
	window_ranges_clear(&w->got);
	wj_init(&w->fl, w->w);
	w->end = WINDOW_END_NONE;
	w->rst_left = WINDOW_STRAGGLER_RSTS;
	window_push(w, WINDOW_ACT_SYN, w->isn, TCP_SYN, NULL, 0);
}

/* --- rounds ----------------------------------------------------------------- */

static void
window_next_round(struct window *w)
{
	w->acked = w->highest;
	window_ranges_clear(&w->got);
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
	uint64_t f = w->highest - w->acked;
	bool known;

	known = wj_round(&w->fl, (uint32_t)f, w->round_m, !w->round_cut &&
	    !w->rst_in && forced == WINDOW_END_NONE && w->highest < w->cfg.max_bytes);
	if (w->fl.overrun)
		window_finish(w, WINDOW_END_OVERRUN);
	else if (known)
		window_finish(w, WINDOW_END_EXACT);
	else if (forced != WINDOW_END_NONE)
		window_finish(w, forced);
	else if (w->rst_in)
		window_finish(w, WINDOW_END_RST);
	else if (w->fin)
		window_finish(w, WINDOW_END_FIN);
	else if (f == 0)
		window_finish(w, w->fl.n == 1 ? WINDOW_END_NO_DATA : WINDOW_END_DATA);
	else if (w->highest >= w->cfg.max_bytes)
		window_finish(w, WINDOW_END_MAX_BYTES);
	else if (w->fl.n >= w->cfg.max_rounds)
		window_finish(w, WINDOW_END_MAX_ROUNDS);
	else
		window_next_round(w);
}

/* --- what arrives ---------------------------------------------------------- */

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
	w->peer_ws = s->wscale < 0 ? 0 : s->wscale > WINDOW_MAX_SCALE ? WINDOW_MAX_SCALE :
	    s->wscale;
	w->synack_window = s->window;
	w->synack_ttl = s->ttl;
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
		/* a SYN proxy's window 0: our ACK makes it open the server
		 * connection, and a window update follows */
		w->req_held = true;
		w->held_at = w->now;
		return;
	}
	window_push_request(w);
}

/* A segment while the request waits: a window that takes it lets it go. */
static void
window_on_held(struct window *w, const struct window_seg *s)
{
	if (((uint64_t)s->window << w->peer_ws) < w->cfg.request_len)
		return;
	w->req_held = false;
	w->win_update = true;
	w->round_at = w->now;
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
		w->fl.overrun = true;	/* a sender that ignores our window */
	lo = max64(start, w->acked);
	hi = min64(end, limit);
	if (hi <= lo) {
		if (end <= w->acked) {
			/* resent from before our last ACK: that ACK was lost */
			w->retrans++;
			if (w->dupacks_left > 0) {
				w->dupacks_left--;
				window_push_reack(w);
			}
		}
		return;
	}
	fresh = window_ranges_add(&w->got, (uint32_t)lo, (uint32_t)hi);
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
	if (w->req_held)
		window_on_held(w, s);
	if (s->payload_len > 0 && w->data_ttl == 0)
		w->data_ttl = s->ttl;
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
	if (w->cfg.isn_second != 0 && s->second != w->second) {
		w->ignored++;		/* the other connection's */
		return;
	}
	switch (w->st) {
	case ST_SYN:
		window_on_synack(w, s);
		break;
	case ST_OPEN:
		window_on_open(w, s);
		break;
	case ST_PAUSE:
	case ST_DONE:
		/* a straggler: our RST may have been lost.  Not a SYN-ACK: the
		 * connection carried data or had our RST, so a SYN-ACK now is a
		 * copy (anyone may replay it), and a flow draws one RST, ever */
		w->ignored++;
		if (w->established && !w->rst_in && !(s->flags & (TCP_RST | TCP_SYN)) &&
		    (s->payload_len > 0 || (s->flags & TCP_FIN)) &&
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
	uint64_t from = max64(w->round_at, w->left_at);
	uint64_t t;

	/* no flight is judged while one of our segments waits to leave (the
	 * server cannot have answered it; the waits count from its leaving),
	 * but the round's cap holds whatever waits */
	if (w->qlen > 0)
		return cap;
	if (w->highest > w->acked)
		t = add_sat(max64(w->last_new_at, w->left_at), window_quiet(w));
	else if (w->fl.n == 0)
		t = add_sat(from, max64(w->cfg.first_data_ns, 4 * w->rtt));
	else
		t = add_sat(from, window_end_wait(w));
	return min64(t, cap);
}

/* When the request is resent: only while no answer came and the server
 * has not acknowledged it. */
static uint64_t
window_request_due(const struct window *w)
{
	if (w->cfg.request_len == 0 || w->highest > 0 || w->req_held ||
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
		if (w->req_held)
			return min64(deadline, add_sat(w->held_at, window_end_wait(w)));
		return min64(deadline, min64(window_round_due(w), window_request_due(w)));
	case ST_PAUSE:
		return w->pause_until;
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
	if (w->st == ST_PAUSE) {
		if (now >= w->pause_until)
			window_restart(w);
		return;
	}
	if (w->st != ST_OPEN)
		return;
	if (now >= deadline) {
		w->round_cut = true;
		window_round_end(w, WINDOW_END_TIMEOUT);
		return;
	}
	if (w->req_held) {
		/* the window never opened: our ACK may be lost, try again */
		if (now < add_sat(w->held_at, window_end_wait(w)))
			return;
		if (w->held_acks >= w->cfg.request_retries) {
			window_finish(w, WINDOW_END_REFUSED);
			return;
		}
		w->held_acks++;
		w->held_at = now;
		window_push_ack(w);
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

static void
window_result_one(const struct window *w, bool done, struct window_result *res)
{
	memset(res, 0, sizeof(*res));
	res->scale_sent = w->cfg.scale_sent;
	res->w = w->w;
	res->end = w->end;
	res->synack = w->established;
	res->total_bytes = (uint32_t)w->highest;
	res->rounds = w->fl.n;
	for (int i = 0; i < w->fl.n; i++)
		res->flight[i] = w->fl.r[i].flight;
	res->rtt_us = (uint32_t)(w->rtt / 1000u);
	res->ignored = w->ignored;
	res->retransmissions = w->retrans;
	res->synack_window = w->synack_window;
	res->synack_ttl = w->synack_ttl;
	res->data_ttl = w->data_ttl;
	wj_result(&w->fl, done, w->established, w->end, res);
}

/* res->reason := prefix + res->reason, cut to fit. */
static void
reason_prefix(struct window_result *res, const char *prefix)
{
	size_t cap = sizeof(res->reason) - 1, p = strlen(prefix), n = strlen(res->reason);

	if (p > cap)
		p = cap;
	if (n > cap - p)
		n = cap - p;
	memmove(res->reason + p, res->reason, n);
	memcpy(res->reason, prefix, p);
	res->reason[p + n] = '\0';
}

void
window_result(const struct window *w, struct window_result *res)
{
	struct window_result r2;
	int kmin1;

	window_result_one(w, w->st == ST_DONE, res);
	if (w->second) {
		r2 = *res;
		*res = w->first;
		kmin1 = w->first.scale_effective_min;
		if (r2.scale_effective >= 0 && r2.scale_effective >= kmin1) {
			*res = r2;
			reason_prefix(res, "a second connection with W = 1: ");
		} else if (r2.scale_effective >= 0) {
			res->inconclusive = true;
			res->scale_effective = res->scale_effective_min = -1;
			snprintf(res->reason, sizeof(res->reason), "the connections disagree: "
			    "the first needed shift %d or more, the second (W = 1) plateaued "
			    "at shift %d", kmin1, r2.scale_effective);
		} else if (!r2.inconclusive && r2.scale_effective_min > kmin1) {
			*res = r2;
			reason_prefix(res, "a second connection with W = 1: ");
		}
		res->remeasured = true;
		res->first_w = w->first.w;
		res->first_rounds = w->first.rounds;
		memcpy(res->first_flight, w->first.flight, sizeof(res->first_flight));
		res->synack = true;
		res->ignored = w->ignored;
		res->retransmissions = w->retrans;
	}
	/* a connection's end is not the test's while a second one waits or
	 * runs: the test has ended only when it is done */
	if (w->st != ST_DONE)
		res->end = WINDOW_END_NONE;
	res->syn_proxy = w->proxy;
	if (w->proxy) {
		res->synack_window = w->proxy_window;
		res->synack_ttl = w->proxy_ttl;
		res->data_ttl = w->proxy_data_ttl;
	}
}
