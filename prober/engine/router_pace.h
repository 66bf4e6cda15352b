/*
 * router_pace.h -- the trace's budget per router, shared by the
 * TTL-limited probes of every path in flight, so that a cycle of many
 * paths through the same first hops does not ask a router for more ICMP
 * errors than it answers.
 *
 * A probe is paid from the bucket (hop_pace.h) of the router it expires
 * at.  Which router that is, a path's trace learns from the first error
 * that answers the TTL (any variant): from then on the key is that
 * router's address.  Before, the key is the distance, the TTL -- and while
 * every error at that distance came from one router, the distance is that
 * router: the routers near the
 * vantage, which every path shares, are one budget from their first
 * answer on.  Once a second router answers at a distance, paths there
 * diverge and the distance keeps a bucket of its own, which adapts to the
 * routers answering it; an answer to a probe paid by distance is charged
 * to its router's bucket too, so that the two keys of one router do not
 * ask it for twice its budget: its own probes wait for the debt to clear.
 * Nothing in an ICMP error ties a router's IPv4 address to its IPv6 one;
 * but a distance at which neither family has heard two addresses is taken
 * for one router in both: one distance bucket, and its two addresses one
 * key, named by the first heard there (a router that limits its errors in
 * all is not asked for twice its rate; a Linux router's two per-family
 * budgets are paced as one, which costs time, not places).  Once a family
 * hears a second address there, the distance's families go apart.
 *
 * A router limits its errors per destination, and each of our source
 * addresses (--source-range) is one: buckets are keyed by (router, source),
 * the first source of each family keyed as none (one source per family is
 * one budget per router, as without a range).  Once a second source is
 * seen, each router's probes over all its sources are also held to its
 * global limit (ROUTER_PACE_ALL_RATE).  A source's bucket new to a router
 * whose other sources have lost probes there starts from the slowest of
 * their rates, not in slow start (hop_bucket_inherit): the limit per
 * destination is the router's, the same for every source.
 *
 * The routers' buckets live in a table of ROUTER_PACE_ROUTERS; when it is
 * full, a router whose bucket is idle (nothing waiting, full) is forgotten,
 * the least recently used first, and when none is, a new router is paid by
 * distance.  Pure: time is handed in.
 */
#ifndef SCALEPROBE_ROUTER_PACE_H
#define SCALEPROBE_ROUTER_PACE_H

#include <stdbool.h>
#include <stdint.h>

#include "addr.h"
#include "hop_pace.h"

#define ROUTER_PACE_MAX_TTL 31
/* Buckets: (router, source) pairs; 3 routers of 256 sources fit with room */
#define ROUTER_PACE_ROUTERS 1024
#define ROUTER_PACE_HASH 2048		/* chain heads, a power of two */

/* A bucket: by router address (addr.family set, ttl 0) or by distance
 * (ttl 1..ROUTER_PACE_MAX_TTL, addr.family the probe's family, bytes 0). */
struct router_key {
	struct addr addr;
	int ttl;
	struct addr src;		/* the prober's source address the
					   probe went from: a router keeps a
					   budget per destination of its
					   errors, so each source has its own
					   (family 0: none given) */
};

/* Under Linux's icmp_msgs_per_sec (1000) and icmp_msgs_burst (50): what a
 * router sends in all, whatever the destination.  Once probes go from more
 * than one source, a router's probes over all its sources are held to this
 * too (each source's own bucket learns the per-destination limit).  With
 * a margin: since Linux 6.x each error takes 0 to 2 of the global tokens
 * at random, so a steady 1000/s empties the burst by chance (the mix bench
 * at 1000/s, 50: 7-31 errors a router lost to the global limit, one
 * broken path traced inexactly). */
#define ROUTER_PACE_ALL_RATE 800
#define ROUTER_PACE_ALL_BURST 25
#define ROUTER_PACE_ALL 64		/* routers capped at once */

