/*
 * demand_rate.c -- each user's on-demand requests in a sliding window
 * (demand_rate.h): a ring of the last limit request times per user, so
 * the count is exact, never an estimate a burst could slip past.
 */
#include <stdlib.h>
#include <string.h>

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

enum demand_rate_verdict
demand_rate_take(struct demand_rate *r, uint32_t uid, uint64_t now, uint64_t *wait_ns)
{
	struct demand_user *u = NULL, *room = NULL;

	*wait_ns = 0;
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
		u = room;
		if (u->t == NULL)
			u->t = xcalloc(r->limit, sizeof(*u->t));
		u->used = true;
		u->uid = uid;
		u->n = u->head = 0;
	}
	/* the times that left the window */
	while (u->n > 0 && u->t[u->head] + DEMAND_RATE_WINDOW_NS <= now) {
		u->head = (u->head + 1) % r->limit;
		u->n--;
	}
	if (u->n == r->limit) {
		*wait_ns = u->t[u->head] + DEMAND_RATE_WINDOW_NS - now;
		return DEMAND_RATE_USER;
	}
	u->t[(u->head + u->n) % r->limit] = now;
	u->n++;
	return DEMAND_RATE_OK;
}
