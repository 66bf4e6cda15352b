/*
 * blocklist.h -- the IANA special-purpose address registries (IPv4 and
 * IPv6, as of 2024), plus IPv4 and IPv6 multicast, blocked for every probe
 * unless an --allow CIDR lifts them.
 *
 * Whole entries are blocked, also those the registry marks globally
 * reachable (192.0.0.9/32 and 192.0.0.10/32 inside 192.0.0.0/24, the AS112
 * and AMT blocks, 64:ff9b::/96): simplest and safe; --allow reaches them.
 * The most specific entry is the one named, so 192.0.0.9 is reported as
 * "192.0.0.9/32 (Port Control Protocol Anycast)".
 */
#ifndef SCALEPROBE_BLOCKLIST_H
#define SCALEPROBE_BLOCKLIST_H

#include <stddef.h>

#include "addr.h"

struct blocklist_entry {
	struct addr net;
	unsigned plen;
	const char *prefix;	/* "198.18.0.0/15" */
	const char *name;	/* the registry's name, "Benchmarking" */
	char text[128];		/* "198.18.0.0/15 (Benchmarking)" for messages */
};

struct blocklist;

/* The registries' entries, no allow list.  Never NULL (xmalloc). */
struct blocklist *blocklist_new(void);
void blocklist_free(struct blocklist *bl);

/* Lifts the block for a CIDR ("198.18.0.0/15", "fd00::/8", or a bare
 * address).  Returns 0, or -1 with a static reason in *why. */
int blocklist_allow(struct blocklist *bl, const char *cidr, const char **why);

/* Blocks net/plen whatever the allow list says (a configuration's block
 * list, an opt-out list); why names it in messages ("opt-out"). */
void blocklist_block(struct blocklist *bl, const struct addr *net, unsigned plen,
    const char *text, const char *why);

/* NULL when a may be probed (in no entry, or in an allowed CIDR, and in
 * no blocked range), else the entry that blocks it: a blocked range first,
 * else the registries' most specific. */
const struct blocklist_entry *blocklist_check(const struct blocklist *bl,
    const struct addr *a);

/* How much of a prefix (net/plen; a host address is a /32 or /128) is
 * blocked: all of it, some, or none.  For ALL and SOME, *why names an
 * entry that blocks (the most specific one holding the prefix, or one
 * inside it).  SOME is a hint to check each address with blocklist_check:
 * an --allow may still lift all of what it names. */
enum blocklist_part {
	BLOCKLIST_NONE,
	BLOCKLIST_SOME,
	BLOCKLIST_ALL,
};
enum blocklist_part blocklist_classify(const struct blocklist *bl, const struct addr *net,
    unsigned plen, const struct blocklist_entry **why);

/* The entries, in registry order (for tests and documentation). */
size_t blocklist_count(const struct blocklist *bl);
const struct blocklist_entry *blocklist_entry(const struct blocklist *bl, size_t i);

#endif
