/*
 * engine_int.h -- what the engine's files share and nothing else sees:
 * the slot of a path in flight, the engine's state, and the helpers the
 * stages (engine_trace.c) call back into engine.c with.
 */
#ifndef SCALEPROBE_ENGINE_INT_H
#define SCALEPROBE_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cookie.h"
#include "engine.h"
#include "ratelimit.h"
#include "reply.h"
#include "trace.h"

struct slot;

struct slot_list {
	struct slot *head, *tail;
};

struct vstate {
	uint64_t sent_at;	/* time of the latest attempt */
	struct variant_obs obs;
	bool answered;
};

/* One path from admission to its result. */
struct slot {
	struct engine_path path;
	struct slot *prev, *next;	/* on the send queue or the deadline list */
	struct slot_list *on;		/* which list, NULL for none */
	struct slot *hnext;		/* hash chain */
	struct trace *tr;		/* while tracing */
	struct window **win;		/* window stage: a machine per variant */
	struct window_obs *wobs;	/* its results, per variant */
	uint32_t trace_tsval;		/* one TSval for every trace SYN */
	uint64_t deadline;
	uint64_t drops_at_start;
	uint32_t pending;		/* variants still to send this round */
	uint32_t answered;		/* variants with a reply */
	struct vstate v[];		/* nvariants */
};

/* The engine's state; engine.c owns it, the stage files share it. */
struct engine {
	struct engine_config cfg;
	struct engine_ops ops;
	struct ratelimit rl;
	struct cookie_key key;

	struct slot **buckets;
	size_t nbuckets;		/* power of two */
	size_t inflight;
	struct slot_list sendq, waitq;
	struct slot_list tracing, trace_wait;
	size_t ntracing;
	struct slot_list windowing, window_wait;
	size_t nwindowing;
	bool no_more_paths;

	struct engine_counters n;
	struct path_result result;	/* scratch for ops->done */
};

/* engine.c */
void slot_list_remove(struct slot *s);
void slot_list_append(struct slot_list *l, struct slot *s);
struct slot *engine_path_find(const struct engine *e, const struct addr *dst,
    uint16_t port);
/* Hands the path's result over and frees the slot. */
void engine_path_finish(struct engine *e, struct slot *s);
uint16_t engine_variant_sport(const struct engine *e, int v);
/* The SYN of variant v with TTL bits ttl (0: the handshake probe). */
void engine_make_syn(const struct engine *e, const struct slot *s, int v, int ttl,
    uint32_t tsval, struct send_syn *syn);
/* TTL bits a reply may carry in this run. */
bool engine_ttl_valid(const struct engine *e, int ttl);

/* After the window stage (or none): the trace, or the result. */
void engine_stage_after_window(struct engine *e, struct slot *s, uint64_t now);

/* engine_window.c */
bool ewindow_wanted(const struct engine *e, const struct slot *s);
/* Starts the window tests of s, or queues it when max_windows run. */
void ewindow_begin(struct engine *e, struct slot *s, uint64_t now);
/* A segment from the server for variant v's test; false when s runs no
 * test for v (the caller handles the segment).  s may be finished (and
 * freed) on return. */
bool ewindow_input(struct engine *e, struct slot *s, int v, const struct reply *r,
    uint64_t now);
/* Timers of running tests; finishes the paths whose tests are done. */
bool ewindow_run(struct engine *e, uint64_t now);
uint64_t ewindow_wake(const struct engine *e, uint64_t next);
void ewindow_free(struct slot *s, int nvariants);

/* engine_trace.c */
bool etrace_wanted(const struct engine *e, const struct slot *s);
/* Starts the trace of s, or queues it when max_traces run already. */
void etrace_begin(struct engine *e, struct slot *s, uint64_t now);
/* Sends the trace probes due (as far as tokens go); finishes traces. */
bool etrace_run(struct engine *e, uint64_t now);
/* The earliest time a running trace needs the engine again. */
uint64_t etrace_wake(struct engine *e, uint64_t now, uint64_t next);
/* A router's quote of variant v's TTL-ttl SYN. */
void etrace_quote(struct engine *e, struct slot *s, int v, int ttl,
    const struct reply *r, uint64_t now);
struct slot *etrace_match_translated(struct engine *e, const struct reply *r,
    int *v, int *ttl);

#endif
