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

struct scale_verdict {
	enum verdict verdict;
	char reason[160];	/* one plain sentence */
};

/* Everything about one (address, port) path.  target points into the
 * caller's target list and outlives the result. */
struct path_result {
	const char *target;		/* as the user gave it */
	struct addr dst, src;
	uint16_t port;
	struct timespec time;		/* wall clock when the path's first SYN left */
	struct variant_obs control;
	int nscales;
	struct variant_obs scales[RESULT_MAX_SCALES];
	struct scale_verdict verdicts[RESULT_MAX_SCALES];
	uint64_t capture_drops;		/* pcap drops while the path was in flight */
};

const char *reply_kind_name(enum reply_kind k);
const char *verdict_name(enum verdict v);

#endif
