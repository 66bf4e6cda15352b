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

static struct track **
bucket(struct tracks *ts, const struct addr *dst, uint16_t port)
{
	uint8_t k[sizeof(*dst) + sizeof(port)];

	memcpy(k, dst, sizeof(*dst));
	memcpy(k + sizeof(*dst), &port, sizeof(port));
	return &ts->b[siphash24(ts->key, k, sizeof(k)) % TRACKS_BUCKETS];
}

struct track *
tracks_get(struct tracks *ts, const struct addr *dst, uint16_t port)
{
	struct track **pp, *t;

	for (pp = bucket(ts, dst, port); (t = *pp) != NULL; pp = &t->next)
		if (t->port == port && addr_equal(&t->dst, dst))
			return t;
	t = xcalloc(1, sizeof(*t));
	t->dst = *dst;
	t->port = port;
	*pp = t;
	ts->n++;
	return t;
}

bool
tracks_release(struct tracks *ts, struct track *t)
{
	struct track **pp;

	for (int i = 0; i < RESULT_MAX_SCALES; i++)
		if (!alert_track_idle(&t->t[i]))
			return false;
	for (pp = bucket(ts, &t->dst, t->port); *pp != NULL; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			free(t);
			ts->n--;
			return true;
		}
	return false;
}

void
tracks_free(struct tracks *ts)
{
	for (size_t i = 0; i < TRACKS_BUCKETS; i++)
		while (ts->b[i] != NULL) {
			struct track *t = ts->b[i];

			ts->b[i] = t->next;
			free(t);
		}
	ts->n = 0;
}
