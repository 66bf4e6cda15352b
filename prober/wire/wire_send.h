/*
 * wire_send.h -- the packets scaleprobe sends, as the engine describes
 * them and net/send.c builds them: a SYN of one probe variant (the control,
 * or a window-scale shift), or any other segment.  Types only, so that the
 * engine says what to send without seeing the sockets that send it.
 */
#ifndef WIRE_SEND_H
#define WIRE_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"

/* A variant's scale: the control SYN carries no window-scale option
 * (send.h has the options' layout). */
#define SEND_VARIANT_CONTROL (-1)
#define SEND_MAX_VARIANTS 32

/* One SYN to send. */
struct send_syn {
	int variant;			/* index into the variants' scales */
	const struct addr *src, *dst;	/* same family */
	uint16_t sport, dport;
	uint32_t isn;
	uint32_t tsval;			/* timestamp value (TSecr is 0) */
	uint8_t ttl;			/* TTL / hop limit */
	uint32_t flow_label;		/* IPv6 only, 20 bits */
};

/* Any other segment (RST, ACK, data for the window test): built by hand
 * on the slow path, without a template; at most 1500 bytes in all. */
struct send_segment {
	const struct addr *src, *dst;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;			/* TCP flag bits as on the wire */
	uint16_t window;
	uint8_t ttl;
	const uint8_t *payload;
	size_t payload_len;
	const uint8_t *options;		/* TCP options as on the wire (e.g. the
					   timestamps the handshake agreed) */
	size_t options_len;		/* a multiple of 4, at most 40 */
	uint32_t flow_label;		/* IPv6 only, 20 bits: the SYN's, so
					   ECMP keeps the segment on its path */
};

#endif
