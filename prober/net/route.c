/*
 * route.c -- which source address and interface the kernel would use for a
 * destination.  A UDP socket connect()ed to the destination makes the kernel
 * run its route lookup and bind a source address; nothing is sent.  The
 * interface is the one getifaddrs() lists with that address.
 */
#include <sys/socket.h>

#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "route.h"

/* The discard port: any non-zero port will do, connect() sends nothing. */
#define ROUTE_PROBE_PORT 9

/* Fills ss with dst as a socket address; returns its length, 0 if unset. */
static socklen_t
route_sockaddr(const struct addr *dst, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (dst->family == ADDR_V4) {
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(ROUTE_PROBE_PORT);
		memcpy(&sin.sin_addr, dst->bytes, 4);
		memcpy(ss, &sin, sizeof(sin));
		return sizeof(sin);
	}
	if (dst->family == ADDR_V6) {
		struct sockaddr_in6 sin6;

		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(ROUTE_PROBE_PORT);
		memcpy(&sin6.sin6_addr, dst->bytes, 16);
		memcpy(ss, &sin6, sizeof(sin6));
		return sizeof(sin6);
	}
	return 0;
}

/* The address of a socket address of the family asked for, or -1. */
static int
route_from_sockaddr(const struct sockaddr *sa, uint8_t family, struct addr *out)
{
	memset(out, 0, sizeof(*out));
	if (sa == NULL)
		return -1;
	if (family == ADDR_V4 && sa->sa_family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, sa, sizeof(sin));
		out->family = ADDR_V4;
		memcpy(out->bytes, &sin.sin_addr, 4);
		return 0;
	}
	if (family == ADDR_V6 && sa->sa_family == AF_INET6) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, sa, sizeof(sin6));
		out->family = ADDR_V6;
		memcpy(out->bytes, &sin6.sin6_addr, 16);
		return 0;
	}
	return -1;
}

/* The name of the interface that holds src, or -1. */
static int
route_ifname(const struct addr *src, char ifname[ROUTE_IFNAMSIZ])
{
	struct ifaddrs *ifa, *i;
	struct addr a;
	int found = -1;

	if (getifaddrs(&ifa) == -1)
		return -1;
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (route_from_sockaddr(i->ifa_addr, src->family, &a) == -1)
			continue;
		if (!addr_equal(&a, src))
			continue;
		if (strlen(i->ifa_name) >= ROUTE_IFNAMSIZ)
			continue;
		snprintf(ifname, ROUTE_IFNAMSIZ, "%s", i->ifa_name);
		found = 0;
		break;
	}
	freeifaddrs(ifa);
	return found;
}

int
route_lookup(const struct addr *dst, struct addr *src, char ifname[ROUTE_IFNAMSIZ],
    char *err, size_t errlen)
{
	struct sockaddr_storage ss, local;
	socklen_t sslen, llen = sizeof(local);
	char buf[ADDR_STRLEN], sbuf[ADDR_STRLEN];
	int fd;

	sslen = route_sockaddr(dst, &ss);
	if (sslen == 0) {
		snprintf(err, errlen, "route: destination has no address family");
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, errlen, "route: socket: %s", strerror(errno));
		return -1;
	}
	/* connect() on UDP only binds a route and a source address. */
	if (connect(fd, (struct sockaddr *)&ss, sslen) == -1) {
		snprintf(err, errlen, "route to %s: %s",
		    addr_format(dst, buf, sizeof(buf)), strerror(errno));
		close(fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&local, &llen) == -1) {
		snprintf(err, errlen, "route: getsockname: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (route_from_sockaddr((struct sockaddr *)&local, dst->family, src) == -1) {
		snprintf(err, errlen, "route to %s: no source address",
		    addr_format(dst, buf, sizeof(buf)));
		return -1;
	}
	if (route_ifname(src, ifname) == -1) {
		snprintf(err, errlen, "route to %s: no interface holds source %s",
		    addr_format(dst, buf, sizeof(buf)),
		    addr_format(src, sbuf, sizeof(sbuf)));
		return -1;
	}
	return 0;
}
