/*
 * schedule.c -- the daemon's targets spread over their group's interval
 * (schedule.h): a binary heap of next-due times, slots by keyed rank.
 */
#include <stdlib.h>
#include <string.h>

#include "schedule.h"
#include "siphash.h"

struct starget {
	char *name;
	uint64_t slot;		/* rank * d: start of its slot in a cycle */
	uint64_t cycle;		/* the cycle it is armed for (or runs) */
	uint64_t due;
	size_t heap;		/* position in the heap; SIZE_MAX: running */
};

struct sgroup {
	char *name;
	uint64_t interval, jitter, width;	/* width: one target's slot */
	struct starget *t;
	size_t n;
};

struct sched {
	uint8_t key[SCHED_KEY_LEN];
	uint64_t seed, epoch;
	struct sgroup *g;
	size_t ng;
	struct { size_t g, t; } *heap;
	size_t nheap, capheap;
};

/* splitmix64 of (seed, group, cycle, target): a random shift that is the
 * same however often it is asked for, so re-arming is deterministic. */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t
rnd(const struct sched *s, size_t g, uint64_t cycle, uint64_t t, uint64_t below)
{
	if (below == 0)
		return 0;
	return mix(s->seed ^ mix(g ^ mix(cycle ^ mix(t)))) % below;
}

/* When target t of group g is due in cycle c. */
static uint64_t
due_in(const struct sched *s, size_t g, size_t t, uint64_t c)
{
	const struct sgroup *gr = &s->g[g];

	return s->epoch + c * gr->interval + rnd(s, g, c, UINT64_MAX, gr->jitter) +
	    gr->t[t].slot + rnd(s, g, c, t, gr->width);
}

/* --- the heap ------------------------------------------------------------ */

static uint64_t
hdue(const struct sched *s, size_t i)
{
	return s->g[s->heap[i].g].t[s->heap[i].t].due;
}

static void
hset(struct sched *s, size_t i, size_t g, size_t t)
{
	s->heap[i].g = g;
	s->heap[i].t = t;
	s->g[g].t[t].heap = i;
}

static void
hswap(struct sched *s, size_t a, size_t b)
{
	size_t ga = s->heap[a].g, ta = s->heap[a].t;

	hset(s, a, s->heap[b].g, s->heap[b].t);
	hset(s, b, ga, ta);
}

static void
hup(struct sched *s, size_t i)
{
	while (i > 0 && hdue(s, (i - 1) / 2) > hdue(s, i)) {
		hswap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void
hdown(struct sched *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->nheap && hdue(s, l) < hdue(s, m))
			m = l;
		if (r < s->nheap && hdue(s, r) < hdue(s, m))
			m = r;
		if (m == i)
			return;
		hswap(s, i, m);
		i = m;
	}
}

/* Room for need entries, taken when a group is added, so that re-arming
 * (sched_finished) never needs memory. */
static int
hreserve(struct sched *s, size_t need)
{
	void *p;

	if (need <= s->capheap)
		return 0;
	if ((p = realloc(s->heap, need * sizeof(*s->heap))) == NULL)
		return -1;
	s->heap = p;
	s->capheap = need;
	return 0;
}

static void
hpush(struct sched *s, size_t g, size_t t)
{
	hset(s, s->nheap, g, t);
	hup(s, s->nheap++);
}

static void
hpop(struct sched *s)
{
	s->g[s->heap[0].g].t[s->heap[0].t].heap = SIZE_MAX;
	if (--s->nheap > 0) {
		hset(s, 0, s->heap[s->nheap].g, s->heap[s->nheap].t);
		hdown(s, 0);
	}
}

/* --- the interface ------------------------------------------------------- */

struct sched *
sched_new(const uint8_t key[SCHED_KEY_LEN], uint64_t seed, uint64_t epoch)
{
	struct sched *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	memcpy(s->key, key, SCHED_KEY_LEN);
	s->seed = seed;
	s->epoch = epoch;
	return s;
}

void
sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	for (size_t g = 0; g < s->ng; g++) {
		for (size_t t = 0; t < s->g[g].n; t++)
			free(s->g[g].t[t].name);
		free(s->g[g].t);
		free(s->g[g].name);
	}
	free(s->g);
	free(s->heap);
	free(s);
}

struct ranked {
	uint64_t h;
	size_t i;
};

