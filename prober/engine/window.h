/*
 * window.h -- the window test of one (path, scale s) as a pure state
 * machine: which scale did the server apply to the windows we send?
 *
 * The machine completes a handshake from the raw socket, sends a request,
 * and acknowledges the answer round by round with the window field W of
 * window_choose_w(s); from the bytes the server dares to have in flight it
 * tells the shift s'' it applies to our windows (window.c explains every
 * rule).  The engine owns packets and time: it sends the SYN, hands in
 * every segment of the connection and the time, and sends what the machine
 * asks for (window_next_action) -- see "Driving it" below.
 *
 * Driving it (the engine):
 *   w = window_start(&cfg, isn, now)     isn = cookie_isn(..., COOKIE_TAG_WINDOW)
 *   loop: window_next_action(w, now, &a) until false, send each a
 *   at once (now is when it leaves; it may wait for a token first):
 *     WINDOW_ACT_SYN   the variant's SYN template, seq a.seq (= isn, or
 *                      cfg.isn_second), TSval a.tsval; same 4-tuple
 *                      every time, but a.second: from the second
 *                      connection's own source port (stage_window.c)
 *     any other kind   send_segment: seq a.seq, ack a.ack, flags a.flags,
 *                      window a.window, payload a.payload/a.payload_len,
 *                      options from window_act_options (12 bytes NOP NOP
 *                      TS when timestamps were agreed, else none), the
 *                      SYN's TTL and flow label
 *   every TCP segment of the 4-tuple (seg.second: to the second
 *   connection's port) from the server: window_input, then
 *   drain the actions again; at window_next_wake: window_on_timer, drain.
 *   When window_done: drain the last actions (the RST), window_result,
 *   keep w alive a little to answer stragglers (window_input after done
 *   may queue one more RST), then window_free.
 */
#ifndef SCALEPROBE_WINDOW_H
#define SCALEPROBE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe_settings.h"

#define WINDOW_MAX_SCALE 14		/* RFC 7323: larger shifts count as 14 */
#define WINDOW_BASE_BYTES 8192u		/* W << min(s, 14) is at most this ... */
#define WINDOW_MAX_BYTES (1u << 20)	/* ... and no test reads more than 1 MiB */
#define WINDOW_MAX_ROUNDS 16
#define WINDOW_REQUEST_MAX PROBE_PAYLOAD_MAX	/* bytes of request the machine sends */
#define WINDOW_NEVER UINT64_MAX

/* The window field W for scale s (s < 0, the control, counts as 0):
 * max(1, 8192 >> min(s, 14)). */
uint16_t window_choose_w(int s);

struct window_config {
	int scale_sent;			/* shift our SYN carries (0..255) */
	uint16_t mss_ours;		/* MSS our SYN offers: bounds the
					   server's segments; 0: 1460 */
	bool ts;			/* our SYN offers timestamps */
	const uint8_t *request;		/* not copied: it must outlive the
					   machine (a path's tests share one);
					   NULL when request_len is 0 */
	size_t request_len;		/* 0..WINDOW_REQUEST_MAX */
	uint64_t min_quiet_ns;		/* a flight has stopped after no new
					   data for max(3 RTT, this) */
#define WINDOW_QUIET_FLOOR 10000000ull	/* the default: 10 ms (window.c) */
	uint64_t end_wait_ns;		/* a round with no new data this long
					   (at least 4 RTT): the answer ended */
	uint64_t first_data_ns;		/* wait for the answer's first byte */
	uint64_t round_max_ns;		/* a round ends after this, whatever
					   trickles in (at least 10 RTT) */
	uint64_t synack_timeout_ns;	/* per SYN attempt */
	int syn_retries;		/* extra SYNs when no SYN-ACK comes */
	int request_retries;		/* resends of an unacknowledged request */
	uint64_t max_ns;		/* the whole test */
	int max_rounds;			/* 2..WINDOW_MAX_ROUNDS */
	size_t max_bytes;		/* of answer read; at most WINDOW_MAX_BYTES */
	uint32_t isn_second;		/* the ISN of a second connection, from
					   its own source port; 0: none (it reuses
					   the first one's 4-tuple and ISN) */
};

/* Defaults for scale s: quiet max(3 RTT, 10 ms), 1 s end wait, 3 s for the first byte,
 * 3 s per round, 1 s per SYN with 2 retries, 2 request resends, 20 s in
 * all, 8 rounds, 1 MiB; MSS 1460 with timestamps; no request. */
void window_config_defaults(struct window_config *c, int scale);

/* One TCP segment of the connection, from the server, as captured. */
struct window_seg {
	uint32_t seq, ack;
	uint8_t flags;			/* TCP flag bits as on the wire */
	uint16_t window;		/* window field, unscaled */
	uint32_t payload_len;		/* TCP payload bytes (IP length minus
					   headers: a GRO'd capture may exceed
					   one MSS) */
	int mss;			/* SYN-ACK: its MSS option; -1 none */
	bool ts;			/* carries the timestamps option */
	uint32_t tsval;			/* its TSval when ts */
	int wscale;			/* SYN-ACK: its window scale; -1 none
					   (0 too: then the windows that follow
					   are read unscaled) */
	uint8_t ttl;			/* IP TTL / hop limit it arrived with */
	bool second;			/* to the second connection's port */
	uint64_t at;			/* when the kernel received it, on the
					   engine's clock (the capture's stamp):
					   the RTT and a flight's gaps count
					   from it, not from when it was read
					   (a loaded loop reads late); 0, or
					   after now: now */
};

