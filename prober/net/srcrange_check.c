/*
 * srcrange_check.c -- a source range's addresses against the interface's
 * (srcrange_check.h).
 */
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "srcrange_check.h"

static int
cmp(const void *a, const void *b)
{
	return addr_compare(a, b);
}

int
srcrange_check(const struct srcrange *r, const char *ifname, char *err, size_t errlen)
{
	struct ifaddrs *ifa, *i;
	struct addr *have = NULL;
	size_t n = 0, cap = 0;
	char t[ADDR_STRLEN];
	int rc = 0;

	if (getifaddrs(&ifa) != 0) {
		snprintf(err, errlen, "source-range: the interfaces' addresses: %s",
		    strerror(errno));
		return -1;
	}
	for (i = ifa; i != NULL; i = i->ifa_next) {
		struct addr a;

		if (i->ifa_addr == NULL || i->ifa_name == NULL || strcmp(i->ifa_name, ifname) != 0)
			continue;
		memset(&a, 0, sizeof(a));
		if (i->ifa_addr->sa_family == AF_INET && r->first.family == ADDR_V4) {
			a.family = ADDR_V4;
			memcpy(a.bytes, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, 4);
		} else if (i->ifa_addr->sa_family == AF_INET6 && r->first.family == ADDR_V6) {
			a.family = ADDR_V6;
			memcpy(a.bytes, &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr,
			    16);
		} else
			continue;
		if (n == cap)
			have = xreallocarray(have, cap = cap ? 2 * cap : 64, sizeof(*have));
		have[n++] = a;
	}
	freeifaddrs(ifa);
	if (n > 0)
		qsort(have, n, sizeof(*have), cmp);
	for (uint32_t k = 0; k < r->n; k++) {
		struct addr a = srcrange_addr(r, k);

		if (n == 0 || bsearch(&a, have, n, sizeof(*have), cmp) == NULL) {
			snprintf(err, errlen, "source-range: %s is not an address of %s "
			    "(every source must be configured there)",
			    addr_format(&a, t, sizeof(t)), ifname);
			rc = -1;
			break;
		}
	}
	free(have);
	return rc;
}
