/*
 * window_ranges.h -- which bytes of a round of the window test's answer
 * arrived (window_ranges.c): a few sorted, disjoint ranges of offsets.
 * Internal to the window test.
 */
#ifndef SCALEPROBE_WINDOW_RANGES_H
#define SCALEPROBE_WINDOW_RANGES_H

#include <stdint.h>

#define WINDOW_RANGES 16

struct window_ranges {
	uint32_t lo[WINDOW_RANGES], hi[WINDOW_RANGES];	/* [lo, hi), sorted */
	int n;
};

void window_ranges_clear(struct window_ranges *r);

/* Adds [lo, hi) (lo < hi); returns the bytes that were not there yet.
 * When the list is full the closest two ranges are joined: the gap
 * between them then counts as received, so at worst a resend that fills
 * it is taken for a retransmission (a round ends early; no byte is ever
 * counted twice). */
uint64_t window_ranges_add(struct window_ranges *r, uint32_t lo, uint32_t hi);

#endif
