/*
 * quote.h -- one router's quote of a trace SYN against the bytes we
 * crafted for it: what the path did to the SYN before that hop.
 *
 * Routers legitimately change the TTL / hop limit, the IPv4 header
 * checksum and TOS / traffic class (DSCP and ECN); those are masked.  A
 * NAT changes addresses and ports and so the TCP checksum: once addresses
 * or ports differ, those are masked too and the hop is marked nat.
 * Options are compared as lists (NOP padding ignored, as strippers NOP
 * options out and shorten headers alike), so a WS option overwritten
 * with NOPs, cut out, or given another value is told apart.
 */
#ifndef SCALEPROBE_QUOTE_H
#define SCALEPROBE_QUOTE_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

/*
 * Compare the quote (quote_len bytes starting at the quoted IP header, as
 * the ICMP / ICMPv6 error carried them, possibly cut) with sent (sent_len
 * bytes: the exact SYN we built for that TTL, IP header first) and fill
 * *out.  kind is the label the ICMP parser gave the quote.
 *
 * Every field of *out is written except from and rtt_us, which the
 * caller owns and which are kept as they were.  out->quote = kind.
 *
 * Options are judged (ws, mss, sack_stripped, ts_stripped, options in
 * other_changed) only when kind is QUOTE_FULL and the
 * whole quoted TCP header is present and well formed; otherwise ws is
 * WS_UNKNOWN and mss -1, and only addresses, ports, the sequence number
 * and the IP header's own fields are compared.  A quote that is not a
 * TCP datagram of sent's family with at least 8 bytes of TCP (or a sent
 * that does not parse) claims nothing at all: ws WS_UNKNOWN, every flag
 * false.  Never reads outside either buffer.
 */
void quote_compare(const uint8_t *sent, size_t sent_len, const uint8_t *quote,
    size_t quote_len, enum quote_kind kind, struct hop_quote *out);

/* True when q compared the options of a full quote (ws is known). */
int quote_is_full(const struct hop_quote *q);

#endif
