/*
 * paths.h -- from targets as the user wrote them to the paths to probe,
 * one at a time as the engine has room for them: prefixes walked lazily
 * in a keyed pseudo-random order (target_space.h), names resolved while the
 * run goes on (resolve.h: A and AAAA, each address its own path, handed
 * out as they come), the special-purpose blocklist applied (one
 * stderr line per blocked target), duplicates skipped, and the source
 * address and interface of each path found from its route when it is
 * handed out.  Memory is per target, never per address: a /8 costs what
 * a single address does.
 *
 * Target files of more than PATHS_CHUNK entries are streamed: the list
 * the caller parsed is the first chunk, then each file is read again,
 * PATHS_CHUNK entries at a time, as the walk needs them (the caller's
 * scan already found every error, so nothing is sent for a list with
 * one).  Each chunk is walked in the keyed order on its own, chunks in
 * the order of the files; an address an earlier chunk handed out is
 * skipped (an addrset.h of what went out, 4 bytes an IPv4 pair; prefixes
 * of more than TARGETS_LARGE addresses are kept as prefixes).  A chunk
 * of addresses drops its parsed entries once its space holds them, and
 * its space once walked: what its paths in flight need is its block of
 * texts, freed with the chunk once its last path is done (paths_done).
 * So one chunk's space is held at a time, whatever the file's length.  Names of a chunk are asked
 * when it is loaded; the next chunk waits while more than
 * PATHS_NAMES_AHEAD names are still being resolved.
 */
#ifndef SCALEPROBE_PATHS_H
#define SCALEPROBE_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "addrset.h"
#include "route.h"
#include "srcrange.h"
#include "targets.h"
#include "target_space.h"

struct blocklist;
struct event_base;
struct resolver;

/* A name's address waiting to be handed out. */
struct paths_chunk;
struct paths_found {
	const struct target *tg;
	struct paths_chunk *ch;
	struct addr a;
};

/* The (address, port) pairs names gave so far: each is probed once. */
struct paths_seen {
	struct paths_seen_slot {
		struct addr a;
		uint16_t port;
		bool used;
	} *v;
	size_t n, cap;			/* cap: a power of two, or 0 */
};

struct path {
	const char *target;		/* as_given of its target */
	const char *host;		/* the target's name, NULL for addresses */
	struct addr dst, src;
	uint16_t port;
	int iface;			/* index into paths.ifnames */
};

#define PATHS_MAX_IFACES 16

#define PATHS_CHUNK TARGETS_STREAM_MIN
#define PATHS_NAMES_AHEAD 4096

/* One chunk of the list: its targets, its space and its paths in flight. */
struct paths_chunk {
	struct targets t;		/* streamed entries (owned), or none */
	const struct targets *list;	/* the entries: &t, or the caller's */
	char *arena;			/* the owned entries' texts, in one block,
					   so a path's target names its chunk */
	size_t arena_len;
	struct target_space space;
	uint64_t *unrouted_per;		/* per record of space, once an address
					   had no route; NULL before */
	const struct target **names;
	size_t nnames;
	size_t refs;			/* paths handed out not yet done, names'
					   addresses waiting, names asked */
	bool walked;
	struct paths_chunk *next;
};

/* The target files streamed after the caller's list, each with its
 * ports (all of it outliving the walk). */
struct paths_file {
	const char *path;
	bool allow_large;
	const uint16_t *ports;
	int nports;
	const struct shard_sel *shard;	/* a sharded group's: its share of
					   the file read (shard.h); NULL: all */
};
struct paths_files {
	struct paths_file *v;
	size_t n;
	uint64_t entries, addresses, names;	/* targets_scan_file's, summed */
	bool v4, v6;
};

/* Adds path to files with its scan's figures (files->v grows: free it). */
void paths_files_add(struct paths_files *files, const char *path, bool allow_large,
    const uint16_t *ports, int nports, const struct targets_scan *sum);

struct paths {
	size_t n;			/* paths handed out so far (the first is
					   found by paths_open) */
	uint64_t total;			/* addresses of the targets: the most
					   paths there can be */
	char ifnames[PATHS_MAX_IFACES][ROUTE_IFNAMSIZ];
	int nifaces;			/* interfaces of the paths so far */
	int want_v4, want_v6;		/* families present */
	size_t blocked_targets;		/* targets with a blocked address */
	size_t unresolved;		/* names that gave no address */
	size_t unrouted;		/* addresses with no route */

