/*
 * resolve.h -- host names to addresses, many at once, inside the event
 * loop: libevent's evdns (A and AAAA together, the hosts file first, then
 * the nameservers of resolv.conf), so that 100,000 names do not wait for
 * each other, nor the first SYN for the last name.  The CLI's probe
 * resolves its target names here; the daemon is meant to as well.
 *
 * Queries are queued and at most max_pending run at once (evdns keeps its
 * own limit of packets in flight below that); each name's callback comes
 * once, from the event loop, never from inside resolver_query.
 */
#ifndef SCALEPROBE_RESOLVE_H
#define SCALEPROBE_RESOLVE_H

#include <stddef.h>

#include "addr.h"

struct event_base;
struct resolver;

#define RESOLVE_MAX_ADDRS 64		/* addresses kept per name */

struct resolver_config {
	const char *resolv_conf;	/* NULL: /etc/resolv.conf (in a network
					   namespace, ip netns exec's view) */
	const char *hosts;		/* NULL: /etc/hosts */
	const char *nameserver;		/* "ADDR" or "ADDR:PORT" in place of
					   resolv.conf's; NULL: those */
	size_t max_pending;		/* names at once; 0: 256 */
};

/* A name's answer: its addresses (A and AAAA, each once, at most
 * RESOLVE_MAX_ADDRS), or n == 0 and a one-line reason. */
typedef void (*resolver_cb)(void *arg, void *tag, const struct addr *addrs, size_t n,
    const char *error);

/* NULL and a one-line reason in err when evdns cannot be set up. */
struct resolver *resolver_new(struct event_base *base, const struct resolver_config *c,
    char *err, size_t errlen);

/* Queues name (which must outlive the query); cb(arg, tag, ...) once. */
void resolver_query(struct resolver *r, const char *name, void *tag, resolver_cb cb,
    void *arg);

/* Names queued or being resolved. */
size_t resolver_pending(const struct resolver *r);

/* Cancels what is pending (no callback is called) and frees r. */
void resolver_free(struct resolver *r);

#endif
