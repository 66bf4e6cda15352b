/*
 * hop_pace.c -- one adaptive token bucket per TTL for the trace probes of
 * every path (hop_pace.h says why and how it adapts).
 */
#include <string.h>

#include "hop_pace.h"

#define NS 1000000000ull
/* After a loss, each answer adds a tenth of a probe per second: at a
 * router's 1 per second, ten seconds without loss before the next try. */
#define HOP_PACE_AVOID_MILLI 100

int
hop_pace_init(struct hop_pace *p, const struct hop_pace_config *cfg)
{
	if (cfg->rate_min < 1 || cfg->burst < 1 || cfg->rate_max < cfg->rate_min ||
	    cfg->loss_ns == 0)
		return -1;
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	for (int t = 0; t <= HOP_PACE_MAX_TTL; t++)
		p->ttl[t].rate_milli = (uint64_t)cfg->rate_min * 1000;
	return 0;
}

static struct hop_pace_ttl *
pace_ttl(struct hop_pace *p, int ttl)
{
	if (ttl < 1 || ttl > HOP_PACE_MAX_TTL)
		return NULL;
	return &p->ttl[ttl];
}

/* Credit is kept in milli-token-nanoseconds: rate_milli * elapsed ns; a
 * token is 10^12 of them. */
static void
pace_refill(struct hop_pace *p, struct hop_pace_ttl *h, uint64_t now)
{
	uint64_t cap = (uint64_t)p->cfg.burst * NS * 1000;

	if (!h->started) {
		h->started = true;
		h->credit = cap;
		h->last = now;
		return;
	}
	if (now > h->last) {
		uint64_t dt = now - h->last;

		/* beyond the time to fill, the bucket is full */
		if (dt >= (uint64_t)p->cfg.burst * NS * 1000 / h->rate_milli + 1)
			h->credit = cap;
		else {
			h->credit += dt * h->rate_milli;
			if (h->credit > cap)
				h->credit = cap;
		}
		h->last = now;
	}
}

bool
hop_pace_can(struct hop_pace *p, int ttl, uint64_t now)
{
	struct hop_pace_ttl *h = pace_ttl(p, ttl);

	if (h == NULL)
		return true;
	hop_pace_expire(p, now);
	if (h->n >= HOP_PACE_OUTSTANDING)
		return false;
	pace_refill(p, h, now);
	return h->credit >= NS * 1000;
}

void
hop_pace_sent(struct hop_pace *p, int ttl, uint64_t now)
{
	struct hop_pace_ttl *h = pace_ttl(p, ttl);

	if (h == NULL)
		return;
	pace_refill(p, h, now);
	h->credit = h->credit >= NS * 1000 ? h->credit - NS * 1000 : 0;
	if (h->n < HOP_PACE_OUTSTANDING) {
		h->sent_at[(h->head + h->n) % HOP_PACE_OUTSTANDING] = now;
		h->n++;
	}
}

void
hop_pace_answered(struct hop_pace *p, int ttl, uint64_t now)
{
	struct hop_pace_ttl *h = pace_ttl(p, ttl);
	uint64_t max = (uint64_t)p->cfg.rate_max * 1000;

	if (h == NULL || h->n == 0)
		return;		/* an answer to a probe counted lost already */
	/* answers come about in the order sent: the oldest is settled */
	h->head = (h->head + 1) % HOP_PACE_OUTSTANDING;
	h->n--;
	p->answered++;
	/* the refill so far at the old rate, then the new rate */
	pace_refill(p, h, now);
	h->rate_milli += h->lost_once ? HOP_PACE_AVOID_MILLI : 1000;
	if (h->rate_milli > max)
		h->rate_milli = max;
}

void
hop_pace_expire(struct hop_pace *p, uint64_t now)
{
	for (int t = 1; t <= HOP_PACE_MAX_TTL; t++) {
		struct hop_pace_ttl *h = &p->ttl[t];
		bool lost = false;

		while (h->n > 0 && now >= h->sent_at[h->head] + p->cfg.loss_ns) {
			h->head = (h->head + 1) % HOP_PACE_OUTSTANDING;
			h->n--;
			p->lost++;
			lost = true;
		}
		if (!lost)
			continue;
		h->lost_once = true;
		if (h->last_cut == 0 || now >= h->last_cut + p->cfg.loss_ns) {
			uint64_t min = (uint64_t)p->cfg.rate_min * 1000;

			pace_refill(p, h, now);
			h->rate_milli /= 2;
			if (h->rate_milli < min)
				h->rate_milli = min;
			h->last_cut = now;
		}
	}
}

uint64_t
hop_pace_when(struct hop_pace *p, int ttl, uint64_t now)
{
	struct hop_pace_ttl *h = pace_ttl(p, ttl);
	uint64_t need;

	if (h == NULL || hop_pace_can(p, ttl, now))
		return now;
	if (h->n >= HOP_PACE_OUTSTANDING)
		return h->sent_at[h->head] + p->cfg.loss_ns;	/* one is settled then */
	need = NS * 1000 - h->credit;
	return now + (need + h->rate_milli - 1) / h->rate_milli;
}

double
hop_pace_rate(const struct hop_pace *p, int ttl)
{
	if (ttl < 1 || ttl > HOP_PACE_MAX_TTL)
		return 0;
	return (double)p->ttl[ttl].rate_milli / 1000.0;
}
