/*
 * window.c -- the window test's connection (window.h): its start, what
 * arrives (handshake, request, the answer's data), and its timers; the
 * rounds of acknowledgements with a fixed window field W and the ends are
 * window_round.c's, the actions window_act.c's, the result
 * window_result.c's (window_int.h draws the parts).  Which shift the
 * flights prove is window_judge.c's business.  Pure: the engine sends,
 * captures and keeps time.
 *
 * Flights.  Round 0 starts with the request, round i with the ACK that
 *   acknowledges everything received so far (same W).  The flight of a
 *   round is F = highest end sequence received - our last ACK (for round 0:
 *   highest end - (server ISN + 1)).  It is never a sum of segment lengths:
 *   tail-loss probes and RTOs resend, and a GRO'd capture glues segments.
 *   Whatever limited the sender, F <= its send window, so every flight
 *   proves W<<k >= F (window_judge.c takes it from there).
 *
 * A round ends when no new data came for the quiet time, max(3 RTT,
 *   10 ms) (RTT: our SYN leaving, the sending thread's stamp handed in by
 *   window_syn_left, to the kernel receiving its SYN-ACK, the capture's
 *   stamp; data counts as new from its stamp too), at once
 *   when a segment resends only data this round already brought (the
 *   sender waited for an ACK and gave up: the flight stopped), at a FIN
 *   or RST, or after round_max whatever trickles in (such a round is cut:
 *   a bound, never evidence of a plateau).  The quiet time need only
 *   outlast the gaps inside one flight, and Linux sends a flight the
 *   moment our ACK opens the window, from the softirq that took the ACK,
 *   paced at most at srtt / (2 cwnd) a segment (its pacing rate is twice
 *   cwnd / srtt in slow start; its srtt includes our quiet time, so the
 *   gaps stay a tenth of it or less at IW10).  Its delayed-ACK and loss
 *   timers come only after the flight: the tail-loss probe at 2 srtt +
 *   2 jiffies (+ 200 ms, TCP_DELACK_MAX, with one segment out, to let a
 *   delayed ACK come), the RTO at 200 ms or more, a delayed ACK of the
 *   request at 40 ms or more (TCP_DELACK_MIN, and the answer carries it
 *   anyway): what they bring is the flight's end, not its middle.
 *   Measured (the capture's kernel timestamps, 65,536 bench paths on a
 *   2-core VM at load 6 to 13): a first flight's segments at most
 *   0.85 ms apart, later ones paced up to 17 ms apart under the old 50 ms
 *   quiet time (srtt ~70 ms).  The 10 ms floor is twelve times the
 *   unpaced gap and covers a scheduler slice of a loaded host delaying
 *   the server's softirq; the RTT term covers slow paths.  Our own
 *   latency (a loop off the CPU) does not count: the engine reads the
 *   capture before any timer may end a round (stage_window.c), and the
 *   capture's stamps, not the time it read them, measure the RTT and the
 *   quiet (read 12-22 ms late on a loaded host, the SYN-ACK made 3 RTT,
 *   not the floor, the quiet time).  A round
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
 *   connection (after a pause for the first one's stragglers, on the
 *   first's 4-tuple and ISN, so on a load-balanced path the branch the
 *   flow measured: the first ended with our RST, which leaves the server
 *   nothing of it; from its own source port with isn_second only where
 *   the first showed a SYN proxy, which holds the closed 4-tuple for
 *   seconds) measures again with W = 1: every shift up to 14 then
 *   fits under the flight a server can send at once, so the shift comes
 *   out exact.  (Lowering W within the first connection would shrink its
 *   right edge, which TCP discourages.)  Each connection has max_ns.
 *
 * Hostile input.  Sequence numbers are offsets from the server's ISN + 1
 *   in 32-bit arithmetic (wrap-around is free); data before it, beyond
 *   our ACK + W<<14 + 1 MiB, or with an ack outside what we sent is
 *   ignored; lengths are clipped to max_bytes, so flights never exceed it.
 *   Rounds, bytes and time are capped; after the end, stragglers with data
 *   or a FIN draw at most two more RSTs, copies of the SYN-ACK none, and
 *   none within max(2 RTT, the quiet floor) of our last segment leaving:
 *   those were on their way before our RST reached the server (the
 *   plateau's third round ends at its first byte, the rest of its flight
 *   follows).
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "window_int.h"

void
window_config_defaults(struct window_config *c, int scale)
{
	memset(c, 0, sizeof(*c));
	c->scale_sent = scale;
	c->mss_ours = 1460;
	c->ts = true;
	c->min_quiet_ns = WINDOW_QUIET_FLOOR;
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

/* --- start ------------------------------------------------------------------ */

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
	window_push(w, WINDOW_ACT_SYN, isn, WIRE_TH_SYN, 0);
	return w;
}

