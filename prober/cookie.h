/*
 * cookie.h -- stateless probe validation, as zmap does it: the ISN of every
 * SYN is a keyed hash of its 4-tuple, so a reply proves it saw our SYN
 * without a table of probes sent.
 *
 *   ISN = low 32 bits of SipHash-2-4(key, family | src | dst | sport | dport)
 *         with its low COOKIE_TTL_BITS replaced by the probe's TTL
 *
 * The TTL rides in the ISN so that a reply, or a router's ICMP quote (an
 * 8-byte quote still carries the sequence number), says which probe of a
 * trace it answers.  Handshake probes use TTL 0 in the cookie (their IP TTL
 * is the default); trace probes 1..COOKIE_TTL_MAX.  The check therefore has
 * 32 - COOKIE_TTL_BITS = 27 bits: a blind forger hits one in 2^27 tries.
 *
 * The key is the caller's: 16 random bytes per run (getrandom()).
 *
 * Every function takes the 4-tuple in the PROBE's direction (src = the
 * prober, dst = the target): for a SYN-ACK or RST that is the reply's
 * dst, src, dport, sport; an ICMP quote already holds the probe's own
 * header.  Checks return true when the packet answers one of our probes,
 * and store the TTL bits (0..31) it carries in *ttl (ttl may be NULL).
 */
#ifndef SCALEPROBE_COOKIE_H
#define SCALEPROBE_COOKIE_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "siphash.h"

#define COOKIE_TTL_BITS 5
#define COOKIE_TTL_MASK ((1u << COOKIE_TTL_BITS) - 1)
#define COOKIE_TTL_MAX COOKIE_TTL_MASK	/* 31: trace probes use 1..30 */

struct cookie_key {
	uint8_t bytes[SIPHASH_KEY_LEN];
};

void cookie_key_init(struct cookie_key *key, const uint8_t bytes[SIPHASH_KEY_LEN]);

/* The ISN of the probe src:sport -> dst:dport carrying ttl (0..31; higher
 * bits are ignored). */
uint32_t cookie_isn(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, unsigned ttl);

/* A SYN-ACK: its ack must be ISN + 1. */
bool cookie_check_synack(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t ack, int *ttl);

/*
 * A RST.  Accepted:
 *   - ACK flag set and ack == ISN + 1: RFC 793's answer to a SYN (seq 0,
 *     ack = SEG.SEQ + 1) -- what Linux, BSD and Windows send;
 *   - ACK flag set and ack == ISN: sent by some stacks and middleboxes;
 *     zmap accepts it too.  When both readings fit (the TTL bits of two
 *     trace probes differ by one), ISN + 1 wins, as the common case.
 * Rejected: a RST without the ACK flag, whatever its ack field holds
 * (often 0).  It carries no number of ours, so it proves nothing: anyone
 * could forge it, and taking it would let a forger mark paths closed.
 * Its seq is never looked at (for a RST answering a SYN it is 0).
 */
bool cookie_check_rst(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t ack,
    bool ack_flag, int *ttl);

/* The TCP header quoted in an ICMP/ICMPv6 error: its seq must be the ISN
 * sent.  A NAT between us and the quoting router translates the quote
 * back on its way to us (conntrack does), so the quote holds our tuple. */
bool cookie_check_quote(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t seq, int *ttl);

#endif
