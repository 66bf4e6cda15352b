/*
 * tracks.c -- the paths' alert memory by address and port (tracks.h):
 * SipHash under the caller's random key picks the bucket, so nobody who
 * chooses targets or answers can aim every path at one chain.  Quiet
 * paths (one verdict in sight, nothing raised) sit in a second table, a
 * packed row each (tracks.h), found by linear probing from the same
 * hash and taken out by backward shift, so no tombstone lengthens a
 * probe and no row needs a pointer or a malloc chunk of its own.
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

/* Over the bytes the family uses only, so a quiet row's address (kept
 * without the rest) hashes as the caller's did. */
static uint64_t
hash(const struct tracks *ts, const struct addr *dst, uint16_t port)
{
	uint8_t k[1 + sizeof(dst->bytes) + sizeof(port)] = { 0 };

	k[0] = dst->family;
	memcpy(k + 1, dst->bytes, addr_len(dst));
	memcpy(k + 1 + sizeof(dst->bytes), &port, sizeof(port));
	return siphash24(ts->key, k, sizeof(k));
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

/* A row's second and third word after the address (tracks.h): */
#define Q_PORT(m) ((uint16_t)(m))
#define Q_VC(m) ((uint8_t)((m) >> 16))
#define Q_K(m) ((unsigned)((m) >> 24) & 31)
#define Q_NHIST(m) ((unsigned)((m) >> 29) & 31)
#define Q_HEAD(m) ((unsigned)((m) >> 34) & 15)
#define Q_SEEN(m) ((uint32_t)((m) >> 38))
#define Q_SEEN_MAX ((1u << 26) - 1)

_Static_assert(RESULT_MAX_SCALES <= 31 && ALERT_M_MAX <= 16,
    "a quiet row's k, nhist and head fields are too narrow");

/* The family's table (0: IPv4, 1: IPv6), or -1: never folded. */
static int
fam(uint8_t family)
{
	return family == ADDR_V4 ? 0 : family == ADDR_V6 ? 1 : -1;
}

/* Words of a row's address, and of the whole row. */
static size_t
aw(int f)
{
	return f == 0 ? 1 : 4;
}

static size_t
rw(int f)
{
	return aw(f) + 2;
}

static uint64_t
meta(const uint32_t *r, int f)
{
	return r[aw(f)] | (uint64_t)r[aw(f) + 1] << 32;
}

static bool
empty(const uint32_t *r, int f)
{
	return Q_K(r[aw(f)]) == 0;
}

static uint64_t
tick(const struct tracks *ts)
{
	return ts->tick_ns != 0 ? ts->tick_ns : TRACKS_TICK_NS;
}

static void
row_key(const uint32_t *r, int f, struct addr *dst, uint16_t *port)
{
	memset(dst, 0, sizeof(*dst));
	dst->family = f == 0 ? ADDR_V4 : ADDR_V6;
	memcpy(dst->bytes, r, 4 * aw(f));
	*port = Q_PORT(meta(r, f));
}

static uint64_t
row_hash(const struct tracks *ts, const uint32_t *r, int f)
{
	struct addr dst;
	uint16_t port;

	row_key(r, f, &dst, &port);
	return hash(ts, &dst, port);
}

/* The segment by the hash's top bits, the home row by its low 32 (any
 * cap, not only powers of two: segments grow by half). */
static struct quiet_seg *
seg(struct tracks *ts, int f, uint64_t h)
{
	return &ts->q[f][h >> 58];
}

_Static_assert(TRACKS_QUIET_SEGS == 64, "seg() takes the hash's top 6 bits");

static uint32_t
home(uint64_t h, uint32_t cap)
{
	return (uint32_t)(((h & 0xffffffffu) * cap) >> 32);
}

static uint32_t
next(uint32_t i, uint32_t cap)
{
	return i + 1 == cap ? 0 : i + 1;
}

/* r placed at the first empty row from its home (it is not there). */
static void
place(const struct tracks *ts, struct quiet_seg *s, int f, const uint32_t *r)
{
	uint32_t i = home(row_hash(ts, r, f), s->cap);

	while (!empty(s->row + i * rw(f), f))
		i = next(i, s->cap);
	memcpy(s->row + i * rw(f), r, 4 * rw(f));
}

/* s's rows moved into cap rows. */
static void
resize(const struct tracks *ts, struct quiet_seg *s, int f, uint32_t cap)
{
	uint32_t *old = s->row, ocap = s->cap;

	s->row = xcalloc(cap, 4 * rw(f));
	s->cap = cap;
	for (uint32_t i = 0; i < ocap; i++)
		if (!empty(old + i * rw(f), f))
			place(ts, s, f, old + i * rw(f));
	free(old);
}

/* Row i emptied: each row after it up to the next empty one moves back
 * into the hole when the hole lies between its home and it, so every
 * row stays reachable from its home without a tombstone. */
static void
delete_row(const struct tracks *ts, struct quiet_seg *s, int f, uint32_t i)
{
	for (uint32_t j = next(i, s->cap);; j = next(j, s->cap)) {
		uint32_t *r = s->row + j * rw(f);
		uint32_t h;

		if (empty(r, f))
			break;
		h = home(row_hash(ts, r, f), s->cap);
		if ((j + s->cap - h) % s->cap >= (j + s->cap - i) % s->cap) {
			memcpy(s->row + i * rw(f), r, 4 * rw(f));
			i = j;
		}
	}
	memset(s->row + i * rw(f), 0, 4 * rw(f));
	s->n--;
}

/* The row of dst:port in s, or UINT32_MAX. */
static uint32_t
find(const struct quiet_seg *s, int f, uint64_t h, const struct addr *dst, uint16_t port)
{
	if (s->row == NULL)
		return UINT32_MAX;
	for (uint32_t i = home(h, s->cap);; i = next(i, s->cap)) {
		const uint32_t *r = s->row + i * rw(f);

		if (empty(r, f))
			return UINT32_MAX;
		if (Q_PORT(r[aw(f)]) == port && memcmp(r, dst->bytes, 4 * aw(f)) == 0)
			return i;
	}
}

static size_t
fam_n(const struct tracks *ts, int f)
{
	size_t n = 0;

	for (int i = 0; i < TRACKS_QUIET_SEGS; i++)
		n += ts->q[f][i].n;
	return n;
}

/* The scales' memory dst:port's quiet row stood for, exactly, put in t
 * and the row taken out; false when it has none. */
static bool
unfold(struct tracks *ts, const struct addr *dst, uint16_t port, struct track *t)
{
	int f = fam(dst->family);
	uint64_t h, m;
	struct quiet_seg *s;
	uint32_t i;

	if (f < 0)
		return false;
	h = hash(ts, dst, port);
	s = seg(ts, f, h);
	if ((i = find(s, f, h, dst, port)) == UINT32_MAX)
		return false;
	m = meta(s->row + i * rw(f), f);
	for (unsigned k = 0; k < Q_K(m) && k < RESULT_MAX_SCALES; k++) {
		struct alert_track *a = &t->t[k];

		for (unsigned j = 0; j < Q_NHIST(m) && j < ALERT_M_MAX; j++)
			a->hist[j] = Q_VC(m) & 15;
		a->nhist = (uint8_t)Q_NHIST(m);
		a->head = (uint8_t)Q_HEAD(m);
		a->confirmed = (uint8_t)(Q_VC(m) >> 4);
	}
	delete_row(ts, s, f, i);
	if (s->n == 0) {
		free(s->row);
		s->row = NULL;
		s->cap = 0;
	}
	ts->nq--;
	return true;
}

/* t's one verdict on its first k scales put in a row of its family's
 * table (it has none: tracks_get took it out). */
static void
fold(struct tracks *ts, const struct track *t, int f, int k)
{
	uint64_t h = hash(ts, &t->dst, t->port), tk = tick(ts), seen = 0, m;
	struct quiet_seg *s = seg(ts, f, h);
	uint32_t r[6] = { 0 };

	if (fam_n(ts, f) == 0)
		ts->q_epoch_ns[f] = t->seen_ns;
	if (t->seen_ns > ts->q_epoch_ns[f]) {
		uint64_t d = t->seen_ns - ts->q_epoch_ns[f];

		/* rounded up: never forgotten before a full entry would be */
		seen = d / tk + (d % tk != 0);
		if (seen > Q_SEEN_MAX)
			seen = Q_SEEN_MAX;
	}
	if (s->row == NULL)
		resize(ts, s, f, TRACKS_QUIET_MIN);
	else if ((uint64_t)(s->n + 1) * 100 > (uint64_t)s->cap * TRACKS_QUIET_LOAD)
		resize(ts, s, f, s->cap + s->cap / 2);
	memcpy(r, t->dst.bytes, 4 * aw(f));
	m = t->port | (uint64_t)(t->t[0].hist[0] | t->t[0].confirmed << 4) << 16 |
	    (uint64_t)k << 24 | (uint64_t)t->t[0].nhist << 29 | (uint64_t)t->t[0].head << 34 |
	    seen << 38;
	r[aw(f)] = (uint32_t)m;
	r[aw(f) + 1] = (uint32_t)(m >> 32);
	place(ts, s, f, r);
	s->n++;
	ts->nq++;
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
	(void)unfold(ts, dst, port, t);
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
	int k = 0, f = fam(t->dst.family);

	if (t->open.bad || t->restored || t->held || t->target != NULL ||
	    t->incident.family != 0 || f < 0)
		return false;
	while (k < RESULT_MAX_SCALES && memcmp(&t->t[k], &none, sizeof(none)) != 0)
		k++;
	/* a verdict and a state of 4 bits each (every one of enum verdict) */
	if (k > 0 && (!uniform(&t->t[0]) || t->t[0].hist[0] > 15 || t->t[0].confirmed > 15 ||
	    t->t[0].head > 15))
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
	if (k > 0)
		fold(ts, t, f, k);
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

/* Family f's quiet rows not seen for more than max_age_ns freed (each
 * segment swept with its holes filled back at once: a row moved into a
 * hole is looked at again, none is skipped); a segment a quarter full
 * or less halved, an empty one freed.  The table's epoch moves on before
 * its ticks run out, as far as the sweep's age allows, so no row left is
 * older than it (one would be kept at tick 0: later, never earlier). */
static size_t
expire_quiet(struct tracks *ts, int f, uint64_t now_ns, uint64_t max_age_ns)
{
	uint64_t tk = tick(ts), shift = 0;
	size_t freed = 0;

	/* up to the oldest time a row left by the sweep can have */
	if (now_ns > ts->q_epoch_ns[f] && (now_ns - ts->q_epoch_ns[f]) / tk > Q_SEEN_MAX / 2 &&
	    now_ns - ts->q_epoch_ns[f] > max_age_ns)
		shift = (now_ns - ts->q_epoch_ns[f] - max_age_ns) / tk;
	for (int g = 0; g < TRACKS_QUIET_SEGS; g++) {
		struct quiet_seg *s = &ts->q[f][g];

		for (uint32_t i = 0; i < s->cap;) {
			uint32_t *r = s->row + i * rw(f);
			uint64_t m = meta(r, f), seen;

			if (empty(r, f)) {
				i++;
				continue;
			}
			seen = ts->q_epoch_ns[f] + Q_SEEN(m) * tk;
			if (now_ns > seen && now_ns - seen > max_age_ns) {
				delete_row(ts, s, f, i);
				ts->nq--;
				freed++;
				continue;
			}
			i++;
		}
		if (shift > 0)
			for (uint32_t i = 0; i < s->cap; i++) {
				uint32_t *r = s->row + i * rw(f);
				uint64_t m = meta(r, f);

				if (empty(r, f))
					continue;
				m = (m & ((1ull << 38) - 1)) |
				    (uint64_t)(Q_SEEN(m) > shift ? Q_SEEN(m) - shift : 0) << 38;
				r[aw(f) + 1] = (uint32_t)(m >> 32);
			}
		if (s->n == 0) {
			free(s->row);
			s->row = NULL;
			s->cap = 0;
		} else if (s->cap > TRACKS_QUIET_MIN && (uint64_t)s->n * 4 <= s->cap)
			resize(ts, s, f, s->cap / 2 > TRACKS_QUIET_MIN ? s->cap / 2 :
			    TRACKS_QUIET_MIN);
	}
	ts->q_epoch_ns[f] += shift * tk;
	return freed;
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
	for (int f = 0; f < 2; f++)
		freed += expire_quiet(ts, f, now_ns, max_age_ns);
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
	for (int f = 0; f < 2; f++)
		for (int g = 0; g < TRACKS_QUIET_SEGS; g++) {
			free(ts->q[f][g].row);
			ts->q[f][g].row = NULL;
			ts->q[f][g].cap = 0;
			ts->q[f][g].n = 0;
		}
	ts->nq = 0;
}

size_t
tracks_quiet_bytes(const struct tracks *ts)
{
	size_t b = 0;

	for (int f = 0; f < 2; f++)
		for (int g = 0; g < TRACKS_QUIET_SEGS; g++)
			b += (size_t)ts->q[f][g].cap * 4 * rw(f);
	return b;
}
