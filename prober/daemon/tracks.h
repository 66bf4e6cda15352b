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
 * path's memory is 40 bytes (struct track_quiet: its address, the
 * verdict, how many runs, where the ring stands), not a full entry (struct track, about
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
 * one verdict (ring at head; the verdict in vc's low 4 bits, the
 * confirmed state in its high 4), the others nothing.  40 bytes. */
struct track_quiet {
	struct track_quiet *next;
	uint64_t seen_ns;
	struct addr dst;
	uint16_t port;
	uint8_t k, nhist, head, vc;
};

/* Zeroed is empty but unkeyed: tracks_key() before the first get. */
struct tracks {
	struct track **b;		/* nb buckets, NULL until the first get */
	size_t nb;
	uint8_t key[SIPHASH_KEY_LEN];
	bool keyed;
	size_t n;			/* full entries */
	struct track_quiet **qb;	/* nqb buckets of quiet paths */
	size_t nqb;
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

#endif
