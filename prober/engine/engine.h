/*
 * engine.h -- probes in flight.  The engine is handed time and packets and
 * calls back to send and to report; it owns no socket, clock or timer, so
 * tests drive it with a fake wire.
 *
 * A path goes through stages (engine_int.h has the mechanism):
 *
 *   handshake    one SYN per variant (variant 0 is the control SYN without
 *                window scale, 1..n the scale factors), each from its own
 *                source port (port_lo + variant), retried on timeout;
 *   window test  where a scale drew a SYN-ACK and the port has a request
 *                (ops->request): a real connection per scale to see which
 *                shift the server applied (window.h); max_windows at once;
 *   trace        where it is still needed (--trace auto) or asked for:
 *                every variant again with TTL 1..trace_max_ttl, router
 *                quotes compared with the bytes sent (trace.h, quote.h);
 *                max_traces at once.
 *
 * Every packet sent -- SYNs, the window test's segments, the RSTs that
 * answer SYN-ACKs -- is paid with one token of the rate's bucket as it
 * leaves.  Replies are validated statelessly (the ISN is a keyed hash of
 * the 4-tuple with a tag for the stage, cookie.h) before the path they
 * belong to is looked up, so replies to probes never sent are counted
 * and ignored.  engine_input only records; what a reply makes due (a RST,
 * a window test's ACK, the next stage, a result) happens in the next
 * engine_run, which the caller makes soon when engine_wants_run says so.
 * Results are handed over from engine_run only.  Memory is bounded by
 * max_inflight paths.
 */
#ifndef SCALEPROBE_ENGINE_H
#define SCALEPROBE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "probe_settings.h"
#include "reply.h"
#include "result.h"
#include "wire_send.h"

#define ENGINE_NS_PER_SEC 1000000000ull
#define ENGINE_NEVER UINT64_MAX
/* Packets sent between two reads of the capture within one run: on a fast
 * link the replies of a burst arrive while it is sent, and must find room
 * in the capture ring (thousands of frames) */
#define ENGINE_DRAIN_EVERY 512
#define ENGINE_PATH_LATER 2

/* The offset of the window test's second connections' source ports
 * (stage_window.c) with one flow; with F flows the port plan
 * (portplan.h) puts them F x ENGINE_PLAN_VARIANTS on. */
#define ENGINE_SECOND_PORTS SEND_MAX_VARIANTS
/* The variant slots of each flow in the port plan: every variant a
 * reload may bring, so one flow is the layout before flows, port for
 * port, and the guard's range never changes with the scales. */
#define ENGINE_PLAN_VARIANTS SEND_MAX_VARIANTS

struct engine_config {
	int nvariants;			/* 1 + number of scales */
	int variant_scale[SEND_MAX_VARIANTS];	/* [0] = -1 (control) */
	uint32_t rate;			/* packets per second, 1..10,000,000 */
	uint32_t burst;			/* token bucket depth; 0: derived from rate */
	uint64_t timeout_ns;		/* wait for a reply after each attempt */
	int retries;			/* extra attempts for a silent variant */
	uint16_t port_lo;		/* first source port of the guard's range:
					   flow f's variant v sends from the port
					   plan's port (portplan.h), with one
					   flow port_lo + v, a window test's
					   second connection port_lo +
					   ENGINE_SECOND_PORTS + v */
	int flows;			/* flows per path, 1..PORTPLAN_MAX_FLOWS
					   (0: 1); the guard's range holds
					   portplan_blocks(flows,
					   ENGINE_PLAN_VARIANTS) blocks */
	bool flows_auto;		/* flows is the most a path gets: it
					   starts with one, and the caller adds
					   more as each last one ends
					   (path_result.flows_more) */
	uint8_t key[16];		/* SipHash key of this run */
	size_t max_inflight;		/* paths at once */
	uint8_t ttl;			/* TTL / hop limit of handshake SYNs */
	enum probe_trace trace;
	int trace_max_ttl;		/* 1..30 */
	uint64_t trace_gap_ns;		/* between TTL levels of a sweep */
	size_t max_traces;		/* paths tracing at once */
	uint32_t trace_pace;		/* trace probes per second per router
					   across paths, at the start
					   (router_pace.h); 0: not paced */
	uint32_t trace_pace_floor_milli; /* per 1000 s, the least a router's
					   rate falls to; 0: trace_pace */
	uint32_t trace_pace_burst;	/* 0: 6, Linux's ICMP burst */
	int trace_close_rounds;		/* rounds asking silent hops inside the
					   box's interval again (trace.h) */
	bool window_test;		/* run the window test (ops->request) */
	bool no_evidence;		/* keep no packets for the result (nobody
					   stores them): less memory per path */
	size_t max_windows;		/* paths window-testing at once */
};

/* A path to probe, as the caller hands it over. */
struct engine_path {
	const char *target;		/* as given; must outlive the engine */
	struct addr dst, src;
	uint16_t port;
	struct timespec wall;		/* wall clock, for the result's time */
	const char *host;		/* the name the target gave, or NULL */
	int capture;			/* index of the capture its replies come
					   through (ops->capture_failure) */
	const void *tag;		/* the caller's, handed back in the result */
	int flow;			/* set by the engine: which of the path's
					   flows (0..flows - 1) the slot probes */
};

