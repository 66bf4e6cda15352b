/*
 * ratelimit.c -- the token bucket of --rate, in exact integer arithmetic.
 *
 * Bounds that keep every product inside 64 bits: rate <= 10^7 and
 * burst <= 10^7, so cap < 10^16 + 10^9; refills only ever add rate * dt
 * with dt < fill_ns (a longer gap just fills the bucket), and
 * rate * fill_ns < cap + rate.
 */
#include "ratelimit.h"

#define NS_PER_TOKEN 1000000000ULL

uint64_t
ratelimit_default_burst(uint64_t rate)
{
	return rate / 100 > 2 ? rate / 100 : 2;
}

int
ratelimit_init(struct ratelimit *rl, uint64_t rate, uint64_t burst)
{
	if (burst == 0)
		burst = ratelimit_default_burst(rate);
	if (rate < RATELIMIT_RATE_MIN || rate > RATELIMIT_RATE_MAX ||
	    burst < 1 || burst > RATELIMIT_BURST_MAX)
		return -1;
	rl->rate = rate;
	/* the partial token on top: a capped refill never drops a fraction
	 * the caller was about to use */
	rl->cap = (burst + 1) * NS_PER_TOKEN - 1;
	rl->credit = burst * NS_PER_TOKEN;
	rl->fill_ns = (rl->cap + rate - 1) / rate;
	rl->last = 0;
	rl->started = false;
	return 0;
}

/* Adds the credit earned since the last refill. */
static void
ratelimit_refill(struct ratelimit *rl, uint64_t now)
{
	uint64_t dt;

	if (!rl->started) {
		/* time starts at the first call: init needs no clock */
		rl->started = true;
		rl->last = now;
		return;
	}
	if (now <= rl->last)
		return;
	dt = now - rl->last;
	rl->last = now;
	if (dt >= rl->fill_ns) {
		rl->credit = rl->cap;
		return;
	}
	rl->credit += rl->rate * dt;
	if (rl->credit > rl->cap)
		rl->credit = rl->cap;
}

uint64_t
ratelimit_available(struct ratelimit *rl, uint64_t now)
{
	ratelimit_refill(rl, now);
	return rl->credit / NS_PER_TOKEN;
}

uint64_t
ratelimit_take(struct ratelimit *rl, uint64_t now, uint64_t want)
{
	uint64_t n = ratelimit_available(rl, now);

	if (n > want)
		n = want;
	rl->credit -= n * NS_PER_TOKEN;
	return n;
}

uint64_t
ratelimit_next(struct ratelimit *rl, uint64_t now)
{
	ratelimit_refill(rl, now);
	if (rl->credit >= NS_PER_TOKEN)
		return 0;
	return (NS_PER_TOKEN - rl->credit + rl->rate - 1) / rl->rate;
}

uint64_t
ratelimit_wait(struct ratelimit *rl, uint64_t now, uint64_t n)
{
	uint64_t need;

	ratelimit_refill(rl, now);
	if (n == 0)
		return 0;
	if (n > rl->cap / NS_PER_TOKEN)
		return UINT64_MAX;
	need = n * NS_PER_TOKEN;
	if (rl->credit >= need)
		return 0;
	return (need - rl->credit + rl->rate - 1) / rl->rate;
}
