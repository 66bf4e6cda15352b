/*
 * cookie.h -- stateless probe validation, as zmap does it: the ISN of every
 * SYN is a keyed hash of its 4-tuple, so a reply proves it saw our SYN
 * without a table of probes sent.
 *
 *   ISN = low 32 bits of SipHash-2-4(key, family | src | dst | sport | dport)
 *         with its low COOKIE_TAG_BITS replaced by the probe's tag
 *
 * The low bits are a tag that says which probe of the path a reply answers,
 * so that a reply, or a router's ICMP quote (an 8-byte quote still carries
 * the sequence number), is told apart without state:
 *
 *   COOKIE_TAG_HANDSHAKE (0)     the handshake's SYNs (IP TTL the default)
 *   1..COOKIE_TRACE_TTL_MAX      a trace SYN: the tag is its TTL / hop limit
 *   COOKIE_TAG_WINDOW (31)       the SYN of a window-test connection
 *
 * The check therefore has 32 - COOKIE_TAG_BITS = 27 bits: a blind forger
 * hits one in 2^27 tries.
 *
 * The key is the caller's: 16 random bytes per run (getrandom()).
 *
 * Every function takes the 4-tuple in the PROBE's direction (src = the
 * prober, dst = the target): for a SYN-ACK or RST that is the reply's
 * dst, src, dport, sport; an ICMP quote already holds the probe's own
 * header.  Checks return true when the packet answers one of our probes,
 * and store the tag (0..31) it carries in *tag (tag may be NULL).
 */
#ifndef SCALEPROBE_COOKIE_H
#define SCALEPROBE_COOKIE_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "siphash.h"

#define COOKIE_TAG_BITS 5
#define COOKIE_TAG_MASK ((1u << COOKIE_TAG_BITS) - 1)
#define COOKIE_TAG_HANDSHAKE 0
#define COOKIE_TRACE_TTL_MAX 30		/* trace probes: tag = TTL, 1..30 */
#define COOKIE_TAG_WINDOW 31		/* a window-test connection's SYN */

struct cookie_key {
	uint8_t bytes[SIPHASH_KEY_LEN];
};

void cookie_key_init(struct cookie_key *key, const uint8_t bytes[SIPHASH_KEY_LEN]);

/* The ISN of the probe src:sport -> dst:dport carrying tag (0..31; higher
 * bits are ignored). */
uint32_t cookie_isn(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, unsigned tag);

/* A SYN-ACK: its ack must be ISN + 1. */
bool cookie_check_synack(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t ack, int *tag);

/*
 * A RST.  Accepted:
 *   - ACK flag set and ack == ISN + 1: RFC 793's answer to a SYN (seq 0,
 *     ack = SEG.SEQ + 1) -- what Linux, BSD and Windows send;
 *   - ACK flag set and ack == ISN: sent by some stacks and middleboxes;
 *     zmap accepts it too.  When both readings fit (the tags of two
 *     trace probes differ by one), ISN + 1 wins, as the common case.
 * Rejected: a RST without the ACK flag, whatever its ack field holds
 * (often 0).  It carries no number of ours, so it proves nothing: anyone
 * could forge it, and taking it would let a forger mark paths closed.
 * Its seq is never looked at (for a RST answering a SYN it is 0).
 */
bool cookie_check_rst(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t ack,
    bool ack_flag, int *tag);

/* The TCP header quoted in an ICMP/ICMPv6 error: its seq must be the ISN
 * sent.  A NAT between us and the quoting router translates the quote
 * back on its way to us (conntrack does), so the quote holds our tuple. */
bool cookie_check_quote(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport, uint32_t seq, int *tag);

#endif
