/*
 * target_space.c -- the target space: records per target, what overlaps what,
 * and the keyed walk over every address (target_space.h).
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "target_space.h"

void
target_space_init(struct target_space *s, const struct blocklist *bl)
{
	memset(s, 0, sizeof(*s));
	s->bl = bl;
}

void
target_space_free(struct target_space *s)
{
	free(s->v);
	free(s->dup);
	target_space_init(s, NULL);
}

enum blocklist_part
target_space_add(struct target_space *s, const struct target *tg, size_t entry, const struct addr *a,
    const struct blocklist_entry **why)
{
	enum blocklist_part part = BLOCKLIST_NONE;
	struct target_space_rec *r;
	struct addr net;
	unsigned plen;

	*why = NULL;
	if (tg->kind == TARGET_NAME || a != NULL) {
		net = *a;
		plen = (unsigned)addr_len(a) * 8;
	} else {
		net = tg->addr;
		plen = tg->kind == TARGET_PREFIX ? tg->plen : (unsigned)addr_len(&net) * 8;
	}
	if (s->bl != NULL && (part = blocklist_classify(s->bl, &net, plen, why)) ==
	    BLOCKLIST_ALL)
		return part;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	r = &s->v[s->n++];
	memset(r, 0, sizeof(*r));
	r->target = tg->as_given;
	r->host = tg->kind == TARGET_NAME ? tg->name : NULL;
	r->net = net;
	r->plen = (uint8_t)plen;
	r->port = tg->port;
	r->entry = entry;
	r->count = 1ULL << (addr_len(&net) * 8 - plen);
	r->check_block = part == BLOCKLIST_SOME;
	return part;
}

void
target_space_address(const struct target_space_rec *rec, uint64_t k, struct addr *a)
{
	*a = rec->net;
	/* the host part is at most 32 bits (TARGETS_MAX_EXPANSION) */
	for (size_t i = addr_len(a); i > 0 && k != 0; i--) {
		uint64_t sum = a->bytes[i - 1] + (k & 0xff);

		a->bytes[i - 1] = (uint8_t)sum;
		k = (k >> 8) + (sum >> 8);
	}
}

/* --- overlaps ------------------------------------------------------------ */

/* qsort has no context argument: the records being sorted. */
static const struct target_space_rec *target_space_sorting;

/* By family, port, first address, then the wider prefix first. */
static int
target_space_cmp_start(const void *pa, const void *pb)
{
	const struct target_space_rec *a = &target_space_sorting[*(const size_t *)pa];
	const struct target_space_rec *b = &target_space_sorting[*(const size_t *)pb];
	int c;

	if (a->net.family != b->net.family)
		return a->net.family < b->net.family ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if ((c = memcmp(a->net.bytes, b->net.bytes, addr_len(&a->net))) != 0)
		return c;
	return a->plen < b->plen ? -1 : a->plen > b->plen;
}

/* The lookup order of the duplicate index: family, port, plen, network,
 * then the first target. */
static int
target_space_key_cmp(const struct target_space_rec *a, const struct target_space_rec *b)
{
	int c;

	if (a->net.family != b->net.family)
		return a->net.family < b->net.family ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if ((c = memcmp(a->net.bytes, b->net.bytes, addr_len(&a->net))) != 0)
		return c;
	return 0;
}

