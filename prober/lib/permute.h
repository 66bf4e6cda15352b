/*
 * permute.h -- a keyed pseudo-random bijection of [0, n): the order in
 * which a run walks its target space, so that no /24 (or any other block
 * of neighbours) gets its probes back to back, and two runs with
 * different keys walk it differently.
 *
 * A balanced Feistel network over the smallest even number of bits that
 * holds n - 1 (four rounds, each a SipHash of the round and the right
 * half under the key), with cycle-walking: an output at or beyond n is
 * permuted again until it falls inside.  A Feistel network is a
 * permutation of its whole domain whatever the round function, so the
 * walk is a bijection of [0, n); the domain is less than 4n, so an index
 * takes fewer than four walks on average.  Nothing is stored per index:
 * constant memory for any n (zmap's cyclic group needs a prime and a
 * generator per size; this needs only the key).
 */
#ifndef SCALEPROBE_PERMUTE_H
#define SCALEPROBE_PERMUTE_H

#include <stdint.h>

#include "siphash.h"

#define PERMUTE_MAX (1ULL << 62)	/* largest n */

struct permute {
	uint64_t n;
	unsigned half;			/* bits of each half */
	uint64_t mask;			/* (1 << half) - 1 */
	uint8_t key[SIPHASH_KEY_LEN];
};

/* n in 1..PERMUTE_MAX.  Returns 0, or -1 for an n out of range. */
int permute_init(struct permute *p, uint64_t n, const uint8_t key[SIPHASH_KEY_LEN]);

/* The i-th element of the order (i < n): every value of [0, n) exactly
 * once as i goes over [0, n). */
uint64_t permute_at(const struct permute *p, uint64_t i);

#endif
