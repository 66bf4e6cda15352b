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
	for (int f = 0; f < 2; f++) {
		for (size_t i = 0; s->b[f] != NULL && i < ADDRSET_BUCKETS; i++)
			free(s->b[f][i].v);
		free(s->b[f]);
	}
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

/* Where (a, port) goes: its family (0 IPv4, 1 IPv6), bucket and the value
 * kept (IPv4: the low 32 bits of the bijection; IPv6: the whole hash). */
static void
addrset_where(const struct addrset *s, const struct addr *a, uint16_t port, int *f,
    size_t *bucket, uint64_t *x)
{
	if (a->family == ADDR_V4) {
		uint64_t y = addrset_v4(s, a, port);

		*f = 0;
		*bucket = (size_t)(y >> 32);
		*x = (uint32_t)y;
	} else {
		*f = 1;
		*x = addrset_v6(s, a, port);
		*bucket = (size_t)(*x >> 48);
	}
}

static uint64_t
addrset_at(const struct addrset_b *b, int f, size_t i)
{
	return f == 0 ? ((const uint32_t *)b->v)[i] : ((const uint64_t *)b->v)[i];
}

/* The first index of the bucket not below x. */
static size_t
addrset_lower(const struct addrset_b *b, int f, uint64_t x)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addrset_at(b, f, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
addrset_add(struct addrset *s, const struct addr *a, uint16_t port)
{
	size_t w, bi, i;
	struct addrset_b *b;
	uint64_t x;
	int f;

	addrset_where(s, a, port, &f, &bi, &x);
	w = f == 0 ? sizeof(uint32_t) : sizeof(uint64_t);
	if (s->b[f] == NULL) {
		s->b[f] = xcalloc(ADDRSET_BUCKETS, sizeof(*s->b[f]));
		s->bytes += ADDRSET_BUCKETS * sizeof(*s->b[f]);
	}
	b = &s->b[f][bi];
	i = addrset_lower(b, f, x);
	if (i < b->n && addrset_at(b, f, i) == x)
		return false;
	if (b->n == b->cap) {
		/* half as much again: the slack stays under a third */
		uint32_t cap = b->cap < 4 ? 4 : b->cap + b->cap / 2;

		b->v = xreallocarray(b->v, cap, w);
		s->bytes += (cap - b->cap) * w;
		b->cap = cap;
	}
	memmove((char *)b->v + (i + 1) * w, (char *)b->v + i * w, (b->n - i) * w);
	if (f == 0)
		((uint32_t *)b->v)[i] = (uint32_t)x;
	else
		((uint64_t *)b->v)[i] = x;
	b->n++;
	s->n++;
	return true;
}

bool
addrset_has(const struct addrset *s, const struct addr *a, uint16_t port)
{
	const struct addrset_b *b;
	size_t bi, i;
	uint64_t x;
	int f;

	addrset_where(s, a, port, &f, &bi, &x);
	if (s->b[f] == NULL)
		return false;
	b = &s->b[f][bi];
	i = addrset_lower(b, f, x);
	return i < b->n && addrset_at(b, f, i) == x;
}
