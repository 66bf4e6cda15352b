/*
 * demand_rate.h -- the on-demand requests each user may make: at most
 * limit in any DEMAND_RATE_WINDOW_NS, counted per uid (the control
 * socket's peer credentials), and how many may be in flight.  Pure: the
 * caller hands in the time (demand_rate_now_ns, the one clock read here).
 * Its memory is bounded: DEMAND_RATE_USERS users at once (a user whose
 * last request is older than the window makes room), limit times each.
 */
#ifndef SCALEPROBE_DEMAND_RATE_H
#define SCALEPROBE_DEMAND_RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DEMAND_RATE_WINDOW_NS	(60ull * 1000000000ull)
#define DEMAND_RATE_USERS	64
/* Requests in flight at once, every user's; and one user's, so that one
 * user cannot hold every slot (the rate alone allows more a minute) */
#define DEMAND_RUNS_MAX		8
#define DEMAND_USER_RUNS_MAX	2

struct demand_user {
	uint32_t uid;
	bool used;
	uint64_t *t;			/* [limit]: a ring of request times */
	size_t n, head;			/* times held; the oldest's index */
};

struct demand_rate {
	unsigned limit;
	struct demand_user u[DEMAND_RATE_USERS];
};

enum demand_rate_verdict {
	DEMAND_RATE_OK,			/* counted */
	DEMAND_RATE_USER,		/* limit requests in the window already */
	DEMAND_RATE_FULL,		/* DEMAND_RATE_USERS others asked in it */
};

/* limit: requests per window, at least 1 (a new limit forgets the past). */
void demand_rate_init(struct demand_rate *r, unsigned limit);
void demand_rate_free(struct demand_rate *r);
/* Counts a request of uid at now_ns (a monotonic clock's: a step of the
 * wall clock must neither refuse users nor keep them in the table) when
 * the limit allows it; on DEMAND_RATE_USER, *wait_ns is how long until
 * the oldest leaves the window. */
enum demand_rate_verdict demand_rate_take(struct demand_rate *r, uint32_t uid,
    uint64_t now_ns, uint64_t *wait_ns);
/* take's verdict without counting the request: a request is counted only
 * once it starts, so one refused for another reason costs nothing. */
enum demand_rate_verdict demand_rate_check(struct demand_rate *r, uint32_t uid,
    uint64_t now_ns, uint64_t *wait_ns);


enum demand_admit {
	DEMAND_ADMIT_OK,
	DEMAND_ADMIT_BUSY,		/* DEMAND_RUNS_MAX in flight already */
	DEMAND_ADMIT_USER_BUSY,		/* DEMAND_USER_RUNS_MAX of the user's */
};

/* Whether one more request may start, with inflight requests in flight
 * of which user_inflight are the asker's. */
enum demand_admit demand_admit(size_t inflight, size_t user_inflight);

/* The clock the rate is counted on, in ns: CLOCK_MONOTONIC. */
uint64_t demand_rate_now_ns(void);

#endif
