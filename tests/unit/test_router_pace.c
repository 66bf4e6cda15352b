/*
 * test_router_pace.c -- the trace's budget per router (router_pace.c,
 * hop_pace.c): which probes share a bucket (a table of who answered
 * before and how many may go at once), a distance that stands for its one
 * router, charges for answers paid by distance, the floor, growth, losses
 * that repeat, losses shown by a later answer, probes nobody waits for,
 * a full table, and a budget per source address under the router's cap
 * over all of them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "router_pace.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

static const struct hop_pace_config cfg = {
	.rate_min = 1, .rate_floor_milli = 500, .rate_max = 1000, .burst = 6, .loss_ns = SEC,
	.reorder_ns = 20 * MS,
};

static struct addr
A(const char *s)
{
	struct addr a;

	assert_int_equal(addr_parse(s, &a), 0);
	return a;
}

/* The key a probe of a path is paid from, as stage_trace.c finds it:
 * learned NULL for a path that has not heard the TTL. */
static struct router_key
key_of(struct router_pace *p, int family, int ttl, const char *learned, uint64_t now)
{
	if (learned != NULL) {
		struct addr a = A(learned);

		return router_pace_key(p, router_key_addr(&a), ttl, now);
	}
	return router_pace_key(p, router_key_ttl(family, ttl), ttl, now);
}

/* Sends as long as k's bucket allows at now; how many went. */
static int
drain(struct router_pace *p, struct router_key k, uint64_t now)
{
	int n = 0;

	while (router_pace_can(p, k, now) && n < 100) {
		router_pace_sent(p, k, now, false);
		n++;
	}
	return n;
}

/* n probes of k with this TTL sent and answered at now. */
static void
answered_n(struct router_pace *p, struct router_key k, int ttl, int n, uint64_t now)
{
	for (int i = 0; i < n; i++) {
		router_pace_sent(p, k, now, false);
		router_pace_answered(p, k, ttl, NULL, now, now);
	}
}

/* A fresh table with one router at this TTL that answered n probes at
 * time 0; its key. */
static struct router_key
warmed(struct router_pace *p, int ttl, const char *router, int n)
{
	struct router_key k;

	assert_int_equal(router_pace_init(p, &cfg), 0);
	k = key_of(p, ADDR_V4, ttl, router, 0);
	answered_n(p, k, ttl, n, 0);
	return k;
}

/* One probe of k lost: sent at *now, expired 2 s later. */
static void
lost_one(struct router_pace *p, struct router_key k, uint64_t *now, bool repeat)
{
	router_pace_sent(p, k, *now, repeat);
	*now += 2 * SEC;
	router_pace_expire(p, *now);
}

/* Answers at time 0 (router at TTL from), then: how many probes may go at
 * once from a first path's key and then from a second's, both at time 0. */
struct share_row {
	const char *what;
	struct {
		int ttl;
		const char *from;
	} heard[2];			/* distance-paid probes answered first */
	int fam1, ttl1;
	const char *learned1;
	int fam2, ttl2;
	const char *learned2;
	int first, second;		/* may go */
};

