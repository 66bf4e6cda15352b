/*
 * demand_rate.c -- each user's on-demand requests in a sliding window
 * (demand_rate.h): a ring of the last limit request times per user, so
 * the count is exact, never an estimate a burst could slip past.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demand_rate.h"
#include "log.h"

void
demand_rate_init(struct demand_rate *r, unsigned limit)
{
	memset(r, 0, sizeof(*r));
	r->limit = limit > 0 ? limit : 1;
}

void
demand_rate_free(struct demand_rate *r)
{
	for (size_t i = 0; i < DEMAND_RATE_USERS; i++)
		free(r->u[i].t);
	memset(r->u, 0, sizeof(r->u));
}

/* The newest time of u's ring. */
static uint64_t
newest(const struct demand_user *u, unsigned limit)
{
	return u->t[(u->head + u->n - 1) % limit];
}

static bool
stale(const struct demand_user *u, unsigned limit, uint64_t now)
{
	return !u->used || u->n == 0 || newest(u, limit) + DEMAND_RATE_WINDOW_NS <= now;
}

/* uid's verdict at now, its times past the window dropped; *slot its
 * entry, or the free one it would take (*fresh) when it asked none in the
 * window. */
static enum demand_rate_verdict
judge(struct demand_rate *r, uint32_t uid, uint64_t now, uint64_t *wait_ns,
    struct demand_user **slot, bool *fresh)
{
	struct demand_user *u = NULL, *room = NULL;

	*wait_ns = 0;
	*fresh = false;
	for (size_t i = 0; i < DEMAND_RATE_USERS; i++) {
		if (r->u[i].used && r->u[i].uid == uid) {
			u = &r->u[i];
			break;
		}
		if (room == NULL && stale(&r->u[i], r->limit, now))
			room = &r->u[i];
	}
	if (u == NULL) {
		if (room == NULL)
			return DEMAND_RATE_FULL;
		*slot = room;
		*fresh = true;
		return DEMAND_RATE_OK;
	}
	*slot = u;
	/* the times that left the window */
	while (u->n > 0 && u->t[u->head] + DEMAND_RATE_WINDOW_NS <= now) {
		u->head = (u->head + 1) % r->limit;
		u->n--;
	}
	if (u->n == r->limit) {
		*wait_ns = u->t[u->head] + DEMAND_RATE_WINDOW_NS - now;
		return DEMAND_RATE_USER;
	}
	return DEMAND_RATE_OK;
}

enum demand_rate_verdict
demand_rate_check(struct demand_rate *r, uint32_t uid, uint64_t now, uint64_t *wait_ns)
{
	struct demand_user *u;
	bool fresh;

	return judge(r, uid, now, wait_ns, &u, &fresh);
}

enum demand_rate_verdict
demand_rate_take(struct demand_rate *r, uint32_t uid, uint64_t now, uint64_t *wait_ns)
{
	struct demand_user *u = NULL;
	enum demand_rate_verdict v;
	bool fresh;

	if ((v = judge(r, uid, now, wait_ns, &u, &fresh)) != DEMAND_RATE_OK)
		return v;
	if (fresh) {
		if (u->t == NULL)
			u->t = xcalloc(r->limit, sizeof(*u->t));
		u->used = true;
		u->uid = uid;
		u->n = u->head = 0;
	}
	u->t[(u->head + u->n) % r->limit] = now;
	u->n++;
	return DEMAND_RATE_OK;
}

enum demand_admit
demand_admit(size_t inflight, size_t user_inflight)
{
	if (inflight >= DEMAND_RUNS_MAX)
		return DEMAND_ADMIT_BUSY;
	if (user_inflight >= DEMAND_USER_RUNS_MAX)
		return DEMAND_ADMIT_USER_BUSY;
	return DEMAND_ADMIT_OK;
}

uint64_t
demand_rate_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
