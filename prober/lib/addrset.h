/*
 * addrset.h -- a compact set of (address, port) pairs: what a streamed
 * target list has handed out already, so that a duplicate a million
 * lines further on still goes out once.  Pure: no I/O.
 *
 * IPv4 is exact: the 48 bits of (address, port) go through a keyed
 * bijection; its top 16 bits pick one of 65,536 buckets and its low 32
 * bits are kept.  The values of all buckets are one flat sorted array
 * (bucket by bucket) beside an index of where each bucket starts: 4 bytes
 * an entry, plus 256 KiB of index and a 128 KiB stage once the first pair
 * comes (4.4 bytes an entry at a million, one allocation of values
 * however many).  IPv6 keeps a keyed 64-bit SipHash of (address, port),
 * 8 bytes an entry (the top 16 bits pick the bucket).  Two IPv6 pairs
 * share a hash with a chance of n^2 / 2^65 (3e-8 for a million); the key
 * is drawn per run, so a list cannot be written to collide.
 *
 * New pairs wait in a small stage, sorted when looked up, and are merged
 * into the array ADDRSET_STAGE at a time (in place, from the end: the
 * array never exists twice); addrset_add merges sooner, at
 * ADDRSET_ADD_STAGE, so that one pair at a time (a name's address) moves
 * at most that many.  addrset_put adds in bulk without asking whether the
 * pair was there (a chunk of the list walked); addrset_flush merges what
 * waits.
 */
#ifndef SCALEPROBE_ADDRSET_H
#define SCALEPROBE_ADDRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "siphash.h"

#define ADDRSET_BUCKETS 65536
#define ADDRSET_STAGE 16384
#define ADDRSET_ADD_STAGE 1024

/* One family's pairs. */
struct addrset_fam {
	void *v;			/* the values, sorted: uint32_t (IPv4) or
					   uint64_t (IPv6) */
	size_t n, cap;
	uint32_t *start;		/* ADDRSET_BUCKETS + 1: where each bucket
					   starts in v; NULL until a pair comes */
	uint64_t *stage;		/* whole values waiting to be merged */
	size_t nstage;
	size_t staged_added;		/* of them, addrset_add's (counted) */
	bool unsorted;			/* addrset_put appended since the sort */
};

struct addrset {
	struct addrset_fam f[2];	/* IPv4's, IPv6's */
	uint8_t key[SIPHASH_KEY_LEN];
	uint64_t mix;			/* the IPv4 bijection's key */
	size_t n;			/* pairs held (addrset_put's counted once
					   merged) */
	size_t bytes;			/* memory used: the values written (the
					   array's reserved pages take none
					   until written), index, stage */
};

void addrset_init(struct addrset *s, const uint8_t key[SIPHASH_KEY_LEN]);
void addrset_free(struct addrset *s);

/* Adds (a, port): true when it was not there. */
bool addrset_add(struct addrset *s, const struct addr *a, uint16_t port);

/* Adds (a, port), there or not (merged in bulk: cheaper than add). */
void addrset_put(struct addrset *s, const struct addr *a, uint16_t port);

/* Merges what waits in the stages (n is then exact). */
void addrset_flush(struct addrset *s);

bool addrset_has(const struct addrset *s, const struct addr *a, uint16_t port);

#endif
