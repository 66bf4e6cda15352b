/*
 * paths.h -- from targets as the user wrote them to the paths to probe,
 * one at a time as the engine has room for them: prefixes walked lazily
 * in a keyed pseudo-random order (target_space.h), names resolved while the
 * run goes on (resolve.h: A and AAAA, each address its own path, handed
 * out as they come), the special-purpose blocklist applied (one
 * stderr line per blocked target), duplicates skipped, and the source
 * address and interface of each path found from its route when it is
 * handed out.  Memory is per target, never per address: a /8 costs what
 * a single address does.
 */
#ifndef SCALEPROBE_PATHS_H
#define SCALEPROBE_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "route.h"
#include "targets.h"
#include "target_space.h"

struct blocklist;
struct event_base;
struct resolver;

/* A name's address waiting to be handed out. */
struct paths_found {
	const struct target *tg;
	struct addr a;
};

/* The (address, port) pairs names gave so far: each is probed once. */
struct paths_seen {
	struct paths_seen_slot {
		struct addr a;
		uint16_t port;
		bool used;
	} *v;
	size_t n, cap;			/* cap: a power of two, or 0 */
};

struct path {
	const char *target;		/* as_given of its target */
	const char *host;		/* the target's name, NULL for addresses */
	struct addr dst, src;
	uint16_t port;
	int iface;			/* index into paths.ifnames */
};

#define PATHS_MAX_IFACES 16

struct paths {
	size_t n;			/* paths handed out so far (the first is
					   found by paths_open) */
	uint64_t total;			/* addresses of the targets: the most
					   paths there can be */
	char ifnames[PATHS_MAX_IFACES][ROUTE_IFNAMSIZ];
	int nifaces;			/* interfaces of the paths so far */
	int want_v4, want_v6;		/* families present */
	size_t blocked_targets;		/* targets with a blocked address */
	size_t unresolved;		/* names that gave no address */
	size_t unrouted;		/* addresses with no route */

	/* the walk (paths.c) */
	struct target_space space;
	struct route *rt;
	bool own_rt;			/* rt opened by paths_open: closed by
					   paths_free */
	const struct addr *source4, *source6;
	const char *ifname;
	struct path first;		/* found by paths_open, not yet handed out */
	bool have_first;
	uint64_t *unrouted_per;		/* per record of space */

	uint8_t key[SIPHASH_KEY_LEN];	/* the order's */

	/* names (paths_resolve) */
	const struct target **names;
	size_t nnames;
	const struct blocklist *bl;
	struct resolver *res;
	struct paths_found *found;	/* ring of names' addresses */
	size_t found_head, found_n, found_cap;
	struct paths_seen seen;
	void (*ready)(void *arg);	/* a name's addresses came */
	void *ready_arg;
	bool more_now;			/* the last PATHS_LATER was a pause in a
					   long skip: ask again at once */
};

struct paths_opts {
	const struct blocklist *bl;
	const struct addr *source4, *source6;	/* --source, or NULL */
	const char *ifname;			/* --interface, or NULL */
	const uint8_t *key;			/* the order's key (16 bytes); NULL:
						   a random one */
	struct route *rt;			/* the route lookups' netlink socket,
						   shared by every walk of a daemon
						   (one descriptor, not one per
						   target); NULL: one of its own */
};

/* Prepares the walk and looks for its first path (n == 0, nnames == 0 and
 * !more_now say there is nothing to probe; with more_now, the walk passed
 * over many addresses without finding one yet and goes on in the run).  Messages for blocked targets go to stderr,
 * one line each.  Returns 0, or -1 on an error that stops the run, with a
 * message printed.  t and o->bl must outlive p. */
int paths_open(struct paths *p, const struct targets *t, const struct paths_opts *o);

/* Starts resolving the names of the targets in base's loop; ready(arg) is
 * called whenever a name's answer came (paths_next may have more).
 * Unresolved and blocked names get a stderr line each.  Returns 0, or -1
 * with a message printed. */
int paths_resolve(struct paths *p, struct event_base *base, void (*ready)(void *arg),
    void *arg);

/* The next path: 1 and *out; PATHS_LATER when none is there yet: a name
 * is still being resolved (ready() tells when to ask again), or, with
 * more_now set, thousands of addresses were passed over (blocked, no
 * route) and the caller lets its loop run before asking again; 0 when
 * there are no more; -1 on an error that stops the run (too many
 * interfaces), with a message printed.  An address without a route is
 * skipped with a message (one per target, the rest counted at
 * paths_free). */
#define PATHS_LATER 2
int paths_next(struct paths *p, struct path *out);

void paths_free(struct paths *p);

#endif
