/*
 * evidence.h -- the raw packets that prove one path's result: each
 * router's ICMP error quoting a trace SYN, and the SYN-ACK, RST or
 * unreachable as received, with the SYN as sent (the template of the
 * variant and what differed per probe).  Bounded per path, allocated only
 * when the first packet is kept, freed when the result is written.  Pure.
 */
#ifndef SCALEPROBE_EVIDENCE_H
#define SCALEPROBE_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVIDENCE_MAX_BYTES	16384	/* packet bytes per path result */
#define EVIDENCE_MAX_ITEMS	128
#define EVIDENCE_MAX_PACKET	1500	/* one packet's bytes kept at most */
#define EVIDENCE_FIELDS		24	/* an item's fields, with the NUL */

enum evidence_kind {
	EVIDENCE_SYN,		/* the SYN as sent */
	EVIDENCE_QUOTE,		/* an ICMP error quoting a SYN, as received */
	EVIDENCE_REPLY,		/* the destination's answer, as received */
};

struct evidence_item {
	int variant;		/* -1 the control, i the scale at index i */
	int ttl;		/* 0 the handshake, k the trace's TTL k */
	enum evidence_kind kind;
	char fields[EVIDENCE_FIELDS];	/* what else its SYN had: "ttl=3 isn=0badcafe" */
	uint32_t off, len;	/* in bytes[] */
};

/* Grown as packets come (a path that drew four SYN-ACKs holds about
 * 500 bytes), so the many paths in flight stay small. */
struct path_evidence {
	int n, nalloc;
	bool truncated;		/* something was not kept: the bound */
	uint32_t used, cap;
	struct evidence_item *item;
	uint8_t *bytes;
};

/* Keeps a copy of pkt (at most EVIDENCE_MAX_PACKET bytes of it) under
 * (variant, ttl, kind) unless one is kept there already (the first
 * answer is the one the stages judged).  *evp is allocated on first use.
 * Returns 0 kept, 1 already held, -1 over the bound (truncated set). */
int evidence_add(struct path_evidence **evp, int variant, int ttl, enum evidence_kind kind,
    const char *fields, const uint8_t *pkt, size_t len);

/* The item under (variant, ttl, kind), or NULL. */
const struct evidence_item *evidence_find(const struct path_evidence *ev, int variant,
    int ttl, enum evidence_kind kind);

const char *evidence_kind_name(enum evidence_kind k);

void evidence_free(struct path_evidence **evp);
/* The bytes ev holds (its struct, items and packets as allocated). */
size_t evidence_bytes(const struct path_evidence *ev);

/*
 * The stored form (the store's evidence.bytes): the items in order, each
 *   kind (1 byte: 0 syn, 1 quote, 2 reply), variant + 1 (1 byte: 0 the
 *   control), ttl (1 byte), F the length of fields (1 byte), L the length
 *   of the packet (2 bytes, big-endian), fields (F bytes of ASCII), the
 *   packet (L bytes, from its IP header on).
 */
#define EVIDENCE_RECORD_HEAD	6
#define EVIDENCE_PACKED_MAX	(EVIDENCE_MAX_BYTES + EVIDENCE_MAX_ITEMS * \
				 (EVIDENCE_RECORD_HEAD + EVIDENCE_FIELDS))

/* Packs ev into buf; returns the bytes written (every item fits when
 * len >= EVIDENCE_PACKED_MAX; items that do not fit are left out). */
size_t evidence_pack(const struct path_evidence *ev, uint8_t *buf, size_t len);

/* Unpacks the stored form into a new *evp (NULL for no bytes); -1 with a
 * reason in *why when the bytes are not what evidence_pack writes (bounds
 * checked; a repeated packet or one over the bounds is refused, so what is
 * accepted packs back to the same bytes). */
int evidence_unpack(const uint8_t *b, size_t len, struct path_evidence **evp,
    const char **why);

#endif
