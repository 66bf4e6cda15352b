/*
 * window_act.c -- the window test's actions (window.h): the SYNs, ACKs,
 * request segments and RSTs a test wants sent, queued until the engine
 * has a token of --rate for each (28 bytes an entry, the request one
 * entry), and their TCP options.
 */
#include <string.h>

#include "window_int.h"

static uint32_t
window_tsval(uint64_t now)
{
	return (uint32_t)(now / NS_PER_MS);
}

void
window_push(struct window *w, enum window_act_kind kind, uint32_t seq, uint8_t flags,
    uint16_t len)
{
	struct window_qact *a;

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
	a->kind = (uint8_t)kind;
	a->second = w->second && w->second_port;
	a->seq = seq;
	a->flags = flags;
	a->len = len;
	a->seg = (uint16_t)(w->seg_out > 0 ? w->seg_out : len);
	a->tsval = window_tsval(w->now);
	if (kind == WINDOW_ACT_SYN)
		return;
	a->window = w->w;
	if (flags & WIRE_TH_ACK)
		a->ack = w->irs + 1 + (uint32_t)w->highest;
	a->ts = w->ts;
	a->tsecr = w->ts_recent;
}

/* A pure ACK: after the request once it left, else right after the SYN. */
void
window_push_ack(struct window *w)
{
	uint32_t sent = w->req_sends > 0 ? (uint32_t)w->cfg.request_len : 0;

	window_push(w, WINDOW_ACT_ACK, w->isn + 1 + sent, WIRE_TH_ACK, 0);
}

/* Our last ACK again (the server resent from before it: it was lost).
 * It acknowledges what that ACK did, the round's start, not what came
 * since: acknowledging the new data would move the server's right edge
 * within the round, and the flight (highest - acked) could then pass
 * W<<s by what it acknowledged, a shift larger than the server applies
 * (seen under load, where the server's RTO fires while our ACK waits). */
void
window_push_reack(struct window *w)
{
	struct window_qact *a;

	window_push_ack(w);
	if (w->qlen == 0)
		return;
	a = &w->q[(w->qhead + w->qlen - 1) % WINDOW_QLEN];
	if (a->kind == WINDOW_ACT_ACK)
		a->ack = w->irs + 1 + (uint32_t)w->acked;
}

/* The request: one entry, cut at seg_out as it leaves, PSH on the last
 * piece. */
void
window_push_request(struct window *w)
{
	size_t len = w->cfg.request_len;

	/* a resend while the request still waits for its tokens adds nothing */
	for (int i = 0; i < w->qlen; i++)
		if (w->q[(w->qhead + i) % WINDOW_QLEN].kind == WINDOW_ACT_DATA)
			return;
	if (len > 0)
		window_push(w, WINDOW_ACT_DATA, w->isn + 1, WIRE_TH_ACK, (uint16_t)len);
	w->req_at = w->now;
	w->req_sends++;
}

/* RST at the server's rcv_nxt (else RFC 5961 has it answer with a
 * challenge ACK and keep the connection): after the whole request, and,
 * while the server has not acknowledged all of it, also where its
 * acknowledgements stopped. */
void
window_push_rst(struct window *w)
{
	uint32_t all = w->req_sends > 0 ? (uint32_t)w->cfg.request_len : 0;

	window_push(w, WINDOW_ACT_RST, w->isn + 1 + all, WIRE_TH_RST, 0);
	if (w->peer_ack < all)
		window_push(w, WINDOW_ACT_RST, w->isn + 1 + w->peer_ack, WIRE_TH_RST, 0);
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
	struct window_qact *q;
	size_t n;

	if (w->qlen == 0)
		return false;
	q = &w->q[w->qhead];
	memset(a, 0, sizeof(*a));
	a->kind = (enum window_act_kind)q->kind;
	a->seq = q->seq;
	a->ack = q->ack;
	a->flags = q->flags;
	a->window = q->window;
	a->ts = q->ts;
	a->tsval = q->tsval;
	a->tsecr = q->tsecr;
	a->second = q->second;
	/* Timers run from when a segment left, not from when it was asked
	 * for: under --rate it may wait for a token, and the server cannot
	 * answer what it has not received. */
	now = max64(now, w->now);
	w->left_at = now;
	if (a->kind == WINDOW_ACT_SYN)
		w->syn_at = now;
	else if (a->kind == WINDOW_ACT_DATA)
		w->req_at = now;
	if (a->kind == WINDOW_ACT_DATA) {
		/* the next piece of the request; the entry stays for the rest */
		n = min64(q->seg > 0 ? q->seg : q->len, (size_t)(q->len - q->off));
		a->seq = q->seq + q->off;
		a->payload = w->cfg.request + q->off;
		a->payload_len = n;
		q->off = (uint16_t)(q->off + n);
		if (q->off == q->len)
			a->flags |= WIRE_TH_PSH;
		else
			return true;
	}
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
