/*
 * wire_tcp.h -- the fixed TCP header.  Options are wire_tcpopt's,
 * checksums wire_csum's.
 */
#ifndef WIRE_TCP_H
#define WIRE_TCP_H

#include <stdint.h>

#include "wire.h"

#define WIRE_TCP_MIN	20	/* header without options */
#define WIRE_TCP_MAX	60	/* data offset 15 */

/* Flag bits of wire_tcp.flags: byte 13, and byte 12's low nibble above. */
#define WIRE_TH_FIN	0x001
#define WIRE_TH_SYN	0x002
#define WIRE_TH_RST	0x004
#define WIRE_TH_PSH	0x008
#define WIRE_TH_ACK	0x010
#define WIRE_TH_URG	0x020
#define WIRE_TH_ECE	0x040
#define WIRE_TH_CWR	0x080
#define WIRE_TH_AE	0x100	/* RFC 3540's NS, now AccECN's AE */

/*
 * A TCP header.  have says how many header bytes were present (at most
 * hdr_len, and at most 60); a field is valid when it lies wholly inside
 * them, so an RFC 792 quote of 8 bytes still gives ports and seq:
 *   sport, dport 4   seq 8   ack 12   hdr_len, flags 14   window 16
 *   csum 18   urg 20   options hdr_len
 * Offsets count from the first byte of the TCP header.
 */
struct wire_tcp {
	uint16_t	sport;
	uint16_t	dport;
	uint32_t	seq;
	uint32_t	ack;
	uint8_t		hdr_len;	/* data offset * 4 */
	uint16_t	flags;		/* WIRE_TH_* */
	uint16_t	window;		/* raw, unscaled */
	uint16_t	csum;		/* as received */
	uint16_t	urg;
	uint8_t		have;		/* header bytes present */
	uint8_t		opt_len;	/* hdr_len - 20: the option area */
	uint32_t	payload_len;	/* bytes after the header present */
};

/*
 * Parse the TCP header at buf (len bytes of segment).
 *
 * WIRE_OK          the header and its whole option area are present.
 * WIRE_TRUNCATED   len < 20, or len < data offset * 4; fields inside the
 *                  first len bytes are filled.  When the caller knows the
 *                  segment is complete (its IP datagram was), read this as
 *                  malformed: the header claims more than the datagram
 *                  holds; wire_packet_parse does.
 * WIRE_MALFORMED   data offset < 5.
 */
enum wire_result wire_tcp_parse(const uint8_t *buf, size_t len,
		    struct wire_tcp *th);

#endif /* WIRE_TCP_H */
