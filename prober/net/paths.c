/*
 * paths.c -- targets to paths: expand, resolve, block, de-duplicate, route.
 * Name resolution (getaddrinfo, which reads /etc/hosts and, in a network
 * namespace, /etc/netns/NAME/hosts) and route lookups happen here, before
 * the event loop starts; nothing here sends a packet.
 */
#include <sys/socket.h>

#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "log.h"
#include "paths.h"

static void
paths_push(struct paths *p, const struct target *tg, const struct addr *a)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->v = xreallocarray(p->v, p->cap, sizeof(*p->v));
	}
	memset(&p->v[p->n], 0, sizeof(p->v[p->n]));
	p->v[p->n].target = tg->as_given;
	p->v[p->n].host = tg->kind == TARGET_NAME ? tg->name : NULL;
	p->v[p->n].dst = *a;
	p->v[p->n].port = tg->port;
	p->n++;
}

/* Adds a unless the blocklist refuses it; counts what was refused. */
static void
paths_offer(struct paths *p, const struct paths_opts *o, const struct target *tg,
    const struct addr *a, size_t *blocked, char *why, size_t whylen)
{
	const struct blocklist_entry *entry = blocklist_check(o->bl, a);

	if (entry != NULL) {
		if (*blocked == 0) {
			char buf[ADDR_STRLEN];
			snprintf(why, whylen, "%s is in %s", addr_format(a, buf, sizeof(buf)),
			    entry->text);
		}
		(*blocked)++;
		return;
	}
	paths_push(p, tg, a);
}

static int
paths_resolve(struct paths *p, const struct paths_opts *o, const struct target *tg,
    size_t *blocked, char *why, size_t whylen)
{
	struct addrinfo hints, *res, *ai;
	struct addr seen[64];
	size_t nseen = 0;
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
		struct addr a;

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
		size_t i;
		for (i = 0; i < nseen; i++)
			if (addr_equal(&seen[i], &a))
				break;
		if (i < nseen)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = a;
		paths_offer(p, o, tg, &a, blocked, why, whylen);
	}
	freeaddrinfo(res);
	return 0;
}

static int
path_cmp(const void *a, const void *b)
{
	const struct path *x = a, *y = b;
	int c = addr_compare(&x->dst, &y->dst);

	if (c != 0)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	/* stable for equal keys: keep the first target that named it */
	return x < y ? -1 : x > y;
}

/* Sorts by (address, port) and keeps the first of each. */
static void
paths_dedup(struct paths *p)
{
	size_t w = 0;

	qsort(p->v, p->n, sizeof(*p->v), path_cmp);
	for (size_t r = 0; r < p->n; r++) {
		if (w > 0 && addr_equal(&p->v[w - 1].dst, &p->v[r].dst) &&
		    p->v[w - 1].port == p->v[r].port)
			continue;
		p->v[w++] = p->v[r];
	}
	p->n = w;
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

/* Fills src and iface of every path; drops the ones without a route. */
static int
paths_route(struct paths *p, const struct paths_opts *o)
{
	size_t w = 0;

	for (size_t r = 0; r < p->n; r++) {
		struct path *pa = &p->v[r];
		const struct addr *forced = pa->dst.family == ADDR_V4 ? o->source4 : o->source6;
		char ifname[ROUTE_IFNAMSIZ], err[256], buf[ADDR_STRLEN];

		if (route_lookup(&pa->dst, forced, &pa->src, ifname, err, sizeof(err)) != 0) {
			log_warnx("%s: %s: %s", pa->target,
			    addr_format(&pa->dst, buf, sizeof(buf)), err);
			p->unrouted++;
			continue;
		}
		pa->iface = paths_iface(p, o->ifname ? o->ifname : ifname);
		if (pa->iface < 0) {
			log_warnx("targets are reached through more than %d interfaces; "
			    "use --interface any", PATHS_MAX_IFACES);
			return -1;
		}
		if (pa->dst.family == ADDR_V4)
			p->want_v4 = 1;
		else
			p->want_v6 = 1;
		p->v[w++] = *pa;
	}
	p->n = w;
	return 0;
}

int
paths_build(struct paths *p, const struct targets *t, const struct paths_opts *o)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < t->n; i++) {
		const struct target *tg = &t->v[i];
		size_t blocked = 0;
		char why[160] = "";

		if (tg->kind == TARGET_NAME) {
			if (paths_resolve(p, o, tg, &blocked, why, sizeof(why)) != 0)
				p->unresolved++;
		} else {
			uint64_t n = target_count(tg);
			for (uint64_t k = 0; k < n; k++) {
				struct addr a;
				if (target_address(tg, k, &a) == 0)
					paths_offer(p, o, tg, &a, &blocked, why, sizeof(why));
			}
		}
		if (blocked > 0) {
			p->blocked_targets++;
			if (blocked == 1)
				log_warnx("%s: blocked: %s; --allow lifts it", tg->as_given, why);
			else
				log_warnx("%s: blocked: %zu addresses, e.g. %s; --allow lifts it",
				    tg->as_given, blocked, why);
		}
	}
	paths_dedup(p);
	return paths_route(p, o);
}

void
paths_free(struct paths *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
