/*
 * result.h -- what probing one path yields: the observations the engine
 * makes (replies to the control SYN and to each scale variant) and the
 * verdicts inference derives from them.  Plain structs shared by the
 * engine, infer, output and the store; no behaviour here.
 */
#ifndef SCALEPROBE_RESULT_H
#define SCALEPROBE_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "addr.h"

struct path_evidence;

#define RESULT_MAX_SCALES 31	/* variants minus the control (send.h) */

enum reply_kind {
	REPLY_NONE = 0,		/* silence after every retry */
	REPLY_SYNACK,
	REPLY_RST,
	REPLY_ICMP_UNREACH,	/* ICMP dest-unreachable / ICMPv6 type 1 quoting the probe */
};

/* The options of a SYN-ACK as the server sent them; -1 where absent. */
struct synack_obs {
	bool present;		/* a SYN-ACK was seen */
	int wscale;		/* server's own shift, -1: no window-scale option */
	int mss;		/* -1: no MSS option */
	bool sack;		/* SACK-permitted */
	bool ts;		/* timestamps */
	uint16_t window;	/* window field (unscaled, as in every SYN-ACK) */
	uint8_t ttl;		/* TTL / hop limit it arrived with */
};

/* One variant's SYN and what answered it. */
struct variant_obs {
	int scale;			/* shift sent; -1 for the control SYN */
	enum reply_kind reply;
	uint8_t icmp_type, icmp_code;	/* when reply is REPLY_ICMP_UNREACH */
	struct addr icmp_from;		/* who sent the ICMP error */
	struct synack_obs sa;
	int attempts;			/* SYNs sent (1 + retries used) */
	uint32_t rtt_us;		/* send of the answered attempt to the reply */
	bool mixed;			/* attempts drew different kinds of reply */
};

/* --- the trace: what routers quoted of one variant's SYN -------------- */

#define RESULT_MAX_HOPS 30	/* TTL / hop limit 1..30 */

/* How much of the SYN a router quoted (the hops' "quote" in the output);
 * QUOTE_NONE is a hop that stayed silent. */
enum quote_kind {
	QUOTE_NONE = 0,
	QUOTE_8BYTE,		/* RFC 792: ports and sequence number only */
	QUOTE_FULL,		/* the whole TCP header with its options */
};

/* How the window-scale option looked in a quote, against what was sent. */
enum ws_seen {
	WS_UNKNOWN = 0,		/* not in the quote (8-byte, silent) */
	WS_INTACT,		/* present with the shift sent */
	WS_CHANGED,		/* present with another shift */
	WS_REMOVED,		/* gone, options shortened */
	WS_NOPPED,		/* overwritten with NOPs */
	WS_NOT_SENT,		/* the control SYN: none sent, none quoted */
	WS_ADDED,		/* the control SYN: none sent, one quoted */
};

/* One hop's answer to one TTL-limited SYN, compared with the bytes sent
 * (masking what routers legitimately change: TTL, IP checksum, TOS/ECN;
 * and addresses, ports and the TCP checksum once a NAT is seen). */
struct hop_quote {
	enum quote_kind quote;
	bool rfc4884;			/* the error set an RFC 4884 length */
	struct addr from;		/* who sent the time-exceeded */
	uint32_t rtt_us;
	enum ws_seen ws;
	int ws_value;			/* quoted shift; -1 when absent */
	int mss;			/* quoted MSS; -1 absent or not quoted */
	int mss_sent;
	bool sack_stripped, ts_stripped;	/* sent, absent or NOPed in the quote */
	bool other_changed;		/* any other option byte or header field */
	bool nat;			/* addresses or ports differ from those sent */
	bool isn_rewritten;		/* the quoted sequence number is not ours */
};

/* The trace of one variant: hop[k] answers TTL k (1..nttl). */
struct trace_obs {
	bool ran;
	int nttl;			/* highest TTL sent */
	int dest_ttl;			/* D: smallest TTL drawing a SYN-ACK or RST
					   from the destination; 0 if none did */
	struct hop_quote hop[RESULT_MAX_HOPS + 1];	/* [0] unused */
};

/* --- the window test: which shift the server applied ------------------- */

/* The window test of one scale variant (window.h has the method). */
struct window_obs {
	bool ran;			/* a window test was attempted */
	bool synack;			/* its handshake completed */
	bool inconclusive;		/* nothing may be concluded */
	int scale_effective;		/* 0..14 when the flight was window-limited */
	int scale_effective_min;	/* the smallest shift consistent; -1 none */
	int64_t flight_bytes;		/* -1: none measured */
	uint16_t w;			/* window field used */
	int rounds;
	bool syn_proxy;			/* a SYN proxy answered its handshake */
	uint16_t synack_window;		/* that SYN-ACK's window field */
	uint8_t synack_ttl, data_ttl;	/* its TTL, the first data's (0: none) */
	char reason[160];
};

/* --- verdicts ------------------------------------------------------------ */

enum verdict {
	VERDICT_NONE = 0,	/* not inferred (printed as null) */
	VERDICT_OK,
	VERDICT_UNSUPPORTED,
	VERDICT_REWRITTEN,
	VERDICT_STRIPPED,
	VERDICT_SYN_DROPPED,
	VERDICT_CLOSED,
	VERDICT_FILTERED,
	VERDICT_UNREACHABLE,
	VERDICT_INCONCLUSIVE,
};

/* Where on the path: hop.index per prober/design-notes.md "Hops", and
 * the segment (last_clean_index, index] that holds the box. */
struct hop_loc {
	bool present;			/* hop is null when false */
	int index;
	struct addr address;
	int last_clean_index;		/* 0: the prober */
	struct addr last_clean_address;
	/* TTLs between last_clean_index and index that never answered the
	 * scale variant's trace (bit k: TTL k, silent_hops.h): the box may be
	 * any of them.  0: the hop is exact. */
	uint32_t silent;
};

