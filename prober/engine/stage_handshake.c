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

/* The stage's own state: its two lists, and per path its round. */
struct hs_engine {
	struct path_slot_list sendq;		/* variants still to send this round */
	struct path_slot_list waitq;		/* all sent, by deadline */
};

struct hs_slot {
	uint64_t deadline;		/* end of the current round */
	uint32_t pending;		/* variants still to send */
	uint32_t answered;		/* variants with a reply */
};

static struct hs_engine *
hs_engine(const struct engine *e)
{
	return engine_stage_state(e, STAGE_HANDSHAKE);
}

_Static_assert(_Alignof(struct hs_slot) <= ENGINE_STATE_ALIGN,
    "the slot does not align struct hs_slot");

static struct hs_slot *
hs_slot(const struct engine *e, const struct path_slot *s)
{
	return engine_slot_state(e, s, STAGE_HANDSHAKE);
}

static uint32_t
all_variants(const struct engine *e)
{
	return e->cfg.nvariants >= 32 ? UINT32_MAX :
	    (uint32_t)((1u << e->cfg.nvariants) - 1);
}

static void
hs_start(struct engine *e, struct path_slot *s, uint64_t now)
{
	(void)now;
	hs_slot(e, s)->pending = all_variants(e);
	path_slot_list_append(&hs_engine(e)->sendq, s);
}

/* Variant v's SYN, paid with a token; false when none was left. */
static bool
send_variant(struct engine *e, struct path_slot *s, int v, uint64_t now)
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
expire(struct engine *e, struct path_slot *s)
{
	struct hs_slot *h = hs_slot(e, s);
	uint32_t again = 0;

	for (int v = 0; v < e->cfg.nvariants; v++) {
		if (h->answered & (1u << v))
			continue;
		if (s->v[v].obs.attempts <= e->cfg.retries)
			again |= 1u << v;
	}
	if (again == 0) {
		engine_stage_over(e, s);
		return;
	}
	h->pending = again;
	path_slot_list_append(&hs_engine(e)->sendq, s);
}

static void
hs_run(struct engine *e, uint64_t now)
{
	struct hs_engine *he = hs_engine(e);
	bool drained = false;
	struct path_slot *s;

	/* timeouts first: their retries go ahead of new paths */
	while ((s = he->waitq.head) != NULL && hs_slot(e, s)->deadline <= now) {
		if (!drained && e->ops.drain != NULL) {
			/* a reply may sit in the capture ring: read it before
			 * calling anything silent (it may end the head's stage) */
			e->ops.drain(e->ops.arg);
			drained = true;
			continue;
		}
		expire(e, s);
	}
	while ((s = he->sendq.head) != NULL) {
		struct hs_slot *h = hs_slot(e, s);
		int v = __builtin_ctz(h->pending);

		if (!send_variant(e, s, v, now))
			break;
		h->pending &= ~(1u << v);
		if (h->pending == 0) {
			h->deadline = now + e->cfg.timeout_ns;
			path_slot_list_append(&he->waitq, s);
		}
	}
}

static uint64_t
hs_wake(struct engine *e, uint64_t now)
{
	const struct hs_engine *he = hs_engine(e);

	if (he->sendq.head != NULL)
		return engine_out_when(e, now, 1);	/* SYNs wait for tokens */
	if (he->waitq.head != NULL)
		return hs_slot(e, he->waitq.head)->deadline;
	return ENGINE_NEVER;
}

/* Whether SYNs wait for tokens: new paths wait behind them. */
static bool
hs_sending(const struct engine *e)
{
	return hs_engine(e)->sendq.head != NULL;
}

/* Records what answered variant v; a path with every variant answered is
 * over with the handshake at once. */
static void
hs_input(struct engine *e, struct path_slot *s, const struct match *m,
    const struct reply *r, uint64_t now)
{
	struct vstate *vs = &s->v[m->v];
	struct hs_engine *he = hs_engine(e);
	struct hs_slot *h = hs_slot(e, s);

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
	h->answered |= 1u << m->v;
	h->pending &= ~(1u << m->v);
	if (h->answered == all_variants(e))
		engine_stage_over(e, s);
	else if (h->pending == 0 && s->on == &he->sendq) {
		h->deadline = now + e->cfg.timeout_ns;
		path_slot_list_append(&he->waitq, s);
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
	.path_slot_state_bytes = sizeof(struct hs_slot),
	.engine_state_bytes = sizeof(struct hs_engine),
	.sending = hs_sending,
};
