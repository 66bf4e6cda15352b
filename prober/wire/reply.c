/*
 * reply.c -- a captured packet, parsed by wire_packet, flattened into what
 * matching needs (reply.h).  Anything truncated or malformed is OTHER,
 * never an answer, with its first defect named: the engine counts it
 * rejected for that reason.
 */
#include <string.h>

#include "reply.h"
#include "wire_packet.h"

static void
set_addr(struct addr *a, uint8_t version, const uint8_t bytes[16])
{
	memset(a, 0, sizeof(*a));
	a->family = version == 4 ? ADDR_V4 : ADDR_V6;
	memcpy(a->bytes, bytes, version == 4 ? 4 : 16);
}

static void
set_opts(struct synack_obs *o, const struct wire_tcp *th, const struct tcpopts *opts)
{
	o->present = true;
	o->wscale = opts->has_wscale ? opts->wscale : -1;
	o->mss = opts->has_mss ? opts->mss : -1;
	o->sack = opts->sack_perm;
	o->ts = opts->has_ts;
	o->window = th->window;
}

const char *
reply_reject_name(enum reply_reject why)
{
	switch (why) {
	case REPLY_REJECT_NONE:		return "none";
	case REPLY_REJECT_TRUNCATED:	return "truncated";
	case REPLY_REJECT_HEADER:	return "bad-header";
	case REPLY_REJECT_BAD_QUOTE:	return "bad-quote";
	case REPLY_REJECT_OPTION:	return "bad-option";
	case REPLY_REJECT_CHECKSUM:	return "bad-checksum";
	case REPLY_REJECT_FLOW:		return "unknown-flow";
	case REPLY_REJECT_QUOTE:	return "unknown-quote";
	case REPLY_REJECT_COUNT:	break;
	}
	return "none";
}

enum reply_reject
reply_reject_reason(const struct reply *r, enum reply_reject failed)
{
	return r->defect != REPLY_REJECT_NONE ? r->defect : failed;
}

/*
 * The defect that keeps a packet wire_packet_parse gave res for from
 * being decoded at all, or NONE when it is merely not ours.  A datagram
 * the capture cut short (a snaplen shorter than a big error) still
 * holding what matching reads is no defect: that is not a lie.
 */
static enum reply_reject
reply_parse_defect(const struct wire_packet *p, enum wire_result res)
{
	if (p->ip_result == WIRE_MALFORMED || p->ip_result == WIRE_UNSUPPORTED)
		return REPLY_REJECT_HEADER;
	if (res == WIRE_TRUNCATED) {
		/* an error quoting enough of a segment, cut after it */
		if (p->l4 == WIRE_L4_ICMP && p->l4_result == WIRE_OK)
			return REPLY_REJECT_NONE;
		return REPLY_REJECT_TRUNCATED;
	}
	if (p->l4 == WIRE_L4_TCP)
		return REPLY_REJECT_HEADER;	/* a data offset that lies */
	if (p->l4 == WIRE_L4_ICMP) {
		if (p->ip.l4_len < WIRE_ICMP_HDR)
			return REPLY_REJECT_HEADER;	/* ends inside its header */
		/* echo, ND and the like are no errors: not ours */
		return p->icmp.kind == WIRE_ICMP_NOT_ERROR ? REPLY_REJECT_NONE :
		    REPLY_REJECT_BAD_QUOTE;
	}
	return REPLY_REJECT_NONE;
}

/* The defect of a packet that decoded: mangled options, a bad checksum. */
static enum reply_reject
reply_decoded_defect(const struct wire_packet *p)
{
	if (p->l4 == WIRE_L4_TCP && p->opts_result == WIRE_MALFORMED)
		return REPLY_REJECT_OPTION;
	if (p->l4_csum == WIRE_CSUM_BAD)
		return REPLY_REJECT_CHECKSUM;
	return REPLY_REJECT_NONE;
}

enum reply_type
reply_decode(const uint8_t *pkt, size_t len, struct reply *r)
{
	struct wire_packet p;
	enum wire_result res;

	memset(r, 0, sizeof(*r));
	r->opts.wscale = -1;
	r->opts.mss = -1;
	switch ((res = wire_packet_parse(pkt, len, &p))) {
	case WIRE_OK:
		break;
	case WIRE_TRUNCATED:
		/* the capture's snaplen cuts data segments short: whole IP
		 * and TCP headers are all the window test needs of them */
		if (p.l4 == WIRE_L4_TCP && p.tcp.have >= 20 && p.tcp.have == p.tcp.hdr_len &&
		    p.ip.tot_len >= p.ip.l4_off + p.tcp.hdr_len)
			break;
		r->defect = reply_parse_defect(&p, res);
		return r->type = REPLY_T_OTHER;
	default:
		r->defect = reply_parse_defect(&p, res);
		return r->type = REPLY_T_OTHER;
	}
	if (p.ip.frag)
		return r->type = REPLY_T_OTHER;
	r->defect = reply_decoded_defect(&p);
	set_addr(&r->src, p.ip.version, p.ip.src);
	set_addr(&r->dst, p.ip.version, p.ip.dst);
	r->ttl = p.ip.ttl;

	if (p.l4 == WIRE_L4_TCP) {
		/* the TCP checksum is not a test: senders on veth and behind
		 * offloading NICs leave it partial in what we capture, and the
		 * ISN cookie is what proves a reply answers our probe */
		r->sport = p.tcp.sport;
		r->dport = p.tcp.dport;
		r->seq = p.tcp.seq;
		r->ack = p.tcp.ack;
		r->flags = (uint8_t)p.tcp.flags;
		/* options a server mangled are still its answer: decoded
		 * as far as they go (wire_tcpopt keeps the first good one) */
		set_opts(&r->opts, &p.tcp, &p.opts);
		r->tsval = p.opts.has_ts ? p.opts.ts_val : 0;
		r->opts.ttl = p.ip.ttl;
		/* from the IP length, not the bytes captured */
		r->payload_len = p.ip.tot_len - p.ip.l4_off - p.tcp.hdr_len;
		return r->type = REPLY_T_TCP;
	}

	if (p.l4 == WIRE_L4_ICMP) {
		const struct wire_icmp *ic = &p.icmp;

		/* a quote of UDP, of a fragment, of too little TCP to hold
		 * its sequence number: not ours, whatever its checksum (the
		 * engine ignores it, as it would a good one) */
		if (!ic->has_tcp || ic->ip.version != p.ip.version) {
			r->defect = REPLY_REJECT_NONE;
			return r->type = REPLY_T_OTHER;
		}
		r->icmp_type = ic->type;
		r->icmp_code = ic->code;
		r->unreach = ic->kind == WIRE_ICMP_UNREACH;
		r->time_exceeded = ic->kind == WIRE_ICMP_TIME_EXCEEDED;
		set_addr(&r->q_src, ic->ip.version, ic->ip.src);
		set_addr(&r->q_dst, ic->ip.version, ic->ip.dst);
		r->q_sport = ic->tcp.sport;
		r->q_dport = ic->tcp.dport;
		r->q_seq = ic->tcp.seq;
		r->quote = pkt + p.ip.l4_off + ic->quote_off;
		r->quote_len = ic->quote_len;
		r->rfc4884 = ic->rfc4884_len != 0;
		switch (ic->quote) {
		case WIRE_QUOTE_FULL:
			r->quote_kind = QUOTE_FULL;
			break;
		default:
			r->quote_kind = QUOTE_8BYTE;
			break;
		}
		return r->type = REPLY_T_ICMP;
	}
	return r->type = REPLY_T_OTHER;
}
