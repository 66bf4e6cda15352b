/*
 * router_pace.c -- the trace's buckets keyed by router address or, before
 * the router is known, by distance (router_pace.h says why).
 */
#include <string.h>

#include "router_pace.h"

struct router_key
router_key_ttl(int family, int ttl)
{
	struct router_key k;

	memset(&k, 0, sizeof(k));
	k.addr.family = (uint8_t)family;
	k.ttl = ttl;
	return k;
}

struct router_key
router_key_addr(const struct addr *a)
{
	struct router_key k;

	memset(&k, 0, sizeof(k));
	k.addr.family = a->family;
	memcpy(k.addr.bytes, a->bytes, addr_len(a));
	return k;
}

struct router_key
router_key_from(struct router_key k, const struct addr *src)
{
	memset(&k.src, 0, sizeof(k.src));
	if (src != NULL) {
		k.src.family = src->family;
		memcpy(k.src.bytes, src->bytes, addr_len(src));
	}
	return k;
}

int
router_pace_init(struct router_pace *p, const struct hop_pace_config *cfg)
{
	if (hop_pace_check(cfg) != 0)
		return -1;
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	for (int f = 0; f < 2; f++)
		for (int t = 0; t <= ROUTER_PACE_MAX_TTL; t++)
			hop_bucket_init(cfg, &p->dist[f][t]);
	for (int i = 0; i < ROUTER_PACE_HASH; i++)
		p->head[i] = -1;
	p->deadline = UINT64_MAX;
	return 0;
}

static bool
by_distance(struct router_key k)
{
	return k.ttl != 0;
}

static bool
valid_ttl(int ttl)
{
	return ttl >= 1 && ttl <= ROUTER_PACE_MAX_TTL;
}

/* Whether a distance is one router in both families: neither has heard
 * two addresses there. */
static bool
shared_ttl(const struct router_pace *p, int ttl)
{
	return valid_ttl(ttl) && !p->many[0][ttl] && !p->many[1][ttl];
}

/* The distance's bucket for family f: one for both while it is shared. */
static struct hop_bucket *
dist_of(struct router_pace *p, int f, int ttl)
{
	return &p->dist[shared_ttl(p, ttl) ? 0 : f][ttl];
}

/* The one router heard at a distance for family f (from the other family
 * while the distance is shared), or NULL. */
static const struct addr *
one_router(const struct router_pace *p, int f, int ttl)
{
	if (!valid_ttl(ttl) || p->many[f][ttl])
		return NULL;
	if (p->only[f][ttl].family != 0)
		return &p->only[f][ttl];
	if (shared_ttl(p, ttl) && p->only[!f][ttl].family != 0)
		return &p->only[!f][ttl];
	return NULL;
}

/* The key of k's router: an address that is the one its family heard at a
 * shared distance is that distance's router, named by the first address
 * heard there (its IPv4 and IPv6 addresses are one key). */
static struct router_key
canon(const struct router_pace *p, struct router_key k)
{
	int f = k.addr.family == ADDR_V6;

	if (by_distance(k))
		return k;
	for (int t = 1; t <= ROUTER_PACE_MAX_TTL; t++)
		if (p->name[t].family != 0 && shared_ttl(p, t) &&
		    addr_equal(&p->only[f][t], &k.addr)) {
			struct router_key c = router_key_addr(&p->name[t]);

			c.src = k.src;
			return c;
		}
	return k;
}

static unsigned
key_hash(const struct router_key *k)
{
	uint32_t h = 2166136261u ^ k->addr.family;

	for (int i = 0; i < 16; i++)
		h = (h ^ k->addr.bytes[i]) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ k->src.bytes[i]) * 16777619u;
	return h & (ROUTER_PACE_HASH - 1);
}

static bool
key_equal(const struct router_key *a, const struct router_key *b)
{
	return a->addr.family == b->addr.family &&
	    memcmp(a->addr.bytes, b->addr.bytes, sizeof(a->addr.bytes)) == 0 &&
	    a->src.family == b->src.family &&
	    memcmp(a->src.bytes, b->src.bytes, sizeof(a->src.bytes)) == 0;
}

static int
find(const struct router_pace *p, const struct router_key *k)
{
	for (int i = p->head[key_hash(k)]; i >= 0; i = p->r[i].next)
		if (key_equal(&p->r[i].key, k))
			return i;
	return -1;
}

static void
unlink_entry(struct router_pace *p, int i)
{
	int *pp = &p->head[key_hash(&p->r[i].key)];

	while (*pp != i)
		pp = &p->r[*pp].next;
	*pp = p->r[i].next;
	p->r[i].live = false;
	p->nlive--;
}

