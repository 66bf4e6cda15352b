/*
 * fuzz_window.c -- libFuzzer harness for the window test's state machine
 * (prober/window.c).  The first bytes pick the scale, the request length,
 * our MSS and timestamps; the rest is a list of events: SYN-ACKs, data,
 * FINs and RSTs near the expected sequence numbers or anywhere, timers at
 * arbitrary times or exactly when asked.  Checks what must hold whatever
 * arrives: every action is well formed (windows W, acks never beyond the
 * data seen, payloads the request's bytes at their sequence numbers), at most a few RSTs, the test
 * always ends once time runs on, and the result is consistent (flights
 * within 1 MiB, an exact shift within its window, a bound that is tight,
 * nothing reported when inconclusive).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define ISN 0xffffff9fu		/* wraps during the request */
#define ISN2 0x7ffffff0u	/* the second connection's (W = 1), as the
				   engine gives it: its own port and ISN */
#define MS 1000000ull

struct fz {
	const uint8_t *p;
	size_t n;
};

static uint32_t
take(struct fz *f, int bytes)
{
	uint32_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v = v << 8;
		if (f->n > 0) {
			v |= *f->p++;
			f->n--;
		}
	}
	return v;
}

struct ctx {
	struct window *w;
	uint16_t W;
	size_t req_len;
	const uint8_t *req;
	uint64_t now;
	bool irs_known;
	uint32_t irs;
	int rsts;
	bool second;		/* the second connection has begun */
};

static void
drain(struct ctx *c)
{
	struct window_act a;
	struct window_result r;
	uint8_t opt[40];
	uint32_t off;
	int n = 0;

	window_result(c->w, &r);
	while (window_next_action(c->w, 0, &a)) {
		if (++n > 40)
			abort();		/* the queue holds 32 */
		if (a.kind == WINDOW_ACT_SYN) {
			if (a.seq != (a.second ? ISN2 : ISN) || a.payload_len != 0)
				abort();
			if (a.second)
				c->second = true;
			continue;
		}
		/* the second connection, once begun, is the only one spoken
		 * on, with W = 1: from its own port (a.second), or on the
		 * first's 4-tuple, where nothing but W tells them apart */
		if (a.second != c->second ||
		    a.window != (a.second || window_second_here(c->w) ? 1 : c->W))
			abort();
		if (window_act_options(&a, opt, sizeof(opt)) != (a.ts ? 12u : 0u))
			abort();
		switch (a.kind) {
		case WINDOW_ACT_RST:
			c->rsts++;
			if (a.flags != 0x04 || a.payload_len != 0)
				abort();
			break;
		case WINDOW_ACT_DATA:
			/* the machine's copy of the request, piece by piece */
			off = a.seq - ((a.second ? ISN2 : ISN) + 1);
			if (a.payload_len == 0 || a.payload_len > 1428 ||
			    a.payload == NULL || off > c->req_len ||
			    a.payload_len > c->req_len - off ||
			    memcmp(a.payload, c->req + off, a.payload_len) != 0)
				abort();
			/* fall through */
		case WINDOW_ACT_ACK:
			/* the second connection's IRS is not followed here */
			if (!(a.flags & 0x10) || (!a.second && !window_second_here(c->w) &&
			    (!c->irs_known ||
			    a.ack - (c->irs + 1) > r.total_bytes)))
				abort();
			break;
		default:
			abort();
		}
	}
	/* the initial RSTs (two at most) and two stragglers' pairs, per
	 * connection */
	if (c->rsts > (c->second || window_second_here(c->w) ? 12 : 6))
		abort();
}

