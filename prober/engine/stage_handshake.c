/*
 * stage_handshake.c -- the first stage: one SYN per variant (the control
 * without window scale, then each scale), each from its own source port,
 * retried on timeout; what answered each (SYN-ACK, RST, ICMP unreachable).
 *
 * A path is on one of two lists: the send queue (variants still to send
 * this round) or the deadline list (all sent, waiting for replies).  Both
 * are FIFOs and, because every round waits the same timeout, the deadline
 * list stays sorted by appending: no timer per probe.
 */
#include <string.h>

#include "engine_int.h"

static uint32_t
all_variants(const struct engine *e)
{
	return e->cfg.nvariants >= 32 ? UINT32_MAX :
	    (uint32_t)((1u << e->cfg.nvariants) - 1);
}

static void
hs_start(struct engine *e, struct slot *s, uint64_t now)
{
	(void)now;
	s->pending = all_variants(e);
	slot_list_append(&e->hs_sendq, s);
}

/* Variant v's SYN, paid with a token; false when none was left. */
static bool
send_variant(struct engine *e, struct slot *s, int v, uint64_t now)
{
	struct send_syn syn;
	int rc;

	engine_make_syn(e, s, v, COOKIE_TAG_HANDSHAKE, (uint32_t)(now / 1000000u), &syn);
	if ((rc = engine_out_syn(e, &syn, now)) == 0)
		return false;
	if (s->v[v].obs.attempts > 0)
		e->n.retries_sent++;
	s->v[v].obs.attempts++;
	s->v[v].sent_at = now;
	if (rc > 0)
		e->n.syns_sent++;
	return true;
}

/* Decides, at a path's deadline, what its silent variants do next. */
static void
expire(struct engine *e, struct slot *s)
{
	uint32_t again = 0;

	for (int v = 0; v < e->cfg.nvariants; v++) {
		if (s->answered & (1u << v))
			continue;
		if (s->v[v].obs.attempts <= e->cfg.retries)
			again |= 1u << v;
	}
	if (again == 0) {
		engine_stage_over(e, s);
		return;
	}
	s->pending = again;
	slot_list_append(&e->hs_sendq, s);
}

static void
hs_run(struct engine *e, uint64_t now)
{
	bool drained = false;
	struct slot *s;

	/* timeouts first: their retries go ahead of new paths */
	while ((s = e->hs_waitq.head) != NULL && s->deadline <= now) {
		if (!drained && e->ops.drain != NULL) {
			/* a reply may sit in the capture ring: read it before
			 * calling anything silent (it may end the head's stage) */
			e->ops.drain(e->ops.arg);
			drained = true;
			continue;
		}
		expire(e, s);
	}
	while ((s = e->hs_sendq.head) != NULL) {
		int v = __builtin_ctz(s->pending);

		if (!send_variant(e, s, v, now))
			break;
		s->pending &= ~(1u << v);
		if (s->pending == 0) {
			s->deadline = now + e->cfg.timeout_ns;
			slot_list_append(&e->hs_waitq, s);
		}
	}
}

static uint64_t
hs_wake(struct engine *e, uint64_t now)
{
	if (e->hs_sendq.head != NULL)
		return engine_out_when(e, now, 1);	/* SYNs wait for tokens */
	if (e->hs_waitq.head != NULL)
		return e->hs_waitq.head->deadline;
	return ENGINE_NEVER;
}

/* Records what answered variant v; a path with every variant answered is
 * over with the handshake at once. */
static void
hs_input(struct engine *e, struct slot *s, const struct match *m,
    const struct reply *r, uint64_t now)
{
	struct vstate *vs = &s->v[m->v];

	if (m->kind == REPLY_SYNACK)
		e->n.synacks++;
	else if (m->kind == REPLY_RST)
		e->n.rsts++;
	else
		e->n.icmp_errors++;
	if (vs->answered) {
		if (vs->obs.reply != m->kind)
			vs->obs.mixed = true;
		return;
	}
	vs->answered = true;
	vs->obs.reply = m->kind;
	vs->obs.rtt_us = (uint32_t)((now - vs->sent_at) / 1000u);
	if (m->kind == REPLY_SYNACK)
		vs->obs.sa = r->opts;
	if (m->kind == REPLY_ICMP_UNREACH) {
		vs->obs.icmp_type = r->icmp_type;
		vs->obs.icmp_code = r->icmp_code;
		vs->obs.icmp_from = r->src;
	}
	s->answered |= 1u << m->v;
	s->pending &= ~(1u << m->v);
	if (s->answered == all_variants(e))
		engine_stage_over(e, s);
	else if (s->pending == 0 && s->on == &e->hs_sendq) {
		s->deadline = now + e->cfg.timeout_ns;
		slot_list_append(&e->hs_waitq, s);
	}
}

const struct stage_ops stage_handshake_ops = {
	.name = "handshake",
	.wanted = NULL,
	.start = hs_start,
	.input = hs_input,
	.run = hs_run,
	.wake = hs_wake,
	.free = NULL,
};
