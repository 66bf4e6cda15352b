/*
 * wire_ip.h -- IPv4 and IPv6 headers, the IPv6 extension-header chain, and
 * the final L4 protocol and fragment information of a datagram.
 */
#ifndef WIRE_IP_H
#define WIRE_IP_H

#include <stdbool.h>
#include <stdint.h>

#include "wire.h"

/* Extension headers walked before a chain is refused as unsupported. */
#define WIRE_IP6_MAX_EXT	8

/* Next Header values walked as IPv6 extension headers. */
#define WIRE_IP6_HOPOPTS	0
#define WIRE_IP6_ROUTING	43
#define WIRE_IP6_FRAGMENT	44
#define WIRE_IP6_AH		51
#define WIRE_IP6_DSTOPTS	60
#define WIRE_IP6_NONXT		59	/* "no next header": nothing follows */

/* One IPv6 extension header, in chain order. */
struct wire_ip6_ext {
	uint8_t		type;		/* Next Header value that named it */
	uint8_t		next;		/* its own Next Header field */
	uint16_t	len;		/* bytes, including its first two */
	uint32_t	off;		/* from the start of the IPv6 header */
};

/*
 * A parsed IPv4 or IPv6 header.  Offsets count from the first byte of the
 * IP header; addresses are kept in network order, IPv4 in the first 4 bytes
 * of src and dst, the rest zero.
 *
 * Valid when:
 *   version                       always (0 if the buffer was empty)
 *   the fixed header fields       hdr_len bytes were present
 *   proto, l4_off, ext[]          l4_known
 *   l4_len                        l4_known; bytes of L4 actually present,
 *                                 i.e. up to min(tot_len, buffer) -- bytes
 *                                 past tot_len (link padding) never count
 * A datagram cut short (a capture's snaplen, an ICMP quote) returns
 * WIRE_TRUNCATED with l4_known set once the header chain was complete: that
 * is the normal state of a quoted packet.
 */
struct wire_ip {
	uint8_t		version;	/* 4 or 6; what the first nibble said */
	uint8_t		tos;		/* IPv4 TOS / IPv6 traffic class (DSCP+ECN) */
	uint8_t		ttl;		/* TTL / hop limit */
	uint8_t		proto;		/* final L4 protocol, after the v6 chain */
	uint16_t	hdr_len;	/* fixed header: IHL * 4, or 40 */
	uint16_t	ip_id;		/* IPv4 identification */
	uint16_t	csum;		/* IPv4 header checksum as received */
	bool		csum_ok;	/* IPv4 header checksum verifies; v6: true */
	bool		df;		/* IPv4 don't-fragment */
	bool		frag;		/* a fragment: MF set or offset non-zero */
	bool		more_frags;	/* MF */
	bool		l4_known;	/* proto, l4_off, l4_len are valid */
	uint16_t	frag_off;	/* fragment offset in bytes */
	uint32_t	frag_id;	/* v4: ip_id; v6: fragment header's id */
	uint32_t	flow;		/* IPv6 flow label (20 bits) */
	uint32_t	tot_len;	/* datagram length the header claims */
	uint32_t	l4_off;		/* first byte after the header chain */
	uint32_t	l4_len;		/* L4 bytes present (see above) */
	uint8_t		src[16];
	uint8_t		dst[16];
	uint8_t		n_ext;		/* IPv6 extension headers walked */
	struct wire_ip6_ext ext[WIRE_IP6_MAX_EXT];
};

/*
 * Parse the IP header at buf (len bytes captured).  The version nibble
 * picks IPv4 or IPv6.  A non-first fragment stops at its header: l4_known
 * is set, proto names the fragmented protocol, but the L4 bytes are not an
 * L4 header (frag_off != 0).
 *
 * WIRE_TRUNCATED   fewer bytes than the fixed header, the options (IHL),
 *                  an extension header, or the total/payload length claim.
 * WIRE_MALFORMED   IHL < 5, total length < IHL * 4, an extension header
 *                  running past the payload length, hop-by-hop not first.
 * WIRE_UNSUPPORTED version not 4 or 6, a jumbogram (payload length 0 with
 *                  hop-by-hop), more than WIRE_IP6_MAX_EXT ext headers.
 */
enum wire_result wire_ip_parse(const uint8_t *buf, size_t len,
		    struct wire_ip *ip);

#endif /* WIRE_IP_H */
