/*
 * window_judge.h -- the window test's rules (window_judge.c): the flights
 * of a test in, the shift the server applies out.  Knows nothing of
 * packets or time; window.c measures the flights and asks.  Internal to
 * the window test.
 */
#ifndef SCALEPROBE_WINDOW_JUDGE_H
#define SCALEPROBE_WINDOW_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "window.h"

struct wj_round {
	uint32_t flight;		/* highest end - our ACK before it */
	uint32_t m;			/* its largest segment, at most flight */
	bool eligible;			/* not cut (round cap, byte cap, RST,
					   time): may be half of a plateau */
};

struct wj_flights {
	uint16_t w;			/* the window field W */
	int n;
	struct wj_round r[WINDOW_MAX_ROUNDS];
	uint64_t fmax;			/* largest flight */
	int big_round;			/* first round above W<<13; -1 none */
	bool overrun;			/* data beyond W<<14 was seen */
	int exact;			/* a plateau's k; -1 none */
	uint32_t exact_flight;
};

void wj_init(struct wj_flights *f, uint16_t w);

/* Records a finished round (at most WINDOW_MAX_ROUNDS; the caller stops
 * before).  Returns true when the shift is now known and the test may
 * stop: a plateau, or a round after one above W<<13 stayed in bounds. */
bool wj_round(struct wj_flights *f, uint32_t flight, uint32_t m, bool eligible);

/* Whether the rounds so far make the shift known as soon as the next
 * round brings new data (a plateau in the last two). */
bool wj_confirms(const struct wj_flights *f);

/* The smallest k with W<<k >= bytes; 15 when none. */
int wj_min_shift(const struct wj_flights *f, uint64_t bytes);

/* Fills the shift fields and the reason of res (scale_effective,
 * scale_effective_min, inconclusive, flight_bytes) from the flights and
 * how the test went. */
void wj_result(const struct wj_flights *f, bool done, bool established,
    enum window_end end, struct window_result *res);

#endif
