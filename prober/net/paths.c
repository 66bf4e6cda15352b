/*
 * paths.c -- targets to paths, one at a time: the target space (blocked
 * parts and duplicates, target_space.c), names resolved in the run's event loop
 * (resolve.c, which reads /etc/hosts and resolv.conf -- in a network
 * namespace, ip netns exec's /etc/netns/NAME ones), and the route of each
 * path asked when it is handed out.  Nothing here sends a probe.
 */
#include <sys/random.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "log.h"
#include "paths.h"
#include "resolve.h"

/* Addresses passed over (blocked, duplicates, no route) in one call of
 * paths_next before it lets the event loop run: a few milliseconds. */
#define PATHS_SKIP_MAX 4096
/* ... and in paths_open, looking for the first path: about a second of
 * route lookups. */
#define PATHS_OPEN_SKIP_MAX 65536

/* One line per target that the blocklist refuses (all or part of). */
static void
paths_blocked(struct paths *p, const struct target *tg, enum blocklist_part part,
    const struct blocklist_entry *why, const struct addr *a)
{
	char buf[ADDR_STRLEN];

	p->blocked_targets++;
	if (part == BLOCKLIST_SOME && why->plen <= tg->plen)
		log_warnx("%s: blocked but for what --allow lifts: it is in %s",
		    tg->as_given, why->text);
	else if (part == BLOCKLIST_SOME)
		log_warnx("%s: blocked in part: the addresses in %s; --allow lifts it",
		    tg->as_given, why->text);
	else if (a == NULL && tg->kind == TARGET_PREFIX)
		log_warnx("%s: blocked: %llu addresses, e.g. %s is in %s; --allow lifts it",
		    tg->as_given, (unsigned long long)target_count(tg),
		    addr_format(&tg->addr, buf, sizeof(buf)), why->text);
	else
		log_warnx("%s: blocked: %s is in %s; --allow lifts it", tg->as_given,
		    addr_format(a != NULL ? a : &tg->addr, buf, sizeof(buf)), why->text);
}

/* --- names ---------------------------------------------------------------- */

static size_t
paths_seen_hash(const struct addr *a, uint16_t port)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < addr_len(a); i++)
		h = (h ^ a->bytes[i]) * 1099511628211ull;
	h = (h ^ port) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

/* Adds (a, port); false when it was there. */
static bool
paths_seen_add(struct paths_seen *s, const struct addr *a, uint16_t port)
{
	size_t i;

	if (s->n * 2 >= s->cap) {
		struct paths_seen old = *s;

		s->cap = old.cap ? old.cap * 2 : 64;
		s->v = xcalloc(s->cap, sizeof(*s->v));
		s->n = 0;
		for (size_t k = 0; k < old.cap; k++)
			if (old.v[k].used)
				paths_seen_add(s, &old.v[k].a, old.v[k].port);
		free(old.v);
	}
	for (i = paths_seen_hash(a, port) & (s->cap - 1); s->v[i].used;
	    i = (i + 1) & (s->cap - 1))
		if (s->v[i].port == port && addr_equal(&s->v[i].a, a))
			return false;
	s->v[i].used = true;
	s->v[i].a = *a;
	s->v[i].port = port;
	s->n++;
	return true;
}

static void
paths_found_push(struct paths *p, const struct target *tg, const struct addr *a)
{
	if (p->found_n == p->found_cap) {
		size_t cap = p->found_cap ? p->found_cap * 2 : 64;
		struct paths_found *v = xreallocarray(NULL, cap, sizeof(*v));

		for (size_t i = 0; i < p->found_n; i++)
			v[i] = p->found[(p->found_head + i) % p->found_cap];
		free(p->found);
		p->found = v;
		p->found_cap = cap;
		p->found_head = 0;
	}
	p->found[(p->found_head + p->found_n) % p->found_cap].tg = tg;
	p->found[(p->found_head + p->found_n) % p->found_cap].a = *a;
	p->found_n++;
}

/* A name's answer: each address not blocked, and not probed for another
 * target already, waits for paths_next. */
