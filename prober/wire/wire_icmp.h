/*
 * wire_icmp.h -- ICMPv4 and ICMPv6 error messages and the packet they
 * quote: the quoted IP header, the quoted TCP header as far as it goes,
 * its options when they are all there, and a label for how much a hop
 * quoted (RFC 792 8 bytes, RFC 1812 / RFC 4443 full); whether it set an
 * RFC 4884 length, and where its extensions are when that length holds.
 */
#ifndef WIRE_ICMP_H
#define WIRE_ICMP_H

#include <stdbool.h>
#include <stdint.h>

#include "wire.h"
#include "wire_ip.h"
#include "wire_tcp.h"
#include "wire_tcpopt.h"

#define WIRE_ICMP_HDR	8	/* type, code, checksum, 4 bytes by type */

/* ICMPv4 (RFC 792) error types. */
#define WIRE_ICMP4_UNREACH	3
#define WIRE_ICMP4_TIMXCEED	11
#define WIRE_ICMP4_PARAMPROB	12
#define WIRE_ICMP4_UNREACH_NEEDFRAG 4	/* code: next-hop MTU in bytes 6-7 */
/* ICMPv6 (RFC 4443) error types. */
#define WIRE_ICMP6_UNREACH	1
#define WIRE_ICMP6_PKT_TOO_BIG	2
#define WIRE_ICMP6_TIMXCEED	3
#define WIRE_ICMP6_PARAMPROB	4

/* What kind of error, the same for both families. */
enum wire_icmp_kind {
	WIRE_ICMP_NOT_ERROR = 0,	/* echo, ND, ...: not decoded */
	WIRE_ICMP_UNREACH,		/* destination unreachable */
	WIRE_ICMP_TIME_EXCEEDED,
	WIRE_ICMP_PKT_TOO_BIG,		/* v6 type 2; v4 unreach/needfrag
					   stays UNREACH, with mtu set */
	WIRE_ICMP_PARAM_PROBLEM,
};

/*
 * How much of the offending packet the error carries; the hop labels
 * "none" (no reply at all, not ours to say), "8-byte", "full", whatever
 * RFC 4884 length the router set (that is rfc4884_len).  The label is
 * coarse; quote_l4_len and tcp_complete say exactly what is there.
 */
enum wire_quote {
	WIRE_QUOTE_SHORT = 0,	/* too short to use: < 8 bytes of L4, or no
				   L4 at all (a non-first fragment) */
	WIRE_QUOTE_8BYTE,	/* >= 8 bytes of L4 (RFC 792), not all of
				   the L4 header */
	WIRE_QUOTE_FULL,	/* the whole TCP header with its options; for
				   other protocols the whole datagram */
};

/*
 * A parsed ICMP(v6) error.  Offsets count from the first byte of the ICMP
 * message; the quote's own offsets (in ip, tcp) from the first byte of the
 * quote, i.e. of the quoted IP header.
 *
 * Valid when:
 *   type, code, csum, kind              8 header bytes were present
 *   mtu, pointer, rfc4884_len           kind says the type carries them
 *   quote_*, ip                         kind != WIRE_ICMP_NOT_ERROR
 *   tcp                                 has_tcp (fields per tcp.have)
 *   opts                                has_tcp; opts_result says how far:
 *                                       OK all there and well formed,
 *                                       TRUNCATED the quote stops before
 *                                       or inside them, MALFORMED bad
 *                                       options or a data offset < 5
 */
struct wire_icmp {
	uint8_t		version;	/* 4: ICMPv4, 6: ICMPv6 */
	uint8_t		type;
	uint8_t		code;
	enum wire_icmp_kind kind;
	uint16_t	csum;		/* as received; wire_packet verifies */
	uint32_t	mtu;		/* v6 packet-too-big; v4 needfrag */
	uint32_t	pointer;	/* parameter problem: offending octet */
	uint16_t	rfc4884_len;	/* the RFC 4884 length field, in bytes,
					   as received; 0 if not set */
	bool		rfc4884;	/* that length holds: at least 128
					   bytes, within the message, and a
					   version-2 extension header there */
	uint32_t	ext_off;	/* RFC 4884 extension structure, if */
	uint32_t	ext_len;	/*   rfc4884 */

	enum wire_quote	quote;
	uint32_t	quote_off;	/* the quoted datagram: always 8 */
	uint32_t	quote_len;	/* its bytes (the RFC 4884 length, padding
					   included, when it holds; else the rest
					   of the message) */
	enum wire_result ip_result;	/* of the quoted IP header; TRUNCATED is
					   the normal state of a quote */
	struct wire_ip	ip;		/* the quoted IP header */
	uint32_t	quote_l4_len;	/* bytes of the quoted L4 present */
	bool		has_tcp;	/* quoted TCP, >= 8 bytes: ports + seq */
	bool		tcp_complete;	/* its header and options all there */
	struct wire_tcp	tcp;
	enum wire_result opts_result;
	struct tcpopts	opts;
};

/*
 * Parse the ICMP message at buf (len bytes, up to the end of the datagram
 * that carries it).  version is the carrying IP's: 4 parses ICMPv4, 6
 * ICMPv6.  The checksum is not verified here (ICMPv6 needs the carrying
 * IP's addresses): wire_packet_parse does it.
 *
 * WIRE_OK          an error whose quote held a usable IP header; see quote
 *                  for how much L4 came with it (SHORT is still OK).
 * WIRE_TRUNCATED   fewer than 8 bytes.
 * WIRE_MALFORMED   the quote is shorter than an IP header or not of the
 *                  carrying IP's version, or its IP header is malformed.
 *
 * An RFC 4884 length is honoured only as RFC 4884 5.1 allows and Linux
 * does (ip_icmp_error_rfc4884): at least 128 bytes, within the message,
 * with a version-2 extension header at that offset.  Any other length
 * (routers send e.g. 24 bytes before a whole quote) is recorded and the
 * whole rest of the message taken as the quote.
 * WIRE_UNSUPPORTED not an error type (kind WIRE_ICMP_NOT_ERROR; type and
 *                  code are filled), or a version other than 4 and 6, or
 *                  the quoted IP header was unsupported.
 */
enum wire_result wire_icmp_parse(const uint8_t *buf, size_t len,
		    uint8_t version, struct wire_icmp *ic);

#endif /* WIRE_ICMP_H */
