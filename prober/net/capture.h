/*
 * capture.h -- the only place packets come in (capture.c is the only libpcap
 * user).  One capture per interface: snaplen and buffer size set
 * explicitly, immediate mode, inbound only, a tight BPF filter, non-blocking,
 * its selectable fd a persistent libevent read event (a timer when the
 * device has none).  The callback gets the L3 packet, link header removed;
 * it must stay tiny (the engine matches and defers the rest).
 */
#ifndef SCALEPROBE_CAPTURE_H
#define SCALEPROBE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

struct event_base;

typedef void (*capture_fn)(void *arg, const uint8_t *l3, size_t len,
    const struct timeval *ts);

struct capture_config {
	const char *ifname;		/* e.g. "eth0"; "any" works too */
	const char *filter;		/* BPF expression */
	int snaplen;			/* default 256: headers + a full quote's options */
	int buffer_bytes;		/* default 32 MiB */
};

struct capture;

/* Opens cfg->ifname and adds its event to base; fn runs from the loop for
 * every IPv4/IPv6 packet that passed the filter (other link payloads are
 * skipped).  Link types: Ethernet (802.1Q/802.1ad tags too), Linux cooked
 * v1 and v2 ("any"), raw IP, BSD loopback.  NULL with a reason in err. */
struct capture *capture_open(struct event_base *base, const struct capture_config *cfg,
    capture_fn fn, void *arg, char *err, size_t errlen);

/* Reads whatever is pending now (the engine calls it before deciding a
 * probe went unanswered, so nothing sitting in the ring is missed), up to
 * 16,384 packets per call so a flood cannot starve the loop; the read
 * event comes back for the rest. */
void capture_drain(struct capture *c);

struct capture_stats {
	uint64_t received;		/* packets handed to the callback */
	uint64_t dropped;		/* pcap_stats ps_drop */
	uint64_t ifdropped;		/* pcap_stats ps_ifdrop */
	uint64_t errors;		/* pcap_dispatch failures (capture_error) */
};
/* 0, or -1 when pcap_stats failed (received and errors still filled). */
int capture_stats(struct capture *c, struct capture_stats *out);

/* The read error that stopped the capture (the interface went down or
 * away), NULL while it works: the caller logs it (capture has no logger of
 * its own) and no longer trusts silence on that interface. */
const char *capture_error(const struct capture *c);

void capture_close(struct capture *c);

#endif
