/*
 * window_round.c -- the window test's rounds and ends: a round closed and
 * judged (finish, or acknowledge and go on), a connection's end with the
 * evidence of a SYN proxy, the pause before a second connection with W = 1
 * and its start, and when a round or the request is due.
 */
#include <string.h>

#include "window_int.h"

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

void
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

/* The second connection: same 4-tuple and ISN (the flow's branch), or
 * behind a SYN proxy its own port; W = 1, a fresh budget. */
void
window_restart(struct window *w)
{
	w->second = true;
	w->second_port = w->cfg.isn_second != 0 && w->proxy;
	if (w->second_port)
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
	window_push(w, WINDOW_ACT_SYN, w->isn, WIRE_TH_SYN, 0);
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
void
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

/* --- time ------------------------------------------------------------------- */

/* A flight has stopped after no new data for WINDOW_QUIET_RTTS RTTs, at
 * least min_quiet_ns (window.c says why that floor). */
static uint64_t
window_quiet(const struct window *w)
{
	return max64(WINDOW_QUIET_RTTS * w->rtt, w->cfg.min_quiet_ns);
}

uint64_t
window_end_wait(const struct window *w)
{
	return max64(w->cfg.end_wait_ns, 4 * w->rtt);
}

/* When the current round ends unless something arrives. */
uint64_t
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
uint64_t
window_request_due(const struct window *w)
{
	if (w->cfg.request_len == 0 || w->highest > 0 || w->req_held ||
	    w->peer_ack >= w->cfg.request_len ||
	    w->req_sends > w->cfg.request_retries)
		return WINDOW_NEVER;
	return add_sat(w->req_at, window_end_wait(w));
}