/* A free entry, forgetting the least recently used idle router if the
 * table is full; -1 when every router has probes waiting or debt. */
static int
make_room(struct router_pace *p, uint64_t now)
{
	int victim = -1;

	for (int i = 0; i < ROUTER_PACE_ROUTERS; i++) {
		if (!p->r[i].live)
			return i;
	}
	for (int i = 0; i < ROUTER_PACE_ROUTERS; i++) {
		if (hop_bucket_idle(&p->cfg, &p->r[i].b, now) &&
		    (victim < 0 || p->r[i].used < p->r[victim].used))
			victim = i;
	}
	if (victim >= 0) {
		unlink_entry(p, victim);
		p->forgotten++;
	}
	return victim;
}

/* The bucket of k; NULL for a router not in the table. */
static struct hop_bucket *
bucket(struct router_pace *p, const struct router_key *k)
{
	struct router_key c;
	int i;

	if (by_distance(*k)) {
		if (!valid_ttl(k->ttl))
			return NULL;
		return dist_of(p, k->addr.family == ADDR_V6, k->ttl);
	}
	c = canon(p, *k);
	i = find(p, &c);
	return i < 0 ? NULL : &p->r[i].b;
}

#define ALL_COST_NS (1000000000 / ROUTER_PACE_ALL_RATE)
#define ALL_DEPTH_NS ((int64_t)ROUTER_PACE_ALL_BURST * ALL_COST_NS)

static void
all_refill(struct router_all *a, uint64_t now)
{
	if (now > a->last) {
		uint64_t d = now - a->last;

		a->credit_ns = d >= (uint64_t)ALL_DEPTH_NS ? ALL_DEPTH_NS :
		    a->credit_ns + (int64_t)d;
		if (a->credit_ns > ALL_DEPTH_NS)
			a->credit_ns = ALL_DEPTH_NS;
		a->last = now;
	}
}

/* The cap over every source of k's router (ROUTER_PACE_ALL_RATE); NULL
 * while probes go from one source (its own bucket is the router's whole
 * budget), for a distance, or when the table of caps is full of routers
 * still paying off a burst. */
static struct router_all *
all_of(struct router_pace *p, struct router_key k, uint64_t now)
{
	int free_i = -1;

	if (!p->many_src || by_distance(k))
		return NULL;
	k = canon(p, router_key_from(k, NULL));
	for (int i = 0; i < ROUTER_PACE_ALL; i++) {
		struct router_all *a = &p->all[i];

		if (a->live && addr_equal(&a->addr, &k.addr))
			return a;
		if (free_i < 0 && a->live)
			all_refill(a, now);
		if (free_i < 0 && (!a->live || a->credit_ns == ALL_DEPTH_NS))
			free_i = i;
	}
	if (free_i < 0)
		return NULL;
	p->all[free_i] = (struct router_all){ .addr = k.addr, .credit_ns = ALL_DEPTH_NS,
		.last = now, .live = true };
	return &p->all[free_i];
}

static void
all_pay(struct router_pace *p, struct router_key k, uint64_t now)
{
	struct router_all *a = all_of(p, k, now);

	if (a != NULL) {
		all_refill(a, now);
		a->credit_ns -= ALL_COST_NS;
	}
}

/* Notes the source a probe goes from: a second one of a family starts
 * the caps. */
static void
note_src(struct router_pace *p, const struct addr *src)
{
	struct addr *first;

	if (src->family == 0 || p->many_src)
		return;
	first = &p->first_src[src->family == ADDR_V6];
	if (first->family == 0)
		*first = *src;
	else if (!addr_equal(first, src))
		p->many_src = true;
}

/* k with its source cleared when it is its family's first: with one
 * source per family the keys are those of before, a router one budget
 * over both families (router_pace.h) */
static struct router_key
norm(const struct router_pace *p, struct router_key k)
{
	if (k.src.family != 0 && addr_equal(&p->first_src[k.src.family == ADDR_V6], &k.src))
		memset(&k.src, 0, sizeof(k.src));
	return k;
}

/* A new source's bucket of a router (entry i) starts at the rate the
 * router's other sources learned by losing, the slowest of them
 * (hop_bucket_learned_milli): it is the same router's limit per
 * destination, and slow start from one probe a second overshot it (after
 * its burst, 7 a second against Linux's 1) and lost a trace's probes per
 * new source.  Alone, it starts as any. */