static void
paths_resolved(void *arg, void *tag, const struct addr *addrs, size_t n, const char *error)
{
	struct paths *p = arg;
	const struct target *tg = tag;
	const struct blocklist_entry *first_why = NULL;
	struct addr first_blocked;
	size_t blocked = 0;

	if (n == 0) {
		log_warnx("%s: cannot resolve: %s", tg->as_given, error);
		p->unresolved++;
	}
	for (size_t i = 0; i < n; i++) {
		const struct blocklist_entry *why = p->bl != NULL ?
		    blocklist_check(p->bl, &addrs[i]) : NULL;

		if (why != NULL) {
			if (blocked++ == 0) {
				first_why = why;
				first_blocked = addrs[i];
			}
			continue;
		}
		if (target_space_holds(&p->space, &addrs[i], tg->port) ||
		    !paths_seen_add(&p->seen, &addrs[i], tg->port))
			continue;
		paths_found_push(p, tg, &addrs[i]);
	}
	if (blocked == 1)
		paths_blocked(p, tg, BLOCKLIST_ALL, first_why, &first_blocked);
	else if (blocked > 1) {
		char buf[ADDR_STRLEN];

		p->blocked_targets++;
		log_warnx("%s: blocked: %zu addresses, e.g. %s is in %s; --allow lifts it",
		    tg->as_given, blocked, addr_format(&first_blocked, buf, sizeof(buf)),
		    first_why->text);
	}
	if (p->ready != NULL)
		p->ready(p->ready_arg);
}

