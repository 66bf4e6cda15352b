/*
 * wire_packet.h -- the capture path's one entry point: a whole L3 packet,
 * as captured from its IP header on, into IP + TCP (+ options), or IP +
 * ICMP error (+ quote), or IP + something else.
 */
#ifndef WIRE_PACKET_H
#define WIRE_PACKET_H

#include <stdint.h>

#include "wire.h"
#include "wire_icmp.h"
#include "wire_ip.h"
#include "wire_tcp.h"
#include "wire_tcpopt.h"

/* Which L4 member of struct wire_packet is valid. */
enum wire_l4 {
	WIRE_L4_NONE = 0,	/* the IP header chain did not get that far */
	WIRE_L4_TCP,		/* tcp, opts_result, opts */
	WIRE_L4_ICMP,		/* icmp: ICMP in IPv4, ICMPv6 in IPv6 */
	WIRE_L4_OTHER,		/* another protocol, or a non-first fragment */
};

/* Whether the TCP / ICMP checksum verified. */
enum wire_csum_state {
	WIRE_CSUM_UNCHECKED = 0,	/* datagram cut short or fragmented,
					   an IPv6 routing header, or no L4 */
	WIRE_CSUM_OK,
	WIRE_CSUM_BAD,
};

/*
 * One parsed packet.  Offsets in ip, tcp and icmp count from the first
 * byte of their own header; the L4 header is at ip.l4_off of the packet.
 */
struct wire_packet {
	enum wire_result ip_result;	/* wire_ip_parse's */
	struct wire_ip	ip;
	enum wire_l4	l4;
	enum wire_result l4_result;	/* the TCP header's or the ICMP
					   message's, with TRUNCATED inside a
					   complete datagram made MALFORMED */
	enum wire_csum_state l4_csum;
	struct wire_tcp	tcp;
	enum wire_result opts_result;	/* see wire_icmp.h: same meaning */
	struct tcpopts	opts;
	struct wire_icmp icmp;
};

/*
 * Parse the packet at buf, len bytes as captured.  Bytes past the IP
 * datagram's length (link padding) are ignored.
 *
 * Returns WIRE_TRUNCATED when the capture ended before the datagram did,
 * at whatever layer; otherwise the first of ip_result and l4_result that
 * is not WIRE_OK.  Option trouble (opts_result) and quote trouble (icmp's
 * ip_result, opts_result, quote) never change the return: a SYN-ACK with
 * a mangled option is a finding, not a packet to drop.
 */
enum wire_result wire_packet_parse(const uint8_t *buf, size_t len,
		    struct wire_packet *pkt);

#endif /* WIRE_PACKET_H */
