/*
 * schedule.h -- when each target of each group is due: the daemon's clock,
 * as a pure data structure (times are handed in, nothing is read).
 *
 * A group has an interval and a jitter.  Its cycle k starts at
 * epoch + k * interval + a random shift in [0, jitter) drawn per cycle, so
 * groups that share an interval do not all start together.  Within a cycle
 * the targets are spread evenly: target i (by rank of a keyed hash of its
 * name, so the order is stable while the list is) has the slot
 * [i * d, (i + 1) * d) with d = interval / n, and starts at a random point
 * of its own slot.  No second of a cycle sees more than ceil(n / interval
 * in seconds) + 1 starts, and the top of the hour no more than any other.
 *
 * A target is handed out once per cycle (sched_due) and re-armed when its
 * work is over (sched_finished); cycles that passed meanwhile are counted
 * as missed, so "no data" is never read as "path fine".
 */
#ifndef SCALEPROBE_SCHEDULE_H
#define SCALEPROBE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_KEY_LEN 16

struct sched;

struct sched_due_item {
	size_t group, target;	/* indexes as given to sched_group_add */
	uint64_t cycle;		/* the cycle this run belongs to */
	uint64_t due;		/* when it was due (ns, the caller's clock) */
};

/* key: hashes target names to their rank; seed: the random shifts.
 * epoch: the time cycles count from (a multiple of every interval keeps
 * cycles on the wall clock's boundaries). */
struct sched *sched_new(const uint8_t key[SCHED_KEY_LEN], uint64_t seed, uint64_t epoch);
void sched_free(struct sched *s);

/* A group of n targets (names copied).  The first cycle is the one in
 * progress at now; a target whose slot in it has passed starts in the
 * next.  Returns the group's index, or -1 (no memory, interval 0, jitter
 * beyond the interval). */
int sched_group_add(struct sched *s, const char *name, uint64_t interval_ns,
    uint64_t jitter_ns, const char *const *targets, size_t n, uint64_t now);

/* The earliest time something is due; UINT64_MAX when nothing is armed. */
uint64_t sched_next(const struct sched *s);

/* Hands out up to max targets due at now, earliest first; each is then
 * running until sched_finished.  Returns how many. */
size_t sched_due(struct sched *s, uint64_t now, struct sched_due_item *out, size_t max);

/* The run of (group, target) is over at now: re-armed for the first cycle
 * whose start is still ahead of its slot.  Returns the cycles skipped
 * because the run overran them (each one is "missed"). */
uint64_t sched_finished(struct sched *s, size_t group, size_t target, uint64_t now);

/* When (group, target) is next due, UINT64_MAX while it runs. */
uint64_t sched_when(const struct sched *s, size_t group, size_t target);
/* The cycle (group, target) is armed for, UINT64_MAX while it runs. */
uint64_t sched_armed_cycle(const struct sched *s, size_t group, size_t target);

/*
 * A restart's work, from the last cycle of a group the store has a run of
 * (last; -1: none, a first start) and the cycle in progress (cur):
 * redo_last when last is cur or the one before it (its targets without a
 * state are probed again: older work is history, its cycles missed);
 * catch_up when the store has the group but no run of cur yet (killed
 * before the cycle's first commit, or stopped over its start): cur's
 * targets whose time in it passed while no daemon ran, armed for the
 * next cycle by now, are probed in cur now, so a restart leaves no
 * target without its state in the cycle.  A first start catches up
 * nothing: its first cycle begins where it starts (sched_group_add).
 */
void sched_recovery(int64_t last, uint64_t cur, bool *redo_last, bool *catch_up);

#endif