static int
by_hash(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The first cycle whose due time for t is at or after now.  A target's
 * due time in cycle c lies inside [epoch + c*I, epoch + (c+1)*I): the
 * group's shift and the slots together stay below the interval. */
static uint64_t
first_cycle(const struct sched *s, size_t g, size_t t, uint64_t now)
{
	uint64_t c = now > s->epoch ? (now - s->epoch) / s->g[g].interval : 0;

	return due_in(s, g, t, c) >= now ? c : c + 1;
}

int
sched_group_add(struct sched *s, const char *name, uint64_t interval_ns,
    uint64_t jitter_ns, const char *const *targets, size_t n, uint64_t now)
{
	struct sgroup *gs, *gr;
	struct ranked *r = NULL;
	size_t g = s->ng;

	if (interval_ns == 0 || jitter_ns >= interval_ns)
		return -1;
	if (hreserve(s, s->nheap + n) != 0)
		return -1;
	if ((gs = realloc(s->g, (s->ng + 1) * sizeof(*s->g))) == NULL)
		return -1;
	s->g = gs;
	gr = &s->g[g];
	memset(gr, 0, sizeof(*gr));
	gr->interval = interval_ns;
	gr->jitter = jitter_ns;
	/* the slots share what the group's shift leaves of the interval, so
	 * a cycle's last start stays inside the cycle */
	gr->width = n > 0 ? (interval_ns - jitter_ns) / n : 0;
	if ((gr->name = strdup(name)) == NULL)
		return -1;
	s->ng++;
	if (n == 0)
		return (int)g;
	if ((gr->t = calloc(n, sizeof(*gr->t))) == NULL || (r = calloc(n, sizeof(*r))) == NULL) {
		free(r);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if ((gr->t[i].name = strdup(targets[i])) == NULL) {
			free(r);
			return -1;
		}
		gr->n = i + 1;
		r[i].h = siphash24(s->key, targets[i], strlen(targets[i]));
		r[i].i = i;
	}
	qsort(r, n, sizeof(*r), by_hash);
	for (size_t k = 0; k < n; k++)
		gr->t[r[k].i].slot = k * gr->width;
	free(r);
	for (size_t i = 0; i < n; i++) {
		gr->t[i].cycle = first_cycle(s, g, i, now);
		gr->t[i].due = due_in(s, g, i, gr->t[i].cycle);
		hpush(s, g, i);
	}
	return (int)g;
}

uint64_t
sched_next(const struct sched *s)
{
	return s->nheap > 0 ? hdue(s, 0) : UINT64_MAX;
}

size_t
sched_due(struct sched *s, uint64_t now, struct sched_due_item *out, size_t max)
{
	size_t k = 0;

	while (k < max && s->nheap > 0 && hdue(s, 0) <= now) {
		size_t g = s->heap[0].g, t = s->heap[0].t;

		out[k].group = g;
		out[k].target = t;
		out[k].cycle = s->g[g].t[t].cycle;
		out[k].due = s->g[g].t[t].due;
		k++;
		hpop(s);
	}
	return k;
}

uint64_t
sched_finished(struct sched *s, size_t group, size_t target, uint64_t now)
{
	struct starget *t;
	uint64_t c, missed = 0;

	if (group >= s->ng || target >= s->g[group].n)
		return 0;
	t = &s->g[group].t[target];
	if (t->heap != SIZE_MAX)
		return 0;	/* not running: nothing to re-arm */
	c = t->cycle + 1;
	while (due_in(s, group, target, c) < now) {
		missed++;
		c++;
	}
	t->cycle = c;
	t->due = due_in(s, group, target, c);
	hpush(s, group, target);
	return missed;
}

/* (group, target) while it is armed; NULL while it runs or when there is
 * none. */
static const struct starget *
armed(const struct sched *s, size_t group, size_t target)
{
	if (group >= s->ng || target >= s->g[group].n ||
	    s->g[group].t[target].heap == SIZE_MAX)
		return NULL;
	return &s->g[group].t[target];
}

uint64_t
sched_when(const struct sched *s, size_t group, size_t target)
{
	const struct starget *t = armed(s, group, target);

	return t != NULL ? t->due : UINT64_MAX;
}

uint64_t
sched_armed_cycle(const struct sched *s, size_t group, size_t target)
{
	const struct starget *t = armed(s, group, target);

	return t != NULL ? t->cycle : UINT64_MAX;
}

void
sched_recovery(int64_t last, uint64_t cur, bool *redo_last, bool *catch_up)
{
	*redo_last = last >= 0 && (uint64_t)last + 1 >= cur;
	*catch_up = last >= 0 && (uint64_t)last < cur;
}
