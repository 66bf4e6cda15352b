/*
 * engine_int.h -- what the engine's files share and nothing else sees: the
 * slot of a path in flight, the stage mechanism, the engine's state, and
 * the paid output every stage sends through.
 *
 * A path moves through the stages in their order (stage_id): the
 * handshake, then the window test, then the trace, each only where its
 * wanted() says so.  A stage never starts another: when it is over with a
 * path it calls engine_stage_over(), which parks the path on the engine's
 * "moving" list; the run loop (engine_run) alone takes it from there to
 * the next stage's waiting list or to its result, and admits waiting
 * paths while the stage has room and --rate has tokens.  Input only
 * records and asks for a run (engine_wants_run), so nothing recurses and
 * every result is handed over from the run loop.
 *
 * The files call down only, never back up:
 *   engine.c         the run loop: admission, moving on, results
 *   engine_match.c   a reply to its path and the stage it answers
 *   stage_*.c        the stages, reached through the table (the match
 *                    asks stage_window_owns which segments are the test's)
 *   engine_out.c     every packet sent, paid with a token; the RSTs owed
 *   engine_slot.c    the slots: lists, the path table, memory, the SYNs
 */
#ifndef SCALEPROBE_ENGINE_INT_H
#define SCALEPROBE_ENGINE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cookie.h"
#include "engine.h"
#include "portplan.h"
#include "evidence.h"
#include "ratelimit.h"
#include "reply.h"
#include "rst_owed.h"

struct path_slot;

struct path_slot_list {
	struct path_slot *head, *tail;
	size_t n;
};

enum stage_id {
	STAGE_HANDSHAKE,
	STAGE_WINDOW,
	STAGE_TRACE,
	STAGE_COUNT,
	STAGE_MOVING = STAGE_COUNT,	/* between two stages: owned by the run loop */
};

struct vstate {
	uint64_t sent_at;	/* time of the latest attempt */
	struct variant_obs obs;
	bool answered;
	uint64_t rst_paid;	/* its flows that had their RST (rst_owed.h) */
};

/* The flows of one path: each its own slot through the stages; the
 * result of each is handed over as it ends, the last one's says so. */
struct flow_group {
	int left;			/* flows not yet handed over */
	int started;			/* flows admitted: the next one's number */
	void *user;			/* the caller's (path_result.group_user) */
};

/* One path's flow from admission to its result. */
struct path_slot {
	struct engine_path path;
	struct path_slot *prev, *next;	/* on one path_slot_list at most */
	struct path_slot_list *on;		/* which list, NULL for none */
	struct flow_group *group;	/* its path's flows; NULL with one flow */
	struct path_slot *hnext;		/* hash chain */
	enum stage_id stage;		/* where the path is */
	enum stage_id left;		/* while moving: the stage it left */
	bool running;			/* started in its stage (not waiting) */
	uint64_t drops_at_start;
	uint64_t fails_at_start;	/* send failures when it was admitted */
	struct window_obs *window_obs;	/* the window test's results per variant,
					   for the result and the trace's choice;
					   NULL: no test ran */
	struct path_evidence *ev;	/* the packets that prove the result,
					   until it is handed over (evidence.h) */
	struct vstate v[];		/* nvariants; after them each stage's own
					   state of the path (engine_slot_state) */
};

/* What a reply is, once matched to a path (engine_match.c). */
struct match {
	struct path_slot *s;			/* NULL: no path of this run in flight */
	int v;				/* variant, from the port (portplan.h) */
	int flow;			/* flow, from the port */
	int tag;			/* the ISN's tag (cookie.h), -1 for none */
	enum reply_kind kind;		/* SYN-ACK, RST, ICMP unreachable; NONE
					   for a time-exceeded */
	bool icmp;			/* an ICMP error quoting our probe */
	const uint8_t *pkt;		/* the packet as captured, for evidence */
	size_t len;
};

/*
 * The operations of a stage.  Each sends only through engine_out_*(),
 * which pays every packet with a token of --rate and fails when none is
 * left: a stage then keeps the packet for its next run.
 */
