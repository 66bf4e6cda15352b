/*
 * blocklist.c -- the special-purpose registries as a table, the --allow
 * list, and the check of each target against both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "log.h"

/*
 * iana-ipv4-special-registry and iana-ipv6-special-registry, every entry,
 * in the registries' order, with their names; then multicast, which lives
 * in other registries (RFC 5771, RFC 4291) but is no path to probe either.
 */
static const struct {
	const char *prefix, *name;
} blocklist_table[] = {
	{ "0.0.0.0/8", "This network" },
	{ "0.0.0.0/32", "This host on this network" },
	{ "10.0.0.0/8", "Private-Use" },
	{ "100.64.0.0/10", "Shared Address Space" },
	{ "127.0.0.0/8", "Loopback" },
	{ "169.254.0.0/16", "Link Local" },
	{ "172.16.0.0/12", "Private-Use" },
	{ "192.0.0.0/24", "IETF Protocol Assignments" },
	{ "192.0.0.0/29", "IPv4 Service Continuity Prefix" },
	{ "192.0.0.8/32", "IPv4 dummy address" },
	{ "192.0.0.9/32", "Port Control Protocol Anycast" },
	{ "192.0.0.10/32", "Traversal Using Relays around NAT Anycast" },
	{ "192.0.0.170/32", "NAT64/DNS64 Discovery" },
	{ "192.0.0.171/32", "NAT64/DNS64 Discovery" },
	{ "192.0.2.0/24", "Documentation (TEST-NET-1)" },
	{ "192.31.196.0/24", "AS112-v4" },
	{ "192.52.193.0/24", "AMT" },
	{ "192.88.99.0/24", "Deprecated (6to4 Relay Anycast)" },
	{ "192.168.0.0/16", "Private-Use" },
	{ "192.175.48.0/24", "Direct Delegation AS112 Service" },
	{ "198.18.0.0/15", "Benchmarking" },
	{ "198.51.100.0/24", "Documentation (TEST-NET-2)" },
	{ "203.0.113.0/24", "Documentation (TEST-NET-3)" },
	{ "240.0.0.0/4", "Reserved" },
	{ "255.255.255.255/32", "Limited Broadcast" },

	{ "::1/128", "Loopback Address" },
	{ "::/128", "Unspecified Address" },
	{ "::ffff:0:0/96", "IPv4-mapped Address" },
	{ "64:ff9b::/96", "IPv4-IPv6 Translat." },
	{ "64:ff9b:1::/48", "IPv4-IPv6 Translat." },
	{ "100::/64", "Discard-Only Address Block" },
	{ "2001::/23", "IETF Protocol Assignments" },
	{ "2001::/32", "TEREDO" },
	{ "2001:1::1/128", "Port Control Protocol Anycast" },
	{ "2001:1::2/128", "Traversal Using Relays around NAT Anycast" },
	{ "2001:1::3/128", "DNS-SD Service Registration Protocol Anycast" },
	{ "2001:2::/48", "Benchmarking" },
	{ "2001:3::/32", "AMT" },
	{ "2001:4:112::/48", "AS112-v6" },
	{ "2001:10::/28", "Deprecated (previously ORCHID)" },
	{ "2001:20::/28", "ORCHIDv2" },
	{ "2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix" },
	{ "2001:db8::/32", "Documentation" },
	{ "2002::/16", "6to4" },
	{ "2620:4f:8000::/48", "Direct Delegation AS112 Service" },
	{ "3fff::/20", "Documentation" },
	{ "5f00::/16", "Segment Routing (SRv6) SIDs" },
	{ "fc00::/7", "Unique-Local" },
	{ "fe80::/10", "Link-Local Unicast" },

	{ "224.0.0.0/4", "Multicast" },
	{ "ff00::/8", "Multicast" },
};

#define BLOCKLIST_N (sizeof(blocklist_table) / sizeof(blocklist_table[0]))

struct blocklist_allowed {
	struct addr net;
	unsigned plen;
};

struct blocklist {
	struct blocklist_entry entries[BLOCKLIST_N];
	struct blocklist_allowed *allow;
	size_t nallow, capallow;
	struct blocklist_entry **blocked;	/* each its own allocation: the
						   entries handed out stay put */
	size_t nblocked;
};

struct blocklist *
blocklist_new(void)
{
	struct blocklist *bl = xcalloc(1, sizeof(*bl));
	const char *why;

	for (size_t i = 0; i < BLOCKLIST_N; i++) {
		struct blocklist_entry *e = &bl->entries[i];

		e->prefix = blocklist_table[i].prefix;
		e->name = blocklist_table[i].name;
		/* the table is ours: an entry that does not parse is a bug */
		if (addr_parse_prefix(e->prefix, &e->net, &e->plen, &why) == -1)
			fatalx("blocklist: %s: %s", e->prefix, why);
		snprintf(e->text, sizeof(e->text), "%s (%s)", e->prefix, e->name);
	}
	return bl;
}

