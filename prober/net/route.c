/*
 * route.c -- which source address and output interface the kernel would
 * use for a destination: one RTM_GETROUTE over rtnetlink (libmnl), the
 * lookup the kernel itself makes for a packet, so the interface is where
 * replies arrive even when the source sits on lo, an unnumbered link or a
 * VRF device's slave (the interface that holds the address would be
 * wrong there).  Nothing is sent to the network.
 */
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "route.h"

#define ROUTE_NAMES 16	/* interface names remembered */

struct route_answer {
	uint32_t oif;			/* 0: none */
	struct addr prefsrc;		/* family 0: none */
	struct addr gateway;		/* family 0: on link */
	uint8_t family;
};

/* Takes RTA_OIF, RTA_PREFSRC and RTA_GATEWAY of the answer. */
static int
route_attr(const struct nlattr *a, void *data)
{
	struct route_answer *ans = data;
	size_t len = ans->family == ADDR_V4 ? 4 : 16;

	switch (mnl_attr_get_type(a)) {
	case RTA_OIF:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
			ans->oif = mnl_attr_get_u32(a);
		break;
	case RTA_PREFSRC:
		if (mnl_attr_get_payload_len(a) == len) {
			ans->prefsrc.family = ans->family;
			memcpy(ans->prefsrc.bytes, mnl_attr_get_payload(a), len);
		}
		break;
	case RTA_GATEWAY:
		if (mnl_attr_get_payload_len(a) == len) {
			ans->gateway.family = ans->family;
			memcpy(ans->gateway.bytes, mnl_attr_get_payload(a), len);
		}
		break;
	}
	return MNL_CB_OK;
}

static int
route_msg(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct rtmsg), route_attr, data) < 0 ?
	    MNL_CB_ERROR : MNL_CB_OK;
}

/* A netlink socket kept for many lookups (one per path of a large run:
 * opening a socket for each would cost more than the lookup), and the
 * names of the interfaces seen (if_indextoname is a syscall too). */
struct route {
	struct mnl_socket *nl;
	unsigned portid, seq;
	struct {
		uint32_t index;
		char name[ROUTE_IFNAMSIZ];
	} names[ROUTE_NAMES];
	int nnames;
};