static const struct share_row share_rows[] = {
	{ "a distance nothing answered: one budget for both families", { { 0, NULL }, { 0, NULL } },
	    ADDR_V4, 1, NULL, ADDR_V6, 1, NULL, 6, 0 },
	{ "two distances: two budgets", { { 0, NULL }, { 0, NULL } },
	    ADDR_V4, 1, NULL, ADDR_V4, 2, NULL, 6, 6 },
	{ "one router learned by two paths: one budget", { { 0, NULL }, { 0, NULL } },
	    ADDR_V4, 3, "198.18.3.2", ADDR_V4, 3, "198.18.3.2", 6, 0 },
	{ "two routers at one distance: two budgets", { { 0, NULL }, { 0, NULL } },
	    ADDR_V4, 3, "198.18.3.2", ADDR_V4, 3, "198.18.33.2", 6, 6 },
	{ "two families' addresses never heard at one distance: two budgets",
	    { { 0, NULL }, { 0, NULL } },
	    ADDR_V4, 1, "198.18.1.2", ADDR_V6, 1, "fd00:5ca1:1::2", 6, 6 },
	{ "the one address of each family at a distance: one router, one budget",
	    { { 1, "198.18.1.2" }, { 1, "fd00:5ca1:1::2" } },
	    ADDR_V4, 1, "198.18.1.2", ADDR_V6, 1, "fd00:5ca1:1::2", 6, 0 },
	{ "... heard IPv6 first", { { 1, "fd00:5ca1:1::2" }, { 1, "198.18.1.2" } },
	    ADDR_V4, 1, "198.18.1.2", ADDR_V6, 1, NULL, 6, 0 },
	{ "a distance one router answered is that router", { { 1, "198.18.1.2" }, { 0, NULL } },
	    ADDR_V4, 1, NULL, ADDR_V4, 1, "198.18.1.2", 6, 0 },
	{ "... for the other family too, until it hears another", { { 1, "198.18.1.2" }, { 0, NULL } },
	    ADDR_V6, 1, NULL, ADDR_V4, 1, "198.18.1.2", 6, 0 },
	{ "a distance two routers answered stands alone",
	    { { 4, "198.18.4.2" }, { 4, "198.18.44.2" } },
	    ADDR_V4, 4, NULL, ADDR_V4, 4, "198.18.4.2", 6, 6 },
	{ "... and its families apart", { { 4, "198.18.4.2" }, { 4, "198.18.44.2" } },
	    ADDR_V6, 4, NULL, ADDR_V4, 4, "198.18.4.2", 6, 6 },
};

static void
test_share_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(share_rows) / sizeof(share_rows[0]); i++) {
		const struct share_row *r = &share_rows[i];
		struct router_pace p;
		int n1, n2;

		assert_int_equal(router_pace_init(&p, &cfg), 0);
		for (int h = 0; h < 2 && r->heard[h].from != NULL; h++) {
			struct addr a = A(r->heard[h].from);
			struct router_key d = key_of(&p, a.family, r->heard[h].ttl, NULL, 0);

			/* the answer came before anything else was sent: its
			 * bucket is full again by time 0 of the row */
			router_pace_sent(&p, d, 0, false);
			router_pace_answered(&p, d, r->heard[h].ttl, &a, 0, 0);
		}
		n1 = drain(&p, key_of(&p, r->fam1, r->ttl1, r->learned1, 10 * SEC), 10 * SEC);
		n2 = drain(&p, key_of(&p, r->fam2, r->ttl2, r->learned2, 10 * SEC), 10 * SEC);
		print_message("# %s: %d, %d\n", r->what, n1, n2);
		assert_int_equal(n1, r->first);
		assert_int_equal(n2, r->second);
	}
}

/* The distance's bucket becomes its router's: what the distance spent
 * is spent, and the answers to the rest of its burst are not charged
 * again (a debt that held a router without a limit back at every hop). */
static void
test_alias_carries_bucket(void **state)
{
	struct router_pace p;
	struct addr r1 = A("198.18.1.2");
	struct router_key d;

	(void)state;
	assert_int_equal(router_pace_init(&p, &cfg), 0);
	d = key_of(&p, ADDR_V4, 1, NULL, 0);
	assert_int_equal(drain(&p, d, 0), 6);
	router_pace_answered(&p, d, 1, &r1, 0, 0);
	assert_int_equal(p.charged, 0);
	d = key_of(&p, ADDR_V4, 1, NULL, 0);
	assert_int_equal(d.ttl, 0);		/* the router now */
	assert_false(router_pace_can(&p, d, 0));
	assert_false(router_pace_can(&p, router_key_addr(&r1), 0));
	/* 1 a second, plus 1 for the answer (slow start) */
	assert_false(router_pace_can(&p, d, 400 * MS));
	assert_true(router_pace_can(&p, d, 500 * MS));
	for (int i = 0; i < 5; i++)
		router_pace_answered(&p, router_key_ttl(ADDR_V4, 1), 1, &r1, 500 * MS, 0);
	assert_int_equal(p.charged, 0);
	assert_int_equal(p.answered, 6);
	assert_true(router_pace_can(&p, d, 500 * MS));
}

/* An answer to a probe paid by a distance that stands for many routers
 * is charged to its router: its own probes wait, the debt at most one
 * burst. */
