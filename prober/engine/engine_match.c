/*
 * engine_match.c -- the engine's door for bytes from the network: a
 * captured packet is decoded, validated statelessly (the ISN cookie and its
 * tag, cookie.h), matched to the path in flight it answers, and handed to
 * the stage that path is in.  A valid reply for a stage the path has left
 * (or not reached) is counted late and changes nothing; what no probe of
 * this run could have drawn, and what does not parse, is counted rejected
 * with its reason (reply.h).  Nothing here sends: a
 * SYN-ACK is owed its flow's one RST (rst_owed.h), which the run loop pays
 * for; a SYN-ACK of a flow that had it is counted replayed and dropped.
 */
#include <stdio.h>

#include "engine_int.h"

/* The variant a port of ours belongs to, and its flow (the port plan:
 * either connection), or -1. */
static int
our_variant(const struct engine *e, uint16_t port, int *flow)
{
	enum portplan_conn conn;
	int v;

	*flow = 0;
	if (!portplan_decode(&e->plan, port, flow, &v, &conn) || v >= e->cfg.nvariants)
		return -1;
	return v;
}

/* A packet refused: the reason is the packet's first defect, else the
 * validation it failed. */
static void
reject(struct engine *e, const struct reply *r, enum reply_reject failed)
{
	e->n.rejected++;
	e->n.rejects[reply_reject_reason(r, failed)]++;
}

/* Tags a reply may carry in this run: what its probes used. */
static bool
tag_valid(const struct engine *e, int tag)
{
	if (tag == COOKIE_TAG_HANDSHAKE)
		return true;
	if (tag == COOKIE_TAG_WINDOW)
		return e->cfg.window_test;
	return e->cfg.trace != PROBE_TRACE_NEVER && tag >= 1 &&
	    tag <= e->cfg.trace_max_ttl && tag <= COOKIE_TRACE_TTL_MAX;
}

/* The stage whose probes carry tag. */
static enum stage_id
tag_stage(int tag)
{
	if (tag == COOKIE_TAG_HANDSHAKE)
		return STAGE_HANDSHAKE;
	if (tag == COOKIE_TAG_WINDOW)
		return STAGE_WINDOW;
	return STAGE_TRACE;
}

/* The path in flight from ours to theirs:port, or NULL. */
static struct path_slot *
path_slot_for(const struct engine *e, const struct addr *theirs, uint16_t port,
    int flow, const struct addr *ours)
{
	struct path_slot *s = engine_path_find(e, theirs, port, flow);

	return s != NULL && addr_equal(&s->path.src, ours) ? s : NULL;
}

/* Keeps the packet a stage is about to judge, until the path's result is
 * written: a router's quote of a trace SYN (with the ISN that SYN carried:
 * the rest of it is the variant's trace SYN, evidence "syn" at TTL 1), or
 * the destination's answer.  Variants as the result counts them: -1 the
 * control. */
static void
keep_evidence(struct engine *e, struct path_slot *s, const struct match *m)
{
	bool trace = m->tag >= 1 && m->tag <= COOKIE_TRACE_TTL_MAX;
	char fields[EVIDENCE_FIELDS] = "";
	size_t before = evidence_bytes(s->ev);

	if (m->pkt == NULL || e->cfg.no_evidence)
		return;
	if (trace && m->icmp) {
		struct send_syn syn;

		/* only its ISN is wanted, which no TSval changes */
		engine_make_syn(e, s, m->v, m->tag, 0, &syn);
		snprintf(fields, sizeof(fields), "ttl=%d isn=%08x", m->tag, (unsigned)syn.isn);
	}
	evidence_add(&s->ev, m->v - 1, trace ? m->tag : 0,
	    trace && m->icmp ? EVIDENCE_QUOTE : EVIDENCE_REPLY, fields, m->pkt, m->len);
	engine_mem(e, (int64_t)evidence_bytes(s->ev) - (int64_t)before);
}

/* Hands m to its path's stage when the path is running there. */
static void
deliver(struct engine *e, struct match *m, const struct reply *r, uint64_t now)
{
	struct path_slot *s = m->s;

	if (s == NULL || s->stage != tag_stage(m->tag) || !s->running) {
		e->n.late++;
		return;
	}
	keep_evidence(e, s, m);
	e->stages[s->stage].ops->input(e, s, m, r, now);
}

