/*
 * alert_state.h -- when a path's change of verdict becomes an alert: confirmed by
 * N of the last M runs, raised once, cleared once.  Pure: the daemon feeds
 * each run's verdict and acts on what comes back.
 *
 * Only verdicts that measured the option count (ok, unsupported and the
 * problems); a run that was filtered, unreachable or inconclusive says
 * nothing about a box and neither confirms nor breaks a streak.
 */
#ifndef SCALEPROBE_ALERT_STATE_H
#define SCALEPROBE_ALERT_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "result.h"

#define ALERT_M_MAX 16

struct alert_cfg {
	int n, m;		/* 1 <= n <= m <= ALERT_M_MAX */
};

/* One path and scale's memory; zeroed is "nothing seen yet". */
struct alert_track {
	uint8_t hist[ALERT_M_MAX];	/* the last m counted verdicts, a ring */
	uint8_t nhist, head;
	uint8_t confirmed;		/* VERDICT_NONE until n agree */
	bool open;			/* an alert is raised and not cleared */
};

enum alert_event {
	ALERT_NONE,	/* nothing to say */
	ALERT_RAISE,	/* a problem confirmed (also the first state seen) */
	ALERT_CHANGE,	/* one problem confirmed in place of another */
	ALERT_CLEAR,	/* back to a state without a problem */
};

/* Whether cfg is usable. */
bool alert_cfg_valid(const struct alert_cfg *cfg);

/* Feeds one run's verdict; returns what to tell, with the confirmed state
 * before and after in *from and *to. */
enum alert_event alert_observe(struct alert_track *t, const struct alert_cfg *cfg,
    enum verdict v, enum verdict *from, enum verdict *to);

const char *alert_event_name(enum alert_event e);

/* Whether t can be forgotten (made zero again) without changing when a
 * problem is raised: nothing is open and no problem verdict is among its
 * last m runs.  A clean verdict forgotten then no longer counts towards
 * clearing an alert raised later: that clear takes its N clean runs after
 * the problem, which is the most it ever needs. */
bool alert_track_idle(const struct alert_track *t);

/* --- a path as a whole ------------------------------------------------------
 * One alert per path, whatever the number of its scales: the path is bad
 * while some scale's confirmed state (N of M above) is a problem; its
 * alert names the worst of them (syn-dropped, then stripped, then
 * rewritten), the scales that have one, and the hop the worst one was
 * found at when that hop is exact (silent TTLs before it: the hop of an
 * earlier run, or none).  It is raised when the path goes bad, changed when what is
 * broken changes materially (the worst state, or the hop's address when
 * both the old and the new are known), cleared when no scale has a
 * problem any more.  The scales affected changing alone (7 then 7 and 14,
 * same state, same hop) is no new alert: the open alert is updated
 * quietly. */
struct alert_path {
	bool bad;
	uint8_t worst;			/* enum verdict; VERDICT_NONE when !bad */
	int hop;			/* the worst scale's hop; 0: not known */
	struct addr hop_address;
	int nscales;
	int scale[RESULT_MAX_SCALES];	/* scales with a confirmed problem */
	uint8_t verdict[RESULT_MAX_SCALES];	/* and their states */
};

/* 0: not a problem; 1 rewritten, 2 stripped, 3 syn-dropped. */
int alert_severity(enum verdict v);

/* The path's state from its scales' tracks t[0..n): scale[i] is the scale
 * sent at i, hop[i] this run's hop for it (NULL: none).  A hop this run
 * does not name is prev's (a run may fail to locate the box it saw
 * before).  prev may be NULL. */
void alert_path_summary(const struct alert_track *t, int n, const int *scale,
    const struct hop_loc *const *hop, const struct alert_path *prev, struct alert_path *out);

/* What going from prev to now tells; *update: the stored alert is to be
 * rewritten (also when nothing is told). */
enum alert_event alert_path_decide(const struct alert_path *prev, const struct alert_path *now,
    bool *update);

/* A path's alert read back from the store after a restart: each of its
 * scales (scale[i] sent at place i) that open names takes open's state as
 * confirmed and open, so it clears after N clean runs as it would have
 * without the restart; a place already confirmed keeps its own. */
void alert_path_seed(struct alert_track *t, int n, const int *scale,
    const struct alert_path *open);

/* "7,14" for the scales of p (buf of at least 64 bytes). */
const char *alert_path_scales(const struct alert_path *p, char *buf, size_t len);

/* --- incidents --------------------------------------------------------------
 * Raises held over a cycle and grouped by the address of the hop they
 * name: a hop named by at least threshold of them is an incident (one
 * alert for all).  hops[i] is raise i's hop (family 0: none, never
 * grouped); incident[i] is set to the index of the first raise of its
 * incident, or -1 when it alerts alone.  Returns the number of incidents. */
size_t alert_incidents(const struct addr *hops, size_t n, unsigned threshold, long *incident);

#endif
