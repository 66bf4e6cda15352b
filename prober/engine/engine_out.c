/*
 * engine_out.c -- every packet the engine sends, each paid with one token
 * of --rate as it leaves: handshake and trace SYNs, the window test's
 * segments, and the RSTs owed to SYN-ACKs.  --rate is the rate at which
 * packets leave this host, whatever their kind.
 *
 * RSTs are owed when a SYN-ACK is matched (from input, which never sends)
 * and go before anything else at the next run: a server that waits for
 * one keeps retransmitting its SYN-ACK.  They wait in a ring that grows
 * with what is owed; what is owed is bounded by the SYNs sent.
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

void
engine_out_owe_rst(struct engine *e, const struct reply *r)
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
		seg.flags = REPLY_TCP_RST;
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
	free(e->rsts);
	e->rsts = NULL;
	e->rst_len = e->rst_cap = e->rst_head = 0;
}
