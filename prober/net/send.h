/*
 * send.h -- the only place packets leave scaleprobe (send.c is the only
 * libnet user).  libnet lays out one SYN template per probe variant once,
 * at open; the hot path copies a template, patches addresses, ports, ISN,
 * TTL / hop limit and flow label with incremental checksum updates, and
 * puts it on a bounded ring (one per family, send_ring.h); a thread of the
 * sender's own takes the rings' packets to the kernel, one sendmmsg() per
 * batch on a raw socket (IPv4, IPv6), while the caller's loop goes on.
 * The rings are the only thing the thread shares with the caller: every
 * sender_* call is the caller's thread's (one thread; the sender is not
 * for several).
 */
#ifndef SCALEPROBE_SEND_H
#define SCALEPROBE_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "wire_send.h"

/* The control SYN carries no window-scale option; a scale variant carries
 * one with this shift.  Options use Linux's layout, NOP-padded, 20 bytes
 * (data offset 10; a 60-byte IPv4 / 80-byte IPv6 SYN):
 *   MSS, SACK-permitted, timestamps (TSval, TSecr 0), NOP, window scale
 *   MSS, SACK-permitted, timestamps, NOP, NOP, NOP, NOP    (the control)
 * The IPv4 header has DF set and IP ID 0 (what Linux itself leaves in a DF
 * packet sent on a raw socket), TOS / traffic class 0. */
struct send_config {
	int nvariants;			/* entries of variant_scale */
	int variant_scale[SEND_MAX_VARIANTS];	/* shift, or SEND_VARIANT_CONTROL */
	uint16_t mss;			/* MSS offered; 0: 1460 */
	uint16_t window;		/* window field of the SYN; 0: 64240 */
	int batch;			/* packets per sendmmsg (1..1024); 0: 64 */
};

struct sender;

/* Opens the raw sockets of the families asked for and builds the templates
 * (needs CAP_NET_RAW).  Returns NULL with a one-line reason in err. */
struct sender *sender_open(const struct send_config *cfg, int want_v4, int want_v6,
    char *err, size_t errlen);

/* Puts one SYN on its family's ring, handed to the thread with each full
 * batch; waits while the ring is full (the kernel is the limit then).
 * 0, or -1 and errno (EINVAL for a bad variant or mixed families,
 * EAFNOSUPPORT for a family not opened).  A packet the kernel refuses
 * later counts in send_stats.errors; sender_flush reports it. */
int sender_syn(struct sender *s, const struct send_syn *syn);

/* Sends one segment: one that fits a SYN's slot (a RST, an ACK) goes on
 * the ring behind the SYNs and leaves with them; a longer one leaves now,
 * from the caller, once everything on the rings has left. */
int sender_segment(struct sender *s, const struct send_segment *seg);

/* Hands what is on the rings to the thread, without waiting for it.
 * Returns the packets put on them since the last flush; -1 and errno
 * (the last refusal) when the kernel refused packets since then. */
int sender_flush(struct sender *s);

/* sender_flush, then waits until the kernel has taken every packet (the
 * counters are then final for what was sent). */
int sender_drain(struct sender *s);

/* The exact bytes a variant's SYN would carry for syn, without sending:
 * the trace compares router quotes against these (never against a
 * capture of our own packets: checksum offload leaves those wrong).
 * Returns the length written, or 0 when cap is too small. */
size_t sender_render_syn(const struct sender *s, const struct send_syn *syn,
    uint8_t *buf, size_t cap);

/* Which packet the latest sender_syn or sender_segment put on a ring,
 * to ask sender_left_at about; 0 for none (a long segment, sent by the
 * caller itself when it returns). */
uint64_t sender_last_id(const struct sender *s);

/* When packet id left (CLOCK_MONOTONIC, ns): the thread's clock just
 * before the system call that handed it to the kernel, the ring's wait
 * behind it included; 0 while it waits, and once 4,096 packets of its
 * family were put on the ring after it.  A window test measures its
 * RTT from there, not from when the loop built the SYN. */
uint64_t sender_left_at(struct sender *s, uint64_t id);

/* The most packets the thread may hold back at once, per family: a
 * packet built beyond it waits until the thread has sent a quarter of
 * them.  The caller's pacing holds for what it builds; the thread sends
 * it no sooner, and later by at most this many packets when it is held
 * up (a busy CPU): the pacer's burst keeps a second's packets within the
 * rate's ceiling plus that burst.  0: the ring's size, 256, which is
 * also the most. */
void sender_set_limit(struct sender *s, uint32_t limit);

/* Counters since open, of what the thread has handed to the kernel so
 * far (sender_drain first for a final count). */
struct send_stats {
	uint64_t syns;			/* SYNs the kernel took */
	uint64_t segments;		/* sender_segment packets sent */
	uint64_t errors;		/* packets the kernel refused */
	uint64_t batches;		/* sendmmsg calls that sent something */
};
void sender_stats(const struct sender *s, struct send_stats *out);

/* Other variants (cfg's nvariants and variant_scale; the rest of cfg is
 * kept) on the sockets already open: the templates are built anew (the
 * packets on the rings are built already).  0, or -1 with a reason in err and the
 * old variants kept. */
int sender_set_variants(struct sender *s, const struct send_config *cfg, char *err,
    size_t errlen);

/* Sends what is on the rings, ends the thread, closes the sockets. */
void sender_close(struct sender *s);

#endif
