/*
 * pcapng.h -- evidence as a pcapng file (draft-ietf-opsawg-pcapng) that
 * tcpdump, tshark and Wireshark open: one section, one interface of raw
 * IP packets (LINKTYPE_RAW, nanosecond times), and per packet a comment
 * saying what it is ("SYN as sent, window scale 7", "quote from hop 3").
 * Pure: written into a buffer the caller saves.
 */
#ifndef SCALEPROBE_PCAPNG_H
#define SCALEPROBE_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCAPNG_LINKTYPE_RAW 101	/* IPv4 or IPv6 header first */

struct pcapng_buf {
	uint8_t *p;
	size_t len, cap;
	bool overflow;		/* sticky: a block did not fit */
};

/* The section header (naming the writing application) and the interface. */
int pcapng_begin(struct pcapng_buf *b, const char *application);

/* One packet at ts_ns (nanoseconds since the epoch), with a comment (NULL
 * or "" for none).  Returns 0, or -1 when it did not fit. */
int pcapng_packet(struct pcapng_buf *b, uint64_t ts_ns, const uint8_t *pkt, size_t len,
    const char *comment);

#endif
