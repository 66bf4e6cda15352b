/*
 * paths.h -- from targets as the user wrote them to the list of paths to
 * probe: prefixes expanded, names resolved (A and AAAA, each address its
 * own path), the special-purpose blocklist applied (one stderr line per
 * blocked target), duplicates removed, source address and interface of
 * each path found from its route.
 */
#ifndef SCALEPROBE_PATHS_H
#define SCALEPROBE_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "route.h"
#include "targets.h"

struct blocklist;

struct path {
	const char *target;		/* as_given of its target */
	const char *host;		/* the target's name, NULL for addresses */
	struct addr dst, src;
	uint16_t port;
	int iface;			/* index into paths.ifnames */
};

#define PATHS_MAX_IFACES 16

struct paths {
	struct path *v;
	size_t n, cap;
	char ifnames[PATHS_MAX_IFACES][ROUTE_IFNAMSIZ];
	int nifaces;
	int want_v4, want_v6;		/* families present */
	size_t blocked_targets;		/* targets with a blocked address */
	size_t unresolved;		/* names that gave no address */
	size_t unrouted;		/* addresses with no route */
};

struct paths_opts {
	const struct blocklist *bl;
	const struct addr *source4, *source6;	/* --source, or NULL */
	const char *ifname;			/* --interface, or NULL */
};

/* Builds the list.  Messages for blocked, unresolved and unrouted targets
 * go to stderr, one line each.  Returns 0, or -1 on an error that stops the
 * run (too many interfaces), with a message printed. */
int paths_build(struct paths *p, const struct targets *t, const struct paths_opts *o);
void paths_free(struct paths *p);

#endif
