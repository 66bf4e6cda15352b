/*
 * srcrange.h -- a range of the prober's own source addresses
 * (--source-range A-B or CIDR, one per family), and which of them a path
 * goes from.  Routers limit the ICMP errors they send per destination
 * (Linux: a burst of 6, then 1 a second), so a trace of many paths through
 * one router is paced by that budget; N source addresses are N budgets.
 *
 * A path keeps one source for every packet it sends (its SYNs, their TTL
 * copies, the window test, the RSTs): the one a keyed hash of its
 * (destination, port) picks, so that it is the same whenever it is asked
 * for, and a reply to one source never answers another's probe (the ISN,
 * cookie.h, covers the source).  Pure: whether the addresses are the
 * host's is the caller's check (srcrange_check in prober/net).
 */
#ifndef SCALEPROBE_SRCRANGE_H
#define SCALEPROBE_SRCRANGE_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "siphash.h"

/* Addresses in one range, at most: each is a router budget the pacer
 * keeps (router_pace.h), and each must be configured on the interface. */
#define SRCRANGE_MAX 4096

struct srcrange {
	struct addr first;		/* family 0: no range */
	uint32_t n;			/* 1..SRCRANGE_MAX */
};

/* Parses "A-B" (both of one family, A <= B) or "A/LEN" (every address of
 * the prefix, host bits zero).  Every address must be unicast: not
 * unspecified, loopback, multicast, IPv4 limited broadcast or 0/8.
 * Returns 0, or -1 with a one-line reason in why. */
int srcrange_parse(const char *s, struct srcrange *out, char *why, size_t whylen);

/* The i-th address of r (i < r->n). */
struct addr srcrange_addr(const struct srcrange *r, uint32_t i);

/* The index of the address a path to (dst, port) goes from, by the run's
 * key: stable for the path, spread evenly over the range. */
uint32_t srcrange_pick(const struct srcrange *r, const uint8_t key[SIPHASH_KEY_LEN],
    const struct addr *dst, uint16_t port);

/* Writes "A-B" (or "A" for one address) into buf. */
const char *srcrange_format(const struct srcrange *r, char *buf, size_t len);

#endif
