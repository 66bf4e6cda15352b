/*
 * ratelimit.h -- a token bucket that is handed the time.
 *
 * The caller passes monotonic nanoseconds (CLOCK_MONOTONIC), so tests can
 * drive it.  Credit is kept in token-nanoseconds (rate * elapsed ns, one
 * token = 10^9 units), an exact integer.  A full bucket holds burst whole
 * tokens plus the progress towards the next one, so nothing is dropped by
 * rounding either: a caller woken at the rounded-up ratelimit_next() time,
 * or on a tick that does not divide 1/rate, loses no fraction, and there
 * is no drift over long runs.  In any T seconds at most burst +
 * ceil(rate * T) tokens go out; a caller that keeps taking gets that many
 * minus at most one.
 *
 * The bucket starts with burst tokens at the first call.  Pick burst >= rate * (the caller's tick): credit
 * beyond burst is discarded, so a burst smaller than what accrues between
 * two calls caps the rate below what was asked.  The default burst is 10 ms
 * of sending, at least 2 (one late timer then costs nothing).
 */
#ifndef SCALEPROBE_RATELIMIT_H
#define SCALEPROBE_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define RATELIMIT_RATE_MIN 1
#define RATELIMIT_RATE_MAX 10000000	/* --rate 1..10,000,000 */
#define RATELIMIT_BURST_MAX 10000000

struct ratelimit {
	uint64_t rate;		/* tokens per second */
	uint64_t cap;		/* (burst + 1) * 10^9 - 1: the most credit held */
	uint64_t credit;	/* token-nanoseconds available */
	uint64_t fill_ns;	/* time from empty to full: beyond it, credit = cap */
	uint64_t last;		/* time of the last refill */
	bool started;		/* a first call set last */
};

/* rate in 1..RATELIMIT_RATE_MAX, burst in 1..RATELIMIT_BURST_MAX, or 0 for
 * ratelimit_default_burst(rate).  Needs no start time: the bucket is full,
 * and time only matters from the first take on.  Returns 0, or -1 for
 * values out of range. */
int ratelimit_init(struct ratelimit *rl, uint64_t rate, uint64_t burst);

/* max(2, rate / 100). */
uint64_t ratelimit_default_burst(uint64_t rate);

/* Takes up to want tokens at time now; returns how many were granted
 * (0..want).  Time going backwards counts as no time passing. */
uint64_t ratelimit_take(struct ratelimit *rl, uint64_t now, uint64_t want);

/* Nanoseconds from now until a token is available: 0 when one is already,
 * else the wait for the timer (rounded up: at that time one is there). */
uint64_t ratelimit_next(struct ratelimit *rl, uint64_t now);

/* Nanoseconds from now until n whole tokens are there (0: already);
 * UINT64_MAX when the bucket can never hold n. */
uint64_t ratelimit_wait(struct ratelimit *rl, uint64_t now, uint64_t n);
/* Whole tokens available at now (without taking any). */
uint64_t ratelimit_available(struct ratelimit *rl, uint64_t now);

#endif