struct engine_ops {
	void *arg;
	/* Next path to probe: 1 and *out filled, 0 when there are no more,
	 * ENGINE_PATH_LATER when none is ready yet (a name being resolved):
	 * the engine asks again after engine_paths_ready(). */
	int (*next_path)(void *arg, struct engine_path *out);
	int (*send_syn)(void *arg, const struct send_syn *syn);
	int (*send_segment)(void *arg, const struct send_segment *seg);
	/* Makes queued packets leave now (end of a burst). */
	void (*flush)(void *arg);
	/* The exact bytes of a SYN as sent (sender_render_syn), for the
	 * trace to compare router quotes with; returns the length. */
	size_t (*render_syn)(void *arg, const struct send_syn *syn, uint8_t *buf,
	    size_t cap);
	/* The window test's request for a path (HTTP GET, TLS ClientHello,
	 * --payload): its length, 0 for no window test on this path. */
	size_t (*request)(void *arg, const struct engine_path *p, uint8_t *buf,
	    size_t cap);
	/* Reads replies pending in the capture (may call engine_input):
	 * before a probe is declared unanswered, and every
	 * ENGINE_DRAIN_EVERY packets of a long burst. */
	void (*drain)(void *arg);
	/* Capture drops so far (pcap_stats), to charge paths in flight. */
	uint64_t (*capture_drops)(void *arg);
	/* Packets the kernel refused to send so far, to charge paths in
	 * flight (their silence is no evidence).  May be NULL. */
	uint64_t (*send_failures)(void *arg);
	/* Why capture number i failed ("eth0: why"), NULL while it works:
	 * a path through it ends inconclusive.  May be NULL. */
	const char *(*capture_failure)(void *arg, int capture);
	/* Which packet the latest send_syn / send_segment handed over (0:
	 * none known), and when packet id left, on now's clock (0: not yet,
	 * or no longer known): a window test's SYN waits behind the packets
	 * queued before it, and its RTT counts from its leaving, not from
	 * the engine's handing it over.  Both may be NULL. */
	uint64_t (*sent_id)(void *arg);
	uint64_t (*left_at)(void *arg, uint64_t id);
	/* A path is finished; the result is valid during the call only. */
	void (*done)(void *arg, struct path_result *res);
};

struct engine_counters {
	uint64_t paths_started, paths_done;
	uint64_t syns_sent, retries_sent, rsts_sent, send_errors;
	uint64_t synacks, rsts, icmp_errors;	/* matched to a path in flight */
	uint64_t paths_traced, trace_sent, trace_hops, trace_dest;
	uint64_t paths_windowed, window_sent;
	uint64_t rejected;	/* failed validation: never sent by us, or
				   malformed; the sum of rejects */
	uint64_t rejects[REPLY_REJECT_COUNT];	/* by reason (reply.h); [0]
				   stays 0 */
	uint64_t replayed;	/* SYN-ACKs of a flow that had its one RST,
				   or whose connection the window test
				   holds: a retransmission or a replay */
	uint64_t late;		/* valid, but its path was not (or no longer)
				   in the stage the reply answers */
	uint64_t ignored;	/* not addressed to our ports at all, or
				   nothing a probe draws (a quote of UDP) */
	/* the engine's own bytes per path (slots, machines, evidence; not
	 * malloc's overhead nor the path table): the most held at once, and
	 * the paths in flight at that moment; the most paths in flight */
	uint64_t mem_peak, mem_peak_paths, inflight_peak;
	uint64_t mem_now;	/* held now: 0 once every path is done */
};

struct engine;

struct engine *engine_new(const struct engine_config *cfg, const struct engine_ops *ops);
void engine_free(struct engine *e);

/* Sends what is due at now, expires timeouts, admits new paths.
 * Returns the time (ns, same clock as now) of the next thing to do,
 * ENGINE_NEVER when finished. */
uint64_t engine_run(struct engine *e, uint64_t now);

/* One captured L3 packet (IPv4 or IPv6 header first).  Sends nothing. */
void engine_input(struct engine *e, uint64_t now, const uint8_t *pkt, size_t len);
/* The same, received (by the kernel: the capture's stamp, on now's clock)
 * at at <= now: the window test measures the path's RTT and a flight's
 * gaps from it, not from when a loaded loop got to read it.  An at
 * after now counts as now. */
void engine_input_at(struct engine *e, uint64_t now, uint64_t at, const uint8_t *pkt,
    size_t len);

/* Whether input since the last engine_run made something due now: the
 * caller runs the engine at once rather than at the time it returned. */
bool engine_wants_run(const struct engine *e);

/* Paths may be ready again after next_path said ENGINE_PATH_LATER: the
 * caller runs the engine soon (engine_wants_run). */
void engine_paths_ready(struct engine *e);

bool engine_finished(const struct engine *e);
/* Nothing in flight and no RST owed: the engine may be freed without
 * leaving a path or a server's half-open connection behind. */
bool engine_idle(const struct engine *e);
/* Whether (dst, port) is in flight: a path handed out for it now would be
 * skipped as a duplicate, without a result. */
bool engine_has_path(const struct engine *e, const struct addr *dst, uint16_t port);
/* The tag of the path in flight on (dst, port); NULL when none is. */
const void *engine_path_tag(const struct engine *e, const struct addr *dst, uint16_t port);
size_t engine_inflight(const struct engine *e);
/* The rate's bucket depth in use (engine_config.burst or its default):
 * the packets that may leave at once beyond the steady pace. */
uint64_t engine_burst(const struct engine *e);
void engine_counters(const struct engine *e, struct engine_counters *out);

#endif
