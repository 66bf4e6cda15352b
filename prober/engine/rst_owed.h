/*
 * rst_owed.h -- which SYN-ACKs draw a RST from us: at most one per flow we
 * probed, ever.  A flow is one SYN of ours, its 4-tuple and the tag in its
 * ISN (cookie.h): the handshake's (tag 0), a trace SYN's (its TTL) and a
 * window-test connection's (COOKIE_TAG_WINDOW, from the variant's port or
 * its second port) are different flows even on one 4-tuple, and each is
 * owed its own RST when its SYN-ACK comes, also late (the guard drops the
 * kernel's own RST, so without ours the server keeps retransmitting).
 * A SYN-ACK of a flow that had its RST (a retransmission, or a replay by
 * anyone on the path) draws nothing: RSTs are bounded by the SYNs sent,
 * whatever arrives, and share --rate with them without starving them.
 *
 * The record of a flow is a bit in a mask per (path, variant): in the
 * path's slot while it is in flight, then in the memo, a fixed-size table
 * sized from max-inflight, written when the path's result is handed over.
 * A newer path's entry overwrites an older one in the memo; a flow whose
 * record is gone is treated as paid (never a second RST: the bound holds;
 * only a server answering after max-inflight later paths went keeps its
 * half-open connection until its own timeout).
 *
 * Pure: no I/O, no clock.  The engine hashes the keys (rst_memo_key).
 */
#ifndef SCALEPROBE_RST_OWED_H
#define SCALEPROBE_RST_OWED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "cookie.h"

/* The bit of a flow in a (path, variant) mask: tags 0..31 from the
 * variant's port, bit 32 the window test's second connection. */
#define RST_FLOW_SECOND 32
uint64_t rst_flow_bit(int tag, bool second);

/* What is known of a SYN-ACK's flow. */
struct rst_flow {
	bool ours;		/* its ack is the ISN + 1 of a SYN of this run,
				   carrying a tag this run's probes use */
	bool recorded;		/* the flow's record is held (path in
				   flight, or in the memo) */
	uint64_t paid;		/* the record: flows whose RST went or is
				   queued */
	int tag;
	bool second;		/* to the window test's second port */
};

enum rst_decision {
	RST_SEND,		/* the flow's one RST: owe it, mark it paid */
	RST_REPLAY,		/* paid already, or its record is gone: drop */
	RST_FOREIGN,		/* no flow of ours: drop, count rejected */
};

enum rst_decision rst_decide(const struct rst_flow *f);

/* The memo: flows' records of paths no longer in flight, direct-mapped. */
struct rst_memo_entry {
	uint64_t key;		/* 0: empty */
	uint64_t paid;
};

struct rst_memo {
	struct rst_memo_entry *t;
	size_t mask;		/* entries - 1, entries a power of two */
};

/* A memo of n entries, rounded up to a power of two, 64 to 2^20. */
void rst_memo_init(struct rst_memo *m, size_t n);
void rst_memo_free(struct rst_memo *m);
/* Bytes the memo holds (allocated; pages are touched as entries are). */
size_t rst_memo_bytes(const struct rst_memo *m);
/* Keeps paid under key, overwriting what the entry held. */
void rst_memo_put(struct rst_memo *m, uint64_t key, uint64_t paid);
/* The record under key: true and *paid, or false when none is held. */
bool rst_memo_get(const struct rst_memo *m, uint64_t key, uint64_t *paid);
/* The memo's key of (path src -> dst:port, variant v) under the run's key:
 * keyed, so nobody steers paths into one entry; never 0. */
uint64_t rst_memo_key(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t port, int v);

#endif
