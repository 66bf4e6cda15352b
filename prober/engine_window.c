/*
 * engine_window.c -- the engine's window-test stage: after the handshake,
 * each scale variant that drew a SYN-ACK opens one real connection from
 * the raw socket (window.c decides every segment), on the variant's own
 * 4-tuple, its ISN carrying TTL bits 31 so that its SYN-ACK is told apart
 * from the handshake's (0) and the trace's (1..30) without state.  At most
 * max_windows paths test at once; the others wait their turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "log.h"
#include "window.h"

/* TTL bits of the window test's ISN. */
#define EWINDOW_BITS COOKIE_TTL_MAX

bool
ewindow_wanted(const struct engine *e, const struct slot *s)
{
	if (!e->cfg.window_test || e->ops.request == NULL)
		return false;
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (s->v[v].obs.reply == REPLY_SYNACK)
			return true;
	return false;
}

/* Sends what the machine of variant v asks for. */
static void
drain(struct engine *e, struct slot *s, int v)
{
	struct window *w = s->win[v];
	struct window_act a;

	while (window_next_action(w, &a)) {
		if (a.kind == WINDOW_ACT_SYN) {
			struct send_syn syn;

			engine_make_syn(e, s, v, EWINDOW_BITS, a.tsval, &syn);
			syn.ttl = e->cfg.ttl;
			syn.isn = a.seq;
			if (e->ops.send_syn(e->ops.arg, &syn) != 0)
				e->n.send_errors++;
			else
				e->n.window_sent++;
			continue;
		}

		struct send_syn syn;
		struct send_segment seg;
		uint8_t opts[40];

		/* the SYN's flow label keeps every segment on its path */
		engine_make_syn(e, s, v, 0, 0, &syn);
		memset(&seg, 0, sizeof(seg));
		seg.src = &s->path.src;
		seg.dst = &s->path.dst;
		seg.sport = engine_variant_sport(e, v);
		seg.dport = s->path.port;
		seg.seq = a.seq;
		seg.ack = a.ack;
		seg.flags = a.flags;
		seg.window = a.window;
		seg.ttl = e->cfg.ttl;
		seg.payload = a.payload;
		seg.payload_len = a.payload_len;
		seg.options_len = window_act_options(&a, opts, sizeof(opts));
		seg.options = seg.options_len ? opts : NULL;
		seg.flow_label = syn.flow_label;
		if (e->ops.send_segment(e->ops.arg, &seg) != 0)
			e->n.send_errors++;
		else
			e->n.window_sent++;
	}
}

static void
copy_result(struct slot *s, int v)
{
	struct window_result wr;
	struct window_obs *o = &s->wobs[v];

	window_result(s->win[v], &wr);
	memset(o, 0, sizeof(*o));
	o->ran = true;
	o->synack = wr.synack;
	o->inconclusive = wr.inconclusive;
	o->scale_effective = wr.scale_effective;
	o->scale_effective_min = wr.scale_effective_min;
	o->flight_bytes = wr.flight_bytes;
	o->w = wr.w;
	o->rounds = wr.rounds;
	snprintf(o->reason, sizeof(o->reason), "%s", wr.reason);
}

/* Every machine of s is done: keep the results, move to the next stage. */
static bool
finish_if_done(struct engine *e, struct slot *s, uint64_t now)
{
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (s->win[v] != NULL && !window_done(s->win[v]))
			return false;
	for (int v = 1; v < e->cfg.nvariants; v++)
		if (s->win[v] != NULL) {
			copy_result(s, v);
			window_free(s->win[v]);
			s->win[v] = NULL;
		}
	e->nwindowing--;
	slot_list_remove(s);
	engine_stage_after_window(e, s, now);
	while (e->window_wait.head != NULL && e->nwindowing < e->cfg.max_windows)
		ewindow_begin(e, e->window_wait.head, now);
	return true;
}

static void
start(struct engine *e, struct slot *s, uint64_t now)
{
	uint8_t req[WINDOW_REQUEST_MAX];
	size_t len;

	len = e->ops.request(e->ops.arg, &s->path, req, sizeof(req));
	s->win = xcalloc((size_t)e->cfg.nvariants, sizeof(*s->win));
	s->wobs = xcalloc((size_t)e->cfg.nvariants, sizeof(*s->wobs));
	e->nwindowing++;
	e->n.paths_windowed++;
	slot_list_append(&e->windowing, s);
	for (int v = 1; v < e->cfg.nvariants; v++) {
		struct window_config wc;

		if (s->v[v].obs.reply != REPLY_SYNACK || len == 0)
			continue;
		window_config_defaults(&wc, e->cfg.variant_scale[v]);
		wc.request = req;
		wc.request_len = len;
		s->win[v] = window_start(&wc, cookie_isn(&e->key, &s->path.src,
		    &s->path.dst, engine_variant_sport(e, v), s->path.port,
		    EWINDOW_BITS), now);
		if (s->win[v] != NULL)
			drain(e, s, v);
	}
	finish_if_done(e, s, now);
}

void
ewindow_begin(struct engine *e, struct slot *s, uint64_t now)
{
	slot_list_remove(s);
	if (e->nwindowing < e->cfg.max_windows)
		start(e, s, now);
	else
		slot_list_append(&e->window_wait, s);
}

bool
ewindow_input(struct engine *e, struct slot *s, int v, const struct reply *r,
    uint64_t now)
{
	struct window_seg seg;

	if (s->win == NULL || v < 1 || v >= e->cfg.nvariants || s->win[v] == NULL)
		return false;
	memset(&seg, 0, sizeof(seg));
	seg.seq = r->seq;
	seg.ack = r->ack;
	seg.flags = r->flags;
	seg.window = r->opts.window;
	seg.payload_len = r->payload_len;
	seg.mss = r->opts.mss;
	seg.ts = r->opts.ts;
	seg.tsval = r->tsval;
	window_input(s->win[v], &seg, now);
	drain(e, s, v);
	finish_if_done(e, s, now);
	return true;
}

bool
ewindow_run(struct engine *e, uint64_t now)
{
	struct slot *s, *next;
	bool sent = false;

	for (s = e->windowing.head; s != NULL; s = next) {
		next = s->next;
		for (int v = 1; v < e->cfg.nvariants; v++) {
			struct window *w = s->win[v];

			if (w == NULL || window_done(w) || window_next_wake(w) > now)
				continue;
			window_on_timer(w, now);
			drain(e, s, v);
			sent = true;
		}
		finish_if_done(e, s, now);
	}
	return sent;
}

uint64_t
ewindow_wake(const struct engine *e, uint64_t next)
{
	for (const struct slot *s = e->windowing.head; s != NULL; s = s->next)
		for (int v = 1; v < e->cfg.nvariants; v++)
			if (s->win[v] != NULL) {
				uint64_t w = window_next_wake(s->win[v]);
				if (w < next)
					next = w;
			}
	return next;
}

void
ewindow_free(struct slot *s, int nvariants)
{
	if (s->win != NULL)
		for (int v = 0; v < nvariants; v++)
			window_free(s->win[v]);
	free(s->win);
	free(s->wobs);
	s->win = NULL;
	s->wobs = NULL;
}
