/*
 * demand_req.h -- an on-demand request on the control socket, pure: what
 * a client's bytes so far ask for (scaleprobed(8) "CONTROL PROTOCOL"),
 * and which of its targets the configuration lets it probe (the groups'
 * targets, on-demand's mode).  No allocation, no I/O; every byte is
 * hostile.
 *
 * A request is one per connection, sent whole after connecting:
 *
 *   scaleprobe-demand 1\n
 *   format json\n            (or text; optional, at most once, first)
 *   target SPEC\n            (1 to DEMAND_TARGETS_MAX times)
 *   \n                       (an empty line ends it; nothing may follow)
 *
 * SPEC is a target as probe takes it (HOST, HOST:PORT, [IPV6]:PORT),
 * printable ASCII without spaces, at most TARGETS_TEXT_MAX bytes.
 */
#ifndef SCALEPROBE_DEMAND_REQ_H
#define SCALEPROBE_DEMAND_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "targets.h"

#define DEMAND_MAGIC "scaleprobe-demand 1\n"
/* The most of a request read: a client that has not ended it by then
 * gets an error and is closed. */
#define DEMAND_REQ_MAX 16384
/* Targets one request may carry at all; on-demand-targets caps it lower. */
#define DEMAND_TARGETS_MAX 64

enum demand_parse {
	DEMAND_MORE,		/* not ended yet */
	DEMAND_OK,		/* a whole request, in *req */
	DEMAND_BAD,		/* not a request: why says what */
	DEMAND_TOO_LARGE,	/* no end within max bytes */
};

struct demand_req {
	bool json;
	size_t used;			/* DEMAND_OK: the request's bytes */
	size_t n;
	char target[DEMAND_TARGETS_MAX][TARGETS_TEXT_MAX + 1];
};

/* A parse that goes on as bytes arrive: each feed judges only what came
 * after the last whole line (and the line not yet whole), into *req. */
struct demand_parser {
	struct demand_req *req;
	size_t off;			/* the whole lines' bytes, judged */
	size_t lineno;			/* the lines judged */
};

/* req emptied, to be filled by feeds of one growing buffer. */
void demand_parser_init(struct demand_parser *p, struct demand_req *req);
/* demand_req_parse's verdict for buf's len bytes (the same buffer fed
 * before, grown), judging only the bytes past the lines judged already.
 * After a verdict other than DEMAND_MORE it is not fed again. */
enum demand_parse demand_req_feed(struct demand_parser *p, const char *buf, size_t len,
    size_t max, char *why, size_t whylen);

/* buf holds the len bytes received so far (len <= max).  On DEMAND_BAD
 * and DEMAND_TOO_LARGE, why (one line, no newline) says what was wrong.
 * The verdict of a prefix other than DEMAND_MORE is the whole's, but for
 * a whole request followed by more bytes (one request a connection):
 * DEMAND_OK for the request, DEMAND_BAD with what follows. */
enum demand_parse demand_req_parse(const char *buf, size_t len, size_t max,
    struct demand_req *req, char *why, size_t whylen);

/* Whether spec (a target as written) names its port: HOST:PORT,
 * [IPV6]:PORT; a bare IPv6 address does not. */
bool demand_spec_has_port(const char *spec);

/*
 * The ports on-demand probes request target tg on (port_given: whether
 * its spec named one) under c's on-demand mode: with group-targets, only
 * where a group's target holds it (the same name, or an address within a
 * group's address or prefix) on that port, or with no port given, on
 * every port such a target has; with allowed, the port given, else the
 * ports setting.  Returns how many ports went into ports[] (at most
 * CONF_MAX_PORTS), or 0 with why filled (one line naming the reason).
 */
int demand_ports(const struct conf *c, const struct target *tg, bool port_given,
    uint16_t *ports, char *why, size_t whylen);

#endif
