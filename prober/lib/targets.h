/*
 * targets.h -- target specs of the command line and of target files:
 *
 *   HOST  HOST:PORT  [IPV6]:PORT  IPV6  ADDR/PREFIX  ADDR/PREFIX:PORT  [IPV6/PREFIX]:PORT
 *
 * HOST is an IPv4 literal or a host name (resolved later by the caller, to
 * A and AAAA).  The port is 80 unless given.  A prefix of more than
 * TARGETS_LARGE addresses needs allow_large (--allow-large); none may
 * have more than TARGETS_MAX_EXPANSION.  Prefixes are kept whole and
 * expanded lazily by targets_iter, so 198.19.0.0/16 is one entry, not
 * 65,536.
 *
 * A target file holds one target per line; '#' starts a comment, blank
 * lines are skipped.  Every error of a file is reported in one pass as
 * "file:line: TARGET: what was expected"; the parse fails if there is any,
 * and then adds no entry.  Parsing is pure (a string or a buffer);
 * targets_read_file() (targets_file.c) only reads the file and calls it.
 */
#ifndef SCALEPROBE_TARGETS_H
#define SCALEPROBE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#include "addr.h"

#define TARGETS_DEFAULT_PORT 80
#define TARGETS_LARGE 256			/* more addresses need allow_large */
#define TARGETS_MAX_EXPANSION (1ULL << 32)	/* a /0 of IPv4, a /96 of IPv6 */
#define TARGETS_NAME_MAX 253			/* RFC 1035, without the final dot */
#define TARGETS_TEXT_MAX 300			/* longest target text */
#define TARGETS_STREAM_MIN 16384		/* a file of more targets is
						   streamed, not held (paths.h) */

enum target_kind {
	TARGET_ADDR,		/* one literal address (also ADDR/32, ADDR/128) */
	TARGET_PREFIX,		/* addr/plen, 2..2^32 addresses */
	TARGET_NAME,		/* a host name for the caller to resolve */
};

/* 48 bytes, the pointers first (a streamed chunk parses 16,384 of them). */
struct target {
	char *as_given;		/* the target text as written (JSON "target") */
	char *name;		/* NAME: the host name (a final dot kept); else NULL */
	enum target_kind kind;
	unsigned plen;		/* PREFIX: the prefix length; ADDR: 32 or 128 */
	unsigned line;		/* line in its file; 0 for a command-line target */
	uint16_t port;
	struct addr addr;	/* ADDR: the address; PREFIX: the network */
};

/* The parsed list and its errors.  Zero-initialize, or targets_init(). */
struct targets {
	struct target *v;
	size_t n, cap;
	struct strbuf errors;	/* every error line, each ending '\n' */
	size_t nerrors;
};

struct targets_opts {
	bool allow_large;	/* --allow-large */
	uint16_t default_port;	/* 0: TARGETS_DEFAULT_PORT */
};

void targets_init(struct targets *t);
void targets_free(struct targets *t);

/* One command-line target.  Returns 0, or -1 with an error line added
 * ("TARGET: what was expected"). */
int targets_parse_spec(struct targets *t, const char *spec, const struct targets_opts *o);

/* A target file's contents (buf need not be NUL-terminated and may hold
 * any bytes); fname is used in messages.  Returns 0, or -1 with every
 * error line added and no entry. */
int targets_parse_buf(struct targets *t, const char *buf, size_t len, const char *fname,
    const struct targets_opts *o);

/* One line of a target file (len bytes, any of them, no '\n'): its
 * target, if any, added.  Returns 0 (also for a blank or comment line),
 * or -1 with an error line "fname:line: ..." added. */
int targets_parse_line(struct targets *t, const char *s, size_t len, const char *fname,
    unsigned line, const struct targets_opts *o);

/* Reads path and parses it (targets_file.c, the only I/O of targets).
 * Returns 0, or -1 with the errors added (an unreadable file is one). */
int targets_read_file(struct targets *t, const char *path, const struct targets_opts *o);

/* A target file streamed (targets_file.c): opened, its lines read by a
 * tstream (target_stream.h) as the caller asks for them. */
struct tstream;
struct target_file;

/* NULL with "path: why" in t's errors when it cannot be opened. */
struct target_file *target_file_open(const char *path, bool allow_large, const uint16_t *ports,
    int nports, struct targets *t);
struct tstream *target_file_stream(struct target_file *tf);
void target_file_close(struct target_file *tf);

/* Reads path through once, as the daemon streams it: *seen targets as
 * written, *kept of them sel's (shard.h's shard_keep; its struct
 * shard_sel).  Returns 0, or -1 with "path: why" added to t's errors. */
struct shard_sel;
int targets_count_shard(const char *path, bool allow_large, const uint16_t *ports, int nports,
    const struct shard_sel *sel, uint64_t *seen, uint64_t *kept, struct targets *t);

/* What a pass over a whole list found, without keeping it. */
struct targets_scan {
	uint64_t entries;		/* targets (one per port) */
	uint64_t addresses;		/* their addresses, a name counted once */
	uint64_t names;
	bool v4, v6;
	size_t errors;			/* error lines (the first few kept) */
};

/* Reads path through once: its entries counted and its errors (at most
 * TARGETS_SCAN_ERRORS of them, then one line counting the rest) added to
 * t's.  Returns 0, or -1 when it has an error or cannot be read. */
#define TARGETS_SCAN_ERRORS 100
int targets_scan_file(const char *path, bool allow_large, const uint16_t *ports, int nports,
    struct targets_scan *sum, struct targets *t);

/* Adds one line to t->errors (a '\n' is appended), for errors found
 * around the parse (an unreadable file, a name that does not resolve). */
void targets_add_error(struct targets *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Addresses an entry stands for: 1 for an address or a name (before it is
 * resolved), 2^(bits - plen) for a prefix. */
uint64_t target_count(const struct target *tg);

/* The k-th address of a prefix entry (k < target_count()); the address
 * itself for TARGET_ADDR and k == 0.  Returns 0, or -1. */
int target_address(const struct target *tg, uint64_t k, struct addr *out);

/* Walks every path of the list in order: each address of each prefix,
 * each literal, and each name once with *addr cleared (family 0). */
struct targets_iter {
	const struct targets *t;
	size_t i;		/* entry */
	uint64_t k;		/* address within the entry */
};
void targets_iter_init(struct targets_iter *it, const struct targets *t);
/* The next entry and its address; NULL at the end. */
const struct target *targets_iter_next(struct targets_iter *it, struct addr *addr);

#endif