static void
learn_from_sources(struct router_pace *p, int i)
{
	const struct hop_bucket *from = NULL;

	for (int j = 0; j < ROUTER_PACE_ROUTERS; j++) {
		const struct router_entry *o = &p->r[j];

		if (j == i || !o->live || o->key.ttl != 0 ||
		    !addr_equal(&o->key.addr, &p->r[i].key.addr) ||
		    hop_bucket_learned_milli(&o->b) == 0)
			continue;
		if (from == NULL ||
		    hop_bucket_learned_milli(&o->b) < hop_bucket_learned_milli(from))
			from = &o->b;
	}
	if (from != NULL)
		hop_bucket_inherit(&p->cfg, &p->r[i].b, from);
}

struct router_key
router_pace_key(struct router_pace *p, struct router_key k, int ttl, uint64_t now)
{
	int i;
	unsigned h;

	note_src(p, &k.src);
	k = norm(p, k);

	if (by_distance(k)) {
		const struct addr *a = one_router(p, k.addr.family == ADDR_V6, k.ttl);

		if (a == NULL)
			return k;
		return router_pace_key(p, router_key_from(router_key_addr(a),
		    k.src.family != 0 ? &k.src : NULL), k.ttl, now);
	}
	k = canon(p, k);
	i = find(p, &k);
	if (i < 0) {
		i = make_room(p, now);
		if (i < 0)
			return ttl > 0 ? router_key_from(router_key_ttl(k.addr.family, ttl),
			    k.src.family != 0 ? &k.src : NULL) : k;
		h = key_hash(&k);
		p->r[i].key = k;
		hop_bucket_init(&p->cfg, &p->r[i].b);
		learn_from_sources(p, i);
		p->r[i].live = true;
		p->r[i].next = p->head[h];
		p->head[h] = i;
		p->nlive++;
	}
	p->r[i].used = now;
	return k;
}

bool
router_pace_can(struct router_pace *p, struct router_key k, uint64_t now)
{
	k = norm(p, k);
	struct hop_bucket *b = bucket(p, &k);

	struct router_all *a;

	if (b == NULL)
		return true;	/* beyond the ladder: nothing to pace */
	router_pace_expire(p, now);
	if (!hop_bucket_can(&p->cfg, b, now))
		return false;
	if ((a = all_of(p, k, now)) == NULL)
		return true;
	all_refill(a, now);
	return a->credit_ns >= ALL_COST_NS;
}

void
router_pace_spent(struct router_pace *p, struct router_key k, uint64_t now)
{
	k = norm(p, k);
	struct hop_bucket *b = bucket(p, &k);

	if (b != NULL) {
		hop_bucket_spent(&p->cfg, b, now);
		all_pay(p, k, now);
	}
}

void
router_pace_sent(struct router_pace *p, struct router_key k, uint64_t now, bool repeat)
{
	k = norm(p, k);
	struct hop_bucket *b = bucket(p, &k);
	uint64_t d;

	if (b == NULL)
		return;
	hop_bucket_sent(&p->cfg, b, now, repeat);
	all_pay(p, k, now);
	d = hop_bucket_deadline(&p->cfg, b);
	if (d < p->deadline)
		p->deadline = d;
}

struct router_key
router_pace_paid(const struct router_pace *p, int family, int ttl, const struct addr *learned,
    const struct addr *src)
{
	const struct addr *a = learned != NULL ? learned : one_router(p, family == ADDR_V6, ttl);

	if (a != NULL)
		return canon(p, norm(p, router_key_from(router_key_addr(a), src)));
	return norm(p, router_key_from(router_key_ttl(family, ttl), src));
}

/* Which routers a distance has heard from: one, or more.  True when from
 * is the first and new to the table: the distance was that router all
 * along, so its bucket becomes the router's, and the distance starts over
 * for when it stands for more than one. */
static bool
heard(struct router_pace *p, int ttl, const struct addr *from, const struct addr *src,
    uint64_t now)
{
	int f = from->family == ADDR_V6, i;
	struct router_key r = router_key_from(router_key_addr(from), src);
	struct hop_bucket *d;

	if (!valid_ttl(ttl) || p->many[f][ttl])
		return false;
	if (p->only[f][ttl].family != 0) {
		if (!addr_equal(&p->only[f][ttl], from))
			p->many[f][ttl] = true;
		return false;
	}
	p->only[f][ttl] = r.addr;
	/* (only the first source's bucket was paid by the distance: the
	 * others start afresh, a budget of their own) */
	if (p->name[ttl].family == 0)
		p->name[ttl] = r.addr;
	r = canon(p, r);
	if (find(p, &r) >= 0)
		return false;
	d = dist_of(p, f, ttl);
	r = router_pace_key(p, r, 0, now);
	if (by_distance(r) || (i = find(p, &r)) < 0)
		return false;
	p->r[i].b = *d;
	hop_bucket_init(&p->cfg, d);
	return true;
}

