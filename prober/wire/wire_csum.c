/*
 * wire_csum.c -- Internet checksum, pseudo-header sums, and RFC 1624
 * incremental updates.  Shared by the IPv4 header, TCP and ICMP(v6) code
 * and by the engine's template patching.
 */
#include "wire_csum.h"

#include "wire.h"

/* Fold a wide sum into 16 bits with end-around carries. */
static uint32_t
wire_csum_reduce(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint32_t)acc;
}

uint32_t
wire_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t	acc = sum;
	size_t		i;

	for (i = 0; i + 1 < len; i += 2)
		acc += wire_get16(p + i);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	return wire_csum_reduce(acc);
}

uint16_t
wire_csum_fold(uint32_t sum)
{
	return (uint16_t)~wire_csum_reduce(sum);
}

uint16_t
wire_csum(const uint8_t *p, size_t len)
{
	return wire_csum_fold(wire_csum_add(0, p, len));
}

uint32_t
wire_csum_pseudo4(const uint8_t src[4], const uint8_t dst[4], uint8_t proto,
    uint16_t l4_len)
{
	uint32_t	sum;

	sum = wire_csum_add(0, src, 4);
	sum = wire_csum_add(sum, dst, 4);
	return wire_csum_reduce((uint64_t)sum + proto + l4_len);
}

uint32_t
wire_csum_pseudo6(const uint8_t src[16], const uint8_t dst[16], uint8_t proto,
    uint32_t l4_len)
{
	uint32_t	sum;

	sum = wire_csum_add(0, src, 16);
	sum = wire_csum_add(sum, dst, 16);
	return wire_csum_reduce((uint64_t)sum + (l4_len >> 16) +
	    (l4_len & 0xffff) + proto);
}

uint16_t
wire_tcp_csum4(const uint8_t src[4], const uint8_t dst[4], const uint8_t *seg,
    size_t len)
{
	uint32_t	sum;

	sum = wire_csum_pseudo4(src, dst, 6, (uint16_t)len);
	return wire_csum_fold(wire_csum_add(sum, seg, len));
}

uint16_t
wire_tcp_csum6(const uint8_t src[16], const uint8_t dst[16], const uint8_t *seg,
    size_t len)
{
	uint32_t	sum;

	sum = wire_csum_pseudo6(src, dst, 6, (uint32_t)len);
	return wire_csum_fold(wire_csum_add(sum, seg, len));
}

uint16_t
wire_csum_update16(uint16_t csum, uint16_t old, uint16_t new_)
{
	uint64_t	acc;

	acc = (uint16_t)~csum;
	acc += (uint16_t)~old;
	acc += new_;
	return (uint16_t)~wire_csum_reduce(acc);
}

uint16_t
wire_csum_update32(uint16_t csum, uint32_t old, uint32_t new_)
{
	csum = wire_csum_update16(csum, (uint16_t)(old >> 16),
	    (uint16_t)(new_ >> 16));
	return wire_csum_update16(csum, (uint16_t)old, (uint16_t)new_);
}

uint16_t
wire_csum_update(uint16_t csum, const uint8_t *old, const uint8_t *new_,
    size_t len)
{
	size_t	i;

	for (i = 0; i + 1 < len; i += 2)
		csum = wire_csum_update16(csum, wire_get16(old + i),
		    wire_get16(new_ + i));
	return csum;
}
