/*
 * window_sim.c -- the Linux-like server and the wire of window_sim.h.
 * Offsets of the answer are relative to the server's ISN + 1.
 */
#include <stdlib.h>
#include <string.h>

#include "window_sim.h"

#define SIM_NEVER UINT64_MAX
#define SIM_MS 1000000ull
#define SIM_Q 16384			/* packets in flight per direction */
#define SIM_SEGS 16384			/* unacknowledged segments */
#define SIM_MSS 1448			/* 1460 minus timestamps */
#define SIM_RTO (200 * SIM_MS)		/* Linux's TCP_RTO_MIN */
#define SIM_END (60000 * SIM_MS)
#define SIM_TTL 59			/* as the first packets arrive */

#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_ACK 0x10

struct pkt {
	uint64_t at;
	uint32_t seq, ack, len;
	uint8_t flags;
	uint16_t window;
	int mss;
	bool ts;
	uint32_t tsval, tsecr;
	uint8_t ttl;
	bool second;			/* to / from the second connection's port */
};

struct fifo {
	struct pkt p[SIM_Q];
	size_t head, n;
};

struct seg {
	uint64_t off, len;
};

struct sim {
	const struct sim_cfg *c;
	const struct window_config *wc;
	struct sim_out *out;
	struct window *w;
	uint64_t now, owd;
	struct fifo to_srv, to_cli;

	/* the server */
	int state;			/* 0 listen, 1 SYN received, 2 open, 3 reset,
					   4 a proxy opening the connection */
	uint32_t irs;			/* this connection's ISN */
	uint32_t cisn;			/* ours, from the SYN */
	bool second;			/* the connection is on the second port */
	uint64_t open_at;		/* state 4: when the proxy's update leaves */
	uint16_t last_window;
	uint32_t rcv_nxt, peer_tsval;
	uint64_t una, nxt, wnd, max_window;
	uint32_t cwnd, ssthresh, max_out;
	bool cwnd_limited, app_wrote, fin_sent, tlp_done;
	uint64_t persist_at, tlp_at, rto_at, dribble_at, rto;
	struct seg segs[SIM_SEGS];
	size_t shead, sn;
	uint32_t ndata;
	bool holding;
	struct pkt held;
	int nacks;			/* our pure ACKs so far */
};

static void
fifo_push(struct fifo *f, const struct pkt *p)
{
	if (f->n == SIM_Q)
		abort();		/* the model is broken, not the machine */
	f->p[(f->head + f->n++) % SIM_Q] = *p;
}

static struct pkt *
fifo_peek(struct fifo *f)
{
	return f->n ? &f->p[f->head] : NULL;
}

static void
fifo_pop(struct fifo *f)
{
	f->head = (f->head + 1) % SIM_Q;
	f->n--;
}

