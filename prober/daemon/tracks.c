/*
 * tracks.c -- the paths' alert memory by address and port (tracks.h):
 * SipHash under the caller's random key picks the bucket, so nobody who
 * chooses targets or answers can aim every path at one chain.  Quiet
 * paths (one verdict in sight, nothing raised) sit in a second table of
 * a few bytes each.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "tracks.h"

void
tracks_key(struct tracks *ts, const uint8_t key[SIPHASH_KEY_LEN])
{
	memcpy(ts->key, key, SIPHASH_KEY_LEN);
	ts->keyed = true;
}

static size_t
hash(const struct tracks *ts, const struct addr *dst, uint16_t port)
{
	uint8_t k[sizeof(*dst) + sizeof(port)];

	memcpy(k, dst, sizeof(*dst));
	memcpy(k + sizeof(*dst), &port, sizeof(port));
	return (size_t)siphash24(ts->key, k, sizeof(k));
}

static struct track **
bucket(struct tracks *ts, const struct addr *dst, uint16_t port)
{
	return &ts->b[hash(ts, dst, port) % ts->nb];
}

/* Twice the buckets, every entry moved (the order within a chain is of
 * no account). */
static void
grow(struct tracks *ts)
{
	size_t nb = ts->nb ? ts->nb * 2 : TRACKS_BUCKETS;
	struct track **b = xcalloc(nb, sizeof(*b));

	for (size_t i = 0; i < ts->nb; i++)
		while (ts->b[i] != NULL) {
			struct track *t = ts->b[i];
			size_t k = hash(ts, &t->dst, t->port) % nb;

			ts->b[i] = t->next;
			t->next = b[k];
			b[k] = t;
		}
	free(ts->b);
	ts->b = b;
	ts->nb = nb;
}

/* a quiet path costs 40 bytes and a malloc chunk of 48 on 64-bit glibc */
_Static_assert(sizeof(struct track_quiet) <= 40 || sizeof(void *) != 8,
    "struct track_quiet grew past 40 bytes");

static void
put_quiet(struct tracks *ts, struct track_quiet *q)
{
	struct track_quiet **qp = &ts->qb[hash(ts, &q->dst, q->port) % ts->nqb];

	q->next = *qp;
	*qp = q;
}

/* Twice the quiet buckets: every quiet path taken out, then put back. */
static void
grow_quiet(struct tracks *ts)
{
	struct track_quiet *all = NULL, *q;

	for (size_t i = 0; i < ts->nqb; i++)
		while ((q = ts->qb[i]) != NULL) {
			ts->qb[i] = q->next;
			q->next = all;
			all = q;
		}
	free(ts->qb);
	ts->nqb = ts->nqb ? ts->nqb * 2 : TRACKS_BUCKETS;
	ts->qb = xcalloc(ts->nqb, sizeof(*ts->qb));
	while ((q = all) != NULL) {
		all = q->next;
		put_quiet(ts, q);
	}
}

/* dst:port's quiet memory taken out of its table, or NULL. */
static struct track_quiet *
take_quiet(struct tracks *ts, const struct addr *dst, uint16_t port)
{
	struct track_quiet **pp, *q;

	if (ts->nqb == 0)
		return NULL;
	for (pp = &ts->qb[hash(ts, dst, port) % ts->nqb]; (q = *pp) != NULL; pp = &q->next)
		if (q->port == port && addr_equal(&q->dst, dst)) {
			*pp = q->next;
			ts->nq--;
			return q;
		}
	return NULL;
}

/* The scales' memory q stood for, exactly. */
static void
unfold(const struct track_quiet *q, struct track *t)
{
	for (int i = 0; i < q->k && i < RESULT_MAX_SCALES; i++) {
		struct alert_track *a = &t->t[i];

		for (int j = 0; j < q->nhist && j < ALERT_M_MAX; j++)
			a->hist[j] = q->vc & 15;
		a->nhist = q->nhist;
		a->head = q->head;
		a->confirmed = (uint8_t)(q->vc >> 4);
	}
}

struct track *
tracks_get(struct tracks *ts, const struct addr *dst, uint16_t port, uint64_t now_ns)
{
	struct track **pp, *t;

	if (ts->nb == 0 || ts->n >= 2 * ts->nb)
		grow(ts);
	for (pp = bucket(ts, dst, port); (t = *pp) != NULL; pp = &t->next)
		if (t->port == port && addr_equal(&t->dst, dst)) {
			t->seen_ns = now_ns;
			return t;
		}
	t = xcalloc(1, sizeof(*t));
	t->dst = *dst;
	t->port = port;
	t->seen_ns = now_ns;
	{
		struct track_quiet *q = take_quiet(ts, dst, port);

		if (q != NULL) {
			unfold(q, t);
			free(q);
		}
	}
	*pp = t;
	ts->n++;
	return t;
}

