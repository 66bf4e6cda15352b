/*
 * labpath.h -- the lab of tests/lab (README.md, MBOX.md) as a model in
 * memory, for the quote and verdict tests: scaleprobe's SYNs (send.h's
 * layout), the lab's real middlebox surgery (tests/lab/mbox_mangle.c) at
 * a router's ingress or egress, a NAT that does or does not translate the
 * quotes back, routers that quote in full, 8 bytes or not at all, and
 * Linux servers (plain, without window scaling, syncookies only).  A
 * router's quote goes out as an ICMP error, is parsed back by
 * wire_icmp_parse as the engine's reply.c does, and is compared with the
 * SYN sent by quote_compare.  Test code only.
 */
#ifndef LABPATH_H
#define LABPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "result.h"

#define LP_PKT_MAX	1500

/* The SYN scaleprobe sends (send.h): MSS 1460, SACK-permitted, timestamps
 * (TSval tsval, TSecr 0), then NOP + window scale `scale`, or for the
 * control (scale -1) four NOPs; DF, IP ID 0, TOS 0.  Returns its length. */
size_t lp_syn(uint8_t *buf, size_t cap, const struct addr *src,
    const struct addr *dst, int scale, uint8_t ttl, uint16_t sport,
    uint32_t isn);

/* One mbox rule ("ws-set 0", "ts-strip", "quote-8byte", ...) for the
 * packet's destination (or its quoted destination) applied in place, as
 * the lab's emulator would; returns true when mbox drops the packet. */
bool lp_mbox(const char *action, uint8_t *pkt, size_t *len);

/* Both checksums of an IPv4/IPv6 TCP packet recomputed (after surgery
 * done by hand in a test). */
void lp_fix_csums(uint8_t *pkt, size_t len);

/* A source NAT: source address and port rewritten, checksums fixed. */
void lp_snat(uint8_t *pkt, size_t len, const struct addr *to, uint16_t port);

/* How a router quotes. */
enum lp_quote {
	LP_QUOTE_FULL,		/* the whole datagram (Linux) */
	LP_QUOTE_8BYTE,		/* mbox quote-8byte: IP header + 8 */
	LP_QUOTE_RFC4884,	/* padded to 128 bytes, RFC 4884 length set */
	LP_QUOTE_CUT,		/* only the first cut bytes of the datagram */
};

/* Router `from` quotes `arrived` (the SYN as it reached it, TTL 1) in a
 * time-exceeded to `to`; the error is parsed back and its quote compared
 * with `sent`.  Returns false when the error did not parse as one. */
bool lp_router_quote(const uint8_t *sent, size_t sent_len,
    const uint8_t *arrived, size_t arrived_len, const struct addr *from,
    const struct addr *to, enum lp_quote how, size_t cut, struct hop_quote *out);

/* A lab path: prober, routers r1..r(dist-1), the destination at TTL dist. */
enum lp_server { LP_SRV, LP_SRV_NOWS, LP_SRV_COOKIE };

struct lp_path {
	int family;			/* ADDR_V4 or ADDR_V6 */
	struct addr dst;
	int dist;			/* D, 1..RESULT_MAX_HOPS */
	enum lp_server server;
	bool closed;			/* nothing listens: RST */
	bool filtered;			/* the server drops everything */
	int reject_at;			/* router rejecting forwarded SYNs with
					   ICMP admin-prohibited; 0 none */
	int box;			/* router running the mbox action; 0 none */
	bool box_egress;		/* FORWARD rather than mangle PREROUTING */
	const char *action;		/* mbox SYN action, e.g. "ws-set 0" */
	unsigned quote8, silent;	/* bit k: router k quotes 8 bytes / nothing */
	int nat;			/* router that SNATs; 0 none */
	bool nat_leaked;		/* quotes keep the NATed source */
	unsigned quote4884;		/* bit k: router k quotes RFC 4884 style */
};

/* The prober (hop 0) and router k's address, per family. */
struct addr lp_hop_addr(int family, int k);

/* What one SYN of variant scale (-1: the control) with TTL ttl draws. */
enum lp_answer { LP_SILENT, LP_HOP, LP_SYNACK, LP_RST, LP_UNREACH };

enum lp_answer lp_send(const struct lp_path *p, int scale, int ttl,
    struct hop_quote *hq, struct synack_obs *sa);

/* Probes the path the way the engine does: the control and each scale
 * with TTL 64, then the trace (TTL 1..30, each variant up to the
 * control's destination).  Fills res (control, scales, src, dst, trace
 * pointers into traces[0..n]). */
void lp_probe(const struct lp_path *p, const int *scales, int n,
    struct path_result *res, struct trace_obs *traces);

#endif
