/*
 * startq.h -- the daemon's units waiting for room in the runner: due units
 * (a --once cycle, a scheduled cycle, a restart's recovery) are queued in
 * the order they came and admitted while fewer than max-inflight units
 * are in the runner, the next as one ends.  Pure: the caller counts what
 * runs and starts what is handed out.
 */
#ifndef SCALEPROBE_STARTQ_H
#define SCALEPROBE_STARTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct startq_item {
	void *unit;
	const void *owner;		/* what the unit belongs to (its
					   configuration): dropped with it */
	uint64_t cycle;
};

struct startq {
	struct startq_item *v;		/* a ring of cap items */
	size_t head, n, cap;
};

void startq_init(struct startq *q);
void startq_free(struct startq *q);

/* Queues a unit at the tail. */
void startq_push(struct startq *q, void *unit, const void *owner, uint64_t cycle);

/* The head of the queue when running < limit (limit 0 counts as 1: the
 * cycle always advances): true and *out, or false (empty, or no room). */
bool startq_admit(struct startq *q, size_t running, size_t limit, struct startq_item *out);

/* Drops every unit of owner (a configuration replaced by a reload: its
 * waiting units are never started); how many, the others kept in order. */
size_t startq_drop(struct startq *q, const void *owner);

#endif
