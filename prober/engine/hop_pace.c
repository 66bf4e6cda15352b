/*
 * hop_pace.c -- one router's adaptive token bucket of trace probes
 * (hop_pace.h says why and how it adapts).
 */
#include <string.h>

#include "hop_pace.h"

#define NS 1000000000ll
#define TOKEN (NS * 1000)	/* a token in milli-token-ns */
/* After a loss, each answer adds a tenth of a probe per second up to 90 %
 * of the rate the loss came at; there the rate holds for HOP_PACE_CALM
 * answers, then climbs a tenth per answer again: a router at its limit is
 * asked just under it and tried above it once in about 25 answers (each
 * try costs a loss: at one error a second with a burst of one, every
 * try), and a rate cut by a loss that came at a low rate by chance (a
 * burst, two families' budgets under one key) is not held down. */
#define HOP_PACE_AVOID_MILLI 100
#define HOP_PACE_CALM 20

static uint64_t
floor_milli(const struct hop_pace_config *cfg)
{
	return cfg->rate_floor_milli ? cfg->rate_floor_milli : (uint64_t)cfg->rate_min * 1000;
}

int
hop_pace_check(const struct hop_pace_config *cfg)
{
	if (cfg->rate_min < 1 || cfg->burst < 1 || cfg->rate_max < cfg->rate_min ||
	    cfg->loss_ns == 0 || cfg->rate_floor_milli > (uint64_t)cfg->rate_min * 1000)
		return -1;
	return 0;
}

void
hop_bucket_init(const struct hop_pace_config *cfg, struct hop_bucket *b)
{
	memset(b, 0, sizeof(*b));
	b->rate_milli = (uint64_t)cfg->rate_min * 1000;
}

uint64_t
hop_bucket_learned_milli(const struct hop_bucket *b)
{
	uint64_t near = b->cut_from_milli * 9 / 10;

	if (!b->lost_once && !b->learned)
		return 0;
	return near > 0 && near < b->rate_milli ? near : b->rate_milli;
}

void
hop_bucket_inherit(const struct hop_pace_config *cfg, struct hop_bucket *b,
    const struct hop_bucket *from)
{
	uint64_t r = hop_bucket_learned_milli(from);

	if (r == 0)
		return;
	b->rate_milli = r > floor_milli(cfg) ? r : floor_milli(cfg);
	b->cut_from_milli = from->cut_from_milli;
	b->calm = 0;
	b->learned = true;
}

/* The bucket's depth: a burst until the router lost a probe, one token
 * after -- a router at its limit answers at its rate, and a burst saved up
 * while its paths waited elsewhere is lost but one at a router whose own
 * burst is one (hardware routers: the lab's r1 at one error a second was
 * asked up to 162 % of what it answered). */
static int64_t
depth(const struct hop_pace_config *cfg, const struct hop_bucket *b)
{
	return (int64_t)(b->lost_once ? 1 : cfg->burst) * TOKEN;
}

/* Credit is kept in milli-token-nanoseconds: rate_milli * elapsed ns; a
 * token is 10^12 of them. */
static void
refill(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	int64_t cap = depth(cfg, b);

	if (!b->started) {
		b->started = true;
		b->credit = cap;
		b->last = now;
		return;
	}
	if (now > b->last) {
		uint64_t dt = now - b->last;

		/* beyond the time to fill from a burst of debt, the bucket is full */
		if (dt >= 2 * (uint64_t)cap / b->rate_milli + 1)
			b->credit = cap;
		else {
			b->credit += (int64_t)(dt * b->rate_milli);
			if (b->credit > cap)
				b->credit = cap;
		}
		b->last = now;
	}
}

bool
hop_bucket_can(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	if (b->n >= HOP_PACE_OUTSTANDING)
		return false;
	refill(cfg, b, now);
	return b->credit >= TOKEN;
}

void
hop_bucket_spent(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	refill(cfg, b, now);
	b->credit = b->credit >= TOKEN ? b->credit - TOKEN : 0;
}

void
hop_bucket_sent(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now,
    bool repeat)
{
	hop_bucket_spent(cfg, b, now);
	if (b->n < HOP_PACE_OUTSTANDING) {
		int i = (b->head + b->n) % HOP_PACE_OUTSTANDING;

		b->sent_at[i] = now;
		b->repeat[i] = repeat;
		b->n++;
	}
}

/* Takes the probe sent at `sent` off the ring (the oldest when no probe
 * has that time: its own entry was counted lost, or none was kept). */
