/*
 * window_judge.c -- the window test's rules (window_judge.h): which shift
 * the flights of a test prove.  Pure and small on purpose: every rule is
 * here, with the reason for it.
 *
 * W.  W = max(1, 8192 >> s') with s' = min(s, 14).  If the server applies
 *   shift k to our window fields, it may have W<<k bytes beyond our last
 *   ACK.  W<<s <= 8192 stays below Linux's initial window (10 segments,
 *   14,480 bytes), so the first flight is not capped by the congestion
 *   window when the server applies s or less; and every k in 0..14 gives a
 *   different W<<k.  s' = 14 gives W = 1, 16,384 bytes.
 *
 * Flights.  Round 0 starts with the request, round i with the ACK that
 *   acknowledges everything received so far (same W).  The flight of a
 *   round is F = highest end sequence received - our last ACK (for round 0:
 *   highest end - (server ISN + 1)).  It is never a sum of segment lengths:
 *   tail-loss probes and RTOs resend, and a GRO'd capture glues segments.
 *   Whatever limited the sender, F <= its send window, so every flight
 *   proves W<<k >= F: the lower bound below needs nothing else.
 *
 * Window-limited flights.  Linux sends whole segments only: the segment
 *   that would cross the window's edge waits.  So a window-limited flight
 *   is not W<<k but W<<k minus less than one segment, and where the
 *   segments fall changes from round to round (a small header segment
 *   first, Nagle at the edge).  F is consistent with k when
 *       W<<k >= F  and  W<<k - F < m,
 *   m being the round's largest segment (capped by our MSS and by F).  At
 *   most one k fits: k1 < k2 both fitting would need W<<k2 < F + m <= 2F
 *   <= 2 W<<k1 <= W<<k2.  (Linux bounds its segments to half the largest
 *   window seen once that exceeds 536 bytes, so small windows still hold
 *   whole segments.)
 *
 * Exact.  scale_effective = k when two consecutive rounds are consistent
 *   with the same k, neither of them cut, the round after them brought
 *   new data (so no FIN ended the second), and no flight of the test
 *   exceeded W<<k.  Data after a round proves that round was not
 *   data-limited (the sender had more, and held it back); without the
 *   third round a congestion-limited round
 *   followed by the answer's last bytes passes for a plateau (initial
 *   window 1, a 2-segment answer: 1,448 and 1,448 bytes, both within a
 *   segment of 64<<5).  A congestion window that was the limit grows
 *   between rounds instead (slow start doubles it, congestion avoidance
 *   adds a segment: two flights a segment apart never fit one interval
 *   narrower than a segment).  The third round need only begin: its
 *   first new byte is the proof, and the test ends there rather than
 *   wait out its flight, a third of the test's time (the one thing that
 *   wait could add: a congestion window that sat within a segment of
 *   W<<k for two rounds and then grew past it, the blind spot below,
 *   caught only if it grew within that round).  A single
 *   round below the initial window is
 *   not taken as proof: initial windows of 1..4 segments exist (RFC 3390,
 *   older stacks), and 2 x 1,448 bytes is consistent with W<<6 at s = 7.
 *   Also exact: a flight above W<<13 allows only k = 14 (no shift beyond
 *   14 exists), e.g. more than 8,192 bytes at W = 1; the test goes on for
 *   one more round when it can, so that a sender ignoring our window
 *   shows itself by overrunning W<<14 (a flight that doubles from below
 *   W<<13 stays within W<<14 once, never twice).
 *
 * Lower bound.  Otherwise scale_effective_min = the smallest k with
 *   W<<k >= the largest flight: a short answer sent whole (a TLS server's
 *   first flight, then it waits) gives a bound at or below the shift the
 *   server really applies, so it never contradicts the scale sent.
 *
 * Inconclusive.  When the bound is 0 (the largest flight is at most W, the
 *   smaller of the windows being told apart), nothing is excluded: no
 *   shift is reported at all.  Likewise with no SYN-ACK, a RST before any
 *   answer, no answer, or data beyond W<<14 (the server ignores our window:
 *   nothing it does then says anything about the shift).
 *
 * Known blind spot: an application that writes exactly W<<k bytes per
 *   ACK-round on its own, or a congestion window that stays within one
 *   segment of W<<k for two rounds, looks window-limited.
 */
#include <stdio.h>
#include <string.h>

#include "window_judge.h"

uint16_t
window_choose_w(int s)
{
	int sp = s < 0 ? 0 : s > WINDOW_MAX_SCALE ? WINDOW_MAX_SCALE : s;
	unsigned w = WINDOW_BASE_BYTES >> sp;

	return (uint16_t)(w < 1 ? 1 : w);
}

void
wj_init(struct wj_flights *f, uint16_t w)
{
	memset(f, 0, sizeof(*f));
	f->w = w;
	f->big_round = -1;
	f->exact = -1;
}

/* W << k, the window shift k allows. */
static uint64_t
wj_wnd(const struct wj_flights *f, int k)
{
	return (uint64_t)f->w << k;
}

int
wj_min_shift(const struct wj_flights *f, uint64_t bytes)
{
	int k = 0;

	while (k <= WINDOW_MAX_SCALE && wj_wnd(f, k) < bytes)
		k++;
	return k;
}

