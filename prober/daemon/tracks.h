/*
 * tracks.h -- the paths' alert memory (alert_state.h per scale), found by
 * address and port in a hash table under a secret key.  A path no longer
 * probed (a reload dropped it, a name moved, a prefix's address stopped
 * answering) must not stay forever: an entry whose every scale is idle
 * (alert_track_idle: nothing raised, no problem in its window) and that
 * got no result for max_age is freed by tracks_expire; one with an open
 * alert never is (the store has it, and it is cleared only by a result).  A path still
 * probed keeps its memory, so an alert says which state it left ("ok ->
 * stripped").  Pure: the caller draws the key (getrandom) and gives the
 * time.
 *
 * Most paths of a large group have nothing to say: every scale has one
 * verdict in its window (the same on each scale), nothing raised.  Such a
 * path's memory is a 12-byte row (24 for IPv6: its address, the verdict,
 * how many runs, where the ring stands), not a full entry (struct track, about
 * 900 bytes with RESULT_MAX_SCALES scales): tracks_settle folds it after
 * each result and tracks_get unfolds it exactly, so no alert changes.
 */
#ifndef SCALEPROBE_TRACKS_H
#define SCALEPROBE_TRACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "alert_state.h"
#include "result.h"
#include "siphash.h"

#define TRACKS_BUCKETS 1024		/* at first; doubled past 2 entries a
					   bucket, so a group of a million paths
					   keeps chains short */

/* A path's alert memory (alert_state.h) per scale, found by address and port. */
struct track {
	struct addr dst;
	uint16_t port;
	struct alert_track t[RESULT_MAX_SCALES];
	struct alert_path open;		/* its alert (alert_state.h); open.bad: raised */
	char *target;			/* the open alert's target (owned) */
	int64_t raised_ns;		/* wall clock */
	bool restored;			/* open read from the store: its scales'
					   tracks are seeded from it at the
					   path's next result */
	bool held;			/* its raise waits for the cycle's end
					   (incidents: alert_notify.c) */
	struct addr incident;		/* the hop of the incident it is one
					   path of; family 0: none */
	uint64_t seen_ns;		/* its latest result */
	struct track *next;
};

/* A quiet path's memory: each of its first k scales holds nhist runs of
 * one verdict (ring at head; the verdict's 4 bits and the confirmed
 * state's 4), the others nothing.  Packed into a row of 32-bit words in
 * an open-addressing table of its family: the address (1 word for IPv4,
 * 4 for IPv6), then port 16 bits, verdict and state 8, k 5, nhist 5,
 * head 4 and its latest result 26 (in ticks of tick_ns since the
 * table's epoch, rounded up: a quiet path is forgotten at most a tick
 * later than a full entry, never earlier).  12 bytes an IPv4 path, 24
 * an IPv6 one; k 0 is an empty row.  Each family's table is cut in
 * TRACKS_QUIET_SEGS segments by the hash's top bits, each grown by half
 * past TRACKS_QUIET_LOAD, so growing one copies a 64th of the table
 * (the peak stays near the table), not all of it. */
#define TRACKS_QUIET_SEGS 64
#define TRACKS_QUIET_MIN 32		/* rows of a segment at first */
#define TRACKS_QUIET_LOAD 85		/* percent full at most (linear probing) */
#define TRACKS_TICK_NS 1000000000ull	/* tick_ns when 0 */

struct quiet_seg {
	uint32_t *row;			/* cap rows, NULL while empty */
	uint32_t cap, n;
};

/* Zeroed is empty but unkeyed: tracks_key() before the first get. */
struct tracks {
	struct track **b;		/* nb buckets, NULL until the first get */
	size_t nb;
	uint8_t key[SIPHASH_KEY_LEN];
	bool keyed;
	size_t n;			/* full entries */
	struct quiet_seg q[2][TRACKS_QUIET_SEGS];	/* quiet paths: IPv4, IPv6 */
	uint64_t q_epoch_ns[2];		/* tick 0 of each family's table */
	uint64_t tick_ns;		/* a quiet path's time unit; 0: TRACKS_TICK_NS */
	size_t nq;			/* quiet paths */
	uint64_t swept_ns;		/* the latest tracks_expire that looked */
};

void tracks_key(struct tracks *ts, const uint8_t key[SIPHASH_KEY_LEN]);

/* dst:port's full entry (unfolded from its quiet memory, else a zeroed
 * one made); seen now. */
struct track *tracks_get(struct tracks *ts, const struct addr *dst, uint16_t port,
    uint64_t now_ns);

/* t (from tracks_get, its result observed) folded into a quiet path's few
 * bytes when nothing but one verdict is in its window and nothing is
 * raised, held or restored; then t is gone.  true when folded. */
bool tracks_settle(struct tracks *ts, struct track *t);

/* Frees every idle entry and quiet path not seen for more than
 * max_age_ns; looks at most once per max_age_ns / 2 (else returns 0 at
 * once).  How many it freed. */
size_t tracks_expire(struct tracks *ts, uint64_t now_ns, uint64_t max_age_ns);

/* Every entry and quiet path freed; the key kept. */
void tracks_free(struct tracks *ts);

/* Bytes the quiet paths' tables hold (their rows, full or empty). */
size_t tracks_quiet_bytes(const struct tracks *ts);

#endif
