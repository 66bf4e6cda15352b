/*
 * paths.c -- targets to paths, one at a time: the target space (blocked
 * parts and duplicates, tspace.c), names resolved, and the route of each
 * path asked when it is handed out.  Name resolution (getaddrinfo, which
 * reads /etc/hosts and, in a network namespace, /etc/netns/NAME/hosts)
 * happens in paths_open, before the event loop starts; nothing here sends
 * a packet.
 */
#include <sys/random.h>
#include <sys/socket.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "log.h"
#include "paths.h"

/* One line per target that the blocklist refuses (all or part of). */
static void
paths_blocked(struct paths *p, const struct target *tg, enum blocklist_part part,
    const struct blocklist_entry *why, const struct addr *a)
{
	char buf[ADDR_STRLEN];

	p->blocked_targets++;
	if (part == BLOCKLIST_SOME)
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

/* A name's addresses into the space, each once. */
static int
paths_resolve(struct paths *p, const struct target *tg, size_t entry)
{
	struct addrinfo hints, *res, *ai;
	struct addr seen[64];
	size_t nseen = 0, blocked = 0;
	const struct blocklist_entry *first_why = NULL;
	struct addr first_blocked;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(tg->name, NULL, &hints, &res);
	if (rc != 0) {
		log_warnx("%s: cannot resolve: %s", tg->as_given, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		const struct blocklist_entry *why;
		struct addr a;
		size_t i;

		memset(&a, 0, sizeof(a));
		if (ai->ai_family == AF_INET) {
			struct sockaddr_in sin;
			memcpy(&sin, ai->ai_addr, sizeof(sin));
			a.family = ADDR_V4;
			memcpy(a.bytes, &sin.sin_addr, 4);
		} else if (ai->ai_family == AF_INET6) {
			struct sockaddr_in6 sin6;
			memcpy(&sin6, ai->ai_addr, sizeof(sin6));
			a.family = ADDR_V6;
			memcpy(a.bytes, &sin6.sin6_addr, 16);
		} else
			continue;
		for (i = 0; i < nseen; i++)
			if (addr_equal(&seen[i], &a))
				break;
		if (i < nseen)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = a;
		if (tspace_add(&p->space, tg, entry, &a, &why) == BLOCKLIST_ALL) {
			if (blocked++ == 0) {
				first_why = why;
				first_blocked = a;
			}
		}
	}
	freeaddrinfo(res);
	if (blocked == 1)
		paths_blocked(p, tg, BLOCKLIST_ALL, first_why, &first_blocked);
	else if (blocked > 1) {
		char buf[ADDR_STRLEN];

		p->blocked_targets++;
		log_warnx("%s: blocked: %zu addresses, e.g. %s is in %s; --allow lifts it",
		    tg->as_given, blocked, addr_format(&first_blocked, buf, sizeof(buf)),
		    first_why->text);
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

/* The next address of the space that has a route, as a path. */
static int
paths_walk(struct paths *p, struct path *out)
{
	struct tspace_rec *rec;
	struct addr a;

	while (tspace_next(&p->space, &rec, &a) == 1) {
		const struct addr *forced = a.family == ADDR_V4 ? p->source4 : p->source6;
		char ifname[ROUTE_IFNAMSIZ], err[256];
		size_t ri = (size_t)(rec - p->space.v);

		memset(out, 0, sizeof(*out));
		if (route_lookup_on(p->rt, &a, forced, &out->src, ifname, err,
		    sizeof(err)) != 0) {
			/* a prefix without a route would be a line per
			 * address: the first is told, the rest counted */
			if (p->unrouted_per[ri]++ == 0)
				log_warnx("%s: %s", rec->target, err);
			p->unrouted++;
			continue;
		}
		out->iface = paths_iface(p, p->ifname != NULL ? p->ifname : ifname);
		if (out->iface < 0) {
			log_warnx("targets are reached through more than %d interfaces; "
			    "use --interface any", PATHS_MAX_IFACES);
			return -1;
		}
		out->target = rec->target;
		out->host = rec->host;
		out->dst = a;
		out->port = rec->port;
		return 1;
	}
	return 0;
}

int
paths_open(struct paths *p, const struct targets *t, const struct paths_opts *o)
{
	uint8_t key[SIPHASH_KEY_LEN];
	int rc;

	memset(p, 0, sizeof(*p));
	p->source4 = o->source4;
	p->source6 = o->source6;
	p->ifname = o->ifname;
	tspace_init(&p->space, o->bl);
	for (size_t i = 0; i < t->n; i++) {
		const struct target *tg = &t->v[i];
		const struct blocklist_entry *why;
		enum blocklist_part part;

		if (tg->kind == TARGET_NAME) {
			if (paths_resolve(p, tg, i) != 0)
				p->unresolved++;
			continue;
		}
		part = tspace_add(&p->space, tg, i, NULL, &why);
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
	tspace_freeze(&p->space, key);
	p->total = p->space.total;
	p->unrouted_per = xcalloc(p->space.n ? p->space.n : 1, sizeof(*p->unrouted_per));
	if ((p->rt = route_open()) == NULL) {
		log_warn("route: netlink");
		return -1;
	}
	if ((rc = paths_walk(p, &p->first)) < 0)
		return -1;
	p->have_first = rc == 1;
	p->n = p->have_first;
	return 0;
}

int
paths_next(struct paths *p, struct path *out)
{
	int rc;

	if (p->have_first) {
		*out = p->first;
		p->have_first = false;
		return 1;
	}
	if ((rc = paths_walk(p, out)) == 1)
		p->n++;
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
	route_close(p->rt);
	tspace_free(&p->space);
	memset(p, 0, sizeof(*p));
}
