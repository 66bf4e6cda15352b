/*
 * hop_pace.h -- the trace's budget per TTL across every path traced at
 * once, so that near routers' ICMP rate limits do not silence them.
 *
 * Linux sends at most a burst of 6 ICMP errors, then 1 per second, to
 * each destination (icmp_ratelimit, per inet_peer): for a router near the
 * prober, every trace of the run shares that one budget, since the errors
 * all go to the prober's address.  Two hundred traces at once would have
 * hop 1 answer six of them.  So probes of one TTL, whatever their path,
 * draw on one token bucket: a burst of `burst`, refilled at a rate that
 * starts at rate_min and adapts as TCP's window does --
 *
 *   - each answer at that TTL (a router's ICMP error or the destination)
 *     raises the rate by one probe per second while the TTL has never lost
 *     a probe (slow start: it doubles per round trip), by a tenth after
 *     (a router held to 1 per second is tried at 2 after ten answers);
 *   - a probe unanswered after loss_ns is lost, and halves the rate (at
 *     most once per loss_ns, never below rate_min).
 *
 * A Linux router at its defaults settles near its own 1 per second; a
 * router without a limit (the lab's) lets the rate grow at once, so many
 * traces still finish in seconds.  At most HOP_PACE_OUTSTANDING probes
 * per TTL wait for an answer.  Pure: time is handed in.
 */
#ifndef SCALEPROBE_HOP_PACE_H
#define SCALEPROBE_HOP_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define HOP_PACE_MAX_TTL 31
#define HOP_PACE_OUTSTANDING 64

struct hop_pace_config {
	uint32_t rate_min;		/* probes per second per TTL: the floor and start */
	uint32_t rate_max;		/* the ceiling (the run's --rate does the rest) */
	uint32_t burst;			/* bucket depth */
	uint64_t loss_ns;		/* unanswered this long: lost */
};

struct hop_pace_ttl {
	uint64_t rate_milli;		/* probes per 1000 s (fractional growth) */
	uint64_t credit;		/* token-nanoseconds at rate */
	uint64_t last;			/* time of the last refill */
	uint64_t sent_at[HOP_PACE_OUTSTANDING];	/* ring of probes unanswered */
	int head, n;
	uint64_t last_cut;		/* time of the last halving */
	bool lost_once;			/* past slow start */
	bool started;
};

struct hop_pace {
	struct hop_pace_config cfg;
	struct hop_pace_ttl ttl[HOP_PACE_MAX_TTL + 1];
	uint64_t lost, answered;	/* for tests and -v */
};

/* rate_min >= 1, burst >= 1.  Returns 0, or -1 for a bad config. */
int hop_pace_init(struct hop_pace *p, const struct hop_pace_config *cfg);

/* Whether a probe with this TTL may go at now. */
bool hop_pace_can(struct hop_pace *p, int ttl, uint64_t now);
/* A probe with this TTL went (its token taken). */
void hop_pace_sent(struct hop_pace *p, int ttl, uint64_t now);
/* A probe with this TTL was answered. */
void hop_pace_answered(struct hop_pace *p, int ttl, uint64_t now);
/* Counts the probes unanswered for loss_ns as lost. */
void hop_pace_expire(struct hop_pace *p, uint64_t now);
/* When a probe with this TTL may go: now or later. */
uint64_t hop_pace_when(struct hop_pace *p, int ttl, uint64_t now);
/* The TTL's rate now, probes per second (for tests). */
double hop_pace_rate(const struct hop_pace *p, int ttl);

#endif