/* An answer to a probe paid from k, waited for (router_pace_sent) or
 * spent (router_pace_spent). */
static void
pace_answered(struct router_pace *p, struct router_key k, int ttl, const struct addr *from,
    uint64_t now, uint64_t sent, bool waited)
{
	k = norm(p, k);
	struct hop_bucket *b = bucket(p, &k), *rb, *moved = NULL;
	struct router_key r, c;
	const struct addr *src = k.src.family != 0 ? &k.src : NULL;

	/* paid by the distance before its bucket became its router's: the
	 * probe waits there now (a spent one waits nowhere: its router's
	 * bucket is the one its token came from all the same) */
	if (b != NULL && (b->n == 0 || !waited) && by_distance(k) &&
	    one_router(p, k.addr.family == ADDR_V6, k.ttl) != NULL) {
		r = router_key_from(router_key_addr(one_router(p, k.addr.family == ADDR_V6,
		    k.ttl)), src);
		if ((rb = bucket(p, &r)) != NULL)
			b = moved = rb;
	}
	if (b != NULL && !waited) {
		hop_bucket_grow(&p->cfg, b, now);
		p->answered++;
	} else if (b != NULL && hop_bucket_answered(&p->cfg, b, now, sent)) {
		p->answered++;
		/* one router's probes are answered in order: those it
		 * skipped are lost */
		if (!by_distance(k) || !valid_ttl(k.ttl) ||
		    b != dist_of(p, k.addr.family == ADDR_V6, k.ttl))
			p->lost += (uint64_t)hop_bucket_overtaken(&p->cfg, b, sent, now);
	}
	if (from == NULL || from->family == 0)
		return;
	if (heard(p, ttl, from, src, now) && by_distance(k))
		return;		/* paid from what is now its own bucket */
	r = canon(p, router_key_from(router_key_addr(from), src));
	if (!by_distance(k) && (c = canon(p, k), key_equal(&c, &r)))
		return;
	/* paid from the distance's bucket, which became its router's: paid
	 * once (charged again, a router without a limit waited out a
	 * burst of debt at every hop, 0.6 s of a 4.7 s cycle) */
	if (moved != NULL && moved == bucket(p, &r))
		return;
	/* the router's own bucket pays for what it sent, a router first
	 * heard of here included */
	r = router_pace_key(p, r, 0, now);
	rb = by_distance(r) ? NULL : bucket(p, &r);
	if (rb != NULL) {
		hop_bucket_charge(&p->cfg, rb, now);
		p->charged++;
	}
}

void
router_pace_answered(struct router_pace *p, struct router_key k, int ttl,
    const struct addr *from, uint64_t now, uint64_t sent)
{
	pace_answered(p, k, ttl, from, now, sent, true);
}

void
router_pace_answered_spent(struct router_pace *p, struct router_key k, int ttl,
    const struct addr *from, uint64_t now)
{
	pace_answered(p, k, ttl, from, now, 0, false);
}

static void
expire_one(struct router_pace *p, struct hop_bucket *b, uint64_t now, uint64_t *next)
{
	uint64_t d;

	p->lost += (uint64_t)hop_bucket_expire(&p->cfg, b, now);
	d = hop_bucket_deadline(&p->cfg, b);
	if (d < *next)
		*next = d;
}

void
router_pace_expire(struct router_pace *p, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	if (now < p->deadline)
		return;
	for (int f = 0; f < 2; f++)
		for (int t = 1; t <= ROUTER_PACE_MAX_TTL; t++)
			expire_one(p, &p->dist[f][t], now, &next);
	for (int i = 0; i < ROUTER_PACE_ROUTERS; i++)
		if (p->r[i].live)
			expire_one(p, &p->r[i].b, now, &next);
	p->deadline = next;
}

uint64_t
router_pace_when(struct router_pace *p, struct router_key k, uint64_t now)
{
	k = norm(p, k);
	struct hop_bucket *b = bucket(p, &k);
	struct router_all *a;
	uint64_t t;

	if (b == NULL)
		return now;
	router_pace_expire(p, now);
	t = hop_bucket_when(&p->cfg, b, now);
	if ((a = all_of(p, k, now)) != NULL) {
		all_refill(a, now);
		if (a->credit_ns < ALL_COST_NS &&
		    now + (uint64_t)(ALL_COST_NS - a->credit_ns) > t)
			t = now + (uint64_t)(ALL_COST_NS - a->credit_ns);
	}
	return t;
}

double
router_pace_rate(struct router_pace *p, struct router_key k)
{
	k = norm(p, k);
	struct hop_bucket *b = bucket(p, &k);

	return b == NULL ? 0 : (double)b->rate_milli / 1000.0;
}