/* Whether a's memory is nhist runs of one verdict that is no problem
 * (the ring's unused places empty), nothing raised. */
static bool
uniform(const struct alert_track *a)
{
	if (a->open || a->nhist == 0 || a->nhist > ALERT_M_MAX || !alert_track_idle(a))
		return false;
	for (int j = 0; j < ALERT_M_MAX; j++)
		if (a->hist[j] != (j < a->nhist ? a->hist[0] : 0))
			return false;
	return true;
}

bool
tracks_settle(struct tracks *ts, struct track *t)
{
	static const struct alert_track none;
	struct track **pp;
	struct track_quiet *q;
	int k = 0;

	if (t->open.bad || t->restored || t->held || t->target != NULL ||
	    t->incident.family != 0)
		return false;
	while (k < RESULT_MAX_SCALES && memcmp(&t->t[k], &none, sizeof(none)) != 0)
		k++;
	/* a verdict and a state of 4 bits each (every one of enum verdict) */
	if (k > 0 && (!uniform(&t->t[0]) || t->t[0].hist[0] > 15 || t->t[0].confirmed > 15))
		return false;
	for (int i = 1; i < RESULT_MAX_SCALES; i++)
		if (memcmp(&t->t[i], i < k ? &t->t[0] : &none, sizeof(none)) != 0)
			return false;
	for (pp = bucket(ts, &t->dst, t->port); *pp != NULL && *pp != t; pp = &(*pp)->next)
		;
	if (*pp == NULL)
		return false;
	*pp = t->next;
	ts->n--;
	/* nothing seen on any scale: the same as never seen */
	if (k > 0) {
		if (ts->nqb == 0 || ts->nq >= 2 * ts->nqb)
			grow_quiet(ts);
		q = xcalloc(1, sizeof(*q));
		q->dst = t->dst;
		q->port = t->port;
		q->seen_ns = t->seen_ns;
		q->k = (uint8_t)k;
		q->nhist = t->t[0].nhist;
		q->head = t->t[0].head;
		q->vc = (uint8_t)(t->t[0].hist[0] | t->t[0].confirmed << 4);
		put_quiet(ts, q);
		ts->nq++;
	}
	free(t);
	return true;
}

static bool
idle(const struct track *t)
{
	if (t->open.bad)
		return false;
	for (int i = 0; i < RESULT_MAX_SCALES; i++)
		if (!alert_track_idle(&t->t[i]))
			return false;
	return true;
}

size_t
tracks_expire(struct tracks *ts, uint64_t now_ns, uint64_t max_age_ns)
{
	size_t freed = 0;

	if (now_ns - ts->swept_ns < max_age_ns / 2 && now_ns >= ts->swept_ns)
		return 0;
	ts->swept_ns = now_ns;
	for (size_t i = 0; i < ts->nb; i++)
		for (struct track **pp = &ts->b[i], *t; (t = *pp) != NULL;) {
			if (now_ns > t->seen_ns && now_ns - t->seen_ns > max_age_ns && idle(t)) {
				*pp = t->next;
				free(t->target);
				free(t);
				ts->n--;
				freed++;
			} else
				pp = &t->next;
		}
	for (size_t i = 0; i < ts->nqb; i++)
		for (struct track_quiet **pp = &ts->qb[i], *q; (q = *pp) != NULL;) {
			if (now_ns > q->seen_ns && now_ns - q->seen_ns > max_age_ns) {
				*pp = q->next;
				free(q);
				ts->nq--;
				freed++;
			} else
				pp = &q->next;
		}
	if (ts->nq == 0) {
		free(ts->qb);
		ts->qb = NULL;
		ts->nqb = 0;
	}
	/* nothing left: the buckets go too (made again at the next get) */
	if (ts->n == 0) {
		free(ts->b);
		ts->b = NULL;
		ts->nb = 0;
	}
	return freed;
}

void
tracks_free(struct tracks *ts)
{
	for (size_t i = 0; i < ts->nb; i++)
		while (ts->b[i] != NULL) {
			struct track *t = ts->b[i];

			ts->b[i] = t->next;
			free(t->target);
			free(t);
		}
	free(ts->b);
	ts->b = NULL;
	ts->nb = 0;
	ts->n = 0;
	for (size_t i = 0; i < ts->nqb; i++)
		while (ts->qb[i] != NULL) {
			struct track_quiet *q = ts->qb[i];

			ts->qb[i] = q->next;
			free(q);
		}
	free(ts->qb);
	ts->qb = NULL;
	ts->nqb = 0;
	ts->nq = 0;
}
