/*
 * hop_pace.h -- one router's budget of trace probes: an adaptive token
 * bucket, as TCP's window adapts, for the ICMP errors one router answers
 * (router_pace.h keys these buckets by router and holds them).
 *
 * Linux sends at most a burst of 6 ICMP errors, then 1 per second, to
 * each destination (icmp_ratelimit, per inet_peer), hardware routers often
 * fewer, and a router's budget is shared by every probe that expires
 * there.  So a bucket holds `burst` tokens (one once it lost a
 * probe: a burst saved up is lost but one at a router whose own burst is
 * one), refilled at a rate that starts
 * at rate_min and adapts --
 *
 *   - each answer raises the rate by one probe per second while the bucket
 *     has never lost a probe (slow start: it doubles per round trip), by a
 *     tenth after, up to 90 % of the rate the last loss came at, where it
 *     holds for 20 answers before it climbs on (a router held to 1 per
 *     second is asked just under it, and above it once in about 25
 *     answers: each try costs a loss);
 *   - a probe unanswered after loss_ns is lost (or at once, when one
 *     router answered a probe sent more than reorder_ns after it: routers
 *     answer in order), and halves the rate (at
 *     most once per loss_ns, never below the floor) -- unless it was asked
 *     before and lost then too: silence that repeats is likely by design
 *     (a box that drops that SYN, a router mute for that destination),
 *     and would hold the router's rate down for every path it answers;
 *
 * A Linux router at its defaults settles near its own 1 per second; a
 * router without a limit (the lab's) lets the rate grow at once, so many
 * traces still finish in seconds.  An answer the router sent for a probe
 * paid from another bucket (router_pace.h: before the router was known)
 * is charged here too: the credit may go below zero, down to one burst of
 * debt.  At most HOP_PACE_OUTSTANDING probes per bucket wait for an
 * answer.  Pure: time is handed in.
 */
#ifndef SCALEPROBE_HOP_PACE_H
#define SCALEPROBE_HOP_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define HOP_PACE_OUTSTANDING 64

struct hop_pace_config {
	uint32_t rate_min;		/* probes per second: the start */
	uint32_t rate_floor_milli;	/* probes per 1000 s: the floor (0: rate_min) */
	uint32_t rate_max;		/* the ceiling (the run's --rate does the rest) */
	uint32_t burst;			/* bucket depth */
	uint64_t loss_ns;		/* unanswered this long: lost */
	uint64_t reorder_ns;		/* or sent this long before one of the
					   same router that was answered (0:
					   no such test) */
};

struct hop_bucket {
	uint64_t rate_milli;		/* probes per 1000 s (fractional growth) */
	int64_t credit;			/* milli-token-ns at rate; below 0: debt */
	uint64_t last;			/* time of the last refill */
	uint64_t sent_at[HOP_PACE_OUTSTANDING];	/* ring of probes unanswered */
	bool repeat[HOP_PACE_OUTSTANDING];	/* ... each asked before, unanswered */
	int head, n;
	uint64_t last_cut;		/* time of the last halving */
	uint64_t cut_from_milli;	/* ... and the rate it halved */
	uint32_t calm;			/* answers held at 90 % of that since */
	bool lost_once;			/* past slow start */
	bool learned;			/* started at a rate learned elsewhere
					   (hop_bucket_inherit): no slow start */
	bool started;
};

/* rate_min >= 1, burst >= 1, rate_max >= rate_min, loss_ns > 0, floor at
 * most rate_min: 0, or -1. */
int hop_pace_check(const struct hop_pace_config *cfg);
void hop_bucket_init(const struct hop_pace_config *cfg, struct hop_bucket *b);

/* The rate a bucket learned by losing (its own or inherited), probes per
 * 1000 s: its rate, and no more than 90 % of the rate its last loss came
 * at, where it holds after a loss; 0 while it is in slow start. */
uint64_t hop_bucket_learned_milli(const struct hop_bucket *b);
/* b, new, starts at the rate from learned (another source's bucket of
 * the same router, router_pace.h), past slow start: slow start from
 * rate_min doubled past the router's limit (7 a second after a burst of
 * 6, against Linux's 1) and lost a dozen probes per new source before it
 * settled.  It holds there as after a loss (HOP_PACE_CALM answers, then
 * climbs); its burst stays its own until it loses a probe itself (a
 * router's burst is per destination too).  Nothing when from has learned
 * nothing. */
void hop_bucket_inherit(const struct hop_pace_config *cfg, struct hop_bucket *b,
    const struct hop_bucket *from);

/* Whether a probe may go at now (the caller expires first). */
bool hop_bucket_can(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);
/* A probe went (its token taken); repeat: the same probe went before and
 * was not answered. */
void hop_bucket_sent(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now,
    bool repeat);
/* A probe went that nobody waits for (its silence says nothing of the
 * router's budget: a box drops it on the way): its token only, no place
 * among the probes waiting, never counted lost. */
void hop_bucket_spent(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);
/* The probe paid from this bucket and sent at `sent` was answered; false
 * if none was waiting (counted lost already). */
bool hop_bucket_answered(const struct hop_pace_config *cfg, struct hop_bucket *b,
    uint64_t now, uint64_t sent);
/* An answer's growth of the rate, without a probe waiting to settle (a
 * spent one answered; hop_bucket_answered does both). */
void hop_bucket_grow(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);
/* The router answered a probe paid elsewhere: one token, debt allowed. */
void hop_bucket_charge(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);
/* Counts the probes unanswered for loss_ns as lost; how many. */
int hop_bucket_expire(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);
/* One router answers in the order it was asked: a probe of a router's
 * bucket answered, those sent more than reorder_ns before it and still
 * unanswered are lost now, not after loss_ns; how many. */
int hop_bucket_overtaken(const struct hop_pace_config *cfg, struct hop_bucket *b,
    uint64_t sent, uint64_t now);
/* When the next probe may go: now or later (after expiring). */
uint64_t hop_bucket_when(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);
/* When the oldest probe waiting counts as lost; UINT64_MAX for none. */
uint64_t hop_bucket_deadline(const struct hop_pace_config *cfg, const struct hop_bucket *b);
/* Idle: nothing waiting and the bucket full at now (forgetting it loses
 * nothing but the rate learned). */
bool hop_bucket_idle(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now);

#endif