void
window_syn_left(struct window *w, uint64_t at)
{
	if (w->established || w->st != ST_SYN || at <= w->syn_at)
		return;
	if (w->left_at == w->syn_at)
		w->left_at = at;
	w->syn_at = at;
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

bool
window_second_here(const struct window *w)
{
	return w->second && !w->second_port;
}

/* --- what arrives ---------------------------------------------------------- */

/* When the kernel received s: its stamp, or the time handed in. */
static uint64_t
seg_at(const struct window *w, const struct window_seg *s)
{
	return s->at != 0 && s->at < w->now ? s->at : w->now;
}

static void
window_on_synack(struct window *w, const struct window_seg *s)
{
	size_t mss = s->mss > 0 ? (size_t)s->mss : WINDOW_RFC_MSS;
	size_t len = w->cfg.request_len;
	uint64_t at;

	if ((s->flags & (WIRE_TH_SYN | WIRE_TH_ACK | WIRE_TH_RST)) == (WIRE_TH_ACK | WIRE_TH_RST) &&
	    s->ack == w->isn + 1) {
		w->rst_in = true;	/* refused: closed port, or a box */
		window_finish(w, WINDOW_END_RST);
		return;
	}
	if ((s->flags & (WIRE_TH_SYN | WIRE_TH_ACK | WIRE_TH_RST)) != (WIRE_TH_SYN | WIRE_TH_ACK) ||
	    s->ack != w->isn + 1) {
		w->ignored++;
		return;
	}
	w->established = true;
	w->irs = s->seq;
	at = seg_at(w, s);
	w->rtt = min64(at > w->syn_at ? at - w->syn_at : 0, WINDOW_RTT_MAX);
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

/* Data [start, start + len) of the answer, offsets from ISN + 1,
 * received at at. */
static void
window_on_data(struct window *w, uint64_t start, uint64_t len, uint64_t at)
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
	w->last_new_at = max64(w->last_new_at, at);
	w->round_m = (uint32_t)max64(w->round_m, min64(len, w->cfg.mss_ours));
	if (hi > w->highest)
		w->highest = hi;
}

static void
window_on_open(struct window *w, const struct window_seg *s)
{
	uint32_t rel = s->seq - (w->irs + 1);
	uint32_t ackrel = s->ack - (w->isn + 1);

	if (s->flags & WIRE_TH_RST) {
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
	if (s->flags & WIRE_TH_SYN) {
		/* our ACK got lost: the server repeats its SYN-ACK */
		if ((s->flags & WIRE_TH_ACK) && s->seq == w->irs && s->ack == w->isn + 1 &&
		    w->highest == 0 && w->dup_synacks < WINDOW_DUP_SYNACKS) {
			w->dup_synacks++;
			window_push(w, WINDOW_ACT_ACK, w->isn + 1, WIRE_TH_ACK, 0);
			window_push_request(w);
		} else {
			w->ignored++;
		}
		return;
	}
	if (!(s->flags & WIRE_TH_ACK) || ackrel > w->cfg.request_len || rel >= 0x80000000u) {
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
		window_on_data(w, rel, s->payload_len, seg_at(w, s));
	if (s->flags & WIRE_TH_FIN) {
		uint64_t at = (uint64_t)rel + s->payload_len;

		if (at >= w->acked && at <= w->acked + wnd(w, WINDOW_MAX_SCALE))
			w->fin = true;
	}
	if (w->fin || w->round_retrans)
		window_round_end(w, WINDOW_END_NONE);
	else if (w->highest >= w->cfg.max_bytes)
		window_round_end(w, WINDOW_END_MAX_BYTES);
	else if (w->highest > w->acked && wj_confirms(&w->fl))
		window_round_end(w, WINDOW_END_NONE);	/* the plateau's proof */
}

void
window_input(struct window *w, const struct window_seg *s, uint64_t now)
{
	w->now = max64(w->now, now);
	if (w->cfg.isn_second != 0 && s->second != (w->second && w->second_port)) {
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
		/* nor while what the server sent before our RST reached it can
		 * still arrive: our RST is lost only if data comes after that */
		if (w->now < add_sat(w->left_at, max64(2 * w->rtt, w->cfg.min_quiet_ns)))
			break;
		if (w->established && !w->rst_in && !(s->flags & (WIRE_TH_RST | WIRE_TH_SYN)) &&
		    (s->payload_len > 0 || (s->flags & WIRE_TH_FIN)) &&
		    w->rst_left > 0) {
			w->rst_left--;
			window_push_rst(w);
		}
		break;
	}
}

/* --- time ------------------------------------------------------------------- */

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
				window_push(w, WINDOW_ACT_SYN, w->isn, WIRE_TH_SYN, 0);
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
