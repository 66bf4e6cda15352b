/*
 * startq.c -- the queue of units waiting for room in the runner (startq.h):
 * a ring that grows by doubling, admission against the count the caller
 * keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "startq.h"

void
startq_init(struct startq *q)
{
	memset(q, 0, sizeof(*q));
}

void
startq_free(struct startq *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}

void
startq_push(struct startq *q, void *unit, const void *owner, uint64_t cycle)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct startq_item *v = xreallocarray(NULL, cap, sizeof(*v));

		for (size_t i = 0; i < q->n; i++)
			v[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = v;
		q->cap = cap;
		q->head = 0;
	}
	q->v[(q->head + q->n) % q->cap] = (struct startq_item){ unit, owner, cycle };
	q->n++;
}

bool
startq_admit(struct startq *q, size_t running, size_t limit, struct startq_item *out)
{
	if (q->n == 0 || running >= (limit > 0 ? limit : 1))
		return false;
	*out = q->v[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	return true;
}

size_t
startq_drop(struct startq *q, const void *owner)
{
	size_t kept = 0, n = q->n;

	for (size_t i = 0; i < n; i++) {
		struct startq_item it = q->v[(q->head + i) % q->cap];

		if (it.owner != owner)
			q->v[(q->head + kept++) % q->cap] = it;
	}
	q->n = kept;
	return n - kept;
}
