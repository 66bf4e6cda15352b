/*
 * mbox_mangle.h -- what the lab's middlebox emulator does to one packet.
 *
 * Given the rules and a packet as netfilter queues it (starting at the IPv4
 * or IPv6 header), decide accept or drop and rewrite the packet in place.
 * Rewrites only ever shorten a packet.  Every rewritten packet leaves with a
 * correct IPv4 header checksum and TCP / ICMP / ICMPv6 checksum, recomputed
 * over the whole segment.  A packet that cannot be parsed, or that no rule
 * names, is accepted unchanged: the emulator must never stall the lab.
 *
 * Pure: no I/O.
 */
#ifndef MBOX_MANGLE_H
#define MBOX_MANGLE_H

#include <stddef.h>
#include <stdint.h>

#include "mbox_rules.h"

enum mbox_verdict {
	MBOX_ACCEPT = 0,
	MBOX_DROP
};

struct mbox_result {
	enum mbox_verdict	 verdict;
	int			 changed;	/* bytes (or the length) changed */
	const struct mbox_rule	*rule;		/* the rule that applied, or NULL */
	char			 note[192];	/* what was done, for the log; "" if nothing */
};

/*
 * Applies rs to the *len bytes at pkt, in place; *len may shrink.  Returns
 * the verdict, also stored in res (which may be NULL).
 */
enum mbox_verdict	mbox_mangle(const struct mbox_rules *rs, uint8_t *pkt,
			    size_t *len, struct mbox_result *res);

#endif
