/*
 * addr.h -- an IPv4 or IPv6 address as plain bytes, the one address type
 * every part of scaleprobe passes around.  Pure: no sockets, no lookups.
 */
#ifndef SCALEPROBE_ADDR_H
#define SCALEPROBE_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADDR_V4 4
#define ADDR_V6 6

/* Longest text form addr_format() writes, with its NUL (INET6_ADDRSTRLEN). */
#define ADDR_STRLEN 46

struct addr {
	uint8_t family;		/* ADDR_V4 or ADDR_V6; 0 for "no address" */
	uint8_t bytes[16];	/* network order; v4 uses the first 4 */
};

/* Bytes the family uses: 4, 16, or 0 for an unset address. */
size_t addr_len(const struct addr *a);

/* Parses a literal IPv4 or IPv6 address (no brackets, no port, no scope).
 * Returns 0, or -1 when s is not an address. */
int addr_parse(const char *s, struct addr *out);

/* Writes the canonical text form (RFC 5952 for IPv6) into buf. */
const char *addr_format(const struct addr *a, char *buf, size_t len);

bool addr_equal(const struct addr *a, const struct addr *b);

/* Orders by family, then bytes: for sorting and de-duplicating target lists. */
int addr_compare(const struct addr *a, const struct addr *b);

/* True when the first plen bits of a and net agree (same family). */
bool addr_in_prefix(const struct addr *a, const struct addr *net, unsigned plen);

/* Clears every bit after the first plen (the network of a /plen). */
void addr_mask(struct addr *a, unsigned plen);

/* Parses "ADDR/LEN" (LEN decimal, at most 32 or 128) or a bare ADDR (a host
 * prefix: LEN 32 or 128).  Host bits must be zero: "198.18.0.1/15" is
 * refused, it is more often a typo than a wish.  Returns 0, or -1 with a
 * static reason in *why ("host bits set", ...). */
int addr_parse_prefix(const char *s, struct addr *net, unsigned *plen, const char **why);

#endif
