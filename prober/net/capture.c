/*
 * capture.c -- the only libpcap user: opens one interface with explicit
 * snaplen and buffer size, immediate mode, inbound only, the caller's BPF
 * filter, non-blocking; registers its selectable fd as a persistent
 * libevent read event (a timer when the device has none, or when libpcap
 * says a select() on it needs a timeout); strips the link header and hands
 * the L3 packet to the callback.  No parsing beyond the link header here.
 */
#include <pcap/pcap.h>
#include <event2/event.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

#define CAPTURE_SNAPLEN		256
#define CAPTURE_BUFFER		(32 * 1024 * 1024)
#define CAPTURE_BURST		256	/* packets per pcap_dispatch call */
#define CAPTURE_ROUNDS		64	/* dispatch calls per event, then yield */
#define CAPTURE_POLL_US		10000	/* timer period without a required one */

/* DLT_* values not every libpcap names. */
#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2		276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4		228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6		229
#endif

#define ETHERTYPE_V4		0x0800
#define ETHERTYPE_V6		0x86dd

struct capture {
	pcap_t		*p;
	int		 dlt;
	struct event	*ev;		/* read event on the selectable fd */
	struct event	*tick;		/* timer when a select() is not enough */
	capture_fn	 fn;
	void		*arg;
	uint64_t	 received;
	uint64_t	 errors;
	bool		 dead;		/* a read failed: no more reads */
	char		 lasterr[PCAP_ERRBUF_SIZE];
};

static uint16_t
capture_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Ethertype of an IP packet, 0 otherwise. */
static int
capture_ethertype_ip(uint16_t type)
{
	return type == ETHERTYPE_V4 || type == ETHERTYPE_V6;
}

/* The address families the BSD loopback / DLT_NULL headers may carry. */
static int
capture_af_ip(uint32_t af)
{
	/* AF_INET everywhere; AF_INET6 as Linux (10), *BSD (24, 28, 30) */
	return af == 2 || af == 10 || af == 24 || af == 28 || af == 30;
}

/*
 * Whether an IP header of the ethertype's version starts at off.  A frame
 * can claim IP and hold something else: a double-tagged frame on a host
 * without VLAN devices reaches a cooked ("any") capture labelled IPv6 with
 * the inner tag still in front of the header.  Returns off, or -1.
 */
static int
capture_ip_follows(const uint8_t *pkt, size_t len, size_t off, uint16_t type)
{
	if (!capture_ethertype_ip(type) || len <= off)
		return -1;
	if (pkt[off] >> 4 != (type == ETHERTYPE_V4 ? 4 : 6))
		return -1;
	return (int)off;
}

/* off, when an IPv4 or IPv6 header (by its version) starts there; or -1. */
static int
capture_ip_version(const uint8_t *pkt, size_t len, size_t off)
{
	if (len <= off || (pkt[off] >> 4 != 4 && pkt[off] >> 4 != 6))
		return -1;
	return (int)off;
}

/*
 * Length of the headers up to an IP packet whose ethertype sits at off,
 * skipping 802.1Q, 802.1ad and old-QinQ tags (libpcap puts a tag the NIC
 * took off back into the frame); -1 for anything but IPv4 or IPv6.
 */
static int
capture_ether_len(const uint8_t *pkt, size_t len, size_t off)
{
	uint16_t type;
	int tags;

	if (len < off + 2)
		return -1;
	type = capture_get16(pkt + off);
	for (tags = 0; tags < 2 && (type == 0x8100 || type == 0x88a8 ||
	    type == 0x9100); tags++) {
		off += 4;
		if (len < off + 2)
			return -1;
		type = capture_get16(pkt + off);
	}
	return capture_ip_follows(pkt, len, off + 2, type);
}

/*
 * Length of the link header before an IPv4 or IPv6 packet, or -1 when the
 * frame carries something else (ARP, LLDP) or is too short.
 */