struct stage_ops {
	const char *name;
	/* Whether path s needs the stage; judged when it leaves the stage
	 * before.  NULL: every path. */
	bool (*wanted)(struct engine *e, const struct path_slot *s);
	/* The free tokens a waiting path needs to start now, the stage having
	 * room; ENGINE_NEVER while something else holds it back (the share
	 * of the rate its running paths keep).  NULL: one. */
	uint64_t (*start_need)(struct engine *e);
	/* Starts s (running is set, the count taken); sends what tokens allow.
	 * The stage may be over with s at once. */
	void (*start)(struct engine *e, struct path_slot *s, uint64_t now);
	/* A reply matched to s while s is in this stage. */
	void (*input)(struct engine *e, struct path_slot *s, const struct match *m,
	    const struct reply *r, uint64_t now);
	/* Timers and the packets due of every running path, as far as
	 * tokens go. */
	void (*run)(struct engine *e, uint64_t now);
	/* The earliest time run is needed: a timer, or when the tokens that
	 * packets due wait for will be there (engine_out_when).  ENGINE_NEVER:
	 * nothing to do. */
	uint64_t (*wake)(struct engine *e, uint64_t now);
	/* Releases the stage's state of s, whether done or abandoned. */
	void (*free)(struct engine *e, struct path_slot *s);

	/* The stage's own state, a struct of its file the engine only makes
	 * room for: per path (engine_slot_state, zeroed at admission) and per
	 * engine (engine_stage_state, zeroed).  0: none. */
	size_t path_slot_state_bytes, engine_state_bytes;
	/* Sets the engine's state up from e->cfg; false refuses the
	 * configuration.  NULL: zeroed is ready. */
	bool (*init)(struct engine *e);
	/* Whether packets of paths it runs wait for tokens now: new paths
	 * wait behind them.  NULL: never. */
	bool (*sending)(const struct engine *e);
	/* Writes the stage's part of s's result.  NULL: none. */
	void (*result)(const struct engine *e, const struct path_slot *s,
	    struct path_result *r);
	/* The SYN of variant v the stage sent that the evidence keeps beside
	 * the replies, and what it says of it: the TTL the evidence files it
	 * under, 0 for none.  NULL: none. */
	int (*evidence_syn)(const struct engine *e, const struct path_slot *s, int v,
	    struct send_syn *syn, char *fields, size_t len);
};

struct stage {
	const struct stage_ops *ops;
	struct path_slot_list waiting;	/* wanted, not started: no room yet */
	size_t running, limit;		/* started and not over; at most */
	void *state;			/* ops->engine_state_bytes */
	size_t path_slot_off;		/* where its state of a path begins */
};

/* A RST owed to a SYN-ACK, waiting for its token. */
struct rst_owed {
	struct addr src, dst;
	uint16_t sport, dport;
	uint32_t seq;
};

/* The engine's state; engine.c owns it, the stage files share it. */
struct engine {
	struct engine_config cfg;
	struct engine_ops ops;
	struct portplan plan;		/* source port <-> (flow, variant, conn) */
	struct ratelimit rl;
	uint64_t burst;			/* the bucket's depth, in packets */
	uint64_t reserved;		/* tokens set aside (engine_out_reserve) */
	struct cookie_key key;

	struct path_slot **buckets;
	size_t nbuckets;		/* power of two */
	size_t inflight;
	bool no_more_paths;
	bool paths_later;		/* next_path had none ready yet */
	bool wants_run;			/* input changed what is due */
	uint64_t in_at;			/* the packet being input: when the
					   kernel received it (<= its now) */

	struct stage stages[STAGE_COUNT];
	struct path_slot_list moving;	/* over with a stage, not yet moved on */
	size_t path_slot_bytes;		/* a slot with its variants and every
					   stage's state of the path */

	struct rst_owed *rsts;		/* ring of RSTs owed */
	size_t rst_head, rst_len, rst_cap;
	struct rst_memo rst_memo;	/* flows of finished paths */

	struct engine_counters n;
	uint64_t mem;			/* bytes the paths in flight hold */
	struct path_result result;	/* scratch for ops->done */
};

/* A stage's state of a path holds pointers and 64-bit fields at most
 * (each stage file asserts it): the slot aligns it to this. */
#define ENGINE_STATE_ALIGN _Alignof(uint64_t)

/* A stage's own state of path s, and of the engine: its file's struct. */
static inline void *
engine_slot_state(const struct engine *e, const struct path_slot *s, enum stage_id id)
{
	return (char *)s + e->stages[id].path_slot_off;
}