enum window_act_kind {
	WINDOW_ACT_SYN,			/* (re)send the SYN */
	WINDOW_ACT_ACK,			/* a pure ACK with window W */
	WINDOW_ACT_DATA,		/* request bytes, ACK|PSH, window W */
	WINDOW_ACT_RST,			/* the end: RST at the server's rcv_nxt */
};

struct window_act {
	enum window_act_kind kind;
	uint32_t seq, ack;
	uint8_t flags;			/* TCP flag bits as on the wire */
	uint16_t window;
	const uint8_t *payload;		/* into the machine's copy of the */
	size_t payload_len;		/*   request: valid while it lives */
	bool ts;			/* carry timestamps (TSval, TSecr) */
	uint32_t tsval, tsecr;
	bool second;			/* of the second connection: from its
					   own source port (isn_second) */
};

/* Why the test stopped.  WINDOW_END_REFUSED: the request never fit the
 * server's window (a SYN-ACK with a small window is waited on: a SYN
 * proxy opens it once it reached the server). */
enum window_end {
	WINDOW_END_NONE = 0,		/* still running */
	WINDOW_END_EXACT,		/* the flight plateaued: window-limited */
	WINDOW_END_DATA,		/* a round brought nothing: answer over */
	WINDOW_END_FIN,			/* the server closed */
	WINDOW_END_RST,			/* the server reset */
	WINDOW_END_MAX_ROUNDS,
	WINDOW_END_MAX_BYTES,
	WINDOW_END_TIMEOUT,		/* max_ns */
	WINDOW_END_NO_SYNACK,		/* silence after every SYN */
	WINDOW_END_NO_DATA,		/* no byte of answer came */
	WINDOW_END_OVERRUN,		/* data beyond any legal window */
	WINDOW_END_REFUSED,		/* the request cannot be sent */
};

struct window_result {
	int scale_sent;
	uint16_t w;			/* window field used */
	enum window_end end;
	bool synack;			/* the handshake completed */
	bool inconclusive;		/* nothing may be concluded */
	int scale_effective;		/* 0..14 when exact, else -1 */
	int scale_effective_min;	/* smallest shift consistent with the
					   flights (equal to scale_effective
					   when exact); -1 when inconclusive */
	int64_t flight_bytes;		/* the plateau when exact, else the
					   largest flight; -1 when none */
	uint32_t total_bytes;		/* answer bytes seen, ISN+1 to the
					   highest end received */
	int rounds;
	uint32_t flight[WINDOW_MAX_ROUNDS];	/* per round */
	uint32_t rtt_us;		/* our SYN to its SYN-ACK (seg.at) */
	uint32_t ignored;		/* segments refused (out of window, bad
					   ack, before the handshake, ...) */
	uint32_t retransmissions;	/* segments resending data seen */
	bool remeasured;		/* a second connection with W = 1 ran
					   (the first showed a larger shift than
					   sent, capped by the congestion window) */
	uint16_t first_w;		/* then the first connection's W, */
	int first_rounds;		/*   rounds and flights */
	uint32_t first_flight[WINDOW_MAX_ROUNDS];
	/* A SYN proxy answered the handshake: its SYN-ACK had window 0 and
	 * a window update followed, or its TTL differs from the data's. */
	bool syn_proxy;
	uint16_t synack_window;		/* the SYN-ACK's window field */
	uint8_t synack_ttl;		/* its TTL as it arrived */
	uint8_t data_ttl;		/* the first data segment's; 0 none */
	char reason[160];		/* one plain sentence */
};

struct window;

/* Starts a test whose SYN carries isn; the first action is that SYN.
 * NULL when cfg is unusable (a request longer than WINDOW_REQUEST_MAX). */
/* The bytes a machine holds (for the engine's count of its memory). */
size_t window_bytes(void);
struct window *window_start(const struct window_config *cfg, uint32_t isn, uint64_t now);
void window_free(struct window *w);

/* A segment of the connection from the server (SYN-ACK, data, FIN, RST). */
void window_input(struct window *w, const struct window_seg *seg, uint64_t now);
/* The latest SYN left at at (the sender's stamp), later than the engine
 * took it: before its SYN-ACK, the RTT and the SYN's timer count from
 * there.  Earlier stamps, and any after the SYN-ACK, change nothing. */
void window_syn_left(struct window *w, uint64_t at);

/* Time has come (at or after window_next_wake). */
void window_on_timer(struct window *w, uint64_t now);

/* When to call window_on_timer next; WINDOW_NEVER once done. */
uint64_t window_next_wake(const struct window *w);

/* Whether an action waits to be taken (the engine takes one per token). */
bool window_pending(const struct window *w);
/* The kind (enum window_act_kind) of the action that waits first, -1 for none. */
int window_next_kind(const struct window *w);
/* The next segment to send, leaving at now: true and *a filled, false
 * when none.  The machine's timers count from when segments left. */
bool window_next_action(struct window *w, uint64_t now, struct window_act *a);

/* The TCP options a segment carries: NOP NOP TS(tsval, tsecr) or nothing.
 * Returns the length written (0 or 12), 0 also when cap < 12. */
size_t window_act_options(const struct window_act *a, uint8_t *buf, size_t cap);

bool window_done(const struct window *w);

/* Whether the second connection runs (or ran) on the first's 4-tuple:
 * its SYN-ACK is a new connection's, not a copy of the first's. */
bool window_second_here(const struct window *w);

/* The result so far (final once window_done). */
void window_result(const struct window *w, struct window_result *res);

const char *window_end_name(enum window_end e);

#endif