static void
input_tcp(struct engine *e, const struct reply *r, const uint8_t *pkt, size_t len,
    uint64_t now)
{
	struct match m = { .tag = -1, .pkt = pkt, .len = len };
	bool synack = (r->flags & (WIRE_TH_SYN | WIRE_TH_ACK)) ==
	    (WIRE_TH_SYN | WIRE_TH_ACK);
	bool valid;

	m.v = our_variant(e, r->dport, &m.flow);
	if (m.v < 0) {
		e->n.ignored++;
		return;
	}
	/* the reply travels the other way: our probe was (dst -> src) */
	m.s = path_slot_for(e, &r->src, r->sport, m.flow, &r->dst);
	if (synack) {
		valid = cookie_check_synack(&e->key, &r->dst, &r->src, r->dport,
		    r->sport, r->ack, &m.tag);
		m.kind = REPLY_SYNACK;
	} else if (r->flags & WIRE_TH_RST) {
		valid = cookie_check_rst(&e->key, &r->dst, &r->src, r->dport,
		    r->sport, r->ack, r->flags & WIRE_TH_ACK, &m.tag);
		m.kind = REPLY_RST;
	} else {
		valid = false;
	}
	/* a window-test connection: its machine judges every segment but a
	 * SYN-ACK, which must carry the test's tag to be its own */
	if (m.s != NULL && stage_window_owns(e, m.s, m.v) &&
	    (!synack || (valid && m.tag == COOKIE_TAG_WINDOW))) {
		/* the machine ends its connection with its own RST: no RST
		 * owed to this flow any more, however late its SYN-ACK */
		if (synack) {
			uint64_t bit = rst_flow_bit(COOKIE_TAG_WINDOW,
			    engine_out_second_port(e, m.flow, m.v, r->dport) ||
			    stage_window_second_here(e, m.s, m.v));

			/* a copy: the machine re-ACKs a few (our ACK may have
			 * been lost), then ignores them */
			if (m.s->v[m.v].rst_paid & bit)
				e->n.replayed++;
			m.s->v[m.v].rst_paid |= bit;
		}
		m.tag = COOKIE_TAG_WINDOW;
		m.kind = synack ? REPLY_SYNACK : REPLY_NONE;
		e->stages[STAGE_WINDOW].ops->input(e, m.s, &m, r, now);
		return;
	}
	if (!synack && !(r->flags & WIRE_TH_RST)) {
		e->n.ignored++;
		return;
	}
	/* an ack landing on a tag no probe of this run used answers nothing
	 * that was sent */
	if (!valid || !tag_valid(e, m.tag)) {
		reject(e, r, REPLY_REJECT_FLOW);
		return;
	}
	if (synack) {
		enum rst_decision d = engine_out_owe_rst(e, &m, r);

		if (d == RST_FOREIGN) {
			reject(e, r, REPLY_REJECT_FLOW);
			return;
		}
		if (d == RST_REPLAY) {
			/* its flow had its RST and its answer: a copy */
			e->n.replayed++;
			return;
		}
	}
	if (m.tag == COOKIE_TAG_WINDOW) {
		/* a window test's, after the test is over */
		e->n.late++;
		return;
	}
	deliver(e, &m, r, now);
}

/* The flow, variant and tag of a quoted SYN whose source a NAT rewrote:
 * the path is found by what a NAT keeps (destination and port), then each
 * of its flows' variants' ISNs is tried against the quoted sequence
 * number. */
static struct path_slot *
match_translated(struct engine *e, const struct reply *r, int *flow, int *v, int *tag)
{
	for (int f = 0; f < e->plan.flows; f++) {
		struct path_slot *s = engine_path_find(e, &r->q_dst, r->q_dport, f);

		if (s == NULL)
			continue;
		for (int i = 0; i < e->cfg.nvariants; i++)
			if (cookie_check_quote(&e->key, &s->path.src, &s->path.dst,
			    engine_variant_sport(e, f, i), s->path.port, r->q_seq, tag) &&
			    tag_valid(e, *tag)) {
				*flow = f;
				*v = i;
				return s;
			}
	}
	return NULL;
}

static void
input_icmp(struct engine *e, const struct reply *r, const uint8_t *pkt, size_t len,
    uint64_t now)
{
	struct match m = { .tag = -1, .icmp = true, .pkt = pkt, .len = len };

	m.v = our_variant(e, r->q_sport, &m.flow);
	if (m.v >= 0 && cookie_check_quote(&e->key, &r->q_src, &r->q_dst, r->q_sport,
	    r->q_dport, r->q_seq, &m.tag) && tag_valid(e, m.tag)) {
		m.s = path_slot_for(e, &r->q_dst, r->q_dport, m.flow, &r->q_src);
	} else if ((m.s = match_translated(e, r, &m.flow, &m.v, &m.tag)) == NULL) {
		if (m.v >= 0)
			reject(e, r, REPLY_REJECT_QUOTE);
		else
			e->n.ignored++;
		return;
	}
	m.kind = r->unreach ? REPLY_ICMP_UNREACH : REPLY_NONE;
	if (m.s == NULL || m.tag == COOKIE_TAG_WINDOW) {
		e->n.late++;
		return;
	}
	if (m.tag == COOKIE_TAG_HANDSHAKE && !r->unreach) {
		/* a time-exceeded for a handshake SYN means a routing loop or
		 * a path longer than its TTL: not an answer, keep waiting */
		e->n.ignored++;
		return;
	}
	deliver(e, &m, r, now);
}

void
engine_match_input(struct engine *e, const uint8_t *pkt, size_t len, uint64_t now)
{
	struct reply r;

	switch (reply_decode(pkt, len, &r)) {
	case REPLY_T_TCP:
		input_tcp(e, &r, pkt, len, now);
		break;
	case REPLY_T_ICMP:
		input_icmp(e, &r, pkt, len, now);
		break;
	default:
		/* malformed or truncated: refused for its defect; merely not
		 * ours (another protocol, a quote of UDP): ignored */
		if (r.defect != REPLY_REJECT_NONE)
			reject(e, &r, REPLY_REJECT_NONE);
		else
			e->n.ignored++;
		break;
	}
}