static void
test_charge_and_debt(void **state)
{
	struct router_pace p;
	struct addr a = A("198.18.5.2"), b = A("198.18.55.2");
	struct router_key d, ka;

	(void)state;
	assert_int_equal(router_pace_init(&p, &cfg), 0);
	/* distance 5 hears two routers: it stands alone */
	d = key_of(&p, ADDR_V4, 5, NULL, 0);
	router_pace_sent(&p, d, 0, false);
	router_pace_answered(&p, d, 5, &a, 0, 0);
	router_pace_sent(&p, d, 0, false);
	router_pace_answered(&p, d, 5, &b, 0, 0);
	assert_int_equal(key_of(&p, ADDR_V4, 5, NULL, 0).ttl, 5);
	ka = key_of(&p, ADDR_V4, 5, "198.18.5.2", 0);
	/* the other router was charged once, for its one answer */
	assert_int_equal(drain(&p, key_of(&p, ADDR_V4, 5, "198.18.55.2", 0), 0), 5);
	/* a's bucket is the distance's was (2 a second after an answer, 5
	 * tokens): 100 charges leave a debt of one burst, not 95 */
	for (int i = 0; i < 100; i++) {
		router_pace_sent(&p, d, 0, false);
		router_pace_answered(&p, d, 5, &a, 0, 0);
	}
	assert_true(p.charged >= 101);
	assert_false(router_pace_can(&p, ka, 0));
	/* from 6 owed to 1 token at 2 a second: 3.5 s */
	assert_false(router_pace_can(&p, ka, 3400 * MS));
	assert_true(router_pace_can(&p, ka, 3500 * MS + 1));
}

/* Losses halve the rate, once per loss_ns, down to the floor. */
static void
test_floor(void **state)
{
	struct router_pace p;
	struct router_key k;
	uint64_t now = 0;

	(void)state;
	k = warmed(&p, 2, "198.18.2.2", 20);
	assert_true(router_pace_rate(&p, k) == 21.0);	/* 1, +1 an answer */
	for (int i = 0; i < 10; i++) {
		while (router_pace_can(&p, k, now))
			router_pace_sent(&p, k, now, false);
		now += 2 * SEC;
		router_pace_expire(&p, now);
	}
	assert_true(p.lost > 0);
	assert_true(router_pace_rate(&p, k) == 0.5);
}

/* After a loss, a tenth per answer; a probe asked again and lost again
 * (silent by design) does not cut the rate, a first loss does; at 90 % of
 * the rate the last loss came at the rate holds for 20 answers. */
static void
test_losses(void **state)
{
	struct router_pace p;
	struct router_key k;
	uint64_t now = 0;
	double r;

	(void)state;
	k = warmed(&p, 2, "198.18.2.2", 7);
	assert_true(router_pace_rate(&p, k) == 8.0);
	lost_one(&p, k, &now, false);
	assert_true(router_pace_rate(&p, k) == 4.0);
	answered_n(&p, k, 2, 10, now);
	r = router_pace_rate(&p, k);
	assert_true(r > 4.95 && r < 5.05);
	for (int i = 0; i < 5; i++)
		lost_one(&p, k, &now, true);
	assert_int_equal(p.lost, 6);
	assert_true(router_pace_rate(&p, k) == r);
	lost_one(&p, k, &now, false);
	assert_true(router_pace_rate(&p, k) == r / 2);
	/* past the loss, a tenth per answer up to 90 % of the rate it came
	 * at, held there for 20 answers, then a tenth again: a router at its
	 * limit is asked above it seldom */
	now = 0;
	k = warmed(&p, 2, "198.18.2.2", 7);
	lost_one(&p, k, &now, false);		/* at 8: halved to 4 */
	answered_n(&p, k, 2, 31, now);
	r = router_pace_rate(&p, k);
	assert_true(r > 7.05 && r < 7.15);	/* 4 + 3.1 */
	answered_n(&p, k, 2, 1, now);
	assert_true(router_pace_rate(&p, k) == 7.2);	/* not 7.2 + 0.1 */
	answered_n(&p, k, 2, 20, now);
	assert_true(router_pace_rate(&p, k) == 7.2);	/* held */
	answered_n(&p, k, 2, 3, now);
	r = router_pace_rate(&p, k);
	assert_true(r > 7.45 && r < 7.55);	/* on again */
	/* a loss there: its rate is the new mark, and the hold starts over */
	lost_one(&p, k, &now, false);		/* 3.75, up to 6.75 */
	answered_n(&p, k, 2, 50, now);
	assert_true(router_pace_rate(&p, k) == 6.75);
	/* and after a second loss, from its own mark */
	k = warmed(&p, 2, "198.18.2.2", 1);	/* 2 a second */
	now = 0;
	lost_one(&p, k, &now, false);		/* 1, up to 1.8 */
	answered_n(&p, k, 2, 8 + 20 + 1, now);	/* 1.8, held, 1.9 */
	lost_one(&p, k, &now, false);		/* 0.95, up to 1.71 */
	answered_n(&p, k, 2, 8 + 20, now);
	assert_true(router_pace_rate(&p, k) == 1.71);
	answered_n(&p, k, 2, 1, now);
	assert_true(router_pace_rate(&p, k) == 1.81);
}

