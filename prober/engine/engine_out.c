/*
 * engine_out.c -- every packet the engine sends, each paid with one token
 * of --rate as it leaves: handshake and trace SYNs, the window test's
 * segments, and the RSTs owed to SYN-ACKs.  --rate is the rate at which
 * packets leave this host, whatever their kind.
 *
 * RSTs are owed when a SYN-ACK is matched (from input, which never sends)
 * and go before anything else at the next run: a server that waits for
 * one keeps retransmitting its SYN-ACK.  A flow is owed one RST, ever
 * (rst_owed.h: its record in the path's slot, then in the memo): a
 * retransmitted or replayed SYN-ACK of a flow that had it draws nothing.
 * So the ring of RSTs waiting for their token holds at most one per SYN
 * sent, and RSTs, paid from --rate like every packet, never starve the
 * SYNs however many SYN-ACKs arrive.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "log.h"

#define RST_RING_MIN 64

/* Tokens there and not promised to a window test's first exchange. */
uint64_t
engine_out_tokens(struct engine *e, uint64_t now)
{
	uint64_t n = ratelimit_available(&e->rl, now);

	return n > e->reserved ? n - e->reserved : 0;
}

uint64_t
engine_out_when(struct engine *e, uint64_t now, uint64_t n)
{
	uint64_t t = ratelimit_wait(&e->rl, now, e->reserved + n);

	return t == UINT64_MAX ? ENGINE_NEVER : now + t;
}

bool
engine_out_can(struct engine *e, uint64_t now)
{
	return engine_out_tokens(e, now) > 0;
}

/* What a paid send returns: 1 sent, -1 failed (counted). */
static int
sent(struct engine *e, int rc)
{
	if (rc != 0) {
		e->n.send_errors++;
		return -1;
	}
	return 1;
}

static bool
take(struct engine *e, uint64_t now)
{
	return engine_out_can(e, now) && ratelimit_take(&e->rl, now, 1) == 1;
}

bool
engine_out_reserve(struct engine *e, uint64_t n, uint64_t now)
{
	if (engine_out_tokens(e, now) < n)
		return false;
	e->reserved += n;
	return true;
}

void
engine_out_release(struct engine *e, uint64_t n)
{
	e->reserved = e->reserved > n ? e->reserved - n : 0;
}

int
engine_out_segment_reserved(struct engine *e, const struct send_segment *seg,
    uint64_t now)
{
	/* the token was set aside: it is in the bucket, nobody else took it */
	if (ratelimit_take(&e->rl, now, 1) != 1)
		return 0;
	engine_out_release(e, 1);
	return sent(e, e->ops.send_segment(e->ops.arg, seg));
}

int
engine_out_syn(struct engine *e, const struct send_syn *syn, uint64_t now)
{
	if (!take(e, now))
		return 0;
	return sent(e, e->ops.send_syn(e->ops.arg, syn));
}

int
engine_out_segment(struct engine *e, const struct send_segment *seg, uint64_t now)
{
	if (!take(e, now))
		return 0;
	return sent(e, e->ops.send_segment(e->ops.arg, seg));
}

bool
engine_out_second_port(const struct engine *e, int flow, int v, uint16_t port)
{
	return port != engine_variant_sport(e, flow, v);
}

/* Queues the RST answering SYN-ACK r. */
static void
queue_rst(struct engine *e, const struct reply *r)
{
	struct rst_owed *o;

	if (e->rst_len == e->rst_cap) {
		size_t cap = e->rst_cap ? e->rst_cap * 2 : RST_RING_MIN;
		struct rst_owed *ring = xcalloc(cap, sizeof(*ring));

		for (size_t i = 0; i < e->rst_len; i++)
			ring[i] = e->rsts[(e->rst_head + i) % e->rst_cap];
		free(e->rsts);
		e->rsts = ring;
		e->rst_cap = cap;
		e->rst_head = 0;
	}
	o = &e->rsts[(e->rst_head + e->rst_len++) % e->rst_cap];
	/* the reply travels the other way: our RST goes (dst -> src) */
	o->src = r->dst;
	o->dst = r->src;
	o->sport = r->dport;
	o->dport = r->sport;
	o->seq = r->ack;
	e->wants_run = true;
}

enum rst_decision
engine_out_owe_rst(struct engine *e, const struct match *m, const struct reply *r)
{
	struct rst_flow f = { .ours = true, .tag = m->tag,
	    .second = engine_out_second_port(e, m->flow, m->v, r->dport) };
	enum rst_decision d;
	uint64_t key = 0;

	if (m->s != NULL) {
		f.recorded = true;
		f.paid = m->s->v[m->v].rst_paid;
	} else {
		/* the reply travels the other way: the path was (dst -> src) */
		key = rst_memo_key(&e->key, &r->dst, &r->src, r->sport,
		    m->flow * ENGINE_PLAN_VARIANTS + m->v);
		f.recorded = rst_memo_get(&e->rst_memo, key, &f.paid);
	}
	if ((d = rst_decide(&f)) != RST_SEND)
		return d;
	f.paid |= rst_flow_bit(f.tag, f.second);
	if (m->s != NULL)
		m->s->v[m->v].rst_paid = f.paid;
	else
		rst_memo_put(&e->rst_memo, key, f.paid);
	queue_rst(e, r);
	return d;
}

void
engine_out_retire(struct engine *e, const struct path_slot *s)
{
	for (int v = 0; v < e->cfg.nvariants; v++)
		rst_memo_put(&e->rst_memo, rst_memo_key(&e->key, &s->path.src,
		    &s->path.dst, s->path.port, s->path.flow * ENGINE_PLAN_VARIANTS + v),
		    s->v[v].rst_paid);
}

void
engine_out_rsts(struct engine *e, uint64_t now)
{
	while (e->rst_len > 0) {
		const struct rst_owed *o = &e->rsts[e->rst_head];
		struct send_segment seg;

		memset(&seg, 0, sizeof(seg));
		seg.src = &o->src;
		seg.dst = &o->dst;
		seg.sport = o->sport;
		seg.dport = o->dport;
		seg.seq = o->seq;
		seg.flags = WIRE_TH_RST;
		seg.ttl = e->cfg.ttl;
		seg.flow_label = engine_flow_label(e, seg.src, seg.dst, seg.sport, seg.dport);
		if (!take(e, now))
			return;
		if (e->ops.send_segment(e->ops.arg, &seg) != 0)
			e->n.send_errors++;
		else
			e->n.rsts_sent++;
		e->rst_head = (e->rst_head + 1) % e->rst_cap;
		e->rst_len--;
	}
}

bool
engine_out_rsts_owed(const struct engine *e)
{
	return e->rst_len > 0;
}

void
engine_out_free(struct engine *e)
{
	rst_memo_free(&e->rst_memo);
	free(e->rsts);
	e->rsts = NULL;
	e->rst_len = e->rst_cap = e->rst_head = 0;
}