	/* the walk (paths.c) */
	struct paths_chunk *chunks;	/* live ones, the oldest first; the last
					   is walked */
	struct paths_chunk *cur;
	const struct blocklist *bl_space;
	bool streaming;			/* files follow the first chunk */
	struct paths_files files;
	size_t file_i;			/* the file being read */
	struct target_file *file;	/* open, or NULL */
	struct addrset sent;		/* streaming: pairs of chunks walked */
	struct paths_large {
		struct addr net;
		unsigned plen;
		uint16_t port;
	} *large;			/* ... and their big prefixes */
	size_t nlarge;
	uint64_t skipped_earlier;	/* addresses an earlier chunk had */
	size_t chunks_loaded, chunks_live_max;
	size_t spaces_live_max;		/* streamed chunks holding their space
					   at once (chunk_shed) */
	bool names_wait;		/* the last PATHS_LATER waits for names */
	struct event_base *base;
	struct route *rt;
	bool own_rt;			/* rt opened by paths_open: closed by
					   paths_free */
	const struct addr *source4, *source6;
	const struct srcrange *range4, *range6;
	struct paths_range_ok {		/* interfaces the range was checked on */
		char ifname[ROUTE_IFNAMSIZ];
		int family;
	} range_ok[2 * PATHS_MAX_IFACES];
	int nrange_ok;
	const char *ifname;
	struct path first;		/* found by paths_open, not yet handed out */
	bool have_first;

	uint8_t key[SIPHASH_KEY_LEN];	/* the order's */

	/* names (paths_resolve) */
	size_t nnames;			/* names in the list (every chunk's) */
	const struct blocklist *bl;
	struct resolver *res;
	struct paths_found *found;	/* ring of names' addresses */
	size_t found_head, found_n, found_cap;
	struct paths_seen seen;
	void (*ready)(void *arg);	/* a name's addresses came */
	void *ready_arg;
	bool more_now;			/* the last PATHS_LATER was a pause in a
					   long skip: ask again at once */
};

struct paths_opts {
	const struct blocklist *bl;
	const struct addr *source4, *source6;	/* --source, or NULL */
	const struct srcrange *range4, *range6;	/* --source-range, or NULL:
						   each path goes from the one
						   its keyed hash picks (the
						   order's key), each address
						   checked to be the route's
						   interface's; replaces the
						   source of its family */
	const char *ifname;			/* --interface, or NULL */
	const uint8_t *key;			/* the order's key (16 bytes); NULL:
						   a random one */
	const struct paths_files *files;	/* streamed after t; NULL: none */
	struct route *rt;			/* the route lookups' netlink socket,
						   shared by every walk of a daemon
						   (one descriptor, not one per
						   target); NULL: one of its own */
};

/* Prepares the walk and looks for its first path (n == 0, nnames == 0 and
 * !more_now say there is nothing to probe; with more_now, the walk passed
 * over many addresses without finding one yet and goes on in the run).  Messages for blocked targets go to stderr,
 * one line each.  Returns 0, or -1 on an error that stops the run, with a
 * message printed.  t and o->bl must outlive p. */
int paths_open(struct paths *p, const struct targets *t, const struct paths_opts *o);

/* Starts resolving the names of the targets in base's loop; ready(arg) is
 * called whenever a name's answer came (paths_next may have more).
 * Unresolved and blocked names get a stderr line each.  Returns 0, or -1
 * with a message printed. */
int paths_resolve(struct paths *p, struct event_base *base, void (*ready)(void *arg),
    void *arg);

/* The next path: 1 and *out; PATHS_LATER when none is there yet: a name
 * is still being resolved (ready() tells when to ask again), or, with
 * more_now set, thousands of addresses were passed over (blocked, no
 * route) and the caller lets its loop run before asking again; 0 when
 * there are no more; -1 on an error that stops the run (too many
 * interfaces), with a message printed.  An address without a route is
 * skipped with a message (one per target, the rest counted at
 * paths_free). */
#define PATHS_LATER 2
int paths_next(struct paths *p, struct path *out);

/* The path whose target text is target is done (its result handed on,
 * or dropped as another batch's): its chunk may be freed. */
void paths_done(struct paths *p, const char *target);

void paths_free(struct paths *p);

#endif
