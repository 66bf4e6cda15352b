/*
 * wire_csum.h -- the Internet checksum (RFC 1071), the TCP/ICMPv6
 * pseudo-header sums of IPv4 and IPv6, and the RFC 1624 incremental update
 * the engine uses to patch per-probe fields into prebuilt templates.
 *
 * Checksum values are 16-bit numbers as read from the wire with wire_get16
 * and stored with wire_put16.  A 32-bit "sum" is a partial one's-complement
 * sum, not yet folded or inverted: chain wire_csum_add calls over
 * even-length pieces (only the last may be odd), then wire_csum_fold.
 */
#ifndef WIRE_CSUM_H
#define WIRE_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* Add len bytes to a partial sum; an odd last byte is padded with zero. */
uint32_t	wire_csum_add(uint32_t sum, const uint8_t *p, size_t len);

/* Fold a partial sum to 16 bits and invert it: the checksum field value. */
uint16_t	wire_csum_fold(uint32_t sum);

/* Checksum of one buffer.  Over data that holds a correct checksum
 * field, the result is 0. */
uint16_t	wire_csum(const uint8_t *p, size_t len);

/* Partial sums of the pseudo-headers of RFC 793 (IPv4) and RFC 8200 8.1
 * (IPv6): addresses, protocol, L4 length.  v4 addresses are 4 bytes, v6
 * 16, in network order. */
uint32_t	wire_csum_pseudo4(const uint8_t src[4], const uint8_t dst[4],
		    uint8_t proto, uint16_t l4_len);
uint32_t	wire_csum_pseudo6(const uint8_t src[16], const uint8_t dst[16],
		    uint8_t proto, uint32_t l4_len);

/*
 * TCP checksum of seg (len bytes, the checksum field included as it is)
 * under the IPv4 / IPv6 pseudo-header.  To fill the field: zero it, call,
 * store the result.  To verify: call over the received segment; 0 means
 * it verifies.
 */
uint16_t	wire_tcp_csum4(const uint8_t src[4], const uint8_t dst[4],
		    const uint8_t *seg, size_t len);
uint16_t	wire_tcp_csum6(const uint8_t src[16], const uint8_t dst[16],
		    const uint8_t *seg, size_t len);

/*
 * RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'): the checksum after replacing
 * the 16-bit word old by new at an even offset of the covered data.  It
 * gives exactly what a full recomputation would (never 0xffff for non-zero
 * data), so a patched template is bit-identical to a rebuilt one.
 */
uint16_t	wire_csum_update16(uint16_t csum, uint16_t old, uint16_t new_);

/* The same for a 32-bit field at an even offset (seq, an IPv4 address). */
uint16_t	wire_csum_update32(uint16_t csum, uint32_t old, uint32_t new_);

/* The same for len bytes (len even, at an even offset), e.g. an IPv6
 * address or the TTL/protocol word: old and new are the before and after
 * bytes. */
uint16_t	wire_csum_update(uint16_t csum, const uint8_t *old,
		    const uint8_t *new_, size_t len);

#endif /* WIRE_CSUM_H */
