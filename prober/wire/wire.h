/*
 * wire.h -- what every packet parser of prober/ shares: the result codes
 * and bounds-free big-endian helpers for bytes already bounds-checked.
 *
 * Parsers (wire_ip, wire_tcp, wire_tcpopt, wire_icmp, wire_packet) take a
 * buffer and a length, fill a caller's struct and return an enum
 * wire_result.  They never allocate, never do I/O, never read outside
 * [buf, buf + len) and never crash, whatever the bytes: they are fuzzed.
 * Structs hold offsets into the caller's buffer, never pointers, so they
 * can be copied and outlive nothing.
 */
#ifndef WIRE_H
#define WIRE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Result of a parse.  The struct is filled as far as the bytes allowed on
 * every result; each parser's header says which fields are valid when.
 *
 * WIRE_OK           every header was present and consistent.
 * WIRE_TRUNCATED    the bytes end before a length that a header claims (a
 *                   short capture, a cut quote): IPv4 IHL or total length,
 *                   IPv6 payload length or an extension header past the
 *                   end, a TCP data offset past the end.
 * WIRE_MALFORMED    a field is impossible by itself or contradicts the
 *                   header around it: IHL < 5, total length < IHL * 4, an
 *                   option length of 0 or 1, an option running past the
 *                   option area, an RFC 4884 length past the message.
 * WIRE_UNSUPPORTED  well formed as far as read, but not something these
 *                   parsers decode: IP version not 4 or 6, an IPv6 jumbogram,
 *                   a chain of more extension headers than WIRE_IP6_MAX_EXT,
 *                   an ICMP type that is not an error.
 */
enum wire_result {
	WIRE_OK = 0,
	WIRE_TRUNCATED,
	WIRE_MALFORMED,
	WIRE_UNSUPPORTED,
};

/* "ok", "truncated", "malformed", "unsupported"; "?" for anything else. */
static inline const char *
wire_result_str(enum wire_result r)
{
	switch (r) {
	case WIRE_OK:		return "ok";
	case WIRE_TRUNCATED:	return "truncated";
	case WIRE_MALFORMED:	return "malformed";
	case WIRE_UNSUPPORTED:	return "unsupported";
	}
	return "?";
}

/* Big-endian reads and writes; the caller has checked the bounds. */
static inline uint16_t
wire_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
wire_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void
wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif /* WIRE_H */
