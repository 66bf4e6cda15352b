/*
 * alert_hold.h -- what the daemon's alert files share (alert_notify.c decides,
 * alert_tell.c tells, alert_restore.c reads the store's back and lists):
 * the raises held for a cycle's end and the open incidents.
 */
#ifndef SCALEPROBE_ALERT_HOLD_H
#define SCALEPROBE_ALERT_HOLD_H

#include "daemon.h"

/* An incident: paths raised at one hop (alert_state.h). */
struct incident {
	struct addr hop;
	int hop_index;
	unsigned paths;			/* its open paths */
	uint8_t worst;
	int64_t raised_ns;
};

/* A raise held for the cycle's end, and what it will tell. */
struct held {
	struct track *t;
	enum verdict from;
	char *reason;
	struct timespec time;
};

struct alert_hold {
	struct held *h;
	size_t nh, cap;
	uint64_t first_ns;		/* wall clock of the oldest held */
	const struct unit **prod;	/* units in the runner that held a raise:
					   compared, never read */
	size_t nprod, prodcap;
	struct incident *inc;
	size_t ninc;
};

/* alert_notify.c: the tracks keyed (once, at random); d's hold (made when
 * none); the incident at hop (NULL: none), a new one, one dropped */
void tracks_keyed(struct tracks *ts);
struct alert_hold *hold_of(struct daemon *d);
struct incident *incident_find(struct alert_hold *h, const struct addr *hop);
struct incident *incident_add(struct alert_hold *h, const struct addr *hop);
void incident_drop(struct alert_hold *h, struct incident *x);

/* alert_tell.c: a state's name ("new" for none); t's row of the store (or
 * its removal with clear), an incident's; an incident's raise or clear
 * told; one path's raise, change or clear told (for a clear p is what was
 * broken) */
const char *state_name(enum verdict v);
void alert_store(struct daemon *d, const struct track *t, bool clear);
void incident_store(struct daemon *d, const struct incident *x, bool clear);
void incident_tell(struct daemon *d, const struct incident *x, enum alert_event e);
void path_tell(struct daemon *d, const struct track *t, enum alert_event e,
    const struct alert_path *p, enum verdict from, enum verdict to, const char *reason,
    const struct timespec *time);

#endif
