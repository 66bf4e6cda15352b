/*
 * shard.c -- rendezvous hashing of targets over a site's vantages
 * (shard.h), and a list cut to one vantage's share.
 */
#include <stdlib.h>
#include <string.h>

#include "shard.h"
#include "siphash.h"
#include "targets.h"

/* Fixed so that every vantage of every version weighs alike: changing it
 * moves every target of every sharded group at once. */
static const uint8_t shard_key[SIPHASH_KEY_LEN] = {
	's', 'c', 'a', 'l', 'e', 'p', 'r', 'o', 'b', 'e', '-', 's', 'h', 'a', 'r', 'd',
};

uint64_t
shard_weight(const char *target, const char *vantage)
{
	uint8_t buf[512];
	size_t tl = strlen(target), vl = strlen(vantage);

	/* names are bounded by the config's line length; a longer pair is
	 * hashed in two keyed steps rather than cut, so it still spreads */
	if (tl + 1 + vl > sizeof(buf)) {
		uint64_t h = siphash24(shard_key, target, tl);
		uint8_t k2[SIPHASH_KEY_LEN];

		memcpy(k2, &h, sizeof(h));
		memcpy(k2 + sizeof(h), shard_key + sizeof(h), SIPHASH_KEY_LEN - sizeof(h));
		return siphash24(k2, vantage, vl);
	}
	memcpy(buf, target, tl);
	buf[tl] = '\0';
	memcpy(buf + tl + 1, vantage, vl);
	return siphash24(shard_key, buf, tl + 1 + vl);
}

/* Whether (wa, a) outranks (wb, b): the heavier, ties to the smaller name. */
static bool
heavier(uint64_t wa, const char *a, uint64_t wb, const char *b)
{
	return wa != wb ? wa > wb : strcmp(a, b) < 0;
}

size_t
shard_owners(const char *target, const char *const *vantages, size_t n, unsigned k,
    size_t owner[])
{
	uint64_t w[SHARD_MAX_REPLICAS];
	size_t got = 0, i, j;

	if (n == 0 || k == 0 || n > SHARD_MAX_VANTAGES)
		return 0;
	if (k > SHARD_MAX_REPLICAS)
		k = SHARD_MAX_REPLICAS;
	/* insertion into the top k, heaviest first: n is small */
	for (i = 0; i < n; i++) {
		uint64_t wi = shard_weight(target, vantages[i]);

		if (got == k && !heavier(wi, vantages[i], w[k - 1], vantages[owner[k - 1]]))
			continue;
		j = got < k ? got++ : k - 1;
		while (j > 0 && heavier(wi, vantages[i], w[j - 1], vantages[owner[j - 1]])) {
			w[j] = w[j - 1];
			owner[j] = owner[j - 1];
			j--;
		}
		w[j] = wi;
		owner[j] = i;
	}
	return got;
}

bool
shard_owns(const char *target, const char *const *vantages, size_t n, unsigned k, size_t self)
{
	size_t owner[SHARD_MAX_REPLICAS], got, i;

	got = shard_owners(target, vantages, n, k, owner);
	for (i = 0; i < got; i++)
		if (owner[i] == self)
			return true;
	return false;
}

void
shard_keep(struct targets *t, size_t from, const struct shard_sel *sel, uint64_t *seen,
    uint64_t *kept)
{
	size_t out = from, i = from, j;

	while (i < t->n) {
		bool own = shard_owns(t->v[i].as_given, sel->names, sel->n, sel->k, sel->self);

		for (j = i + 1; j < t->n && strcmp(t->v[j].as_given, t->v[i].as_given) == 0; j++)
			;
		(*seen)++;
		*kept += own;
		for (; i < j; i++) {
			if (own) {
				t->v[out++] = t->v[i];
				continue;
			}
			free(t->v[i].as_given);
			free(t->v[i].name);
		}
	}
	t->n = out;
}