/* One router answers in order: an answer to a probe sent more than
 * reorder_ns after an unanswered one shows that one lost at once (the
 * rate halves); within reorder_ns, or by distance, it waits for loss_ns.
 * The answer settles its own probe, not the oldest. */
static void
test_overtaken(void **state)
{
	struct router_pace p;
	struct router_key k, d;
	uint64_t t0 = 10 * SEC;

	(void)state;
	k = warmed(&p, 1, "198.18.1.2", 4);
	assert_true(router_pace_rate(&p, k) == 5.0);
	router_pace_sent(&p, k, t0, false);
	router_pace_sent(&p, k, t0 + 10 * MS, false);
	router_pace_answered(&p, k, 1, NULL, t0 + 12 * MS, t0 + 10 * MS);
	assert_int_equal(p.lost, 0);		/* 10 ms: within reorder_ns */
	router_pace_sent(&p, k, t0 + 50 * MS, false);
	router_pace_answered(&p, k, 1, NULL, t0 + 52 * MS, t0 + 50 * MS);
	assert_int_equal(p.lost, 1);		/* the one sent at t0 */
	assert_true(router_pace_rate(&p, k) == 3.5);	/* 5, +1, +1, halved */
	/* a distance standing for many routers: no such test */
	d = router_key_ttl(ADDR_V4, 9);
	router_pace_sent(&p, d, t0, false);
	router_pace_sent(&p, d, t0 + 50 * MS, false);
	router_pace_answered(&p, d, 9, NULL, t0 + 52 * MS, t0 + 50 * MS);
	assert_int_equal(p.lost, 1);
	router_pace_expire(&p, t0 + SEC);
	assert_int_equal(p.lost, 2);
}

/* A full table: routers with probes waiting are kept, a new router is
 * paid by its distance; once one is idle it is forgotten for the new. */
/* Probes of k offered every 2 ms, 2 * HOP_PACE_OUTSTANDING of them, within
 * a loss time: how many went, spent or waited for. */
static int
offer(struct router_pace *p, struct router_key k, bool spent, uint64_t *now)
{
	int went = 0;

	for (int i = 0; i < 2 * HOP_PACE_OUTSTANDING; i++) {
		*now += 2 * MS;
		if (!router_pace_can(p, k, *now))
			continue;
		if (spent)
			router_pace_spent(p, k, *now);
		else
			router_pace_sent(p, k, *now, false);
		went++;
	}
	return went;
}

/* A probe nobody waits for (its variant dropped on the way) takes its
 * token but no place among those waiting: HOP_PACE_OUTSTANDING of them
 * and more leave the router free to send, none is ever lost, the rate is
 * not cut; answered, it grows the rate as any answer does. */
static void
test_spent(void **state)
{
	struct router_pace p;
	struct router_key k = warmed(&p, 3, "198.18.3.2", 900);
	double rate = router_pace_rate(&p, k);
	uint64_t now = 0;

	(void)state;
	assert_int_equal(offer(&p, k, true, &now), 2 * HOP_PACE_OUTSTANDING);
	now += 10 * SEC;
	router_pace_expire(&p, now);
	assert_int_equal(p.lost, 0);
	assert_true(router_pace_rate(&p, k) >= rate);
	router_pace_spent(&p, k, now);
	router_pace_answered_spent(&p, k, 3, NULL, now);
	assert_true(router_pace_rate(&p, k) > rate);
	assert_int_equal(p.answered, 901);
	/* waited for, the same probes fill the places and are lost */
	k = warmed(&p, 3, "198.18.3.2", 900);
	now = 0;
	assert_int_equal(offer(&p, k, false, &now), HOP_PACE_OUTSTANDING);
	now += 10 * SEC;
	router_pace_expire(&p, now);
	assert_int_equal(p.lost, HOP_PACE_OUTSTANDING);
	assert_true(router_pace_rate(&p, k) < rate);
}

