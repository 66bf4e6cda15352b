/*
 * tracks.h -- the alert memory of the paths that need one (alert.h per
 * scale), found by address and port in a hash table under a secret key.
 * A path whose every scale is idle (alert_track_idle: nothing raised, no
 * problem in its window) has no entry: it is dropped after each result,
 * so the table holds the paths with a problem in sight, not every path
 * ever probed.  Pure: the caller draws the key (getrandom) and passes it.
 */
#ifndef SCALEPROBE_TRACKS_H
#define SCALEPROBE_TRACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "alert.h"
#include "result.h"
#include "siphash.h"

#define TRACKS_BUCKETS 1024

/* A path's alert memory (alert.h) per scale, found by address and port. */
struct track {
	struct addr dst;
	uint16_t port;
	struct alert_track t[RESULT_MAX_SCALES];
	struct track *next;
};

/* Zeroed is empty but unkeyed: tracks_key() before the first get. */
struct tracks {
	struct track *b[TRACKS_BUCKETS];
	uint8_t key[SIPHASH_KEY_LEN];
	bool keyed;
	size_t n;			/* entries */
};

void tracks_key(struct tracks *ts, const uint8_t key[SIPHASH_KEY_LEN]);

/* dst:port's entry, a zeroed one made when there is none. */
struct track *tracks_get(struct tracks *ts, const struct addr *dst, uint16_t port);

/* Drops t (from tracks_get) when each of its scales is idle; whether it
 * did (t is freed then). */
bool tracks_release(struct tracks *ts, struct track *t);

/* Every entry freed; the key kept. */
void tracks_free(struct tracks *ts);

#endif