/* The k this round is window-limited by, if any (unique, see above). */
static int
wj_consistent(const struct wj_flights *f, const struct wj_round *r)
{
	if (!r->eligible || r->flight == 0)
		return -1;
	for (int k = 0; k <= WINDOW_MAX_SCALE; k++)
		if (wj_wnd(f, k) >= r->flight && wj_wnd(f, k) - r->flight < r->m)
			return k;
	return -1;
}

/* The k of a plateau formed by the last two rounds recorded, no flight
 * of the test above W<<k; -1 none. */
static int
wj_plateau(const struct wj_flights *f)
{
	int k1, k2;

	if (f->n < 2 || f->overrun)
		return -1;
	k1 = wj_consistent(f, &f->r[f->n - 2]);
	k2 = wj_consistent(f, &f->r[f->n - 1]);
	return k1 >= 0 && k1 == k2 && wj_min_shift(f, f->fmax) <= k1 ? k1 : -1;
}

bool
wj_confirms(const struct wj_flights *f)
{
	return f->big_round < 0 && wj_plateau(f) >= 0;
}

bool
wj_round(struct wj_flights *f, uint32_t flight, uint32_t m, bool eligible)
{
	struct wj_round *r;

	if (f->n >= WINDOW_MAX_ROUNDS)
		return true;
	r = &f->r[f->n++];
	r->flight = flight;
	r->m = m < flight ? m : flight;
	r->eligible = eligible && flight > 0;
	if (flight > f->fmax)
		f->fmax = flight;
	if (f->overrun)
		return false;
	if (f->big_round < 0 && flight > wj_wnd(f, WINDOW_MAX_SCALE - 1))
		f->big_round = f->n - 1;
	if (f->big_round >= 0 && f->big_round < f->n - 1)
		return true;	/* a round after it stayed within W<<14 */
	if (f->n >= 3 && flight > 0) {
		int k;

		f->n--;		/* the two rounds before this one */
		k = wj_plateau(f);
		f->n++;
		if (k >= 0) {
			f->exact = k;
			f->exact_flight = f->r[f->n - 2].flight;
			return true;
		}
	}
	return false;
}

void
wj_result(const struct wj_flights *f, bool done, bool established,
    enum window_end end, struct window_result *res)
{
	int kmin = wj_min_shift(f, f->fmax);
	char *why = res->reason;
	size_t wl = sizeof(res->reason);

	res->scale_effective = -1;
	res->scale_effective_min = -1;
	res->flight_bytes = f->fmax > 0 ? (int64_t)f->fmax : -1;
	res->inconclusive = true;

	if (done && !f->overrun && f->exact < 0 && kmin == WINDOW_MAX_SCALE) {
		res->inconclusive = false;
		res->scale_effective = res->scale_effective_min = WINDOW_MAX_SCALE;
		snprintf(why, wl, "a flight of %llu bytes exceeds W<<13 = %llu: only "
		    "shift 14 allows it", (unsigned long long)f->fmax,
		    (unsigned long long)wj_wnd(f, 13));
	} else if (f->exact >= 0) {
		res->inconclusive = false;
		res->scale_effective = res->scale_effective_min = f->exact;
		res->flight_bytes = f->exact_flight;
		snprintf(why, wl, "the flight plateaus at %u bytes, window-limited by "
		    "W<<%d = %llu: the server applies shift %d", f->exact_flight,
		    f->exact, (unsigned long long)wj_wnd(f, f->exact), f->exact);
	} else if (!done) {
		snprintf(why, wl, "the window test is still running");
	} else if (!established) {
		snprintf(why, wl, "%s", end == WINDOW_END_RST ?
		    "the server refused the connection (RST)" :
		    "no SYN-ACK to the window test's SYN");
	} else if (f->overrun) {
		snprintf(why, wl, "the server sent beyond W<<14 = %llu bytes: it "
		    "ignores our window", (unsigned long long)wj_wnd(f, WINDOW_MAX_SCALE));
	} else if (end == WINDOW_END_REFUSED) {
		snprintf(why, wl, "the request is larger than the server's first window");
	} else if (f->fmax == 0) {
		snprintf(why, wl, "no answer to the request (%s)", window_end_name(end));
	} else if (kmin == 0) {
		snprintf(why, wl, "the largest flight, %llu bytes, never exceeded W = %u: "
		    "no shift can be excluded (%s)", (unsigned long long)f->fmax, f->w,
		    window_end_name(end));
	} else {
		res->inconclusive = false;
		res->scale_effective_min = kmin;
		snprintf(why, wl, "the largest flight, %llu bytes, needs shift %d or "
		    "more; the flights did not plateau (%s)", (unsigned long long)f->fmax,
		    kmin, window_end_name(end));
	}
}

const char *
window_end_name(enum window_end e)
{
	static const char *names[] = {
		"running", "plateau", "answer over", "FIN", "RST", "round limit",
		"byte limit", "time limit", "no SYN-ACK", "no answer",
		"data beyond any window", "request does not fit",
	};

	if ((unsigned)e >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[e];
}