static uint64_t
min_t(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* --- the server ------------------------------------------------------------ */

static void
srv_emit(struct sim *s, uint64_t off, uint32_t len, uint8_t flags)
{
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.at = s->now + s->owd;
	p.seq = s->irs + 1 + (uint32_t)off;
	p.ack = s->rcv_nxt;
	p.len = len;
	p.flags = flags;
	p.window = 65160 >> 7;
	p.mss = -1;
	p.ts = !s->c->no_ts;
	p.tsval = 5000 + (uint32_t)(s->now / SIM_MS);
	p.tsecr = s->peer_tsval;
	p.ttl = s->c->proxy ? SIM_TTL - 1 : SIM_TTL;	/* the server is one hop further */
	p.second = s->second;
	if (len > 0 && s->c->swap && (s->ndata++ % 4) == 1 && !s->holding) {
		s->held = p;
		s->holding = true;
		return;
	}
	fifo_push(&s->to_cli, &p);
	if (s->holding && len > 0) {
		s->held.at = p.at;
		fifo_push(&s->to_cli, &s->held);
		s->holding = false;
	}
}

static void
srv_flush_held(struct sim *s)
{
	if (s->holding) {
		fifo_push(&s->to_cli, &s->held);
		s->holding = false;
	}
}

/* tcp_bound_to_half_wnd */
static uint64_t
srv_mss(const struct sim *s)
{
	uint64_t cutoff = s->max_window > 536 ? s->max_window / 2 : s->max_window;
	uint64_t mss = s->c->seg ? s->c->seg : SIM_MSS;

	if (cutoff && mss > cutoff)
		return cutoff > 36 ? cutoff : 36;
	return mss;
}

static void
srv_send_new(struct sim *s, uint64_t len)
{
	if (s->sn == SIM_SEGS)
		abort();
	s->segs[(s->shead + s->sn++) % SIM_SEGS] = (struct seg){ s->nxt, len };
	srv_emit(s, s->nxt, (uint32_t)len, F_ACK);
	s->nxt += len;
	s->out->sent_bytes += len;
	if (s->rto_at == 0)
		s->rto_at = s->now + s->rto;
	if (s->c->tlp && !s->tlp_done)
		s->tlp_at = s->now + 10 * SIM_MS + (s->sn == 1 ? SIM_RTO : 0);
}

/* Next segment's length at nxt: whole segments, the header skb apart. */
static uint64_t
srv_seglen(const struct sim *s, uint64_t mss)
{
	uint64_t len = min_t(mss, s->c->resp - s->nxt);

	if (s->c->hdr > 0 && s->nxt < s->c->hdr)
		len = min_t(len, s->c->hdr - s->nxt);
	return len;
}

static void
srv_transmit(struct sim *s)
{
	uint64_t mss = srv_mss(s);
	bool blocked = false;

	if (!s->app_wrote || s->state != 2 || s->c->dribble_ns)
		return;
	while (s->nxt < s->c->resp) {
		uint64_t len = srv_seglen(s, mss);

		if (!s->c->ignore_window && s->nxt + len > s->una + s->wnd) {
			blocked = true;
			break;
		}
		if (s->sn >= s->cwnd) {
			s->cwnd_limited = true;
			break;
		}
		srv_send_new(s, len);
	}
	if (s->nxt == s->c->resp && s->c->fin && !s->fin_sent &&
	    s->nxt + 1 <= s->una + s->wnd && s->sn < s->cwnd) {
		srv_emit(s, s->nxt, 0, F_ACK | F_FIN);
		s->fin_sent = true;
	}
	if (s->sn > s->max_out)
		s->max_out = (uint32_t)s->sn;
	if (blocked && s->sn == 0 && s->persist_at == 0)
		s->persist_at = s->now + s->rto;
	srv_flush_held(s);
}

static void
srv_ack(struct sim *s, uint64_t a)
{
	uint32_t n = 0;

	while (s->sn > 0) {
		struct seg *g = &s->segs[s->shead];

		if (g->off + g->len > a)
			break;
		s->shead = (s->shead + 1) % SIM_SEGS;
		s->sn--;
		n++;
	}
	if (s->cwnd_limited || s->cwnd < 2 * s->max_out) {
		if (s->cwnd < s->ssthresh)
			s->cwnd = s->cwnd + n < s->ssthresh ? s->cwnd + n : s->ssthresh;
		else if (n > 0)
			s->cwnd++;	/* congestion avoidance, roughly */
	}
	if (s->c->cwnd_max && s->cwnd > s->c->cwnd_max)
		s->cwnd = s->c->cwnd_max;
	s->cwnd_limited = false;
	s->max_out = (uint32_t)s->sn;
	s->una = a;
	s->rto = SIM_RTO;
	s->rto_at = s->sn ? s->now + s->rto : 0;
	s->tlp_done = false;
	s->tlp_at = 0;
	s->persist_at = 0;
}

/* A new connection on the same 4-tuple, after our RST closed the last. */
static void
srv_reset(struct sim *s)
{
	s->state = 0;
	s->irs += 0x10000000u;		/* a new ISN, as a server picks */
	s->una = s->nxt = s->wnd = s->max_window = 0;
	s->cwnd = s->c->iw ? s->c->iw : 10;
	s->ssthresh = UINT32_MAX;
	s->max_out = 0;
	s->cwnd_limited = s->app_wrote = s->fin_sent = s->tlp_done = false;
	s->persist_at = s->tlp_at = s->rto_at = s->dribble_at = 0;
	s->rto = SIM_RTO;
	s->shead = s->sn = 0;
	s->holding = false;
	s->out->reset = false;
	s->out->connections++;
}

static void
srv_input(struct sim *s, const struct pkt *p)
{
	uint32_t req = (uint32_t)s->wc->request_len;

	if (s->state == 3 && (p->flags & (F_SYN | F_ACK)) == F_SYN)
		srv_reset(s);
	if (s->state == 3 || (s->state > 0 && p->second != s->second))
		return;		/* a closed connection's, or the other port's */
	if (s->state == 4) {
		s->last_window = p->window;
		return;		/* the proxy: nothing reaches the server yet */
	}
	if (p->flags & F_RST) {
		if (s->state >= 1 && p->seq == s->rcv_nxt) {
			s->state = 3;
			s->out->reset = true;
		}
		return;
	}
	if (p->flags & F_SYN) {
		struct pkt r;

		s->out->syns_seen++;
		if (!s->c->synack || s->state == 2)
			return;
		s->state = 1;
		s->second = p->second;
		s->cisn = p->seq;
		if (p->second)
			s->out->second_port = true;
		s->rcv_nxt = p->seq + 1;
		s->peer_tsval = p->tsval;
		memset(&r, 0, sizeof(r));
		r.at = s->now + s->owd;
		r.seq = s->irs;
		r.ack = s->rcv_nxt;
		r.flags = F_SYN | F_ACK;
		r.window = s->c->proxy ? 0 : 65160;
		r.ttl = SIM_TTL;
		r.mss = 1460;
		r.ts = !s->c->no_ts;
		r.tsval = 5000 + (uint32_t)(s->now / SIM_MS);
		r.tsecr = p->tsval;
		r.second = s->second;
		fifo_push(&s->to_cli, &r);
		s->out->synacks_sent++;
		return;
	}
	if (!(p->flags & F_ACK) || s->state == 0)
		return;
	if (!s->c->no_ts && !p->ts)
		s->out->bad_ts = true;
	if (p->ts)
		s->peer_tsval = p->tsval;
	if (s->state == 1) {
		if (p->ack != s->irs + 1)
			return;
		if (s->c->proxy) {
			/* the proxy checks its cookie, opens its own connection
			 * to the server, and only then opens our window */
			s->state = 4;
			s->open_at = s->c->proxy_ns == SIM_NEVER ? SIM_NEVER :
			    s->now + s->c->proxy_ns;
			s->last_window = p->window;
			return;
		}
		s->state = 2;
		s->wnd = s->max_window = (uint64_t)p->window << s->c->shift;
	}
	{
		uint64_t a = (uint32_t)(p->ack - (s->irs + 1));

		if (a > s->una && a <= s->nxt)
			srv_ack(s, a);
		s->wnd = (uint64_t)p->window << s->c->shift;
		if (s->wnd > s->max_window)
			s->max_window = s->wnd;
	}
	if (p->len > 0) {
		if (p->seq == s->rcv_nxt)
			s->rcv_nxt += p->len;
		else if ((int32_t)(p->seq - s->rcv_nxt) > 0)
			s->out->bad_seq = true;
		if (!s->app_wrote && s->rcv_nxt - (s->cisn + 1) >= req) {
			s->app_wrote = true;
			s->dribble_at = s->now + s->c->dribble_ns;
		}
	} else if (p->seq != s->rcv_nxt) {
		s->out->bad_seq = true;
	}
	if (req == 0 && !s->app_wrote && s->state == 2) {
		s->app_wrote = true;
		s->dribble_at = s->now + s->c->dribble_ns;
	}
	{
		uint64_t before = s->nxt;

		srv_transmit(s);
		if (p->len > 0 && s->nxt == before)
			srv_emit(s, s->nxt, 0, F_ACK);	/* quick ACK of the request */
	}
}

static void
srv_timers(struct sim *s)
{
	if (s->state == 4 && s->now >= s->open_at) {
		struct pkt u;

		s->state = 2;
		s->wnd = s->max_window = (uint64_t)s->last_window << s->c->shift;
		memset(&u, 0, sizeof(u));	/* the window update, from the proxy */
		u.at = s->now + s->owd;
		u.seq = s->irs + 1;
		u.ack = s->rcv_nxt;
		u.flags = F_ACK;
		u.window = 65160 >> 7;
		u.mss = -1;
		u.ts = !s->c->no_ts;
		u.tsval = 5000 + (uint32_t)(s->now / SIM_MS);
		u.tsecr = s->peer_tsval;
		u.ttl = SIM_TTL;
		u.second = s->second;
		fifo_push(&s->to_cli, &u);
		return;
	}
	if (s->state != 2)
		return;
	if (s->c->dribble_ns && s->app_wrote && s->now >= s->dribble_at) {
		srv_emit(s, s->nxt, 1, F_ACK);
		s->nxt++;
		s->out->sent_bytes++;
		s->dribble_at = s->now + s->c->dribble_ns;
	}
	if (s->persist_at && s->now >= s->persist_at) {
		uint64_t room = s->una + s->wnd > s->nxt ? s->una + s->wnd - s->nxt : 0;
		uint64_t len = min_t(min_t(room, srv_mss(s)), s->c->resp - s->nxt);

		s->persist_at = 0;
		if (len > 0)
			srv_send_new(s, len);
		else if (s->nxt < s->c->resp)
			s->persist_at = s->now + s->rto;
	}
	if (s->tlp_at && s->now >= s->tlp_at) {
		uint64_t len = srv_seglen(s, srv_mss(s));

		s->tlp_at = 0;
		s->tlp_done = true;
		if (s->sn > 0) {
			if (s->nxt < s->c->resp && s->nxt + len <= s->una + s->wnd) {
				srv_send_new(s, len);
			} else {
				struct seg *g = &s->segs[(s->shead + s->sn - 1) % SIM_SEGS];

				srv_emit(s, g->off, (uint32_t)g->len, F_ACK);
			}
		}
	}
	if (s->c->rto && s->rto_at && s->now >= s->rto_at && s->sn > 0) {
		struct seg *g = &s->segs[s->shead];

		srv_emit(s, g->off, (uint32_t)g->len, F_ACK);
		s->ssthresh = s->sn / 2 > 2 ? (uint32_t)s->sn / 2 : 2;
		s->cwnd = 1;
		s->rto *= 2;
		s->rto_at = s->now + s->rto;
	} else if (!s->c->rto && s->rto_at && s->now >= s->rto_at) {
		s->rto_at = 0;		/* no RTO in this model run */
	}
	srv_flush_held(s);
}

static uint64_t
srv_next(const struct sim *s)
{
	uint64_t t = SIM_NEVER;

	if (s->state == 4)
		return s->open_at;
	if (s->state != 2)
		return t;
	if (s->c->dribble_ns && s->app_wrote)
		t = min_t(t, s->dribble_at);
	if (s->persist_at)
		t = min_t(t, s->persist_at);
	if (s->tlp_at)
		t = min_t(t, s->tlp_at);
	if (s->rto_at)
		t = min_t(t, s->rto_at);
	return t;
}

/* --- the prober side ------------------------------------------------------- */

static void
cli_drain(struct sim *s)
{
	struct window_act a;

	while (window_next_action(s->w, s->now, &a)) {
		struct pkt p;

		memset(&p, 0, sizeof(p));
		p.at = s->now + s->owd;
		p.seq = a.seq;
		p.ack = a.ack;
		p.flags = a.flags;
		p.window = a.window;
		p.len = (uint32_t)a.payload_len;
		p.mss = -1;
		p.second = a.second;
		if (a.kind == WINDOW_ACT_SYN) {
			p.ts = s->wc->ts;
			p.tsval = a.tsval;
			p.window = 64240;
		} else {
			uint8_t opt[40];

			p.ts = window_act_options(&a, opt, sizeof(opt)) == 12;
			p.tsval = a.tsval;
			p.tsecr = a.tsecr;
		}
		if (a.kind == WINDOW_ACT_RST)
			s->out->rsts++;
		if (a.kind == WINDOW_ACT_ACK && ++s->nacks == s->c->drop_ack)
			continue;	/* lost on the way */
		fifo_push(&s->to_srv, &p);
	}
}

/* Hands the machine one arrival, glued to its successors when GRO would. */
static void
cli_deliver(struct sim *s)
{
	struct pkt p = *fifo_peek(&s->to_cli);
	struct window_seg g;

	fifo_pop(&s->to_cli);
	while (s->c->gro && p.len > 0 && !(p.flags & (F_FIN | F_SYN | F_RST))) {
		struct pkt *n = fifo_peek(&s->to_cli);

		if (n == NULL || n->at != p.at || n->len == 0 ||
		    (n->flags & (F_SYN | F_RST)) || n->seq != p.seq + p.len ||
		    p.len + n->len > 65535)
			break;
		p.len += n->len;
		p.flags |= n->flags;
		p.tsval = n->tsval;
		fifo_pop(&s->to_cli);
	}
	memset(&g, 0, sizeof(g));
	g.seq = p.seq;
	g.ack = p.ack;
	g.flags = p.flags;
	g.window = p.window;
	g.payload_len = p.len;
	g.mss = p.mss;
	g.ts = p.ts;
	g.tsval = p.tsval;
	g.wscale = (p.flags & F_SYN) ? 7 : -1;
	g.ttl = p.ttl;
	g.second = p.second;
	window_input(s->w, &g, s->now);
}

bool
sim_run(const struct sim_cfg *c, const struct window_config *wc, struct sim_out *out)
{
	struct sim *s = calloc(1, sizeof(*s));
	bool finished = false;

	if (s == NULL)
		abort();
	memset(out, 0, sizeof(*out));
	s->c = c;
	s->wc = wc;
	s->out = out;
	s->owd = c->owd_ns ? c->owd_ns : SIM_MS;
	s->cwnd = c->iw ? c->iw : 10;
	s->ssthresh = UINT32_MAX;
	s->rto = SIM_RTO;
	s->now = 1000 * SIM_MS;		/* not zero: a clock is not */
	out->start_ns = s->now;
	s->irs = c->irs;
	out->connections = 1;
	s->w = window_start(wc, c->isn, s->now);
	if (s->w == NULL)
		abort();
	cli_drain(s);
	for (long iter = 0; iter < 20000000; iter++) {
		uint64_t t = SIM_NEVER, wake = window_next_wake(s->w);
		struct pkt *p;

		if (window_done(s->w) && !finished) {
			finished = true;
			out->end_ns = s->now;
		}
		if ((p = fifo_peek(&s->to_srv)) != NULL)
			t = min_t(t, p->at);
		if ((p = fifo_peek(&s->to_cli)) != NULL)
			t = min_t(t, p->at);
		t = min_t(t, srv_next(s));
		t = min_t(t, wake);
		if (t == SIM_NEVER || t > SIM_END + 1000 * SIM_MS)
			break;
		/* the machine is done and nothing is on the wire: over */
		if (finished && s->to_srv.n == 0 && s->to_cli.n == 0 &&
		    (s->state != 2 || t > out->end_ns + 2000 * SIM_MS))
			break;
		s->now = t;
		if (wake <= t) {
			window_on_timer(s->w, t);
			cli_drain(s);
		}
		while ((p = fifo_peek(&s->to_cli)) != NULL && p->at <= t) {
			cli_deliver(s);
			cli_drain(s);
		}
		while ((p = fifo_peek(&s->to_srv)) != NULL && p->at <= t) {
			struct pkt q = *p;

			fifo_pop(&s->to_srv);
			srv_input(s, &q);
		}
		srv_timers(s);
	}
	if (window_done(s->w) && !finished) {
		finished = true;
		out->end_ns = s->now;
	}
	window_result(s->w, &out->res);
	window_free(s->w);
	free(s);
	return finished;
}
