/*
 * route.h -- asks the kernel which source address and output interface it
 * would use for a destination (rtnetlink's route lookup; nothing is sent),
 * for the --source and --interface defaults: the capture listens on the
 * output interface, where replies arrive.
 */
#ifndef SCALEPROBE_ROUTE_H
#define SCALEPROBE_ROUTE_H

#include <stddef.h>

#include "addr.h"

#define ROUTE_IFNAMSIZ 16

struct route;

/* A handle for many lookups (one netlink socket); NULL and errno on
 * failure. */
struct route *route_open(void);
void route_close(struct route *rt);

/* The route to dst, from want_src when not NULL (--source; policy routing
 * may pick another path for it): the source address (want_src, or the
 * route's preferred source) in *src and the output interface's name.
 * 0, or -1 with a one-line reason in err (no route, no source). */
int route_lookup_on(struct route *rt, const struct addr *dst, const struct addr *want_src,
    struct addr *src, char ifname[ROUTE_IFNAMSIZ], char *err, size_t errlen);
/* The same with a socket of its own, for a single lookup. */
int route_lookup(const struct addr *dst, const struct addr *want_src, struct addr *src,
    char ifname[ROUTE_IFNAMSIZ], char *err, size_t errlen);

/* The next hop to dst: the gateway in *gw (family 0 when dst is on the
 * link) and the output interface, as 'ip route get' shows them (advice's
 * per-route command).  0, or -1 with a one-line reason in err. */
int route_nexthop_on(struct route *rt, const struct addr *dst, struct addr *gw,
    char ifname[ROUTE_IFNAMSIZ], char *err, size_t errlen);

#endif
