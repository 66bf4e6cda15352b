/*
 * reply.c -- a captured packet, parsed by wire_packet, flattened into what
 * matching needs (reply.h).  Anything truncated or malformed is OTHER: the
 * engine counts it as ignored, never as an answer.
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

enum reply_type
reply_decode(const uint8_t *pkt, size_t len, struct reply *r)
{
	struct wire_packet p;

	memset(r, 0, sizeof(*r));
	r->opts.wscale = -1;
	r->opts.mss = -1;
	switch (wire_packet_parse(pkt, len, &p)) {
	case WIRE_OK:
		break;
	case WIRE_TRUNCATED:
		/* the capture's snaplen cuts data segments short: whole IP
		 * and TCP headers are all the window test needs of them */
		if (p.l4 == WIRE_L4_TCP && p.tcp.have >= 20 && p.tcp.have == p.tcp.hdr_len &&
		    p.ip.tot_len >= p.ip.l4_off + p.tcp.hdr_len)
			break;
		return r->type = REPLY_T_OTHER;
	default:
		return r->type = REPLY_T_OTHER;
	}
	if (p.ip.frag)
		return r->type = REPLY_T_OTHER;
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

		if (!ic->has_tcp ||
		    ic->ip.version != p.ip.version)
			return r->type = REPLY_T_OTHER;
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