enum finding_kind {
	FINDING_MSS_CLAMPED,		/* detail: the MSS seen */
	FINDING_SACK_STRIPPED,
	FINDING_TS_STRIPPED,
	FINDING_NAT,
	FINDING_ISN_REWRITTEN,
	FINDING_OPTIONS_CHANGED,	/* any other option or field */
	FINDING_SYN_PROXY,		/* a SYN proxy answered the window
					   test's handshake; hop from its TTL */
};

#define RESULT_MAX_FINDINGS 8

struct side_finding {
	enum finding_kind kind;
	char detail[48];		/* e.g. "1200" for a clamped MSS */
	int hop_index;			/* -1: not located */
	struct addr hop_address;
};

struct scale_verdict {
	enum verdict verdict;
	char reason[256];	/* one plain sentence */
	int scale_quoted;	/* shift in the last full quote; -1 absent, -2 no quote */
	struct hop_loc hop;
	int nfindings;
	struct side_finding findings[RESULT_MAX_FINDINGS];
};

/* One flow of a path probed over several (--flows): what each scale's
 * SYN from its port drew, the shift the window test saw applied, and the
 * flow's own verdict and hop (its trace ran on its own ports: the hop of
 * its branch). */
#define RESULT_MAX_FLOWS 64
struct flow_answer {
	uint16_t sport;			/* the flow's first port (its control SYN's) */
	enum reply_kind reply[RESULT_MAX_SCALES];
	int sa_wscale[RESULT_MAX_SCALES];	/* the SYN-ACK's shift, -1 none */
	int applied[RESULT_MAX_SCALES];	/* window test's shift, -1 none measured */
	enum verdict verdict[RESULT_MAX_SCALES];
	int hop_index[RESULT_MAX_SCALES];	/* its verdict's hop, -1 none */
	struct addr hop_address[RESULT_MAX_SCALES];
};

/* Where the flows of one scale part (--flows): the first TTL at which the
 * routers the traces of the flows that saw a problem answered from and
 * those of the flows that answered without it are disjoint, and those
 * routers (at most FLOW_BRANCH_ADDRS a side).  hop_index 0: the traces do
 * not show it (no trace on one side, or no TTL where they part). */
#define FLOW_BRANCH_ADDRS 4
struct flow_branch {
	int hop_index;
	int nproblem, nclean;
	struct addr problem[FLOW_BRANCH_ADDRS], clean[FLOW_BRANCH_ADDRS];
};

/* Everything about one (address, port) path.  target points into the
 * caller's target list and outlives the result. */
struct path_result {
	const char *target;		/* as the user gave it */
	const void *tag;		/* the engine_path's tag, untouched */
	struct addr dst, src;
	uint16_t port;
	struct timespec time;		/* wall clock when the path's first SYN left */
	struct variant_obs control;
	int nscales;
	struct variant_obs scales[RESULT_MAX_SCALES];
	struct scale_verdict verdicts[RESULT_MAX_SCALES];
	struct window_obs window[RESULT_MAX_SCALES];	/* per scale, T */
	/* The trace, when it ran (--trace): [0] the control, [1 + i] scale i.
	 * Pointers into the engine's memory, valid during the done callback. */
	const struct trace_obs *trace[1 + RESULT_MAX_SCALES];
	uint64_t capture_drops;		/* pcap drops while the path was in flight */
	uint64_t send_failures;		/* packets the kernel refused while the
					   path was in flight (ENETUNREACH, ...) */
	char capture_error[160];	/* the capture of the path's interface
					   failed ("eth0: ..."); "" when not */
	/* The packets that prove it (evidence.h), or NULL; valid during the
	 * done callback. */
	const struct path_evidence *evidence;

	/* Flows (prober/design-notes.md "Flows per path").  The engine hands
	 * each flow's result over with flow and flows set, group_user the
	 * path's pointer for the caller (NULL before its first flow) and
	 * group_last on the last flow's.  The judged result of the path
	 * (infer_flows) is the last flow's, its verdicts the worst each
	 * scale saw on any flow, with these: */
	int flow, flows;		/* flows 0 or 1: one flow, none of this */
	void **group_user;
	bool group_last;
	int flows_affected[RESULT_MAX_SCALES];	/* flows whose verdict was a
					   problem (verdict_is_problem) */
	const struct flow_answer *flow_answers;	/* flows entries, during done */
	const struct flow_branch *flow_branch;	/* per scale, during done; NULL:
					   none */
	/* Set by the caller in done on a group_last result of a path whose
	 * engine runs flows_auto: the flows to add to the path, each on the
	 * next flow's ports (0: it is over).  group_last then means only that
	 * no other flow of the path is in flight. */
	int flows_more;
};

const char *reply_kind_name(enum reply_kind k);
const char *verdict_name(enum verdict v);		/* NULL for VERDICT_NONE */
/* rewritten, stripped, syn-dropped: the verdicts that are path problems
 * (the engine's inference, the store's problem column and its writer). */
bool verdict_is_problem(enum verdict v);
/* The verdict a name stands for; VERDICT_NONE for NULL or no verdict's. */
enum verdict verdict_from_name(const char *name);

/* result_names.c: what the NDJSON output and the store share. */
const char *result_quote_name(enum quote_kind q);
const char *result_finding_name(enum finding_kind k);
/* The path's hops as printed: best[k] (k = 1..the return value) is the
 * fullest quote any variant drew at TTL k, NULL where all were silent;
 * -1 when the path was not traced ("hops": null). */
int result_hops(const struct path_result *res,
    const struct hop_quote *best[RESULT_MAX_HOPS + 1]);

#endif