/* A router's key for probes from source number i (198.18.200.0 up). */
static struct router_key
from_src(struct router_pace *p, int ttl, const char *router, int i, uint64_t now)
{
	char name[40];
	struct addr r = A(router), src;

	snprintf(name, sizeof(name), "198.18.%d.%d", 200 + i / 250, 1 + i % 250);
	src = A(name);
	return router_pace_key(p, router_key_from(router_key_addr(&r), &src), ttl, now);
}

/* Linux limits a router's errors per destination: each source address is
 * one, with a burst of its own; over all of them the router's global
 * limit (1000/s, burst 50) holds. */
static void
test_sources(void **state)
{
	static struct router_pace p;
	struct router_key k0, k1;
	int sum = 0;

	(void)state;
	assert_int_equal(router_pace_init(&p, &cfg), 0);
	k0 = from_src(&p, 1, "198.18.1.2", 0, 0);
	assert_int_equal(drain(&p, k0, 0), 6);
	k1 = from_src(&p, 1, "198.18.1.2", 1, 0);
	assert_int_equal(drain(&p, k1, 0), 6);	/* a budget of its own */
	assert_int_equal(drain(&p, k0, 0), 0);	/* the first one's is spent */
	/* the first source of a family is keyed as none: one source is the
	 * one budget of before */
	assert_int_equal(k0.src.family, 0);
	assert_int_equal(k1.src.family, ADDR_V4);

	/* 300 sources at once: 6 each alone, 50 in all (the 12 above
	 * count: they went within the same millisecond) */
	for (int i = 2; i < 300; i++)
		sum += drain(&p, from_src(&p, 1, "198.18.1.2", i, 0), 0);
	assert_int_equal(sum + 6, ROUTER_PACE_ALL_BURST);
	k1 = from_src(&p, 1, "198.18.1.2", 299, 0);
	assert_false(router_pace_can(&p, k1, 0));
	assert_true(router_pace_when(&p, k1, 0) > 0);
	/* a second later: at most the global rate's second more */
	sum = 0;
	for (int i = 2; i < 300; i++)
		sum += drain(&p, from_src(&p, 1, "198.18.1.2", i, SEC), SEC);
	assert_true(sum <= ROUTER_PACE_ALL_BURST);
	/* another router's cap is its own */
	assert_int_equal(drain(&p, from_src(&p, 2, "198.18.2.2", 5, SEC), SEC), 6);
}

/* A Linux router's limit per destination (icmp_ratelimit 1000 ms: a burst
 * of 6 errors, then 1 a second), one per source address. */
struct linux_limit {
	int64_t tokens_ns;
	uint64_t last;
	bool started;
};

static bool
linux_allows(struct linux_limit *l, uint64_t now)
{
	if (!l->started) {
		l->started = true;
		l->tokens_ns = 6 * (int64_t)SEC;
		l->last = now;
	}
	l->tokens_ns += (int64_t)(now - l->last);
	if (l->tokens_ns > 6 * (int64_t)SEC)
		l->tokens_ns = 6 * (int64_t)SEC;
	l->last = now;
	if (l->tokens_ns < (int64_t)SEC)
		return false;
	l->tokens_ns -= (int64_t)SEC;
	return true;
}

/* Source i probes router as fast as its bucket allows from `from` to
 * `to` (10 ms steps), each probe answered at once if the router's limit
 * for that source allows; the probes the limit kept back. */
static int
probe_source(struct router_pace *p, const char *router, int i, struct linux_limit *l,
    uint64_t from, uint64_t to)
{
	struct addr r = A(router);
	int lost = 0;

	for (uint64_t t = from; t < to; t += 10 * MS) {
		struct router_key k = from_src(p, 1, router, i, t);

		while (router_pace_can(p, k, t)) {
			router_pace_sent(p, k, t, false);
			if (linux_allows(l, t))
				router_pace_answered(p, k, 1, &r, t, t);
			else
				lost++;
		}
	}
	return lost;
}

/* A new source's bucket of a router others' sources have learned the
 * limit of starts at their rate: slow start from 1/s doubled it past the
 * router's 1/s after the burst, and lost a dozen probes of every new
 * source (13 in 15 s here); at the rate learned, which sits a little over
 * the limit at times (it is tried above once in a while), one at most,
 * right after the burst. */
