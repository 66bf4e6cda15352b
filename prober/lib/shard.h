/*
 * shard.h -- which vantages of a site probe a target: rendezvous
 * (highest-random-weight) hashing, with no coordinator.  Every vantage
 * weighs each (target, vantage) pair with the same keyed hash and the K
 * heaviest vantages own the target, so every daemon of a site, given the
 * same list of vantage names, agrees on the owners without talking to the
 * others; adding a vantage to N moves a target's ownership only where the
 * new vantage outweighs one of its owners, about K/(N+1) of the
 * assignments, and removing one moves only what it owned.
 *
 * Pure: names in, indexes out.  Names are compared as bytes; the hash's key
 * is fixed (and public) because every vantage must compute the same
 * weights; nothing here is a secret, only a spread.
 */
#ifndef SCALEPROBE_SHARD_H
#define SCALEPROBE_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHARD_MAX_VANTAGES 256	/* a site's vantages; more is a typo */
#define SHARD_MAX_REPLICAS 16

/* The weight of vantage for target: SipHash-2-4 over "target\0vantage". */
uint64_t shard_weight(const char *target, const char *vantage);

/* The owners of target among vantages[0..n): the min(k, n) heaviest, their
 * indexes into owner[] from the heaviest down (ties, which need equal
 * 64-bit hashes, go to the smaller name).  Returns how many; 0 when n or k
 * is 0 or n passes SHARD_MAX_VANTAGES. */
size_t shard_owners(const char *target, const char *const *vantages, size_t n, unsigned k,
    size_t owner[]);

/* Whether vantages[self] is among target's owners. */
bool shard_owns(const char *target, const char *const *vantages, size_t n, unsigned k,
    size_t self);

/* One vantage's share of a sharded group (conf_shard.c): a target's owners
 * are the k heaviest of names[0..n), and self is this vantage's index. */
struct shard_sel {
	const char *const *names;
	size_t n;
	unsigned k;
	size_t self;
};

/* Of t's entries from index from on, only those of targets as written
 * that sel owns kept, in order (a target's adjacent entries, one per port,
 * are one decision); the others' texts freed.  A streamed file is cut so
 * as it is read, and counted so for scaleprobed -t: *seen and *kept, the
 * targets as written looked at and kept, are added to. */
struct targets;
void shard_keep(struct targets *t, size_t from, const struct shard_sel *sel, uint64_t *seen,
    uint64_t *kept);

#endif
