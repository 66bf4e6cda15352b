/*
 * trace.h -- the TTL ladder of one path, as a pure state machine.
 *
 * Every variant's SYN goes out again with TTL / hop limit 1..max_ttl on
 * the variant's own 4-tuple (so ECMP keeps one path), the TTL carried in
 * the ISN's low bits.  All TTLs of a round go out in one sweep, one TTL
 * level every gap_ns so that no router is asked for more than one error
 * per variant at once (routers rate-limit ICMP); after the sweep and one
 * timeout, the hops that stayed silent are asked again, up to retries
 * times.  A round whose every TTL worth asking answered ends at once: its
 * wait could only end the trace.  TTLs beyond the destination (the smallest TTL a SYN-ACK or RST
 * came back for) are never retried.  The caller sends, and reports what
 * came back; time is handed in.  Variant 0 is the control SYN: its
 * destination TTL bounds every variant (a variant a box drops never
 * reaches the destination, and has nothing to learn beyond it).
 *
 * Closing the interval: once the retries are spent, a variant whose
 * silent TTLs lie inside the interval that holds the box -- after its
 * last full quote with the option intact and before its first full quote
 * showing it changed (or, with none changed, before the highest TTL the
 * variant heard from) -- has those TTLs, and only those, asked again, one
 * round per timeout (a rate-limited router answers about one error a
 * second), until they answer or close_rounds rounds are spent.  A TTL
 * that answered another variant of the path is a router that answers,
 * rate-limited: it gets every round; one no variant heard from is likely
 * silent by design and gets at most two.  A variant that never reached
 * the destination (its SYN dropped on the way) has no changed quote to
 * end its interval: the box is placed at the first TTL above the highest
 * it heard that another variant heard, and that TTL is asked again too,
 * for at most two rounds (it is likely the box, silent for good).  Each
 * variant still keeps only its own quotes.
 */
#ifndef SCALEPROBE_TRACE_H
#define SCALEPROBE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "result.h"

struct trace_config {
	int nvariants;
	int max_ttl;		/* 1..RESULT_MAX_HOPS */
	int retries;		/* extra rounds for silent hops */
	uint64_t gap_ns;	/* between two TTL levels of a sweep */
	uint64_t timeout_ns;	/* after a sweep's last SYN */
	int close_rounds;	/* extra rounds closing an interval (below) */
};

struct trace;

struct trace *trace_new(const struct trace_config *cfg, uint64_t now);
void trace_free(struct trace *t);
/* The bytes a trace of nvariants holds (the engine's count of its memory). */
size_t trace_bytes(int nvariants);

/* The next probe due at now: 1 with *variant and *ttl set (the caller
 * sends it and calls trace_sent), or 0 when nothing is due now. */
int trace_next(struct trace *t, uint64_t now, int *variant, int *ttl);
void trace_sent(struct trace *t, int variant, int ttl, uint64_t now);

/* Hop ttl answered the variant's probe with an ICMP error; q is what the
 * comparison with the bytes sent found.  Repeated answers keep the first. */
void trace_hop(struct trace *t, int variant, int ttl, const struct hop_quote *q,
    uint64_t now);

/* The destination answered the variant's probe with TTL ttl. */
void trace_dest(struct trace *t, int variant, int ttl);

/* Hop ttl refused the variant's probe (ICMP destination unreachable):
 * the path ends there for that variant, as at a destination, but no
 * destination answered. */
void trace_refused(struct trace *t, int variant, int ttl);

/* The router that answered TTL ttl first, for any variant (stays the
 * same once known), or NULL: whose ICMP budget a probe with that TTL
 * draws on (router_pace.h). */
const struct addr *trace_router(const struct trace *t, int ttl);

/* When the variant's probe with this TTL last went; 0: never. */
uint64_t trace_sent_at(const struct trace *t, int variant, int ttl);

/* When something is next due (a send or the end of a round: 0, due now,
 * once every TTL worth asking answered); UINT64_MAX when done. */
uint64_t trace_wake(const struct trace *t);

/* Ends the round if its time is up (starting the next, or finishing);
 * true once the trace is complete. */
bool trace_step(struct trace *t, uint64_t now);

const struct trace_obs *trace_result(const struct trace *t, int variant);

#endif