struct router_all {
	struct addr addr;		/* the router's canonical address */
	int64_t credit_ns;		/* time's worth of tokens at the rate */
	uint64_t last;
	bool live;
};

struct router_entry {
	struct router_key key;
	struct hop_bucket b;
	uint64_t used;			/* last use, for forgetting */
	int next;			/* hash chain, -1 ends */
	bool live;
};

struct router_pace {
	struct hop_pace_config cfg;
	struct hop_bucket dist[2][ROUTER_PACE_MAX_TTL + 1];	/* [v6][ttl] */
	struct router_entry r[ROUTER_PACE_ROUTERS];
	int head[ROUTER_PACE_HASH];
	struct addr only[2][ROUTER_PACE_MAX_TTL + 1];	/* the router each
						   distance has heard from */
	bool many[2][ROUTER_PACE_MAX_TTL + 1];	/* ... or more than one */
	struct addr name[ROUTER_PACE_MAX_TTL + 1];	/* the first address
						   heard at each distance */
	struct router_all all[ROUTER_PACE_ALL];	/* per router, over sources */
	struct addr first_src[2];	/* the first source seen per family:
					   keyed as no source, so that one
					   source per family is the one budget
					   per router of before ... */
	bool many_src;			/* ... and whether another came */
	int nlive;
	uint64_t deadline;		/* no probe is lost before this */
	uint64_t lost, answered, charged, forgotten;	/* for tests and -v */
};

struct router_key router_key_ttl(int family, int ttl);
struct router_key router_key_addr(const struct addr *a);
/* k for probes from source src (NULL: none) */
struct router_key router_key_from(struct router_key k, const struct addr *src);

/* cfg as hop_pace_check wants.  0, or -1 for a bad config. */
int router_pace_init(struct router_pace *p, const struct hop_pace_config *cfg);

/* The key a probe with this TTL is paid from: for a router, k itself, or
 * its distance when the table has no room for it; for a distance, the
 * one router heard there so far, if any (and room), else k. */
struct router_key router_pace_key(struct router_pace *p, struct router_key k, int ttl,
    uint64_t now);
/* The router a probe paid by router was paid from: the one the path had
 * learned (learned), else the one its distance stood for. */
struct router_key router_pace_paid(const struct router_pace *p, int family, int ttl,
    const struct addr *learned, const struct addr *src);
/* Whether a probe paid from k may go at now. */
bool router_pace_can(struct router_pace *p, struct router_key k, uint64_t now);
/* A probe paid from k went; repeat: the same probe (path, variant, TTL)
 * went before and was not answered. */
void router_pace_sent(struct router_pace *p, struct router_key k, uint64_t now, bool repeat);
/* A probe with this TTL paid from k and sent at `sent` was answered;
 * from: the router that answered (an ICMP error), charged when it is not
 * k, or NULL (the destination). */
void router_pace_answered(struct router_pace *p, struct router_key k, int ttl,
    const struct addr *from, uint64_t now, uint64_t sent);
/* A probe paid from k went that nobody waits for: its silence says
 * nothing of the router's budget (its variant is dropped on the way).  Its
 * token only: it holds no place among the HOP_PACE_OUTSTANDING waiting and
 * is never lost -- a box dropping 1 % of a scan's paths filled its
 * router's places with probes that waited a timeout each. */
void router_pace_spent(struct router_pace *p, struct router_key k, uint64_t now);
/* Such a probe was answered: as router_pace_answered, but nothing waited. */
void router_pace_answered_spent(struct router_pace *p, struct router_key k, int ttl,
    const struct addr *from, uint64_t now);
/* Counts the probes unanswered for loss_ns as lost. */
void router_pace_expire(struct router_pace *p, uint64_t now);
/* When a probe paid from k may go: now or later. */
uint64_t router_pace_when(struct router_pace *p, struct router_key k, uint64_t now);
/* k's rate now, probes per second; 0 for a router not in the table. */
double router_pace_rate(struct router_pace *p, struct router_key k);

#endif
