/*
 * tracks.c -- the paths' alert memory by address and port (tracks.h):
 * SipHash under the caller's random key picks the bucket, so nobody who
 * chooses targets or answers can aim every path at one chain.
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
	*pp = t;
	ts->n++;
	return t;
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
}