void
blocklist_free(struct blocklist *bl)
{
	if (bl == NULL)
		return;
	free(bl->allow);
	for (size_t i = 0; i < bl->nblocked; i++) {
		free((char *)bl->blocked[i]->prefix);
		free(bl->blocked[i]);
	}
	free(bl->blocked);
	free(bl);
}

int
blocklist_allow(struct blocklist *bl, const char *cidr, const char **why)
{
	struct blocklist_allowed a;

	if (addr_parse_prefix(cidr, &a.net, &a.plen, why) == -1)
		return -1;
	if (bl->nallow == bl->capallow) {
		bl->capallow = bl->capallow ? bl->capallow * 2 : 8;
		bl->allow = xreallocarray(bl->allow, bl->capallow, sizeof(*bl->allow));
	}
	bl->allow[bl->nallow++] = a;
	return 0;
}

void
blocklist_block(struct blocklist *bl, const struct addr *net, unsigned plen,
    const char *text, const char *why)
{
	struct blocklist_entry *e = xcalloc(1, sizeof(*e));

	e->net = *net;
	e->plen = plen;
	e->prefix = xstrdup(text);
	e->name = why;
	snprintf(e->text, sizeof(e->text), "%s (%s)", text, why);
	bl->blocked = xreallocarray(bl->blocked, bl->nblocked + 1, sizeof(*bl->blocked));
	bl->blocked[bl->nblocked++] = e;
}

/* Whether prefix a/alen and b/blen share an address (prefixes nest or
 * are apart). */
static bool
blocklist_overlap(const struct addr *a, unsigned alen, const struct addr *b, unsigned blen)
{
	if (a->family != b->family)
		return false;
	return alen <= blen ? addr_in_prefix(b, a, alen) : addr_in_prefix(a, b, blen);
}

enum blocklist_part
blocklist_classify(const struct blocklist *bl, const struct addr *net, unsigned plen,
    const struct blocklist_entry **why)
{
	const struct blocklist_entry *holds = NULL, *inside = NULL, *optout = NULL;
	bool allowed_inside = false;

	*why = NULL;
	/* an opt-out is never lifted by an allow: one holding the prefix
	 * blocks it all, one inside it blocks a part */
	for (size_t i = 0; i < bl->nblocked; i++) {
		const struct blocklist_entry *e = bl->blocked[i];

		if (!blocklist_overlap(net, plen, &e->net, e->plen))
			continue;
		if (e->plen <= plen) {
			*why = e;
			return BLOCKLIST_ALL;
		}
		if (optout == NULL)
			optout = e;
	}
	for (size_t i = 0; i < bl->nallow; i++) {
		const struct blocklist_allowed *a = &bl->allow[i];

		if (!blocklist_overlap(net, plen, &a->net, a->plen))
			continue;
		if (a->plen <= plen) {
			*why = optout;
			return optout != NULL ? BLOCKLIST_SOME : BLOCKLIST_NONE;
		}
		allowed_inside = true;
	}
	for (size_t i = 0; i < BLOCKLIST_N; i++) {
		const struct blocklist_entry *e = &bl->entries[i];

		if (!blocklist_overlap(net, plen, &e->net, e->plen))
			continue;
		if (e->plen <= plen) {
			if (holds == NULL || e->plen > holds->plen)
				holds = e;
		} else if (inside == NULL)
			inside = e;
	}
	if (holds != NULL) {
		*why = holds;
		return allowed_inside ? BLOCKLIST_SOME : BLOCKLIST_ALL;
	}
	*why = inside != NULL ? inside : optout;
	return *why != NULL ? BLOCKLIST_SOME : BLOCKLIST_NONE;
}

const struct blocklist_entry *
blocklist_check(const struct blocklist *bl, const struct addr *a)
{
	const struct blocklist_entry *best = NULL;

	/* an opt-out is never lifted by an allow */
	for (size_t i = 0; i < bl->nblocked; i++)
		if (addr_in_prefix(a, &bl->blocked[i]->net, bl->blocked[i]->plen))
			return bl->blocked[i];
	for (size_t i = 0; i < bl->nallow; i++)
		if (addr_in_prefix(a, &bl->allow[i].net, bl->allow[i].plen))
			return NULL;
	for (size_t i = 0; i < BLOCKLIST_N; i++) {
		const struct blocklist_entry *e = &bl->entries[i];

		if (addr_in_prefix(a, &e->net, e->plen) &&
		    (best == NULL || e->plen > best->plen))
			best = e;
	}
	return best;
}

size_t
blocklist_count(const struct blocklist *bl)
{
	(void)bl;
	return BLOCKLIST_N;
}

const struct blocklist_entry *
blocklist_entry(const struct blocklist *bl, size_t i)
{
	return i < BLOCKLIST_N ? &bl->entries[i] : NULL;
}