struct learn_row {
	const char *what;
	const char *taught;	/* the router the first sources probed */
	int sources;		/* how many, for 30 s */
	const char *router;	/* the router the new source probes, 15 s */
	int lost_min, lost_max;	/* the new source's probes kept back */
};

/* the runner's pace (prober/run/runner.c): from and never below 1/s */
static const struct hop_pace_config run_cfg = {
	.rate_min = 1, .rate_floor_milli = 1000, .rate_max = 1000000, .burst = 6,
	.loss_ns = SEC, .reorder_ns = 20 * MS,
};

static const struct learn_row learn_rows[] = {
	{ "a router's first source: slow start, learns by losing", "198.18.2.2", 0,
	    "198.18.1.2", 1, 100 },
	{ "a source after three that learned: their rate, one lost at most", "198.18.1.2", 3,
	    "198.18.1.2", 0, 1 },
	{ "... after one", "198.18.1.2", 1, "198.18.1.2", 0, 1 },
	{ "another router's sources teach nothing", "198.18.2.2", 3, "198.18.1.2", 1, 100 },
};

static void
test_learned_rate(void **state)
{
	static struct router_pace p;
	struct linux_limit lim[8];

	(void)state;
	for (size_t n = 0; n < sizeof(learn_rows) / sizeof(learn_rows[0]); n++) {
		const struct learn_row *row = &learn_rows[n];
		int lost;

		memset(lim, 0, sizeof(lim));
		assert_int_equal(router_pace_init(&p, &run_cfg), 0);
		/* a source that never probes the router under test first,
		 * so that the new one is keyed by its address (not the
		 * family's first, keyed as none) */
		(void)from_src(&p, 1, "198.18.9.2", 7, 0);
		for (uint64_t t = 0; t < 30 * SEC; t += SEC)
			for (int i = 0; i < row->sources; i++)
				probe_source(&p, row->taught, i, &lim[i], t, t + SEC);
		lost = probe_source(&p, row->router, 5, &lim[5], 30 * SEC, 45 * SEC);
		if (lost < row->lost_min || lost > row->lost_max)
			fail_msg("%s: %d lost, want %d..%d", row->what, lost, row->lost_min,
			    row->lost_max);
	}
}

static void
test_full_table(void **state)
{
	static struct router_pace p;
	char name[40];
	struct router_key k;

	(void)state;
	assert_int_equal(router_pace_init(&p, &cfg), 0);
	for (int i = 0; i < ROUTER_PACE_ROUTERS; i++) {
		snprintf(name, sizeof(name), "198.18.%d.%d", 10 + i / 200, 1 + i % 200);
		k = key_of(&p, ADDR_V4, 7, name, 0);
		assert_int_equal(k.ttl, 0);
		router_pace_sent(&p, k, 0, false);
	}
	k = key_of(&p, ADDR_V4, 7, "198.18.99.1", 0);
	assert_int_equal(k.ttl, 7);
	assert_int_equal(p.forgotten, 0);
	/* a second later the probes are lost and the routers' buckets fill
	 * (one token after a loss) */
	router_pace_expire(&p, 3 * SEC);
	k = key_of(&p, ADDR_V4, 7, "198.18.99.1", 4 * SEC);
	assert_int_equal(k.ttl, 0);
	assert_int_equal(p.forgotten, 1);
	assert_int_equal(p.nlive, ROUTER_PACE_ROUTERS);
}

static void
test_bad_config(void **state)
{
	struct router_pace p;
	struct hop_pace_config c = cfg;

	(void)state;
	c.rate_max = 0;
	assert_int_equal(router_pace_init(&p, &c), -1);
	c = cfg;
	c.rate_floor_milli = 1001;
	assert_int_equal(router_pace_init(&p, &c), -1);
	c = cfg;
	c.burst = 0;
	assert_int_equal(router_pace_init(&p, &c), -1);
	c = cfg;
	c.rate_min = 0;
	assert_int_equal(router_pace_init(&p, &c), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_table),
		cmocka_unit_test(test_alias_carries_bucket),
		cmocka_unit_test(test_charge_and_debt),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_overtaken),
		cmocka_unit_test(test_spent),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_learned_rate),
		cmocka_unit_test(test_bad_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
