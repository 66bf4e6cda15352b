/*
 * pktbuild.h -- hand-built packets for unit tests: an IPv4 or IPv6 header
 * with a TCP segment (options and checksums right), and ICMP / ICMPv6
 * errors quoting a packet.  Test code only; the product's own packets come
 * from send.c.
 */
#ifndef PKTBUILD_H
#define PKTBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"

struct pkt_tcp {
	const struct addr *src, *dst;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t window;
	uint8_t ttl;
	const uint8_t *opts;	/* a multiple of 4 bytes */
	size_t optlen;
};

/* Writes the packet into buf (cap bytes); returns its length, 0 if no room. */
size_t pkt_build_tcp(uint8_t *buf, size_t cap, const struct pkt_tcp *t);

/* An ICMP (v4) or ICMPv6 error from `from` to `to` quoting the first
 * quote_len bytes of the packet q (its whole length if quote_len is 0). */
size_t pkt_build_icmp(uint8_t *buf, size_t cap, const struct addr *from,
    const struct addr *to, uint8_t type, uint8_t code, const uint8_t *q,
    size_t qlen, size_t quote_len);

/* The SYN-ACK options of a Linux server: MSS 1460, SACK-permitted,
 * timestamps, NOP, window scale ws (20 bytes). */
extern const uint8_t pkt_linux_synack_opts[20];

#endif
