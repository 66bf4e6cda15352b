/*
 * addrset.c -- the compact (address, port) set of addrset.h: sorted
 * buckets, binary search, an insert moves at most the bucket's tail (16
 * entries a bucket at a million pairs).
 */
#include <stdlib.h>
#include <string.h>

#include "addrset.h"
#include "log.h"

#define M48 ((1ull << 48) - 1)

void
addrset_init(struct addrset *s, const uint8_t key[SIPHASH_KEY_LEN])
{
	memset(s, 0, sizeof(*s));
	memcpy(s->key, key, SIPHASH_KEY_LEN);
	s->mix = siphash24(key, "addrset", 7) & M48;
}

void
addrset_free(struct addrset *s)
{
	for (size_t i = 0; s->b4 != NULL && i < ADDRSET_BUCKETS; i++)
		free(s->b4[i].v);
	for (size_t i = 0; s->b6 != NULL && i < ADDRSET_BUCKETS; i++)
		free(s->b6[i].v);
	free(s->b4);
	free(s->b6);
	memset(s, 0, sizeof(*s));
}

/* A bijection of the 48 bits (each step undoes: an xor, a multiplication
 * by an odd number mod 2^48, an xor-shift of half the width or more), so
 * two pairs never share a value; mixed, so one /16 fills every bucket. */
static uint64_t
addrset_v4(const struct addrset *s, const struct addr *a, uint16_t port)
{
	uint64_t x = ((uint64_t)a->bytes[0] << 40 | (uint64_t)a->bytes[1] << 32 |
	    (uint64_t)a->bytes[2] << 24 | (uint64_t)a->bytes[3] << 16 | port) ^ s->mix;

	x = (x * 0x9e3779b97f4bull) & M48;
	x ^= x >> 24;
	x = (x * 0xbf58476d1ce5ull) & M48;
	x ^= x >> 24;
	return x;
}

static uint64_t
addrset_v6(const struct addrset *s, const struct addr *a, uint16_t port)
{
	uint8_t buf[18];

	memcpy(buf, a->bytes, 16);
	buf[16] = (uint8_t)(port >> 8);
	buf[17] = (uint8_t)port;
	return siphash24(s->key, buf, sizeof(buf));
}

/* The first index of v[0..n) not below x. */
static size_t
lower32(const uint32_t *v, size_t n, uint32_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
lower64(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more in a bucket of n of cap: the new capacity (half as
 * much again: the slack stays under a third of what is held). */
static uint32_t
addrset_grow(uint32_t cap)
{
	return cap < 4 ? 4 : cap + cap / 2;
}

bool
addrset_add(struct addrset *s, const struct addr *a, uint16_t port)
{
	if (a->family == ADDR_V4) {
		uint64_t x = addrset_v4(s, a, port);
		struct addrset_b4 *b;
		uint32_t lo = (uint32_t)x;
		size_t i;

		if (s->b4 == NULL) {
			s->b4 = xcalloc(ADDRSET_BUCKETS, sizeof(*s->b4));
			s->bytes += ADDRSET_BUCKETS * sizeof(*s->b4);
		}
		b = &s->b4[x >> 32];
		i = lower32(b->v, b->n, lo);
		if (i < b->n && b->v[i] == lo)
			return false;
		if (b->n == b->cap) {
			uint32_t cap = addrset_grow(b->cap);

			b->v = xreallocarray(b->v, cap, sizeof(*b->v));
			s->bytes += (cap - b->cap) * sizeof(*b->v);
			b->cap = cap;
		}
		memmove(b->v + i + 1, b->v + i, (b->n - i) * sizeof(*b->v));
		b->v[i] = lo;
		b->n++;
	} else {
		uint64_t x = addrset_v6(s, a, port);
		struct addrset_b6 *b;
		size_t i;

		if (s->b6 == NULL) {
			s->b6 = xcalloc(ADDRSET_BUCKETS, sizeof(*s->b6));
			s->bytes += ADDRSET_BUCKETS * sizeof(*s->b6);
		}
		b = &s->b6[x >> 48];
		i = lower64(b->v, b->n, x);
		if (i < b->n && b->v[i] == x)
			return false;
		if (b->n == b->cap) {
			uint32_t cap = addrset_grow(b->cap);

			b->v = xreallocarray(b->v, cap, sizeof(*b->v));
			s->bytes += (cap - b->cap) * sizeof(*b->v);
			b->cap = cap;
		}
		memmove(b->v + i + 1, b->v + i, (b->n - i) * sizeof(*b->v));
		b->v[i] = x;
		b->n++;
	}
	s->n++;
	return true;
}

bool
addrset_has(const struct addrset *s, const struct addr *a, uint16_t port)
{
	if (a->family == ADDR_V4) {
		uint64_t x;
		const struct addrset_b4 *b;
		size_t i;

		if (s->b4 == NULL)
			return false;
		x = addrset_v4(s, a, port);
		b = &s->b4[x >> 32];
		i = lower32(b->v, b->n, (uint32_t)x);
		return i < b->n && b->v[i] == (uint32_t)x;
	} else {
		uint64_t x;
		const struct addrset_b6 *b;
		size_t i;

		if (s->b6 == NULL)
			return false;
		x = addrset_v6(s, a, port);
		b = &s->b6[x >> 48];
		i = lower64(b->v, b->n, x);
		return i < b->n && b->v[i] == x;
	}
}