int
paths_resolve(struct paths *p, struct event_base *base, void (*ready)(void *arg),
    void *arg)
{
	struct resolver_config rc;
	struct permute order;
	char err[256];

	if (p->nnames == 0)
		return 0;
	memset(&rc, 0, sizeof(rc));
	if ((p->res = resolver_new(base, &rc, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	p->ready = ready;
	p->ready_arg = arg;
	/* asked, and so probed, in the run's keyed order too: a list of
	 * names of one network must not reach it back to back */
	if (permute_init(&order, p->nnames, p->key) != 0)
		return -1;
	for (size_t i = 0; i < p->nnames; i++) {
		const struct target *tg = p->names[permute_at(&order, i)];

		resolver_query(p->res, tg->name, (void *)(uintptr_t)tg, paths_resolved, p);
	}
	return 0;
}

static int
paths_iface(struct paths *p, const char *name)
{
	for (int i = 0; i < p->nifaces; i++)
		if (strcmp(p->ifnames[i], name) == 0)
			return i;
	if (p->nifaces == PATHS_MAX_IFACES)
		return -1;
	snprintf(p->ifnames[p->nifaces], ROUTE_IFNAMSIZ, "%s", name);
	return p->nifaces++;
}

/* The route of a path to a; 1 and *out, 0 when a has no route (told, for
 * a prefix once: its record's count *unrouted), -1 to stop the run. */
static int
paths_route(struct paths *p, const char *target, const char *host, const struct addr *a,
    uint16_t port, uint64_t *unrouted, struct path *out)
{
	const struct addr *forced = a->family == ADDR_V4 ? p->source4 : p->source6;
	char ifname[ROUTE_IFNAMSIZ], err[256];

	memset(out, 0, sizeof(*out));
	if (route_lookup_on(p->rt, a, forced, &out->src, ifname, err, sizeof(err)) != 0) {
		/* a prefix without a route would be a line per address: the
		 * first is told, the rest counted */
		if (unrouted == NULL || (*unrouted)++ == 0)
			log_warnx("%s: %s", target, err);
		p->unrouted++;
		return 0;
	}
	out->iface = paths_iface(p, p->ifname != NULL ? p->ifname : ifname);
	if (out->iface < 0) {
		log_warnx("targets are reached through more than %d interfaces; "
		    "use --interface any", PATHS_MAX_IFACES);
		return -1;
	}
	out->target = target;
	out->host = host;
	out->dst = *a;
	out->port = port;
	return 1;
}

/* The next path: names' addresses first (they were waited for), then the
 * walk of the space.  With budget, at most that many addresses are passed
 * over (blocked, duplicates, no route) before PATHS_LATER. */
static int
paths_walk(struct paths *p, struct path *out, uint64_t *budget)
{
	struct target_space_rec *rec;
	struct addr a;
	int rc;

	while (p->found_n > 0) {
		struct paths_found f = p->found[p->found_head];

		p->found_head = (p->found_head + 1) % p->found_cap;
		p->found_n--;
		if ((rc = paths_route(p, f.tg->as_given, f.tg->name, &f.a, f.tg->port, NULL,
		    out)) != 0)
			return rc;
	}
	while ((rc = target_space_next(&p->space, &rec, &a, budget)) == 1) {
		if ((rc = paths_route(p, rec->target, rec->host, &a, rec->port,
		    &p->unrouted_per[rec - p->space.v], out)) != 0)
			return rc;
		/* an address without a route costs as a skipped one */
		if (budget != NULL && *budget > 0 && --*budget == 0)
			return PATHS_LATER;
	}
	return rc == TARGET_SPACE_LATER ? PATHS_LATER : 0;
}

int
paths_open(struct paths *p, const struct targets *t, const struct paths_opts *o)
{
	uint8_t key[SIPHASH_KEY_LEN];
	uint64_t budget;
	int rc;

	memset(p, 0, sizeof(*p));
	p->bl = o->bl;
	p->source4 = o->source4;
	p->source6 = o->source6;
	p->ifname = o->ifname;
	target_space_init(&p->space, o->bl);
	for (size_t i = 0; i < t->n; i++) {
		const struct target *tg = &t->v[i];
		const struct blocklist_entry *why;
		enum blocklist_part part;

		if (tg->kind == TARGET_NAME) {
			/* resolved as the run goes (paths_resolve) */
			p->names = xreallocarray(p->names, p->nnames + 1, sizeof(*p->names));
			p->names[p->nnames++] = tg;
			p->want_v4 = p->want_v6 = 1;
			continue;
		}
		part = target_space_add(&p->space, tg, i, NULL, &why);
		if (part != BLOCKLIST_NONE)
			paths_blocked(p, tg, part, why, NULL);
	}
	for (size_t i = 0; i < p->space.n; i++) {
		if (p->space.v[i].net.family == ADDR_V4)
			p->want_v4 = 1;
		else
			p->want_v6 = 1;
	}
	if (o->key != NULL)
		memcpy(key, o->key, sizeof(key));
	else if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
		log_warn("getrandom");
		return -1;
	}
	target_space_freeze(&p->space, key);
	memcpy(p->key, key, sizeof(p->key));
	p->total = p->space.total;
	p->unrouted_per = xcalloc(p->space.n ? p->space.n : 1, sizeof(*p->unrouted_per));
	if ((p->rt = o->rt) == NULL) {
		if ((p->rt = route_open()) == NULL) {
			log_warn("route: netlink");
			return -1;
		}
		p->own_rt = true;
	}
	/* a first path, so that a list with nothing to probe is told before
	 * any table exists; but a prefix without a route (or blocked but for
	 * a little) is not walked whole here, in silence: the run goes on
	 * with it */
	budget = PATHS_OPEN_SKIP_MAX;
	if ((rc = paths_walk(p, &p->first, &budget)) < 0)
		return -1;
	p->have_first = rc == 1;
	p->more_now = rc == PATHS_LATER;
	p->n = p->have_first;
	return 0;
}

int
paths_next(struct paths *p, struct path *out)
{
	uint64_t budget;
	int rc;

	if (p->have_first) {
		*out = p->first;
		p->have_first = false;
		return 1;
	}
	budget = PATHS_SKIP_MAX;
	p->more_now = false;
	if ((rc = paths_walk(p, out, &budget)) == 1)
		p->n++;
	else if (rc == PATHS_LATER)
		p->more_now = true;
	else if (rc == 0 && p->res != NULL && resolver_pending(p->res) > 0)
		rc = PATHS_LATER;
	return rc;
}

void
paths_free(struct paths *p)
{
	for (size_t i = 0; p->unrouted_per != NULL && i < p->space.n; i++)
		if (p->unrouted_per[i] > 1)
			log_warnx("%s: %llu more addresses without a route", p->space.v[i].target,
			    (unsigned long long)(p->unrouted_per[i] - 1));
	free(p->unrouted_per);
	resolver_free(p->res);
	free(p->names);
	free(p->found);
	free(p->seen.v);
	if (p->own_rt)
		route_close(p->rt);
	target_space_free(&p->space);
	memset(p, 0, sizeof(*p));
}
