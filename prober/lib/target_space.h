/*
 * target_space.h -- the target space of a run: every address of every target,
 * walked lazily in a keyed pseudo-random order (permute.h), never
 * expanded.  A /8 is one record of 2^24 addresses; memory is per target,
 * not per address.
 *
 * Targets go in one by one (a name once per address it resolved to);
 * what the blocklist refuses whole is left out at once, with the entry
 * that refuses it for the caller's message.  target_space_freeze() then fixes
 * the order, and target_space_next() hands out one address after the other:
 *
 *   - an address of a record the blocklist refuses in part is checked on
 *     its own (blocklist_check) and skipped when refused;
 *   - an address more than one target holds (198.18.0.0/24 and
 *     198.18.0.7, or two names of one address) goes out once, for the
 *     first target that named it (the lowest entry number), and the same
 *     address on two ports is two paths;
 *   - only records that overlap another are checked, so a list of
 *     disjoint targets costs nothing per address.
 *
 * Pure: no I/O, no clock; the caller resolves names and routes.
 */
#ifndef SCALEPROBE_TARGET_SPACE_H
#define SCALEPROBE_TARGET_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "blocklist.h"
#include "permute.h"
#include "targets.h"

/* A record a target (or a name's address): 72 bytes, the words first, so
 * that a chunk of 16,384 of them holds no padding. */
struct target_space_rec {
	const char *target;		/* as_given of its target */
	const char *host;		/* the target's name, NULL for addresses */
	size_t entry;			/* its target's place in the list */
	uint64_t count;			/* addresses */
	uint64_t first;			/* index of its first address in the space */
	uint64_t blocked;		/* addresses skipped as blocked so far */
	struct addr net;		/* the prefix, or one address */
	uint8_t plen;			/* at most 128 */
	bool check_block;		/* blocked in part: each address is checked */
	bool check_dup;			/* overlaps another record */
	uint16_t port;
};

struct target_space {
	const struct blocklist *bl;
	struct target_space_rec *v;
	size_t n, cap;
	uint64_t total;			/* addresses in the space (duplicates and
					   addresses blocked in part included) */
	struct permute perm;
	uint64_t next;			/* index of the walk */
	size_t *dup;			/* every record, sorted for lookups */
	size_t ndup;
	uint8_t dup_plens[2][129];	/* [v4, v6][plen]: a record has it */
	uint64_t skipped_dup, skipped_blocked;
	bool frozen;
};

/* bl may be NULL: nothing is blocked. */
void target_space_init(struct target_space *s, const struct blocklist *bl);
void target_space_free(struct target_space *s);

/* Adds target tg, number entry of its list: its address or prefix, or for
 * a name, a (one of the addresses it resolved to).  Returns what the
 * blocklist refuses of it; for BLOCKLIST_ALL nothing is added, and *why
 * names the entry (for SOME, an entry inside it). */
enum blocklist_part target_space_add(struct target_space *s, const struct target *tg, size_t entry,
    const struct addr *a, const struct blocklist_entry **why);

/* Fixes the order under key; nothing can be added after. */
void target_space_freeze(struct target_space *s, const uint8_t key[SIPHASH_KEY_LEN]);

/* The next address of the walk: 1 with *rec (its record) and *a, or 0
 * when every address has been handed out.  With *budget not NULL, each
 * address skipped (blocked, or a duplicate) costs one; at 0 the walk
 * stops with TARGET_SPACE_LATER, to be resumed by the next call (a /8 blocked
 * but for a /24 must not hold an event loop for seconds). */
#define TARGET_SPACE_LATER 2
int target_space_next(struct target_space *s, struct target_space_rec **rec, struct addr *a,
    uint64_t *budget);

/* Whether a target of the space holds a on port (a name's address found
 * while the walk runs is probed there already). */
bool target_space_holds(const struct target_space *s, const struct addr *a, uint16_t port);

/* The address k (< rec->count) of a record. */
void target_space_address(const struct target_space_rec *rec, uint64_t k, struct addr *a);

#endif
