/*
 * window_sim.h -- a Linux-like TCP server and a fixed-delay wire, to drive
 * the window test's state machine (prober/window.c) in unit tests.
 *
 * The server does what matters to the test as Linux does it:
 *   - its send window is the window field of our latest ACK << shift (the
 *     shift it applies, which the test sets: a box may have rewritten ours);
 *   - segments are whole: the one that would cross the window's edge waits
 *     (tcp_snd_wnd_test); the segment size is bounded to half the largest
 *     window seen once that exceeds 536 bytes, else to that window, but
 *     never below 36 bytes (tcp_bound_to_half_wnd);
 *   - a window too small for one such segment is filled from the persist
 *     timer, with as many bytes as the window holds (tcp_write_wakeup);
 *   - initial congestion window iw segments, slow start by segments acked
 *     while the flow was congestion-limited (tcp_is_cwnd_limited);
 *   - optionally a tail-loss probe (new data if the window allows, else
 *     the last segment again) and RTO retransmission of the first
 *     unacknowledged segment; optionally a header written as its own
 *     first skb; optionally FIN after the answer;
 *   - a RST is taken only at rcv_nxt (RFC 5961).
 * A SYN after our RST opens a new connection (another ISN), from the
 * second connection's port or the first's; segments of the other port's
 * connection are not its own.
 * The wire delivers in order after a fixed one-way delay; with gro set,
 * segments arriving together reach the prober glued into one (as a
 * capture after GRO sees them); with swap set, every second pair of data
 * segments arrives in reverse order.
 */
#ifndef SCALEPROBE_WINDOW_SIM_H
#define SCALEPROBE_WINDOW_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "window.h"

struct sim_cfg {
	int scale_sent;			/* s in our SYN */
	int shift;			/* s'': what the server applies */
	uint64_t resp;			/* bytes of answer */
	bool fin;			/* FIN after the answer */
	bool synack;			/* answer the SYN at all */
	bool tlp, rto;
	uint32_t hdr;			/* first skb of this many bytes; 0 none */
	uint32_t iw;			/* initial window, segments; 0: 10 */
	uint64_t owd_ns;		/* one-way delay; 0: 1 ms */
	uint32_t isn, irs;		/* ours and the server's ISN */
	bool gro, swap;
	bool ignore_window;		/* a broken sender: cwnd only */
	uint64_t dribble_ns;		/* send 1 byte this often, whatever */
	bool no_ts;			/* SYN-ACK without timestamps */
	int drop_ack;			/* lose our n-th pure ACK (1: the
					   handshake's); 0 none */
	uint32_t seg;			/* the server's segment size; 0: 1448 */
	uint32_t cwnd_max;		/* a locked congestion window; 0 none */
	bool proxy;			/* a SYN proxy in front: its SYN-ACK has
					   window 0, our ACK makes it open the
					   connection to the server, proxy_ns later
					   a window update (UINT64_MAX: never);
					   what we send meanwhile is lost; the
					   server's data arrive one TTL lower */
	uint64_t proxy_ns;
};

struct sim_out {
	struct window_result res;
	bool reset;			/* our RST reached the server at rcv_nxt */
	uint32_t rsts;			/* RSTs we sent */
	uint32_t synacks_sent, syns_seen;
	uint64_t sent_bytes;		/* answer bytes the server sent */
	uint64_t start_ns, end_ns;	/* when the machine started, finished */
	bool bad_ts;			/* a segment of ours without timestamps */
	bool bad_seq;			/* one of our segments out of order */
	int connections;		/* SYNs after a RST open new ones */
	bool second_port;		/* one came from the second port */
};

/* Runs one window test against the model; false if the run did not end
 * (the machine never finished within 60 simulated seconds). */
bool sim_run(const struct sim_cfg *c, const struct window_config *wc, struct sim_out *out);

#endif
