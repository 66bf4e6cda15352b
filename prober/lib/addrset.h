/*
 * addrset.h -- a compact set of (address, port) pairs: what a streamed
 * target list has handed out already, so that a duplicate a million
 * lines further on still goes out once.  Pure: no I/O.
 *
 * IPv4 is exact: the 48 bits of (address, port) go through a keyed
 * bijection; its top 16 bits pick one of 65,536 sorted buckets and its
 * low 32 bits are kept: 4 bytes an entry (5 to 6 with the buckets'
 * slack), plus 1 MiB of bucket heads once the first entry comes.
 * IPv6 keeps a keyed 64-bit SipHash of (address, port): 8 bytes an entry
 * (the top 16 bits pick the bucket).  Two IPv6 pairs share a hash with a
 * chance of n^2 / 2^65 (3e-8 for a million); the key is drawn per run, so
 * a list cannot be written to collide.
 */
#ifndef SCALEPROBE_ADDRSET_H
#define SCALEPROBE_ADDRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "siphash.h"

#define ADDRSET_BUCKETS 65536

/* A sorted bucket of 4-byte (IPv4) or 8-byte (IPv6) values. */
struct addrset_b {
	void *v;
	uint32_t n, cap;
};

struct addrset {
	struct addrset_b *b[2];		/* IPv4's, IPv6's: NULL until a pair of
					   the family comes */
	uint8_t key[SIPHASH_KEY_LEN];
	uint64_t mix;			/* the IPv4 bijection's key */
	size_t n;			/* pairs held */
	size_t bytes;			/* memory held, heads included */
};

void addrset_init(struct addrset *s, const uint8_t key[SIPHASH_KEY_LEN]);
void addrset_free(struct addrset *s);

/* Adds (a, port): true when it was not there. */
bool addrset_add(struct addrset *s, const struct addr *a, uint16_t port);

bool addrset_has(const struct addrset *s, const struct addr *a, uint16_t port);

#endif
