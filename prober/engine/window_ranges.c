/*
 * window_ranges.c -- the answer bytes received in one round of the window
 * test (window_ranges.h), to tell new data from a resend: a segment out of
 * order fills a hole, a tail-loss probe or an RTO covers bytes seen.
 */
#include <stdint.h>
#include <string.h>

#include "window_ranges.h"

void
window_ranges_clear(struct window_ranges *r)
{
	memset(r, 0, sizeof(*r));
}

/* Joins the two neighbouring ranges with the smallest gap (kept sorted,
 * so neighbours in the array are neighbours on the sequence line). */
static void
window_ranges_join_closest(struct window_ranges *r)
{
	uint32_t gap = UINT32_MAX;
	int best = 0;

	for (int i = 0; i + 1 < r->n; i++) {
		if (r->lo[i + 1] - r->hi[i] < gap) {
			gap = r->lo[i + 1] - r->hi[i];
			best = i;
		}
	}
	r->hi[best] = r->hi[best + 1];
	for (int i = best + 1; i + 1 < r->n; i++) {
		r->lo[i] = r->lo[i + 1];
		r->hi[i] = r->hi[i + 1];
	}
	r->n--;
}

uint64_t
window_ranges_add(struct window_ranges *r, uint32_t lo, uint32_t hi)
{
	uint64_t covered = 0, len = hi - lo;
	int i, j;

	for (i = 0; i < r->n; i++) {
		uint32_t a = r->lo[i] > lo ? r->lo[i] : lo;
		uint32_t b = r->hi[i] < hi ? r->hi[i] : hi;

		if (b > a)
			covered += b - a;
	}
	for (;;) {
		/* merge everything touching [lo, hi) into it */
		for (i = j = 0; i < r->n; i++) {
			if (r->hi[i] < lo || r->lo[i] > hi) {
				r->lo[j] = r->lo[i];
				r->hi[j] = r->hi[i];
				j++;
				continue;
			}
			if (r->lo[i] < lo)
				lo = r->lo[i];
			if (r->hi[i] > hi)
				hi = r->hi[i];
		}
		r->n = j;
		if (r->n < WINDOW_RANGES)
			break;
		window_ranges_join_closest(r);
		/* the joined range may now cover [lo, hi): merge again */
	}
	for (i = r->n; i > 0 && r->lo[i - 1] > lo; i--) {
		r->lo[i] = r->lo[i - 1];
		r->hi[i] = r->hi[i - 1];
	}
	r->lo[i] = lo;
	r->hi[i] = hi;
	r->n++;
	/* ranges are disjoint, so covered <= len; kept as a guard */
	return len > covered ? len - covered : 0;
}
