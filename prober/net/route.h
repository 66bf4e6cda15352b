/*
 * route.h -- asks the kernel which source address and interface it would use
 * for a destination (a connected UDP socket, which sends nothing, and
 * getifaddrs), for --source / --interface defaults.
 */
#ifndef SCALEPROBE_ROUTE_H
#define SCALEPROBE_ROUTE_H

#include <stddef.h>

#include "addr.h"

#define ROUTE_IFNAMSIZ 16

/* 0, or -1 with a reason in err (no route, no interface with src). */
int route_lookup(const struct addr *dst, struct addr *src, char ifname[ROUTE_IFNAMSIZ],
    char *err, size_t errlen);

#endif