struct route *
route_open(void)
{
	struct route *rt = calloc(1, sizeof(*rt));
	int saved;

	if (rt == NULL)
		return NULL;
	if ((rt->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)) == NULL)
		goto fail;
	if (mnl_socket_bind(rt->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	rt->portid = mnl_socket_get_portid(rt->nl);
	rt->seq = (unsigned)time(NULL);
	return rt;
fail:
	saved = errno;
	route_close(rt);
	errno = saved;
	return NULL;
}

void
route_close(struct route *rt)
{
	if (rt == NULL)
		return;
	if (rt->nl != NULL)
		mnl_socket_close(rt->nl);
	free(rt);
}

/* One RTM_GETROUTE for dst (from src when src is not NULL); 0 and *ans,
 * or -1 and errno (the kernel's: ENETUNREACH, EHOSTUNREACH, ...). */
static int
route_ask(struct route *rt, const struct addr *dst, const struct addr *src,
    struct route_answer *ans)
{
	char buf[8192];		/* one route answer is a few hundred bytes */
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	size_t len = dst->family == ADDR_V4 ? 4 : 16;
	unsigned seq = ++rt->seq;
	ssize_t n;

	memset(ans, 0, sizeof(*ans));
	ans->family = dst->family;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = dst->family == ADDR_V4 ? AF_INET : AF_INET6;
	rtm->rtm_dst_len = (unsigned char)(len * 8);
	mnl_attr_put(nlh, RTA_DST, len, dst->bytes);
	if (src != NULL) {
		rtm->rtm_src_len = (unsigned char)(len * 8);
		mnl_attr_put(nlh, RTA_SRC, len, src->bytes);
	}

	if (mnl_socket_sendto(rt->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	while ((n = mnl_socket_recvfrom(rt->nl, buf, sizeof(buf))) > 0) {
		int r = mnl_cb_run(buf, (size_t)n, seq, rt->portid, route_msg, ans);

		if (r == MNL_CB_ERROR) {
			/* an answer to an earlier request (one that timed
			 * out of our hands) is not this one's */
			if (errno == EPROTO || errno == ESRCH)
				continue;
			return -1;	/* errno: the kernel's answer */
		}
		if (r == MNL_CB_STOP || ans->oif != 0)
			break;
	}
	if (n < 0)
		return -1;
	if (ans->oif == 0) {
		errno = ENETUNREACH;
		return -1;
	}
	return 0;
}

/* The name of interface index, from the names seen or the kernel. */
static int
route_ifname(struct route *rt, uint32_t index, char name[ROUTE_IFNAMSIZ])
{
	char buf[IF_NAMESIZE];

	for (int i = 0; i < rt->nnames; i++)
		if (rt->names[i].index == index) {
			memcpy(name, rt->names[i].name, ROUTE_IFNAMSIZ);
			return 0;
		}
	if (if_indextoname(index, buf) == NULL || strlen(buf) >= ROUTE_IFNAMSIZ)
		return -1;
	snprintf(name, ROUTE_IFNAMSIZ, "%s", buf);
	if (rt->nnames < ROUTE_NAMES) {
		rt->names[rt->nnames].index = index;
		memcpy(rt->names[rt->nnames].name, name, ROUTE_IFNAMSIZ);
		rt->nnames++;
	}
	return 0;
}

int
route_lookup(const struct addr *dst, const struct addr *want_src, struct addr *src,
    char ifname[ROUTE_IFNAMSIZ], char *err, size_t errlen)
{
	struct route *rt = route_open();
	int rc;

	if (rt == NULL) {
		snprintf(err, errlen, "route: netlink: %s", strerror(errno));
		return -1;
	}
	rc = route_lookup_on(rt, dst, want_src, src, ifname, err, errlen);
	route_close(rt);
	return rc;
}

int
route_lookup_on(struct route *rt, const struct addr *dst, const struct addr *want_src,
    struct addr *src, char ifname[ROUTE_IFNAMSIZ], char *err, size_t errlen)
{
	char buf[ADDR_STRLEN], sbuf[ADDR_STRLEN];
	struct route_answer ans;

	if (dst->family != ADDR_V4 && dst->family != ADDR_V6) {
		snprintf(err, errlen, "route: destination has no address family");
		return -1;
	}
	if (route_ask(rt, dst, want_src, &ans) != 0) {
		if (want_src != NULL)
			snprintf(err, errlen, "route to %s from %s: %s (is it an address "
			    "of this host?)", addr_format(dst, buf, sizeof(buf)),
			    addr_format(want_src, sbuf, sizeof(sbuf)), strerror(errno));
		else
			snprintf(err, errlen, "route to %s: %s",
			    addr_format(dst, buf, sizeof(buf)), strerror(errno));
		return -1;
	}
	if (want_src != NULL) {
		*src = *want_src;
	} else if (ans.prefsrc.family != 0) {
		*src = ans.prefsrc;
	} else {
		snprintf(err, errlen, "route to %s: no source address (use --source)",
		    addr_format(dst, buf, sizeof(buf)));
		return -1;
	}
	if (route_ifname(rt, ans.oif, ifname) != 0) {
		snprintf(err, errlen, "route to %s: output interface %u has no name",
		    addr_format(dst, buf, sizeof(buf)), (unsigned)ans.oif);
		return -1;
	}
	return 0;
}

int
route_nexthop_on(struct route *rt, const struct addr *dst, struct addr *gw,
    char ifname[ROUTE_IFNAMSIZ], char *err, size_t errlen)
{
	char buf[ADDR_STRLEN];
	struct route_answer ans;

	if (dst->family != ADDR_V4 && dst->family != ADDR_V6) {
		snprintf(err, errlen, "route: destination has no address family");
		return -1;
	}
	if (route_ask(rt, dst, NULL, &ans) != 0) {
		snprintf(err, errlen, "route to %s: %s", addr_format(dst, buf, sizeof(buf)),
		    strerror(errno));
		return -1;
	}
	if (route_ifname(rt, ans.oif, ifname) != 0) {
		snprintf(err, errlen, "route to %s: output interface %u has no name",
		    addr_format(dst, buf, sizeof(buf)), (unsigned)ans.oif);
		return -1;
	}
	*gw = ans.gateway;
	return 0;
}