static int
capture_link_len(int dlt, const uint8_t *pkt, size_t len)
{
	uint32_t af;

	switch (dlt) {
	case DLT_EN10MB:
		return capture_ether_len(pkt, len, 12);
	case DLT_LINUX_SLL:
		/* packet type, ARPHRD, addr len, addr[8], protocol; libpcap
		 * puts a VLAN tag after it as in Ethernet */
		return capture_ether_len(pkt, len, 14);
	case DLT_LINUX_SLL2:
		/* protocol, reserved, ifindex, ARPHRD, type, addr len, addr[8] */
		if (len < 20)
			return -1;
		return capture_ip_follows(pkt, len, 20, capture_get16(pkt));
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return 0;
#ifdef DLT_LOOP
	case DLT_LOOP:
		/* network byte order */
		if (len < 4)
			return -1;
		af = (uint32_t)pkt[0] << 24 | (uint32_t)pkt[1] << 16 |
		    (uint32_t)pkt[2] << 8 | pkt[3];
		return capture_af_ip(af) ? capture_ip_version(pkt, len, 4) : -1;
#endif
	case DLT_NULL:
		/* host byte order of the capturing machine */
		if (len < 4)
			return -1;
		memcpy(&af, pkt, 4);
		return capture_af_ip(af) ? capture_ip_version(pkt, len, 4) : -1;
	default:
		return -1;
	}
}

/* The link types capture_link_len() knows. */
static int
capture_dlt_known(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_NULL:
#ifdef DLT_LOOP
	case DLT_LOOP:
#endif
		return 1;
	default:
		return 0;
	}
}

static void
capture_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (void *)user;	/* ours, from capture_drain */
	int off;

	off = capture_link_len(c->dlt, bytes, h->caplen);
	if (off < 0)
		return;
	c->received++;
	c->fn(c->arg, bytes + off, h->caplen - (size_t)off, &h->ts);
}

void
capture_drain(struct capture *c)
{
	int i, n;

	/* bounded: a flood must not keep the loop from timers and sends;
	 * the persistent event fires again while data is pending */
	if (c->dead)
		return;
	for (i = 0; i < CAPTURE_ROUNDS; i++) {
		n = pcap_dispatch(c->p, CAPTURE_BURST, capture_packet, (u_char *)c);
		if (n == 0)
			return;
		if (n == PCAP_ERROR) {
			/* the interface went down or away: its descriptor stays
			 * readable with the error, so reading stops here rather
			 * than spinning; the caller reads capture_error */
			c->errors++;
			c->dead = true;
			snprintf(c->lasterr, sizeof(c->lasterr), "%s", pcap_geterr(c->p));
			if (c->ev != NULL)
				event_del(c->ev);
			if (c->tick != NULL)
				event_del(c->tick);
			return;
		}
		if (n == PCAP_ERROR_BREAK)
			return;
	}
}

static void
capture_event(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	capture_drain(arg);
}

/* Sets the reason from pcap's own error or status and returns NULL. */
static struct capture *
capture_fail(struct capture *c, char *err, size_t errlen, const char *what, int status)
{
	const char *why = status != 0 && status != PCAP_ERROR ?
	    pcap_statustostr(status) : pcap_geterr(c->p);

	snprintf(err, errlen, "capture: %s: %s", what, why);
	capture_close(c);
	return NULL;
}

