/*
 * clocksync.h -- whether this host's clock was synchronised, as the time
 * services say it (the unit forbids @clock, so not adjtimex): pure
 * readings of systemd-timesyncd's flag file and of chronyc's CSV
 * tracking line.  The I/O is the daemon's (prober/daemon/clockwatch.c).
 */
#ifndef SCALEPROBE_CLOCKSYNC_H
#define SCALEPROBE_CLOCKSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum clock_sync {
	CLOCK_SYNC_NONE,		/* not recorded (a CLI run, older rows) */
	CLOCK_SYNC_YES,			/* "synchronised" */
	CLOCK_SYNC_NO,			/* "unsynchronised" */
	CLOCK_SYNC_UNKNOWN,		/* "unknown": no service said */
};

/* /run/systemd/timesync/synchronized: timesyncd touches it at every
 * synchronisation, its poll at most 2048 s apart by default; older than
 * this it no longer says the clock is synchronised now */
#define CLOCKSYNC_TIMESYNCD_MAX_AGE_S	(3 * 2048)

/* The stored name; NULL for CLOCK_SYNC_NONE. */
const char *clock_sync_name(enum clock_sync c);

/* timesyncd's file: present and touched age_s seconds ago.  YES when
 * present and fresh (a little in the future counts, for a clock just
 * stepped back); else UNKNOWN (absent or stale: ask another). */
enum clock_sync clocksync_timesyncd(bool present, int64_t age_s);

/* `chronyc -n -c tracking`'s output (len bytes, hostile): one line of 14
 * comma-separated fields, the last the leap status: "Normal", "Insert
 * second", "Delete second" (YES), "Not synchronised" (NO); anything else
 * UNKNOWN. */
enum clock_sync clocksync_chrony(const char *out, size_t len);

#endif
