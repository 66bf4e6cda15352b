/*
 * permute.c -- the keyed Feistel permutation of [0, n) with
 * cycle-walking (permute.h says why it is a bijection).
 */
#include <string.h>

#include "permute.h"

#define PERMUTE_ROUNDS 4	/* Luby-Rackoff: four rounds make a strong
				   pseudo-random permutation */

int
permute_init(struct permute *p, uint64_t n, const uint8_t key[SIPHASH_KEY_LEN])
{
	unsigned bits = 2;

	if (n < 1 || n > PERMUTE_MAX)
		return -1;
	memset(p, 0, sizeof(*p));
	while (bits < 64 && (n - 1) >> bits != 0)
		bits += 2;
	p->n = n;
	p->half = bits / 2;
	p->mask = (1ULL << p->half) - 1;
	memcpy(p->key, key, SIPHASH_KEY_LEN);
	return 0;
}

static uint64_t
permute_round(const struct permute *p, unsigned round, uint64_t right)
{
	uint8_t in[9];

	in[0] = (uint8_t)round;
	for (int i = 0; i < 8; i++)
		in[1 + i] = (uint8_t)(right >> (8 * i));
	return siphash24(p->key, in, sizeof(in)) & p->mask;
}

/* One pass of the network over the whole 2 * half bit domain. */
static uint64_t
permute_feistel(const struct permute *p, uint64_t x)
{
	uint64_t left = x >> p->half, right = x & p->mask;

	for (unsigned r = 0; r < PERMUTE_ROUNDS; r++) {
		uint64_t next = left ^ permute_round(p, r, right);

		left = right;
		right = next;
	}
	return left << p->half | right;
}

uint64_t
permute_at(const struct permute *p, uint64_t i)
{
	uint64_t x = i;

	/* i < n is in the domain; walking the cycle it lies on must come
	 * back into [0, n), at the latest at i itself */
	do
		x = permute_feistel(p, x);
	while (x >= p->n);
	return x;
}
