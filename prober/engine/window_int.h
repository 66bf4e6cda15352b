/*
 * window_int.h -- what the window test's files share and nothing else
 * sees: the state of one test (struct window), its bounds, and the calls
 * between its parts.  The parts call down only:
 *   window.c         start, what arrives, timers (the entry points)
 *   window_round.c   a round's end, the connection's end, a second
 *                    connection, and when a round or the request is due
 *   window_act.c     the actions queued for the engine to send
 *   window_result.c  the result of the test, one or two connections
 */
#ifndef SCALEPROBE_WINDOW_INT_H
#define SCALEPROBE_WINDOW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "window.h"
#include "window_judge.h"
#include "window_ranges.h"
#include "wire_tcp.h"

#define NS_PER_MS 1000000ull
#define MS(x) ((uint64_t)(x) * NS_PER_MS)

#define WINDOW_RFC_MSS 536		/* MSS when the SYN-ACK names none */
#define WINDOW_TS_LEN 12		/* NOP NOP TS */
#define WINDOW_PAYLOAD_MAX 1428		/* 1500 - IPv6 40 - TCP 20 - TS 12 */
#define WINDOW_REQUEST_SEGS 16		/* a request goes in at most this many */
#define WINDOW_RTT_MAX MS(3000)		/* beyond this an RTT is no RTT */
#define WINDOW_QUIET_RTTS 3		/* a round's quiet time, in RTTs */
#define WINDOW_QLEN 16			/* actions not yet taken: a connection
					   queues at most SYN, ACK, the request
					   (one entry), a re-ACK and six RSTs */
#define WINDOW_DUP_SYNACKS 3
#define WINDOW_STRAGGLER_RSTS 2
#define WINDOW_DUPACKS 4		/* per round */
#define WINDOW_PAUSE MS(100)		/* between the connections, at least */
#define WINDOW_TTL_INIT(t) ((t) <= 64 ? 64 : (t) <= 128 ? 128 : 255)

enum wstate { ST_SYN, ST_OPEN, ST_PAUSE, ST_DONE };

/* An action as queued (window_act.c): what struct window_act says, in 28
 * bytes rather than 48.  The payload is an offset into the request; a
 * request is one entry, cut into segments of seg_out as they leave. */
struct window_qact {
	uint32_t seq, ack, tsval, tsecr;
	uint16_t off, len, seg;		/* of the request: [off, len) left,
					   cut in pieces of seg */
	uint16_t window;
	uint8_t kind;			/* enum window_act_kind */
	uint8_t flags;
	bool ts, second;
};

struct window {
	struct window_config cfg;	/* cfg.request: the caller's, shared by
					   the tests of a path (not copied) */
	uint16_t w;
	enum wstate st;
	uint64_t now;			/* latest time handed in */
	uint64_t t0, syn_at;
	int syns;
	uint32_t isn;

	/* the handshake */
	bool established;
	uint32_t irs;			/* the server's ISN */
	uint64_t rtt;
	bool ts;			/* agreed by both SYNs */
	uint32_t ts_recent;		/* the server's latest TSval */
	size_t seg_out;			/* our payload per segment */
	uint32_t peer_ack;		/* request bytes the server acked */
	int dup_synacks;
	uint64_t req_at;
	int req_sends;
	int peer_ws;			/* the server's shift for its windows */
	bool req_held;			/* the request waits for the window */
	uint64_t held_at;
	int held_acks;			/* ACKs resent while it waits */
	uint16_t synack_window;
	uint8_t synack_ttl, data_ttl;
	bool win_update;		/* a segment opened a closed window */

	/* the answer: offsets from the server's ISN + 1 */
	uint64_t highest;		/* highest end received */
	uint64_t acked;			/* what our last ACK acknowledged */
	uint64_t round_at, last_new_at;
	uint64_t left_at;		/* our latest segment left (the engine took
					   it): the server can answer from then */
	uint32_t round_m;
	bool round_retrans, round_cut;
	int dupacks_left;		/* re-ACKs allowed this round */
	bool fin, rst_in;
	struct window_ranges got;	/* received this round */
	struct wj_flights fl;		/* the rounds so far */

	/* the outcome */
	enum window_end end;
	int rst_left;
	uint32_t ignored, retrans;

	/* the first connection, when a second one measures again */
	bool second;
	bool second_port;		/* the second from its own port
					   (cfg.isn_second): only where the
					   first showed a SYN proxy, which holds
					   the closed 4-tuple; else on the
					   first's, the flow's branch */
	uint64_t pause_until;
	struct window_result first;
	bool proxy;			/* a proxy's evidence, either connection */
	uint16_t proxy_window;
	uint8_t proxy_ttl, proxy_data_ttl;

	struct window_qact q[WINDOW_QLEN];
	int qhead, qlen;
};

static inline uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* a + b without wrapping past WINDOW_NEVER */
static inline uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > WINDOW_NEVER - b ? WINDOW_NEVER : a + b;
}

/* W << k, the window shift k allows. */
static inline uint64_t
wnd(const struct window *w, int k)
{
	return (uint64_t)w->w << k;
}

/* window_act.c: actions queued, in the order the engine sends them */
void window_push(struct window *w, enum window_act_kind kind, uint32_t seq, uint8_t flags,
    uint16_t len);
void window_push_ack(struct window *w);
void window_push_reack(struct window *w);
void window_push_request(struct window *w);
void window_push_rst(struct window *w);

/* window_round.c: a round's and a connection's end, and their times */
void window_round_end(struct window *w, enum window_end forced);
void window_finish(struct window *w, enum window_end end);
void window_restart(struct window *w);
uint64_t window_end_wait(const struct window *w);
uint64_t window_round_due(const struct window *w);
uint64_t window_request_due(const struct window *w);

/* window_result.c: one connection's result (done: it has ended) */
void window_result_one(const struct window *w, bool done, struct window_result *res);

#endif