struct capture *
capture_open(struct event_base *base, const struct capture_config *cfg,
    capture_fn fn, void *arg, char *err, size_t errlen)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	const struct timeval *req;
	struct bpf_program prog;
	struct timeval tv;
	struct capture *c;
	int fd, r;

	if ((c = calloc(1, sizeof(*c))) == NULL) {
		snprintf(err, errlen, "capture: %s", strerror(errno));
		return NULL;
	}
	c->fn = fn;
	c->arg = arg;
	if ((c->p = pcap_create(cfg->ifname, errbuf)) == NULL) {
		snprintf(err, errlen, "capture: %s: %s", cfg->ifname, errbuf);
		free(c);
		return NULL;
	}
	/* explicit geometry: libpcap's defaults (snaplen 262144 in immediate
	 * mode) leave a ring of a few dozen frames */
	if ((r = pcap_set_snaplen(c->p, cfg->snaplen > 0 ? cfg->snaplen :
	    CAPTURE_SNAPLEN)) != 0)
		return capture_fail(c, err, errlen, "snaplen", r);
	if ((r = pcap_set_buffer_size(c->p, cfg->buffer_bytes > 0 ?
	    cfg->buffer_bytes : CAPTURE_BUFFER)) != 0)
		return capture_fail(c, err, errlen, "buffer size", r);
	if ((r = pcap_set_immediate_mode(c->p, 1)) != 0)
		return capture_fail(c, err, errlen, "immediate mode", r);
	if ((r = pcap_activate(c->p)) < 0)
		return capture_fail(c, err, errlen, cfg->ifname, r);
	/* r > 0 is a warning (e.g. promiscuous mode unsupported): carry on */
	/* libpcap opens its packet socket without close-on-exec: a program
	 * the daemon runs must not be able to sniff */
	if (fcntl(pcap_fileno(c->p), F_SETFD, FD_CLOEXEC) == -1) {
		snprintf(err, errlen, "capture: close-on-exec: %s", strerror(errno));
		capture_close(c);
		return NULL;
	}
	c->dlt = pcap_datalink(c->p);
	if (!capture_dlt_known(c->dlt)) {
		snprintf(err, errlen, "capture: %s: unsupported link type %s",
		    cfg->ifname, pcap_datalink_val_to_name(c->dlt) ?
		    pcap_datalink_val_to_name(c->dlt) : "?");
		capture_close(c);
		return NULL;
	}
	/* our own outbound frames are never evidence (checksum offload) */
	if ((r = pcap_setdirection(c->p, PCAP_D_IN)) != 0)
		return capture_fail(c, err, errlen, "inbound only", r);
	if (pcap_compile(c->p, &prog, cfg->filter, 1, PCAP_NETMASK_UNKNOWN) == -1)
		return capture_fail(c, err, errlen, "filter", 0);
	r = pcap_setfilter(c->p, &prog);
	pcap_freecode(&prog);
	if (r == -1)
		return capture_fail(c, err, errlen, "setfilter", 0);
	if (pcap_setnonblock(c->p, 1, errbuf) == -1) {
		snprintf(err, errlen, "capture: nonblock: %s", errbuf);
		capture_close(c);
		return NULL;
	}

	fd = pcap_get_selectable_fd(c->p);
	req = pcap_get_required_select_timeout(c->p);
	if (fd != -1) {
		c->ev = event_new(base, fd, EV_READ | EV_PERSIST, capture_event, c);
		if (c->ev == NULL || event_add(c->ev, NULL) == -1) {
			snprintf(err, errlen, "capture: cannot add the read event");
			capture_close(c);
			return NULL;
		}
	}
	if (fd == -1 || req != NULL) {
		if (req != NULL) {
			tv = *req;
		} else {
			tv.tv_sec = 0;
			tv.tv_usec = CAPTURE_POLL_US;
		}
		c->tick = event_new(base, -1, EV_PERSIST, capture_event, c);
		if (c->tick == NULL || event_add(c->tick, &tv) == -1) {
			snprintf(err, errlen, "capture: cannot add the poll timer");
			capture_close(c);
			return NULL;
		}
	}
	return c;
}

int
capture_stats(struct capture *c, struct capture_stats *out)
{
	struct pcap_stat ps;

	memset(out, 0, sizeof(*out));
	out->received = c->received;
	out->errors = c->errors;
	if (pcap_stats(c->p, &ps) == -1)
		return -1;
	out->dropped = ps.ps_drop;
	out->ifdropped = ps.ps_ifdrop;
	return 0;
}

const char *
capture_error(const struct capture *c)
{
	return c->lasterr[0] != '\0' ? c->lasterr : NULL;
}

void
capture_close(struct capture *c)
{
	if (c == NULL)
		return;
	if (c->ev != NULL)
		event_free(c->ev);
	if (c->tick != NULL)
		event_free(c->tick);
	if (c->p != NULL)
		pcap_close(c->p);
	free(c);
}
