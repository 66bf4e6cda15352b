/*
 * reply.h -- what a captured packet means to the prober: a TCP segment
 * coming back to one of our source ports, or an ICMP/ICMPv6 error quoting a
 * TCP segment that left from one.  Pure: built on the wire_* parsers, it
 * flattens their structs into the few fields matching and recording need.
 */
#ifndef SCALEPROBE_REPLY_H
#define SCALEPROBE_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "result.h"
#include "wire_tcp.h"

enum reply_type {
	REPLY_T_OTHER = 0,	/* nothing of ours (or unparseable) */
	REPLY_T_TCP,		/* a TCP segment */
	REPLY_T_ICMP,		/* an ICMP/ICMPv6 error quoting a TCP segment */
};

struct reply {
	enum reply_type type;
	struct addr src, dst;		/* outer IP header */
	uint8_t ttl;			/* outer TTL / hop limit */

	/* REPLY_T_TCP */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;			/* TCP flag bits (WIRE_TH_*) */
	struct synack_obs opts;		/* options, decoded (present = true) */
	uint32_t tsval;			/* TSval when opts.ts */
	uint32_t payload_len;		/* TCP payload bytes in the datagram */

	/* REPLY_T_ICMP: the error and the segment it quotes (our probe) */
	uint8_t icmp_type, icmp_code;
	bool unreach;			/* destination unreachable (v4 3, v6 1) */
	bool time_exceeded;		/* v4 11, v6 3 */
	struct addr q_src, q_dst;	/* quoted IP header */
	uint16_t q_sport, q_dport;
	uint32_t q_seq;
	const uint8_t *quote;		/* the quoted datagram, in the caller's */
	size_t quote_len;		/*   buffer: valid while it is */
	enum quote_kind quote_kind;
	bool rfc4884;			/* the error set an RFC 4884 length */
};

/* Fills r from one L3 packet.  Returns r->type; REPLY_T_OTHER for anything
 * that is neither (including every malformed or truncated packet). */
enum reply_type reply_decode(const uint8_t *pkt, size_t len, struct reply *r);

#endif
