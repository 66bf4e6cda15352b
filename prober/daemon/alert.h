/*
 * alert.h -- when a path's change of verdict becomes an alert: confirmed by
 * N of the last M runs, raised once, cleared once.  Pure: the daemon feeds
 * each run's verdict and acts on what comes back.
 *
 * Only verdicts that measured the option count (ok, unsupported and the
 * problems); a run that was filtered, unreachable or inconclusive says
 * nothing about a box and neither confirms nor breaks a streak.
 */
#ifndef SCALEPROBE_ALERT_H
#define SCALEPROBE_ALERT_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