static void
check_result(const struct window *w, uint16_t W, int max_rounds)
{
	struct window_result r;

	window_result(w, &r);
	/* a second connection measures with W = 1, and then its figures
	 * are the answer */
	if (r.w != W && !(r.remeasured && r.w == 1))
		abort();
	W = r.w;
	if (r.flight_bytes > (int64_t)WINDOW_MAX_BYTES || r.total_bytes > WINDOW_MAX_BYTES ||
	    r.rounds > max_rounds)
		abort();
	for (int i = 0; i < r.rounds; i++)
		if (r.flight[i] > r.total_bytes)
			abort();
	if (r.inconclusive) {
		if (r.scale_effective != -1 || r.scale_effective_min != -1)
			abort();
	} else if (r.scale_effective >= 0) {
		if (r.scale_effective > 14 || r.scale_effective_min != r.scale_effective ||
		    r.flight_bytes <= 0 ||
		    (uint64_t)r.flight_bytes > (uint64_t)W << r.scale_effective)
			abort();
	} else {
		if (r.scale_effective_min < 1 || r.scale_effective_min > 14 ||
		    (uint64_t)r.flight_bytes > (uint64_t)W << r.scale_effective_min ||
		    (uint64_t)r.flight_bytes <= (uint64_t)W << (r.scale_effective_min - 1))
			abort();
	}
	if (window_done(w) != (r.end != WINDOW_END_NONE))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t req[WINDOW_REQUEST_MAX];
	struct fz f = { data, size };
	struct window_config cfg;
	struct ctx c;
	int scale = (int)take(&f, 1);

	for (size_t i = 0; i < sizeof(req); i++)
		req[i] = (uint8_t)i;
	window_config_defaults(&cfg, scale % 32);
	cfg.request = req;
	cfg.request_len = take(&f, 2) % (WINDOW_REQUEST_MAX + 1);
	cfg.mss_ours = (uint16_t)take(&f, 2);
	cfg.ts = take(&f, 1) & 1;
	cfg.isn_second = ISN2;
	memset(&c, 0, sizeof(c));
	c.req = req;
	c.req_len = cfg.request_len;
	c.W = window_choose_w(cfg.scale_sent);
	c.now = 1000 * MS;
	c.w = window_start(&cfg, ISN, c.now);
	if (c.w == NULL)
		abort();
	drain(&c);

	while (f.n > 0) {
		uint8_t op = (uint8_t)take(&f, 1);
		struct window_seg g;

		memset(&g, 0, sizeof(g));
		g.second = c.second;
		switch (op % 8) {
		case 0:		/* a SYN-ACK, mostly a valid one */
			g.seq = take(&f, 4);
			g.ack = (op & 0x80) ? take(&f, 4) : (c.second ? ISN2 : ISN) + 1;
			g.flags = (op & 0x40) ? (uint8_t)take(&f, 1) : 0x12;
			g.window = (uint16_t)take(&f, 2);
			g.mss = (int)take(&f, 2) - 1;
			g.ts = op & 0x20;
			g.tsval = take(&f, 4);
			break;
		case 1:		/* data near where it belongs */
		case 2:
			g.seq = c.irs + 1 + take(&f, 3);
			g.ack = (c.second ? ISN2 : ISN) + 1 +
			    (uint32_t)(take(&f, 2) % (c.req_len + 2));
			g.flags = 0x10 | (op & 0x09);
			g.payload_len = (op & 0x80) ? take(&f, 4) : take(&f, 2);
			g.ts = op & 0x20;
			g.tsval = take(&f, 4);
			break;
		case 3:		/* anything at all */
			g.seq = take(&f, 4);
			g.ack = take(&f, 4);
			g.flags = (uint8_t)take(&f, 1);
			g.window = (uint16_t)take(&f, 2);
			g.payload_len = take(&f, 4);
			g.mss = (int)take(&f, 2) - 1;
			g.ts = op & 0x20;
			g.tsval = take(&f, 4);
			break;
		case 4:		/* a RST near the answer */
			g.seq = c.irs + 1 + take(&f, 3);
			g.flags = 0x04 | (op & 0x10);
			break;
		case 5:		/* time passes, maybe backwards */
			if (op & 0x80) {
				uint64_t back = take(&f, 2) * MS;

				c.now = back < c.now ? c.now - back : 0;
			} else
				c.now += take(&f, 2) * (op & 0x40 ? MS : 1000);
			window_on_timer(c.w, c.now);
			drain(&c);
			continue;
		default:	/* exactly when asked */
			if (window_next_wake(c.w) != WINDOW_NEVER) {
				c.now = window_next_wake(c.w);
				window_on_timer(c.w, c.now);
			}
			drain(&c);
			continue;
		}
		window_input(c.w, &g, c.now);
		if (!c.irs_known) {
			struct window_result r;

			/* the segment that completed the handshake names the ISN */
			window_result(c.w, &r);
			if (r.synack) {
				c.irs_known = true;
				c.irs = g.seq;
			}
		}
		drain(&c);
		check_result(c.w, c.W, cfg.max_rounds);
	}
	/* however it went, the test ends once time runs on */
	for (int i = 0; i < 100 && !window_done(c.w); i++) {
		uint64_t t = window_next_wake(c.w);

		if (t == WINDOW_NEVER || t < c.now)
			abort();
		c.now = t;
		window_on_timer(c.w, c.now);
		drain(&c);
	}
	if (!window_done(c.w) || window_next_wake(c.w) != WINDOW_NEVER)
		abort();
	check_result(c.w, c.W, cfg.max_rounds);
	window_free(c.w);
	return 0;
}
