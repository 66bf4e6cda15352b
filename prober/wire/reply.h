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

/*
 * Why a packet the capture passed is refused: the first defect found in
 * the order its bytes are read (lengths, then options, then checksum), or
 * else the validation it failed.  A defect alone refuses nothing: a reply
 * whose ISN cookie holds is a server's or a router's answer however its
 * options were mangled (a finding), and a TCP checksum is no test (it is
 * left partial before offloading NICs); the defect names why a packet no
 * probe of ours drew was refused.
 */
enum reply_reject {
	REPLY_REJECT_NONE = 0,	/* no defect (or not refused) */
	REPLY_REJECT_TRUNCATED,	/* the bytes end inside a header it needs */
	REPLY_REJECT_HEADER,	/* an IP or TCP header's length lies: IPv4
				   IHL, total length, IPv6 payload length, TCP
				   data offset impossible or contradicting */
	REPLY_REJECT_BAD_QUOTE,	/* an ICMP error quoting no IP header */
	REPLY_REJECT_OPTION,	/* a TCP option of length 0 or 1, or past the
				   header */
	REPLY_REJECT_CHECKSUM,	/* the TCP or ICMP checksum fails */
	REPLY_REJECT_FLOW,	/* well formed: no SYN of this run drew it */
	REPLY_REJECT_QUOTE,	/* quotes a segment from our ports that no
				   probe of this run was */
	REPLY_REJECT_COUNT
};

/* "truncated", "bad-header", "bad-quote", "bad-option", "bad-checksum",
 * "unknown-flow", "unknown-quote"; "none". */
const char *reply_reject_name(enum reply_reject why);

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

	/* the first defect of the packet (any type): for REPLY_T_OTHER
	 * a reason to refuse it; REPLY_REJECT_NONE when it is merely not
	 * ours (another protocol, a quote of UDP, a fragment), whatever
	 * its checksum */
	enum reply_reject defect;
};

/* Fills r from one L3 packet.  Returns r->type; REPLY_T_OTHER for anything
 * that is neither (including every malformed or truncated packet). */
enum reply_type reply_decode(const uint8_t *pkt, size_t len, struct reply *r);

/* Why r, which failed validation as `failed` (REPLY_REJECT_FLOW or
 * REPLY_REJECT_QUOTE), is refused: its defect when it has one. */
enum reply_reject reply_reject_reason(const struct reply *r, enum reply_reject failed);

#endif