static inline void *
engine_stage_state(const struct engine *e, enum stage_id id)
{
	return e->stages[id].state;
}

extern const struct stage_ops stage_handshake_ops;
extern const struct stage_ops stage_window_ops;
extern const struct stage_ops stage_trace_ops;

/* engine_slot.c: the slots, beneath every other file of the engine */
void path_slot_list_remove(struct path_slot *s);
void path_slot_list_append(struct path_slot_list *l, struct path_slot *s);
struct path_slot *engine_path_find(const struct engine *e, const struct addr *dst,
    uint16_t port, int flow);
void engine_path_insert(struct engine *e, struct path_slot *s);
void engine_path_unlink(struct engine *e, struct path_slot *s);
/* What the paths in flight hold grew (or shrank) by delta bytes. */
void engine_mem(struct engine *e, int64_t delta);
/* The path's stage is over with it: the run loop moves it on. */
void engine_stage_over(struct engine *e, struct path_slot *s);
/* The source port of flow's variant v: its first connection's, and the
 * window test's second connection's. */
uint16_t engine_variant_sport(const struct engine *e, int flow, int v);
uint16_t engine_second_sport(const struct engine *e, int flow, int v);
/* The SYN of variant v carrying the ISN tag (0: the handshake probe; a
 * trace's TTL; COOKIE_TAG_WINDOW). */
void engine_make_syn(const struct engine *e, const struct path_slot *s, int v, int tag,
    uint32_t tsval, struct send_syn *syn);
uint32_t engine_flow_label(const struct engine *e, const struct addr *src,
    const struct addr *dst, uint16_t sport, uint16_t dport);

/* engine_out.c: every packet the engine sends, one token of --rate each.
 * Each returns 1 sent, 0 when no token is left (nothing done: send it
 * later), -1 when the token went but the send failed (counted). */
int engine_out_syn(struct engine *e, const struct send_syn *syn, uint64_t now);
int engine_out_segment(struct engine *e, const struct send_segment *seg, uint64_t now);
/* Sets n tokens aside (false, nothing set aside, when fewer are free): the
 * window test promises its ACK and request to a SYN's SYN-ACK, since the
 * server takes its RTT from that ACK.  Released as used or when the test
 * no longer needs them. */
bool engine_out_reserve(struct engine *e, uint64_t n, uint64_t now);
void engine_out_release(struct engine *e, uint64_t n);
/* A segment paid with a token set aside before. */
int engine_out_segment_reserved(struct engine *e, const struct send_segment *seg,
    uint64_t now);
/* Whether SYN-ACK r (matched as m, cookie and tag valid) is owed its flow's
 * one RST (rst_owed.h): if so, the flow is marked paid and the RST queued,
 * sent by engine_out_rsts before anything else. */
enum rst_decision engine_out_owe_rst(struct engine *e, const struct match *m,
    const struct reply *r);
/* Whether port (of ours, flow's variant v's) is the window test's second
 * port. */
bool engine_out_second_port(const struct engine *e, int flow, int v, uint16_t port);
/* Hands the RST records of a finished path to the memo. */
void engine_out_retire(struct engine *e, const struct path_slot *s);
void engine_out_rsts(struct engine *e, uint64_t now);
bool engine_out_rsts_owed(const struct engine *e);
/* Whether a token is there now (without taking it). */
bool engine_out_can(struct engine *e, uint64_t now);
/* Tokens there now and not set aside (without taking any). */
uint64_t engine_out_tokens(struct engine *e, uint64_t now);
/* When n tokens not set aside will be there: now or later; ENGINE_NEVER
 * when only a release of tokens set aside can make room. */
uint64_t engine_out_when(struct engine *e, uint64_t now, uint64_t n);
void engine_out_free(struct engine *e);

/* stage_window.c: whether s tests variant v now (its segments go there);
 * and runs its second connection on the first's 4-tuple. */
bool stage_window_owns(const struct engine *e, const struct path_slot *s, int v);
bool stage_window_second_here(const struct engine *e, const struct path_slot *s, int v);

/* engine_match.c: a captured packet to the path and stage it answers. */
void engine_match_input(struct engine *e, const uint8_t *pkt, size_t len, uint64_t now);

#endif