static void
settle(struct hop_bucket *b, uint64_t sent)
{
	int k = 0;

	for (int j = 0; j < b->n; j++)
		if (b->sent_at[(b->head + j) % HOP_PACE_OUTSTANDING] == sent) {
			k = j;
			break;
		}
	/* the entries before it move up one */
	for (int j = k; j > 0; j--) {
		int to = (b->head + j) % HOP_PACE_OUTSTANDING;
		int from = (b->head + j - 1) % HOP_PACE_OUTSTANDING;

		b->sent_at[to] = b->sent_at[from];
		b->repeat[to] = b->repeat[from];
	}
	b->head = (b->head + 1) % HOP_PACE_OUTSTANDING;
	b->n--;
}

bool
hop_bucket_answered(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now,
    uint64_t sent)
{
	if (b->n == 0)
		return false;	/* an answer to a probe counted lost already */
	settle(b, sent);
	hop_bucket_grow(cfg, b, now);
	return true;
}

void
hop_bucket_grow(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	uint64_t max = (uint64_t)cfg->rate_max * 1000, near;

	/* the refill so far at the old rate, then the new rate */
	refill(cfg, b, now);
	near = b->cut_from_milli * 9 / 10;
	if (!b->lost_once && !b->learned)
		b->rate_milli += 1000;
	else if (b->calm == 0 && b->rate_milli < near)
		b->rate_milli = b->rate_milli + HOP_PACE_AVOID_MILLI < near ?
		    b->rate_milli + HOP_PACE_AVOID_MILLI : near;
	else if (b->calm < HOP_PACE_CALM)
		b->calm++;
	else
		b->rate_milli += HOP_PACE_AVOID_MILLI;
	if (b->rate_milli > max)
		b->rate_milli = max;
}

void
hop_bucket_charge(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	refill(cfg, b, now);
	b->credit -= TOKEN;
	if (b->credit < -(int64_t)cfg->burst * TOKEN)
		b->credit = -(int64_t)cfg->burst * TOKEN;
}

/* Counts the probes sent before `before` lost (they are the oldest: the
 * ring is in the order sent), cutting the rate as a loss does. */
static int
lose_before(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t before,
    uint64_t now)
{
	int lost = 0, signal = 0;

	while (b->n > 0 && b->sent_at[b->head] < before) {
		signal += !b->repeat[b->head];
		b->head = (b->head + 1) % HOP_PACE_OUTSTANDING;
		b->n--;
		lost++;
	}
	/* a probe asked again and lost again is likely silent by design (a
	 * box dropped that SYN, a router mute for that destination): only
	 * first losses say the router is at its limit */
	if (signal == 0)
		return lost;
	b->lost_once = true;
	if (b->last_cut == 0 || now >= b->last_cut + cfg->loss_ns) {
		refill(cfg, b, now);
		b->cut_from_milli = b->rate_milli;
		b->calm = 0;
		b->rate_milli /= 2;
		if (b->rate_milli < floor_milli(cfg))
			b->rate_milli = floor_milli(cfg);
		b->last_cut = now;
	}
	return lost;
}

int
hop_bucket_expire(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	return now >= cfg->loss_ns ? lose_before(cfg, b, now - cfg->loss_ns + 1, now) : 0;
}

int
hop_bucket_overtaken(const struct hop_pace_config *cfg, struct hop_bucket *b,
    uint64_t sent, uint64_t now)
{
	if (cfg->reorder_ns == 0 || sent < cfg->reorder_ns)
		return 0;
	return lose_before(cfg, b, sent - cfg->reorder_ns, now);
}

uint64_t
hop_bucket_when(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	uint64_t need;

	if (hop_bucket_can(cfg, b, now))
		return now;
	if (b->n >= HOP_PACE_OUTSTANDING)
		return b->sent_at[b->head] + cfg->loss_ns;	/* one is settled then */
	need = (uint64_t)(TOKEN - b->credit);
	return now + (need + b->rate_milli - 1) / b->rate_milli;
}

uint64_t
hop_bucket_deadline(const struct hop_pace_config *cfg, const struct hop_bucket *b)
{
	return b->n > 0 ? b->sent_at[b->head] + cfg->loss_ns : UINT64_MAX;
}

bool
hop_bucket_idle(const struct hop_pace_config *cfg, struct hop_bucket *b, uint64_t now)
{
	if (b->n > 0)
		return false;
	if (!b->started)
		return true;
	refill(cfg, b, now);
	return b->credit >= depth(cfg, b);
}