static int
target_space_cmp_key(const void *pa, const void *pb)
{
	const struct target_space_rec *a = &target_space_sorting[*(const size_t *)pa];
	const struct target_space_rec *b = &target_space_sorting[*(const size_t *)pb];
	int c = target_space_key_cmp(a, b);

	if (c != 0)
		return c;
	return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* Marks every record that shares an address (and port) with another:
 * prefixes nest or are apart, so sorted by start, a record overlaps what
 * came before it exactly when it starts before the furthest end so far.
 * Every record of such a run is marked (a superset is only slower). */
static void
target_space_overlaps(struct target_space *s)
{
	size_t *order = xreallocarray(NULL, s->n ? s->n : 1, sizeof(*order));
	size_t run = 0;
	struct addr end;

	for (size_t i = 0; i < s->n; i++)
		order[i] = i;
	target_space_sorting = s->v;
	qsort(order, s->n, sizeof(*order), target_space_cmp_start);
	for (size_t i = 0; i < s->n; i++) {
		const struct target_space_rec *r = &s->v[order[i]], *first = &s->v[order[run]];
		struct addr last;

		target_space_address(r, r->count - 1, &last);
		if (i > run && r->net.family == first->net.family && r->port == first->port &&
		    memcmp(r->net.bytes, end.bytes, addr_len(&end)) <= 0) {
			for (size_t j = run; j <= i; j++)
				s->v[order[j]].check_dup = true;
			if (memcmp(last.bytes, end.bytes, addr_len(&end)) > 0)
				end = last;
			continue;
		}
		run = i;
		end = last;
	}

	/* the index of every record: overlaps are checked in it, and
	 * addresses found later (target_space_holds) */
	s->ndup = 0;
	for (size_t i = 0; i < s->n; i++) {
		order[s->ndup++] = i;
		s->dup_plens[s->v[i].net.family == ADDR_V6][s->v[i].plen] = 1;
	}
	qsort(order, s->ndup, sizeof(*order), target_space_cmp_key);
	s->dup = order;
	target_space_sorting = NULL;
}

/* The record of the lowest entry that holds a on port (below entry when
 * before is set); NULL when none does. */
static const struct target_space_rec *
target_space_lookup(const struct target_space *s, const struct addr *a, uint16_t port, size_t entry,
    bool before)
{
	int fam = a->family == ADDR_V6;
	unsigned bits = (unsigned)addr_len(a) * 8;

	for (unsigned plen = 0; plen <= bits; plen++) {
		struct target_space_rec key;
		size_t lo = 0, hi = s->ndup;

		if (!s->dup_plens[fam][plen])
			continue;
		key.net = *a;
		addr_mask(&key.net, plen);
		key.plen = (uint8_t)plen;
		key.port = port;
		/* the first of equal keys: the lowest entry */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (target_space_key_cmp(&s->v[s->dup[mid]], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->ndup && target_space_key_cmp(&s->v[s->dup[lo]], &key) == 0 &&
		    (!before || s->v[s->dup[lo]].entry < entry))
			return &s->v[s->dup[lo]];
	}
	return NULL;
}

/* Whether a target listed before rec's (same port) holds a. */
static bool
target_space_is_dup(const struct target_space *s, const struct target_space_rec *rec, const struct addr *a)
{
	return target_space_lookup(s, a, rec->port, rec->entry, true) != NULL;
}

bool
target_space_holds(const struct target_space *s, const struct addr *a, uint16_t port)
{
	return s->frozen && target_space_lookup(s, a, port, 0, false) != NULL;
}

/* --- the walk ------------------------------------------------------------ */

void
target_space_freeze(struct target_space *s, const uint8_t key[SIPHASH_KEY_LEN])
{
	s->total = 0;
	for (size_t i = 0; i < s->n; i++) {
		s->v[i].first = s->total;
		s->total += s->v[i].count;
	}
	target_space_overlaps(s);
	if (s->total > 0 && permute_init(&s->perm, s->total, key) != 0)
		fatalx("target_space: %llu addresses are more than can be walked",
		    (unsigned long long)s->total);
	s->next = 0;
	s->frozen = true;
}

/* The record that holds index x of the space. */
static struct target_space_rec *
target_space_find(struct target_space *s, uint64_t x)
{
	size_t lo = 0, hi = s->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].first <= x)
			lo = mid;
		else
			hi = mid;
	}
	return &s->v[lo];
}

int
target_space_next(struct target_space *s, struct target_space_rec **rec, struct addr *a, uint64_t *budget)
{
	while (s->frozen && s->next < s->total) {
		uint64_t x;
		struct target_space_rec *r;

		if (budget != NULL && *budget == 0)
			return TARGET_SPACE_LATER;
		x = permute_at(&s->perm, s->next++);
		r = target_space_find(s, x);
		target_space_address(r, x - r->first, a);
		if (r->check_block && blocklist_check(s->bl, a) != NULL) {
			r->blocked++;
			s->skipped_blocked++;
			if (budget != NULL)
				(*budget)--;
			continue;
		}
		if (r->check_dup && target_space_is_dup(s, r, a)) {
			s->skipped_dup++;
			if (budget != NULL)
				(*budget)--;
			continue;
		}
		*rec = r;
		return 1;
	}
	return 0;
}
