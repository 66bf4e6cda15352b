/*
 * siphash.c -- SipHash-2-4 over a byte buffer, written from the paper
 * ("SipHash: a fast short-input PRF", 2012).  Bytes are assembled into
 * words by shifts, so the result does not depend on the host's byte order
 * or alignment.
 */
#include "siphash.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

/* Little-endian 64-bit word from 8 bytes. */
static uint64_t
siphash_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

struct siphash_state {
	uint64_t v0, v1, v2, v3;
};

static void
siphash_round(struct siphash_state *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL(s->v2, 32);
}

/* The 2 compression rounds of SipHash-2-4 for one message word. */
static void
siphash_compress(struct siphash_state *s, uint64_t m)
{
	s->v3 ^= m;
	siphash_round(s);
	siphash_round(s);
	s->v0 ^= m;
}

uint64_t
siphash24(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len)
{
	const uint8_t *in = data;
	uint64_t k0 = siphash_le64(key), k1 = siphash_le64(key + 8);
	struct siphash_state s = {
		.v0 = k0 ^ 0x736f6d6570736575ULL,	/* "somepseudorandomlygeneratedbytes" */
		.v1 = k1 ^ 0x646f72616e646f6dULL,
		.v2 = k0 ^ 0x6c7967656e657261ULL,
		.v3 = k1 ^ 0x7465646279746573ULL,
	};
	size_t whole = len - len % 8;
	uint64_t last = (uint64_t)(len & 0xff) << 56;

	for (size_t i = 0; i < whole; i += 8)
		siphash_compress(&s, siphash_le64(in + i));
	for (size_t i = 0; i < len % 8; i++)
		last |= (uint64_t)in[whole + i] << (8 * i);
	siphash_compress(&s, last);

	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		siphash_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
