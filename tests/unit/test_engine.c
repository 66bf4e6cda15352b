/*
 * test_engine.c -- the engine driven by hand: a fake wire records what it
 * sends, the test plays the network (SYN-ACKs, RSTs, ICMP errors, forged
 * replies, silence) and moves the clock.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cookie.h"
#include "engine.h"
#include "pktbuild.h"
#include "reply.h"
#include "rst_owed.h"
#include "wire.h"
#include "wire_csum.h"

#define SEC ENGINE_NS_PER_SEC
#define MAXSENT 8192
#define MAXPATHS 256

struct fake {
	struct send_syn syn[MAXSENT];
	struct addr syn_src[MAXSENT], syn_dst[MAXSENT];
	int nsyn;
	struct send_segment seg[MAXSENT];
	int nseg;
	struct engine_path paths[MAXPATHS];
	char names[MAXPATHS][32];
	int npaths, next;
	struct path_result res[MAXPATHS];
	struct trace_obs traces[MAXPATHS][4];	/* copies: the engine's die with the path */
	int nres;
	int drains;
	bool drain_answers;		/* a drain delivers SYN-ACKs for what was sent */
	int answered;			/* SYNs answered so far by drains */
	struct engine *eng;		/* for drain_answers */
	uint64_t drops;
	bool window_test;
	size_t max_windows;		/* 0: one at a time */
	struct engine_path *ext;	/* when set: the paths, next_path's source */
	int next_ext, n_ext;
	int ndone;			/* every result, kept or not */
	const char *capture_failed;	/* what capture_failure answers */
	int capture_asked;		/* the capture index it was asked for */
	int rsts_in_burst;		/* segments sent while SYNs still were */
	uint32_t trace_pace;		/* engine_config.trace_pace */
	uint32_t trace_pace_floor_milli;	/* and its floor */
	size_t max_traces;		/* 0: 4 */
	int flows;			/* engine_config.flows; 0: one */
	bool flows_auto;		/* and flows_auto: then done asks */
	int more[MAXPATHS][4];		/* path i's flows_more, in turn */
	int asked[MAXPATHS];
	bool stamps;			/* sent_id and left_at given */
	uint64_t clock;			/* the test's now, for the stamps */
	uint64_t lag;			/* a packet leaves this long after the
					   engine hands it over */
	bool forgot;			/* left_at knows no packet */
	uint64_t sent_clock[2 * MAXSENT + 1];	/* by id: when handed over */
};

static int
f_next(void *arg, struct engine_path *out)
{
	struct fake *f = arg;

	if (f->ext != NULL) {
		if (f->next_ext >= f->n_ext)
			return 0;
		*out = f->ext[f->next_ext++];
		return 1;
	}
	if (f->next >= f->npaths)
		return 0;
	*out = f->paths[f->next++];
	return 1;
}

static int
f_syn(void *arg, const struct send_syn *syn)
{
	struct fake *f = arg;

	assert_true(f->nsyn < MAXSENT);
	f->syn[f->nsyn] = *syn;
	f->syn_src[f->nsyn] = *syn->src;
	f->syn_dst[f->nsyn] = *syn->dst;
	f->nsyn++;
	f->sent_clock[f->nsyn + f->nseg] = f->clock;
	return 0;
}

/* The fake sender's packet ids: the packets handed over so far. */
static uint64_t
f_sent_id(void *arg)
{
	struct fake *f = arg;

	return (uint64_t)(f->nsyn + f->nseg);
}

static uint64_t
f_left_at(void *arg, uint64_t id)
{
	struct fake *f = arg;

	assert_true(id >= 1 && id <= (uint64_t)(f->nsyn + f->nseg));
	return f->forgot ? 0 : f->sent_clock[id] + f->lag;
}

static int
f_seg(void *arg, const struct send_segment *seg)
{
	struct fake *f = arg;

	assert_true(f->nseg < MAXSENT);
	if (f->drain_answers && f->nsyn < 800)
		f->rsts_in_burst++;
	f->seg[f->nseg++] = *seg;
	f->sent_clock[f->nsyn + f->nseg] = f->clock;
	return 0;
}

/* The SYN as send.c lays it out: Linux's options, WS last (NOPs for the
 * control). */
static size_t
f_render(void *arg, const struct send_syn *syn, uint8_t *buf, size_t cap)
{
	struct fake *f = arg;
	uint8_t opts[20];
	struct pkt_tcp t;

	(void)f;
	memcpy(opts, pkt_linux_synack_opts, sizeof(opts));
	wire_put32(opts + 8, syn->tsval);
	wire_put32(opts + 12, 0);
	if (syn->variant == 0)
		memset(opts + 16, 0x01, 4);
	else
		opts[19] = (uint8_t)(syn->variant == 1 ? 0 : syn->variant == 2 ? 7 : 14);
	memset(&t, 0, sizeof(t));
	t.src = syn->src;
	t.dst = syn->dst;
	t.sport = syn->sport;
	t.dport = syn->dport;
	t.seq = syn->isn;
	t.flags = WIRE_TH_SYN;
	t.window = 64240;
	t.ttl = syn->ttl;
	t.opts = opts;
	t.optlen = sizeof(opts);
	return pkt_build_tcp(buf, cap, &t);
}

/* The window test's request: one line on port 80, none elsewhere (no
 * window test on that path). */
static size_t
f_request(void *arg, const struct engine_path *p, uint8_t *buf, size_t cap)
{
	(void)arg;
	if (p->port != 80 || cap < 16)
		return 0;
	memcpy(buf, "GET / HTTP/1.0\r\n", 16);
	return 16;
}

static size_t answer(struct fake *f, int i, uint8_t flags, int ws, uint32_t ack_delta,
    uint8_t *buf, size_t cap);

static void
f_drain(void *arg)
{
	struct fake *f = arg;

	f->drains++;
	/* a fast link: the replies to everything sent are already waiting */
	for (; f->drain_answers && f->answered < f->nsyn; f->answered++) {
		uint8_t pkt[256];
		size_t len = answer(f, f->answered, WIRE_TH_SYN | WIRE_TH_ACK,
		    f->syn[f->answered].variant ? 7 : -1, 1, pkt, sizeof(pkt));

		engine_input(f->eng, 0, pkt, len);
	}
}

static uint64_t
f_drops(void *arg)
{
	return ((struct fake *)arg)->drops;
}

static const char *
f_capture_failure(void *arg, int capture)
{
	struct fake *f = arg;

	f->capture_asked = capture;
	return f->capture_failed;
}

static void
f_done(void *arg, struct path_result *r)
{
	struct fake *f = arg;

	f->ndone++;
	for (int i = 0; f->flows_auto && r->group_last && i < f->npaths; i++)
		if (r->target == f->paths[i].target && f->asked[i] < 4)
			r->flows_more = f->more[i][f->asked[i]++];
	if (f->ext != NULL)
		return;
	assert_true(f->nres < MAXPATHS);
	f->res[f->nres] = *r;
	for (int v = 0; v < 4; v++)
		if (r->trace[v] != NULL) {
			f->traces[f->nres][v] = *r->trace[v];
			f->res[f->nres].trace[v] = &f->traces[f->nres][v];
		}
	f->nres++;
}

static const uint8_t key[16] = "scaleprobe-test!";

static struct addr
A(const char *s)
{
	struct addr a;

	assert_int_equal(addr_parse(s, &a), 0);
	return a;
}

static struct fake *
fake_new(int npaths, int v6)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	for (int i = 0; i < npaths; i++) {
		if (v6)
			snprintf(f->names[i], sizeof(f->names[i]), "fd00:5ca1:%x::%x",
			    i / 250, i % 250 + 1);
		else
			snprintf(f->names[i], sizeof(f->names[i]), "198.18.%d.%d",
			    i / 250, i % 250 + 1);
		f->paths[i].target = f->names[i];
		f->paths[i].dst = A(f->names[i]);
		f->paths[i].src = f->paths[i].dst.family == ADDR_V4 ? A("198.18.1.1") :
		    A("fd00:5ca1:1::1");
		f->paths[i].port = 80;
	}
	f->npaths = npaths;
	return f;
}

static struct engine *
engine_traced(struct fake *f, uint32_t rate, int retries, size_t inflight,
    enum probe_trace trace)
{
	struct engine_config c;
	struct engine_ops o;

	memset(&c, 0, sizeof(c));
	c.nvariants = 4;
	c.variant_scale[0] = -1;
	c.variant_scale[1] = 0;
	c.variant_scale[2] = 7;
	c.variant_scale[3] = 14;
	c.rate = rate;
	c.timeout_ns = 1 * SEC;
	c.retries = retries;
	c.port_lo = 60992;
	memcpy(c.key, key, 16);
	c.max_inflight = inflight;
	c.ttl = 64;
	c.trace = trace;
	c.trace_max_ttl = 6;
	c.trace_gap_ns = 1000000;
	c.max_traces = f->max_traces ? f->max_traces : 4;
	c.trace_pace = f->trace_pace;
	c.trace_pace_floor_milli = f->trace_pace_floor_milli;
	c.window_test = f->window_test;
	c.flows = f->flows;
	c.flows_auto = f->flows_auto;
	c.max_windows = f->max_windows ? f->max_windows : 1;
	memset(&o, 0, sizeof(o));
	o.arg = f;
	o.next_path = f_next;
	o.send_syn = f_syn;
	o.send_segment = f_seg;
	o.render_syn = f_render;
	o.drain = f_drain;
	o.capture_drops = f_drops;
	o.capture_failure = f_capture_failure;
	o.done = f_done;
	o.request = f_request;
	if (f->stamps) {
		o.sent_id = f_sent_id;
		o.left_at = f_left_at;
	}
	struct engine *e = engine_new(&c, &o);
	assert_non_null(e);
	return e;
}

static struct engine *
engine_for(struct fake *f, uint32_t rate, int retries, size_t inflight)
{
	return engine_traced(f, rate, retries, inflight, PROBE_TRACE_NEVER);
}

/* The server's answer to the SYN f->syn[i]: SYN-ACK (ws >= 0 adds window
 * scale, -1 leaves it out), or RST. */
static size_t
answer(struct fake *f, int i, uint8_t flags, int ws, uint32_t ack_delta,
    uint8_t *buf, size_t cap)
{
	uint8_t opts[20];
	struct pkt_tcp t;

	memcpy(opts, pkt_linux_synack_opts, sizeof(opts));
	if (ws >= 0)
		opts[19] = (uint8_t)ws;
	else
		memset(opts + 16, 0x01, 4);
	memset(&t, 0, sizeof(t));
	t.src = &f->syn_dst[i];
	t.dst = &f->syn_src[i];
	t.sport = f->syn[i].dport;
	t.dport = f->syn[i].sport;
	t.seq = 0x11223344;
	t.ack = f->syn[i].isn + ack_delta;
	t.flags = flags;
	t.window = 65160;
	if (flags & WIRE_TH_SYN) {
		t.opts = opts;
		t.optlen = sizeof(opts);
	}
	return pkt_build_tcp(buf, cap, &t);
}

/* The ISN the window test's SYN number i should carry: its port's cookie. */
static uint32_t
cookie_isn_for(struct fake *f, int i)
{
	struct cookie_key k;

	cookie_key_init(&k, key);
	return cookie_isn(&k, &f->syn_src[i], &f->syn_dst[i], f->syn[i].sport,
	    f->syn[i].dport, COOKIE_TAG_WINDOW);
}

/* Our SYN number i as it left, for an ICMP error to quote. */
static size_t
our_syn(struct fake *f, int i, uint32_t isn, uint8_t *buf, size_t cap)
{
	struct pkt_tcp t;

	memset(&t, 0, sizeof(t));
	t.src = &f->syn_src[i];
	t.dst = &f->syn_dst[i];
	t.sport = f->syn[i].sport;
	t.dport = f->syn[i].dport;
	t.seq = isn;
	t.flags = WIRE_TH_SYN;
	t.window = 64240;
	return pkt_build_tcp(buf, cap, &t);
}

static void
test_all_answered(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_for(f, 1000, 2, 16);
	struct engine_counters n;
	uint8_t pkt[128];

	(void)state;
	engine_run(e, 1 * SEC);
	assert_int_equal(f->nsyn, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f->syn[i].variant, i);
		assert_int_equal(f->syn[i].sport, 60992 + i);
		assert_int_equal(f->syn[i].dport, 80);
		assert_int_equal(f->syn[i].ttl, 64);
	}
	for (int i = 0; i < 4; i++) {
		size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, i == 0 ? -1 : 7, 1,
		    pkt, sizeof(pkt));
		assert_int_equal(f->nres, 0);
		engine_input(e, 1 * SEC + 3000000, pkt, len);
	}
	/* input records and sends nothing: the RSTs and the result come
	 * from the run it asks for */
	assert_int_equal(f->nres, 0);
	assert_int_equal(f->nseg, 0);
	assert_true(engine_wants_run(e));
	engine_run(e, 1 * SEC + 3000000);
	assert_int_equal(f->nres, 1);
	assert_true(engine_finished(e));
	const struct path_result *r = &f->res[0];
	assert_string_equal(r->target, "198.18.0.1");
	assert_int_equal(r->control.reply, REPLY_SYNACK);
	assert_int_equal(r->control.sa.wscale, -1);
	assert_int_equal(r->nscales, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r->scales[i].reply, REPLY_SYNACK);
		assert_int_equal(r->scales[i].sa.wscale, 7);
		assert_int_equal(r->scales[i].sa.mss, 1460);
		assert_true(r->scales[i].sa.sack);
		assert_true(r->scales[i].sa.ts);
		assert_int_equal(r->scales[i].attempts, 1);
		assert_int_equal(r->scales[i].rtt_us, 3000);
	}
	assert_int_equal(r->scales[1].scale, 7);
	/* one RST per SYN-ACK, in sequence (our ISN + 1) */
	assert_int_equal(f->nseg, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f->seg[i].flags, WIRE_TH_RST);
		assert_int_equal(f->seg[i].seq, f->syn[i].isn + 1);
		assert_int_equal(f->seg[i].sport, f->syn[i].sport);
	}
	assert_int_equal(engine_run(e, 2 * SEC), ENGINE_NEVER);
	assert_true(engine_finished(e));
	engine_counters(e, &n);
	assert_int_equal(n.synacks, 4);
	assert_int_equal(n.rejected, 0);
	engine_free(e);
	free(f);
}

/* --flows auto: a path starts with its first flow only; when its last
 * flow in flight ends, the flows the caller asks for (flows_more) start on
 * the next flows' ports, no more than the plan holds; a path the caller
 * asks nothing more of costs its first flow's SYNs, and each path is done
 * once. */
static void
test_flows_auto(void **state)
{
	struct fake *f = fake_new(2, 0);
	struct engine *e;
	struct engine_counters n;
	int per_flow[4] = { 0 }, order[8], nres0 = 0;
	uint64_t now = 1 * SEC;

	(void)state;
	f->paths[0].port = f->paths[1].port = 81;	/* no window test */
	f->flows = 4;
	f->flows_auto = true;
	f->more[0][0] = 2;	/* path 0: two more after its first ... */
	f->more[0][1] = 5;	/* ... then five: the plan has room for one */
	e = engine_for(f, 1000, 0, 16);
	engine_run(e, now);
	/* the first flow of each path only: 4 SYNs each */
	assert_int_equal(f->nsyn, 8);
	for (int round = 0; round < 10 && !engine_finished(e); round++) {
		for (; f->answered < f->nsyn; f->answered++) {
			uint8_t pkt[256];
			size_t len = answer(f, f->answered, WIRE_TH_SYN | WIRE_TH_ACK,
			    f->syn[f->answered].variant ? 7 : -1, 1, pkt, sizeof(pkt));

			engine_input(e, now, pkt, len);
		}
		now += SEC / 100;
		engine_run(e, now);
	}
	assert_true(engine_finished(e));
	/* path 0: 1 + 2 + 1 flows, path 1: its first */
	assert_int_equal(f->nsyn, 20);
	assert_int_equal(f->nres, 5);
	for (int i = 0; i < f->nsyn; i++) {
		int fl = (f->syn[i].sport - 60992) / 32, v = (f->syn[i].sport - 60992) % 32;

		assert_int_equal(v, f->syn[i].variant);
		assert_true(fl >= 0 && fl < 4);
		if (addr_equal(&f->syn_dst[i], &f->paths[0].dst))
			per_flow[fl]++;
		else
			assert_int_equal(fl, 0);
	}
	for (int fl = 0; fl < 4; fl++)
		assert_int_equal(per_flow[fl], 4);
	for (int i = 0; i < f->nres; i++) {
		const struct path_result *r = &f->res[i];

		assert_int_equal(r->flows, 4);
		if (r->target == f->paths[1].target) {
			assert_int_equal(r->flow, 0);
			assert_true(r->group_last);
			continue;
		}
		order[nres0++] = r->flow;
	}
	/* path 0's flows in the order asked: 0, then 1 and 2, then 3; the
	 * last in flight of each round says so */
	assert_int_equal(nres0, 4);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1] + order[2], 3);
	assert_int_equal(order[3], 3);
	for (int i = 0, k = 0; i < f->nres; i++)
		if (f->res[i].target == f->paths[0].target) {
			assert_int_equal(f->res[i].group_last, k != 1);
			k++;
		}
	assert_int_equal(f->asked[0], 3);
	assert_int_equal(f->asked[1], 1);
	/* each path started and done once, each SYN-ACK its RST, nothing held */
	engine_counters(e, &n);
	const uint64_t got[] = { n.paths_started, n.paths_done, n.rsts_sent, n.mem_now };
	const uint64_t want[] = { 2, 2, 20, 0 };
	for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++)
		assert_int_equal(got[i], want[i]);
	engine_free(e);
	free(f);
}

static void
test_silence_retries(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_for(f, 1000, 2, 16);
	uint64_t next;

	(void)state;
	next = engine_run(e, 10 * SEC);
	assert_int_equal(f->nsyn, 4);
	assert_int_equal(next, 11 * SEC);
	/* nothing due before the deadline */
	engine_run(e, 11 * SEC - 1);
	assert_int_equal(f->nsyn, 4);
	assert_int_equal(f->drains, 0);
	next = engine_run(e, 11 * SEC);
	assert_int_equal(f->drains, 1);	/* capture read before judging silence */
	assert_int_equal(f->nsyn, 8);
	/* a retry repeats the 4-tuple and the ISN: a retransmission */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f->syn[4 + i].isn, f->syn[i].isn);
		assert_int_equal(f->syn[4 + i].sport, f->syn[i].sport);
	}
	assert_int_equal(next, 12 * SEC);
	engine_run(e, 12 * SEC);
	assert_int_equal(f->nsyn, 12);
	assert_int_equal(f->nres, 0);
	assert_int_equal(engine_run(e, 13 * SEC), ENGINE_NEVER);
	assert_int_equal(f->nsyn, 12);
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->res[0].control.reply, REPLY_NONE);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(f->res[0].scales[i].reply, REPLY_NONE);
		assert_int_equal(f->res[0].scales[i].attempts, 3);
	}
	engine_free(e);
	free(f);
}

static void
test_forged_and_icmp(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_for(f, 1000, 0, 16);
	struct engine_counters n;
	uint8_t pkt[256], q[128];
	struct addr router = A("198.18.5.2");
	size_t len, qlen;

	(void)state;
	engine_run(e, 1 * SEC);
	assert_int_equal(f->nsyn, 4);

	/* a SYN-ACK acknowledging a number we never sent */
	len = answer(f, 1, WIRE_TH_SYN | WIRE_TH_ACK, 7, 2, pkt, sizeof(pkt));
	engine_input(e, 1 * SEC + 1000, pkt, len);
	len = answer(f, 1, WIRE_TH_SYN | WIRE_TH_ACK, 7, 0x80000001u, pkt, sizeof(pkt));
	engine_input(e, 1 * SEC + 1000, pkt, len);
	/* an ICMP error quoting a SYN of ours with the wrong ISN */
	qlen = our_syn(f, 2, f->syn[2].isn ^ 0x40000000u, q, sizeof(q));
	len = pkt_build_icmp(pkt, sizeof(pkt), &router, &f->syn_src[2], 3, 13, q, qlen, 0);
	engine_input(e, 1 * SEC + 2000, pkt, len);
	/* the same SYN-ACK cut inside its TCP header, and with its data
	 * offset lying (4): refused for that, nothing sent */
	len = answer(f, 1, WIRE_TH_SYN | WIRE_TH_ACK, 7, 2, pkt, sizeof(pkt));
	engine_input(e, 1 * SEC + 3000, pkt, 30);
	pkt[20 + 12] = 4 << 4;
	engine_input(e, 1 * SEC + 3000, pkt, len);
	/* a port unreachable quoting a UDP datagram from our port, its
	 * checksum spoiled: not ours whatever its checksum, ignored */
	qlen = our_syn(f, 2, f->syn[2].isn, q, sizeof(q));
	q[9] = 17;				/* UDP */
	wire_put16(q + 10, 0);
	wire_put16(q + 10, wire_csum(q, 20));
	len = pkt_build_icmp(pkt, sizeof(pkt), &router, &f->syn_src[2], 3, 3, q, qlen, 0);
	pkt[20 + 2] ^= 0x40;
	engine_input(e, 1 * SEC + 4000, pkt, len);
	engine_counters(e, &n);
	assert_int_equal(n.rejected, 5);
	assert_int_equal(n.rejects[REPLY_REJECT_FLOW], 2);
	assert_int_equal(n.rejects[REPLY_REJECT_QUOTE], 1);
	assert_int_equal(n.rejects[REPLY_REJECT_TRUNCATED], 1);
	assert_int_equal(n.rejects[REPLY_REJECT_HEADER], 1);
	assert_int_equal(n.rejects[REPLY_REJECT_CHECKSUM], 0);
	assert_int_equal(n.ignored, 1);
	assert_int_equal(f->nseg, 0);	/* forged SYN-ACKs are not answered */

	/* a real admin-prohibited for every variant, RFC 792 8-byte quotes */
	for (int i = 0; i < 4; i++) {
		qlen = our_syn(f, i, f->syn[i].isn, q, sizeof(q));
		len = pkt_build_icmp(pkt, sizeof(pkt), &router, &f->syn_src[i], 3, 13,
		    q, qlen, 20 + 8);
		engine_input(e, 1 * SEC + 5000, pkt, len);
	}
	engine_run(e, 1 * SEC + 5000);
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->res[0].control.reply, REPLY_ICMP_UNREACH);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(f->res[0].scales[i].reply, REPLY_ICMP_UNREACH);
		assert_int_equal(f->res[0].scales[i].icmp_type, 3);
		assert_int_equal(f->res[0].scales[i].icmp_code, 13);
		assert_true(addr_equal(&f->res[0].scales[i].icmp_from, &router));
	}
	engine_counters(e, &n);
	assert_int_equal(n.icmp_errors, 4);
	assert_int_equal(n.rejected, 5);
	engine_free(e);
	free(f);
}

static void
test_rst_and_late(void **state)
{
	struct fake *f = fake_new(1, 1);
	struct engine *e = engine_for(f, 1000, 0, 16);
	struct engine_counters n;
	uint8_t pkt[128];
	size_t len;

	(void)state;
	engine_run(e, 1 * SEC);
	assert_int_equal(f->nsyn, 4);
	assert_int_equal(f->syn_dst[0].family, ADDR_V6);
	for (int i = 0; i < 4; i++) {
		len = answer(f, i, WIRE_TH_RST | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
		engine_input(e, 1 * SEC + 100, pkt, len);
	}
	engine_run(e, 1 * SEC + 100);
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->res[0].control.reply, REPLY_RST);
	assert_int_equal(f->res[0].scales[2].reply, REPLY_RST);
	assert_int_equal(f->nseg, 0);	/* a RST needs no RST */

	/* a SYN-ACK after the path finished: valid, late, still reset */
	len = answer(f, 3, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
	engine_input(e, 1 * SEC + 200, pkt, len);
	engine_run(e, 1 * SEC + 200);
	engine_counters(e, &n);
	assert_int_equal(n.late, 1);
	assert_int_equal(n.rejected, 0);
	assert_int_equal(f->nseg, 1);
	assert_int_equal(f->nres, 1);
	engine_free(e);
	free(f);
}

static void
test_syn_dropped_mixed(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_for(f, 1000, 1, 16);
	uint8_t pkt[128];
	size_t len;

	(void)state;
	engine_run(e, 1 * SEC);
	/* only the control is answered; the WS SYNs vanish (drop-ws box) */
	len = answer(f, 0, WIRE_TH_SYN | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
	engine_input(e, 1 * SEC + 100, pkt, len);
	/* a duplicate answer of another kind marks the variant mixed */
	len = answer(f, 0, WIRE_TH_RST | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
	engine_input(e, 1 * SEC + 200, pkt, len);
	engine_run(e, 2 * SEC);
	/* only the three silent variants are retried */
	assert_int_equal(f->nsyn, 7);
	for (int i = 4; i < 7; i++)
		assert_int_not_equal(f->syn[i].variant, 0);
	engine_run(e, 3 * SEC);
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->res[0].control.reply, REPLY_SYNACK);
	assert_true(f->res[0].control.mixed);
	assert_int_equal(f->res[0].scales[0].reply, REPLY_NONE);
	assert_int_equal(f->res[0].scales[0].attempts, 2);
	engine_free(e);
	free(f);
}

/* --rate 10 is a ceiling over every second: in no second, counted in any
 * 1 ms phase, do more than 10 SYNs leave; and the run keeps up the pace
 * (the bucket refills at rate - depth, so no less than 9 a second). */
static void
test_rate_limit(void **state)
{
	enum { MS = 11000 };
	struct fake *f = fake_new(200, 0);
	struct engine *e = engine_for(f, 10, 0, 256);
	int per_ms[MS], max = 0, sum = 0;

	(void)state;
	for (int t = 0; t < MS; t++) {
		int before = f->nsyn;

		engine_run(e, 100 * SEC + (uint64_t)t * 1000000);
		per_ms[t] = f->nsyn - before;
	}
	for (int t = 0; t < MS; t++) {
		sum += per_ms[t];
		if (t >= 1000)
			sum -= per_ms[t - 1000];
		if (sum > max)
			max = sum;
	}
	assert_true(max >= 9 && max <= 10);
	assert_true(f->nsyn >= 9 * 11 && f->nsyn <= 10 * 11);
	engine_free(e);
	free(f);
}

static void
test_inflight_bound(void **state)
{
	struct fake *f = fake_new(100, 0);
	struct engine *e = engine_for(f, 100000, 0, 5);
	uint64_t now = 1 * SEC, next;
	int rounds = 0;

	(void)state;
	while (!engine_finished(e) && rounds++ < 1000) {
		next = engine_run(e, now);
		assert_true(engine_inflight(e) <= 5);
		if (next == ENGINE_NEVER)
			break;
		now = next > now ? next : now + 1;
	}
	assert_true(engine_finished(e));
	assert_int_equal(f->nres, 100);
	assert_int_equal(f->nsyn, 400);
	/* every path finished once, each with its own target */
	for (int i = 0; i < 100; i++)
		assert_string_equal(f->res[i].target, f->names[i]);
	engine_free(e);
	free(f);
}

static void
test_capture_drops_charged(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_for(f, 1000, 0, 16);

	(void)state;
	f->drops = 5;
	engine_run(e, 1 * SEC);
	f->drops = 12;
	engine_run(e, 2 * SEC);
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->res[0].capture_drops, 7);
	engine_free(e);
	free(f);
}


static void
test_trace_ladder(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_traced(f, 100000, 1, 16, PROBE_TRACE_ALWAYS);
	struct engine_counters n;
	uint8_t pkt[256], q[128];
	struct addr hop[3];
	uint64_t now = 1 * SEC;
	int traced = 0, dest_seen = 0;

	(void)state;
	hop[1] = A("198.18.1.2");
	hop[2] = A("198.18.2.2");

	engine_run(e, now);
	assert_int_equal(f->nsyn, 4);
	for (int i = 0; i < 4; i++) {
		size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, i ? 7 : -1, 1,
		    pkt, sizeof(pkt));
		engine_input(e, now + 1000, pkt, len);
	}
	/* the handshake is done, the trace has begun: no result yet */
	assert_int_equal(f->nres, 0);

	/* play the network: hops 1 and 2 quote every SYN in full, the
	 * destination answers TTL 3 */
	int seen = f->nsyn;
	for (int step = 0; step < 3000 && f->nres == 0; step++) {
		now += 1000000;
		engine_run(e, now);
		for (; seen < f->nsyn; seen++) {
			int ttl = f->syn[seen].ttl;
			size_t ql, len;

			assert_true(ttl >= 1 && ttl <= 6);
			/* the TTL rides in the ISN's low bits; the flow label
			 * stays the handshake's */
			assert_int_equal(f->syn[seen].isn & 31, ttl);
			assert_int_equal(f->syn[seen].flow_label,
			    f->syn[f->syn[seen].variant].flow_label);
			assert_int_equal(f->syn[seen].sport, f->syn[f->syn[seen].variant].sport);
			traced++;
			if (ttl < 3) {
				ql = f_render(f, &f->syn[seen], q, sizeof(q));
				q[f->syn[seen].dst->family == ADDR_V4 ? 8 : 7] = 1;
				len = pkt_build_icmp(pkt, sizeof(pkt), &hop[ttl],
				    &f->syn_src[seen], 11, 0, q, ql, 0);
			} else {
				len = answer(f, seen, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
				    pkt, sizeof(pkt));
				dest_seen++;
			}
			engine_input(e, now + 500, pkt, len);
		}
	}
	assert_int_equal(f->nres, 1);
	/* TTLs 1..3 for 4 variants; nothing beyond the destination, no
	 * retry: every hop below it answered */
	assert_int_equal(traced, 12);
	assert_int_equal(dest_seen, 4);
	const struct path_result *r = &f->res[0];
	for (int v = 0; v < 4; v++) {
		const struct trace_obs *t = r->trace[v];
		assert_non_null(t);
		assert_true(t->ran);
		assert_int_equal(t->dest_ttl, 3);
		for (int k = 1; k <= 2; k++) {
			assert_int_equal(t->hop[k].quote, QUOTE_FULL);
			assert_true(addr_equal(&t->hop[k].from, &hop[k]));
			assert_int_equal(t->hop[k].ws, v == 0 ? WS_NOT_SENT : WS_INTACT);
			assert_int_equal(t->hop[k].rtt_us, 0);
		}
	}
	/* handshake observations untouched by the trace's SYN-ACKs */
	assert_int_equal(r->scales[1].sa.wscale, 7);
	assert_int_equal(r->scales[1].attempts, 1);
	engine_counters(e, &n);
	assert_int_equal(n.paths_traced, 1);
	assert_int_equal(n.trace_hops, 8);
	assert_int_equal(n.trace_dest, 4);
	assert_int_equal(n.rejected, 0);
	engine_free(e);
	free(f);
}

/* A handshake reply arriving after the path moved on to its trace is a
 * straggler: counted late, the trace not started again, one result.  (On
 * 9816a23 it re-ran the hand-over: a second trace, a leak, a count that
 * never came down.) */
static void
test_late_reply_after_handshake(void **state)
{
	struct fake *f = fake_new(1, 0);
	struct engine *e = engine_traced(f, 100000, 0, 16, PROBE_TRACE_ALWAYS);
	struct engine_counters n;
	uint8_t pkt[128];
	uint64_t now = 1 * SEC;
	size_t len;

	(void)state;
	engine_run(e, now);
	assert_int_equal(f->nsyn, 4);
	for (int i = 1; i < 4; i++) {
		len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
		engine_input(e, now + 100, pkt, len);
	}
	/* the control stays silent: at its deadline the handshake is over
	 * and the trace begins */
	now += 1 * SEC;
	engine_run(e, now);
	assert_int_equal(f->nres, 0);
	engine_counters(e, &n);
	assert_int_equal(n.paths_traced, 1);
	len = answer(f, 0, WIRE_TH_SYN | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
	engine_input(e, now + 1000, pkt, len);
	engine_counters(e, &n);
	assert_int_equal(n.late, 1);
	for (int step = 0; step < 5000 && !engine_finished(e); step++) {
		now += 1000000;
		engine_run(e, now);
	}
	assert_true(engine_finished(e));
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->res[0].control.reply, REPLY_NONE);
	engine_counters(e, &n);
	assert_int_equal(n.paths_traced, 1);
	assert_int_equal(n.paths_done, 1);
	engine_free(e);
	free(f);
}

/* 1,100 paths on a port with nothing to window-test behind one that has a
 * test whose server never answers: they take no window-test slot and
 * finish while it runs; every path gets its result.  (On 9816a23 they
 * queued behind it and were started recursively when it ended, 8.5 KiB of
 * stack each: a crash.) */
static void
test_window_queue(void **state)
{
	enum { N = 1101 };
	struct fake *f = calloc(1, sizeof(*f));
	struct engine_path *paths = calloc(N, sizeof(*paths));
	char (*names)[32] = calloc(N, 32);
	struct engine_counters n;
	struct engine *e;
	uint8_t pkt[128];
	uint64_t now = 1 * SEC;
	int done_while_testing = -1;

	(void)state;
	assert_non_null(f);
	assert_non_null(paths);
	assert_non_null(names);
	f->window_test = true;
	e = engine_traced(f, 100000, 0, N, PROBE_TRACE_NEVER);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], 32, "198.18.%d.%d", 10 + i / 250, i % 250 + 1);
		paths[i].target = names[i];
		paths[i].dst = A(names[i]);
		paths[i].src = A("198.18.1.1");
		paths[i].port = i == 0 ? 80 : 22;
	}
	f->ext = paths;
	f->n_ext = N;
	for (int round = 0; round < 20000 && !engine_finished(e); round++) {
		engine_run(e, now);
		/* answer every handshake SYN at once; the window test's SYNs
		 * never (its server is gone) */
		for (int i = 0; i < f->nsyn; i++) {
			if ((f->syn[i].isn & COOKIE_TAG_MASK) != COOKIE_TAG_HANDSHAKE)
				continue;
			size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
			    pkt, sizeof(pkt));
			engine_input(e, now + 10, pkt, len);
		}
		f->nsyn = 0;
		f->nseg = 0;
		engine_counters(e, &n);
		if (done_while_testing < 0 && n.paths_done == N - 1)
			done_while_testing = round;
		now += 10000000;
	}
	engine_counters(e, &n);
	assert_int_equal(f->next_ext, N);
	assert_int_equal(f->ndone, N);
	assert_int_equal(engine_inflight(e), 0);
	assert_true(engine_finished(e));
	/* only the port-80 path entered the stage, and the others were done
	 * long before its test gave up on a SYN-ACK (3 s: 300 rounds) */
	assert_int_equal(n.paths_windowed, 1);
	assert_true(done_while_testing >= 0 && done_while_testing < 100);
	/* the engine's count of its bytes went up with the paths and is
	 * back to nothing with the last one */
	assert_true(n.mem_peak > 0 && n.mem_peak_paths > 0);
	assert_int_equal(n.mem_now, 0);
	engine_free(e);
	free(names);
	free(paths);
	free(f);
}

/* A window test's timer that is due may end a round on the silence it
 * saw: the capture is read first (a loop that was off the CPU longer than
 * the quiet time has the flight's last segments in the ring), and only
 * then, not on every run. */
static void
test_window_timer_drains(void **state)
{
	uint64_t now = 1 * SEC;
	int hs, drains;
	struct fake *f = fake_new(1, 0);
	struct engine *e;
	uint8_t pkt[128];

	(void)state;
	f->window_test = true;
	e = engine_for(f, 100000, 0, 16);
	engine_run(e, now);
	hs = f->nsyn;
	assert_int_equal(hs, 4);
	for (int i = 0; i < hs; i++) {
		size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));

		engine_input(e, now + 10, pkt, len);
	}
	engine_run(e, now + 20);
	assert_int_equal(f->nsyn, hs + 3);	/* a window test's SYN per scale */
	drains = f->drains;
	engine_run(e, now + 20 + SEC / 2);	/* its SYN-ACKs not yet late */
	assert_int_equal(f->drains, drains);
	assert_int_equal(f->nsyn, hs + 3);
	engine_run(e, now + 20 + SEC);		/* now they are: read, then retry */
	assert_int_equal(f->drains, drains + 1);
	assert_int_equal(f->nsyn, hs + 6);
	engine_free(e);
	free(f);
}

/* Paths that wait for a stage hold their slots: while the window stage
 * has as many waiting as it runs, no new path starts its handshake, so
 * the paths in flight follow the stages' room, not the list's length
 * (before: all 2,000 admitted, 1,999 of them waiting for one test). */
static void
test_waiting_bounded(void **state)
{
	enum { N = 2000 };
	struct fake *f = calloc(1, sizeof(*f));
	struct engine_path *paths = calloc(N, sizeof(*paths));
	char (*names)[32] = calloc(N, 32);
	struct engine_counters n;
	struct engine *e;
	uint8_t pkt[128];
	uint64_t now = 1 * SEC;

	(void)state;
	assert_non_null(f);
	assert_non_null(paths);
	assert_non_null(names);
	f->window_test = true;
	f->max_windows = 2;
	e = engine_traced(f, 100000, 0, N, PROBE_TRACE_NEVER);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], 32, "198.18.%d.%d", 10 + i / 250, i % 250 + 1);
		paths[i].target = names[i];
		paths[i].dst = A(names[i]);
		paths[i].src = A("198.18.1.1");
		paths[i].port = 80;
	}
	f->ext = paths;
	f->n_ext = N;
	for (int round = 0; round < 1000; round++) {
		engine_run(e, now);
		for (int i = 0; i < f->nsyn; i++) {
			if ((f->syn[i].isn & COOKIE_TAG_MASK) != COOKIE_TAG_HANDSHAKE)
				continue;
			size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
			    pkt, sizeof(pkt));
			engine_input(e, now + 10, pkt, len);
		}
		f->nsyn = 0;
		f->nseg = 0;
		now += 10000000;
	}
	engine_counters(e, &n);
	/* the first run admits what its tokens pay for (1,000: 250 paths);
	 * after that only as tests end */
	assert_true(n.inflight_peak <= 260);
	assert_true(n.paths_windowed >= 4);
	assert_true(n.mem_now > 0);
	engine_free(e);
	free(names);
	free(paths);
	free(f);
}

/* Every packet -- handshake SYNs, the RSTs owed to SYN-ACKs, the window
 * test's SYNs and segments -- is paid from the one bucket: over any second
 * of the run no more than rate packets leave, and still every test runs
 * to its end.  (On 9816a23 RSTs and window segments bypassed
 * --rate.) */
static void
test_every_packet_charged(void **state)
{
	enum { N = 40, RATE = 20, MS = 400000 };
	struct fake *f = fake_new(N, 0);
	struct engine *e;
	struct engine_counters n;
	uint16_t *per_ms = calloc(MS, sizeof(*per_ms));
	uint8_t pkt[128];
	uint64_t t0 = 1 * SEC;
	int seen = 0, windows = 0, max = 0, sum = 0;

	(void)state;
	assert_non_null(per_ms);
	f->window_test = true;
	f->max_windows = 8;
	e = engine_traced(f, RATE, 0, 8, PROBE_TRACE_NEVER);
	for (int ms = 0; ms < MS && !engine_finished(e); ms++) {
		uint64_t now = t0 + (uint64_t)ms * 1000000;
		int before = f->nsyn + f->nseg;

		engine_run(e, now);
		/* the server answers every SYN, the handshake's and the window
		 * test's, with a SYN-ACK; it never sends the answer's data */
		for (; seen < f->nsyn; seen++) {
			size_t len = answer(f, seen, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
			    pkt, sizeof(pkt));
			if ((f->syn[seen].isn & COOKIE_TAG_MASK) == COOKIE_TAG_WINDOW)
				windows++;
			engine_input(e, now + 100000, pkt, len);
		}
		per_ms[ms] = (uint16_t)(f->nsyn + f->nseg - before);
	}
	assert_true(engine_finished(e));
	/* the busiest second, sliding in 1 ms steps */
	for (int ms = 0; ms < MS; ms++) {
		sum += per_ms[ms];
		if (ms >= 1000)
			sum -= per_ms[ms - 1000];
		if (sum > max)
			max = sum;
	}
	engine_counters(e, &n);
	print_message("# %d packets, the busiest second held %d (rate %d)\n",
	    f->nsyn + f->nseg, max, RATE);
	assert_true(max <= RATE);
	assert_int_equal(f->ndone, N);
	/* every kind went through the bucket: 4 SYNs and 4 RSTs per path,
	 * three window tests each with their SYN, ACK, request and RST */
	assert_int_equal(n.syns_sent, 4 * N);
	assert_int_equal(n.rsts_sent, 4 * N);
	assert_int_equal(windows, 3 * N);
	assert_int_equal(n.paths_windowed, N);
	assert_true(n.window_sent >= 3 * N * 4);
	assert_int_equal(f->nsyn + f->nseg, (int)(n.syns_sent + n.rsts_sent + n.window_sent));
	engine_free(e);
	free(per_ms);
	free(f);
}

/* A path that waits for the window stage's share of the rate (not for
 * tokens) asks for no wake-up of its own: the loop sleeps until a timer of
 * the running test, never spinning at once-a-microsecond. */
static void
test_waiting_does_not_spin(void **state)
{
	struct fake *f = fake_new(2, 0);
	struct engine *e;
	uint8_t pkt[128];
	uint64_t now = 1 * SEC, next;
	int runs = 0;

	(void)state;
	f->window_test = true;
	f->max_windows = 4;
	e = engine_traced(f, 100, 0, 16, PROBE_TRACE_NEVER);
	/* both handshakes answered; the window test's SYNs never are */
	for (int step = 0; step < 200 && f->nsyn < 8; step++) {
		engine_run(e, now);
		now += 10000000;
	}
	assert_int_equal(f->nsyn, 8);
	for (int i = 0; i < 8; i++) {
		size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
		engine_input(e, now, pkt, len);
	}
	/* at --rate 100 one test (3 connections) is all the rate allows */
	while (!engine_finished(e) && runs < 1000) {
		next = engine_run(e, now);
		runs++;
		if (next == ENGINE_NEVER)
			break;
		assert_true(next > now);
		now = next;
	}
	assert_true(engine_finished(e));
	assert_int_equal(f->ndone, 2);
	/* two tests of about 3 s each (a SYN and two retries), walked through
	 * in a few hundred wake-ups at most: one per token or timer */
	print_message("# %d runs\n", runs);
	assert_true(runs < 400);
	engine_free(e);
	free(f);
}

/* --- trace auto, as a table ------------------------------------------------
 * Which paths --trace auto follows.  With no window test to vouch for the
 * shift, any path a SYN-ACK answered is traced (its options may have been
 * touched on the way); a path nothing answered, or only RSTs and
 * unreachables, has no option of ours to follow. */
enum ans { A_SILENT, A_SA_WS, A_SA_NOWS, A_RST, A_UNREACH };

static const struct trace_auto_row {
	const char *what;
	enum ans control, scaled;	/* variant 0; variants 1..3 */
	uint16_t port;			/* 80 has a window request, 8080 none */
	bool window_test;
	bool traced;
} trace_auto_rows[] = {
	{ "all answered with window scale", A_SA_WS, A_SA_WS, 80, false, true },
	{ "window scale stripped", A_SA_NOWS, A_SA_NOWS, 80, false, true },
	{ "only the control answered (SYNs with the option dropped)", A_SA_NOWS, A_SILENT, 80, false, true },
	{ "all silent", A_SILENT, A_SILENT, 80, false, false },
	{ "all reset", A_RST, A_RST, 80, false, false },
	{ "all unreachable", A_UNREACH, A_UNREACH, 80, false, false },
	{ "control reset, scaled silent", A_RST, A_SILENT, 80, false, false },
	{ "window test on, but no request for the port", A_SA_WS, A_SA_WS, 8080, true, true },
	{ "window test on, all silent", A_SILENT, A_SILENT, 80, true, false },
};

static void
play(struct fake *f, struct engine *e, int i, enum ans a, uint64_t now)
{
	uint8_t pkt[256], q[128];
	struct addr router = A("198.18.5.2");
	size_t len = 0, qlen;

	switch (a) {
	case A_SILENT:
		return;
	case A_SA_WS:
		len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
		break;
	case A_SA_NOWS:
		len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
		break;
	case A_RST:
		len = answer(f, i, WIRE_TH_RST | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
		break;
	case A_UNREACH:
		qlen = our_syn(f, i, f->syn[i].isn, q, sizeof(q));
		len = pkt_build_icmp(pkt, sizeof(pkt), &router, &f->syn_src[i], 3, 13,
		    q, qlen, 0);
		break;
	}
	assert_true(len > 0);
	engine_input(e, now, pkt, len);
}

static void
test_trace_auto_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(trace_auto_rows) / sizeof(trace_auto_rows[0]); k++) {
		const struct trace_auto_row *row = &trace_auto_rows[k];
		struct fake *f = fake_new(1, 0);
		struct engine_counters n;
		struct engine *e;
		uint64_t now = 1 * SEC;
		int traced_syns = 0;

		f->paths[0].port = row->port;
		f->window_test = row->window_test;
		e = engine_traced(f, 100000, 0, 16, PROBE_TRACE_AUTO);
		engine_run(e, now);
		assert_int_equal(f->nsyn, 4);
		for (int i = 0; i < 4; i++)
			play(f, e, i, i == 0 ? row->control : row->scaled, now + 1000);
		/* then silence: the trace (if any) runs out, the path ends */
		for (int step = 0; step < 100000 && f->nres == 0; step++) {
			now += 1000000;
			engine_run(e, now);
		}
		for (int i = 4; i < f->nsyn; i++)
			if (f->syn[i].ttl < 64)
				traced_syns++;
		engine_counters(e, &n);
		print_message("trace auto: %s: %s (%d trace SYNs)\n", row->what,
		    n.paths_traced ? "traced" : "not traced", traced_syns);
		assert_int_equal(f->nres, 1);
		assert_int_equal(n.paths_traced, row->traced ? 1 : 0);
		assert_int_equal(traced_syns > 0, row->traced);
		engine_free(e);
		free(f);
	}
}

/* --- ICMP quotes rewritten by a NAT, as a table ----------------------------
 * A NAT between us and the router translates the quoted SYN back (RFC
 * 5508 4.3 asks it to) -- or does not: the quote then carries the NAT's
 * public source and perhaps another port.  What a NAT keeps (destination,
 * port, sequence number) still finds the path; a quote that matches no SYN
 * of ours by its ISN is forged. */
static const struct nat_row {
	const char *what;
	const char *quoted_src;	/* NULL: our own source */
	int sport_delta;	/* added to our source port in the quote */
	uint32_t isn_xor;	/* flips bits of the quoted ISN */
	const char *quoted_dst;	/* NULL: the path's destination */
	bool matched;		/* counted as an ICMP error of the path */
	bool rejected;		/* counted as forged */
} nat_rows[] = {
	{ "untranslated quote", NULL, 0, 0, NULL, true, false },
	{ "source address translated", "198.18.200.1", 0, 0, NULL, true, false },
	{ "source address and port translated", "198.18.200.1", 4000, 0, NULL, true, false },
	{ "source port translated only", NULL, 4000, 0, NULL, true, false },
	{ "translated, but the ISN is not ours", "198.18.200.1", 0, 0x40000000u, NULL, false, true },
	{ "translated, port too, ISN not ours", "198.18.200.1", 4000, 0x40000000u, NULL, false, false },
	{ "translated, to a destination we never probed", "198.18.200.1", 0, 0, "198.18.77.7", false, true },
};

static void
test_nat_quotes_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(nat_rows) / sizeof(nat_rows[0]); k++) {
		const struct nat_row *row = &nat_rows[k];
		struct fake *f = fake_new(1, 0);
		struct engine *e = engine_for(f, 1000, 0, 16);
		struct engine_counters n;
		struct addr router = A("198.18.5.2"), qsrc, qdst;
		uint8_t pkt[256], q[128];
		struct pkt_tcp t;
		size_t len, qlen;

		engine_run(e, 1 * SEC);
		assert_int_equal(f->nsyn, 4);
		qsrc = row->quoted_src ? A(row->quoted_src) : f->syn_src[2];
		qdst = row->quoted_dst ? A(row->quoted_dst) : f->syn_dst[2];
		memset(&t, 0, sizeof(t));
		t.src = &qsrc;
		t.dst = &qdst;
		t.sport = (uint16_t)(f->syn[2].sport + row->sport_delta);
		t.dport = f->syn[2].dport;
		t.seq = f->syn[2].isn ^ row->isn_xor;
		t.flags = WIRE_TH_SYN;
		t.window = 64240;
		qlen = pkt_build_tcp(q, sizeof(q), &t);
		len = pkt_build_icmp(pkt, sizeof(pkt), &router, &f->syn_src[2], 3, 13,
		    q, qlen, 0);
		engine_input(e, 1 * SEC + 1000, pkt, len);
		engine_counters(e, &n);
		print_message("nat quote: %s: %llu matched, %llu rejected, %llu ignored\n",
		    row->what, (unsigned long long)n.icmp_errors,
		    (unsigned long long)n.rejected, (unsigned long long)n.ignored);
		assert_int_equal(n.icmp_errors, row->matched ? 1 : 0);
		assert_int_equal(n.rejected, row->rejected ? 1 : 0);
		if (row->matched) {
			/* the other variants silent: the path ends with variant
			 * 2 unreachable from the router, nothing else */
			uint64_t now = 1 * SEC;

			for (int step = 0; step < 100 && f->nres == 0; step++)
				engine_run(e, now += SEC);
			assert_int_equal(f->nres, 1);
			assert_int_equal(f->res[0].scales[1].reply, REPLY_ICMP_UNREACH);
			assert_true(addr_equal(&f->res[0].scales[1].icmp_from, &router));
			assert_int_equal(f->res[0].scales[0].reply, REPLY_NONE);
			assert_int_equal(f->res[0].scales[2].reply, REPLY_NONE);
		}
		engine_free(e);
		free(f);
	}
}

/* A capture that failed while the path was probed: the engine asks about
 * the path's own capture and hands the reason on with the result, so the
 * verdict can say why silence means nothing. */
static void
test_capture_failure_reported(void **state)
{
	struct fake *f = fake_new(2, 0);
	struct engine *e = engine_for(f, 1000, 0, 1);	/* one path at a time */
	uint64_t now = 1 * SEC;

	(void)state;
	f->paths[0].capture = 0;
	f->paths[1].capture = 1;
	engine_run(e, now);
	/* path 0 ends while its capture is fine */
	for (int step = 0; step < 100 && f->nres == 0; step++)
		engine_run(e, now += SEC / 10);
	f->capture_failed = "east: The interface disappeared";
	for (int step = 0; step < 100 && f->nres < 2; step++)
		engine_run(e, now += SEC / 10);
	assert_int_equal(f->nres, 2);
	assert_string_equal(f->res[0].capture_error, "");
	assert_string_equal(f->res[1].capture_error, "east: The interface disappeared");
	assert_int_equal(f->capture_asked, 1);
	engine_free(e);
	free(f);
}

/* A burst larger than the capture ring holds replies: the engine reads the
 * capture every ENGINE_DRAIN_EVERY packets within one run (on 6790304 a
 * run at --rate 10000000 sent 100,000 SYNs before reading a reply, and
 * the ring dropped four in five).  The replies a drain delivers in the
 * middle of admission end their paths cleanly. */
static void
test_burst_reads_capture(void **state)
{
	struct fake *f = fake_new(200, 0);
	struct engine_counters n;
	struct engine *e;

	(void)state;
	f->drain_answers = true;
	e = engine_for(f, 10000000, 0, 1000);
	f->eng = e;
	engine_run(e, 1 * SEC);
	assert_int_equal(f->nsyn, 800);
	/* read within the run, once per ENGINE_DRAIN_EVERY packets sent */
	assert_int_equal(f->drains, 800 / ENGINE_DRAIN_EVERY);
	/* and the RSTs the replies drew left then, not after the burst
	 * (before: all of them owed until the run's end) */
	assert_true(f->rsts_in_burst > 0);
	f_drain(f);
	engine_run(e, 1 * SEC + 1000);
	engine_counters(e, &n);
	print_message("# %d SYNs, %d drains, %llu SYN-ACKs matched, %d results\n",
	    f->nsyn, f->drains, (unsigned long long)n.synacks, f->nres);
	assert_int_equal(n.synacks, 800);
	assert_int_equal(n.rejected + n.late, 0);
	assert_int_equal(f->nres, 200);
	for (int i = 0; i < f->nres; i++)
		assert_int_equal(f->res[i].scales[1].reply, REPLY_SYNACK);
	engine_free(e);
	free(f);
}

/* A data segment of len bytes at offset off of the window test's answer
 * (IPv6: no header checksum to fix), as a capture cut to the headers
 * sees it: the payload length is what the IP header claims. */
static size_t
window_data(struct fake *f, int i, uint32_t irs, uint32_t off, uint32_t len,
    uint8_t flags, uint8_t *buf, size_t cap)
{
	struct pkt_tcp t;
	size_t n;

	memset(&t, 0, sizeof(t));
	t.src = &f->syn_dst[i];
	t.dst = &f->syn_src[i];
	t.sport = f->syn[i].dport;
	t.dport = f->syn[i].sport;
	t.seq = irs + 1 + off;
	t.ack = f->syn[i].isn + 1 + 16;		/* the whole request (f_request) */
	t.flags = flags;
	t.window = 509;
	n = pkt_build_tcp(buf, cap, &t);
	assert_int_equal(buf[0] >> 4, 6);
	wire_put16(buf + 4, (uint16_t)(20 + len));
	return n;
}

/* A flight proving more than the shift sent, then a FIN: the window test
 * measures again on a second connection, on the first's 4-tuple and ISN
 * (the flow's branch: nothing leaves from port_lo + 32 + v, the slot kept
 * for a SYN proxy); its SYN-ACK, a new connection's and no copy, gets the
 * ACK (W = 1) and the request from there too.  Its server then says
 * nothing: the first connection's bound stands. */
static void
test_window_second_port(void **state)
{
	struct fake *f = fake_new(1, 1);
	struct engine *e;
	uint8_t pkt[256];
	uint64_t now = 1 * SEC;
	int seen = 0, first = -1, second = -1, data_sent = 0;
	bool acked2 = false;
	struct engine_counters n;
	const uint32_t irs = 0x11223344;

	(void)state;
	f->window_test = true;
	e = engine_traced(f, 100000, 0, 16, PROBE_TRACE_NEVER);
	for (int ms = 0; ms < 40000 && !engine_finished(e); ms++, now += 1000000) {
		engine_run(e, now);
		for (; seen < f->nsyn; seen++) {
			bool window = (f->syn[seen].isn & COOKIE_TAG_MASK) == COOKIE_TAG_WINDOW;

			/* the handshake's SYNs all answered, the window test's
			 * only for scale 0 (variant 1) */
			if (window && f->syn[seen].variant != 1)
				continue;
			assert_int_not_equal(f->syn[seen].sport, 60993 + ENGINE_SECOND_PORTS);
			if (window && f->syn[seen].sport == 60993 && first < 0)
				first = seen;
			else if (window && f->syn[seen].sport == 60993 && data_sent)
				second = seen;
			size_t len = answer(f, seen, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
			    pkt, sizeof(pkt));
			engine_input(e, now + 100000, pkt, len);
		}
		/* the first connection's request is in: 20,000 bytes (more
		 * than W = 8192 allows at shift 0), then a FIN */
		if (first >= 0 && !data_sent)
			for (int i = 0; i < f->nseg; i++)
				if (f->seg[i].sport == 60993 && f->seg[i].payload_len > 0) {
					size_t len = window_data(f, first, irs, 0, 20000,
					    WIRE_TH_ACK, pkt, sizeof(pkt));

					engine_input(e, now + 200000, pkt, len);
					len = window_data(f, first, irs, 20000, 0,
					    WIRE_TH_ACK | WIRE_TH_FIN, pkt, sizeof(pkt));
					engine_input(e, now + 200000, pkt, len);
					data_sent = 1;
					break;
				}
		for (int i = 0; second >= 0 && i < f->nseg; i++)
			if (f->seg[i].sport == 60993 &&
			    f->seg[i].ack == irs + 1 && f->seg[i].window == 1)
				acked2 = true;
	}
	assert_true(engine_finished(e));
	assert_true(data_sent);
	assert_true(second >= 0);
	assert_int_equal(f->syn[second].isn, cookie_isn_for(f, second));
	assert_int_equal(f->syn[second].isn, f->syn[first].isn);
	for (int i = 0; i < f->nseg; i++)
		assert_int_not_equal(f->seg[i].sport, 60993 + ENGINE_SECOND_PORTS);
	assert_true(acked2);
	engine_counters(e, &n);
	assert_int_equal(n.replayed, 0);	/* a new connection, not a copy */
	assert_int_equal(f->nres, 1);
	assert_true(f->res[0].window[0].ran);
	assert_int_equal(f->res[0].window[0].scale_effective, -1);
	assert_int_equal(f->res[0].window[0].scale_effective_min, 2);	/* 8192<<2 */
	assert_int_equal(f->res[0].window[0].w, 8192);
	engine_free(e);
	free(f);
}

/* A window test's RTT counts from when its SYN left, as the sender
 * stamped it, not from when the engine handed it over: behind a queue of
 * packets the two are far apart, and the quiet time (max(3 RTT, 10 ms))
 * that ends each round follows the RTT.  The SYN-ACK comes 21 ms after
 * the hand-over; the quiet time after a segment of data shows the RTT the
 * test took.  A stamp after the SYN-ACK (clocks apart) counts as its
 * arrival; no stamp (no sender ops, or one forgotten) keeps the
 * hand-over. */
static void
test_window_rtt_from_leaving(void **state)
{
	static const struct {
		bool stamps, forgot;
		uint64_t lag, quiet;
	} rows[] = {
		{ true, false, 20000000, 10000000 },	/* RTT 1 ms: the floor */
		{ true, false, 0, 63000000 },		/* RTT 21 ms */
		{ true, false, 30000000, 10000000 },	/* after the SYN-ACK: 0 */
		{ true, true, 20000000, 63000000 },	/* forgotten */
		{ false, false, 20000000, 63000000 },	/* no ops */
	};
	const uint32_t irs = 0x11223344;

	(void)state;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct fake *f = fake_new(1, 1);
		struct engine *e;
		uint8_t pkt[256];
		uint64_t t0 = 1 * SEC, t, next;
		size_t len;
		int hs, win = -1;

		f->window_test = true;
		f->stamps = rows[r].stamps;
		f->forgot = rows[r].forgot;
		f->lag = rows[r].lag;
		e = engine_for(f, 100000, 0, 16);
		f->clock = t0;
		engine_run(e, t0);
		hs = f->nsyn;
		assert_int_equal(hs, 4);
		for (int i = 0; i < hs; i++) {
			len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
			engine_input(e, t0 + 10000, pkt, len);
		}
		t = t0 + 20000;
		f->clock = t;
		engine_run(e, t);
		for (int i = hs; i < f->nsyn; i++)
			if (f->syn[i].variant == 1)
				win = i;
		assert_true(win >= 0);
		/* the window test's SYN-ACK of scale 0: 21 ms after the SYN
		 * was handed over */
		len = answer(f, win, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
		f->clock = t + 21000000;
		engine_input(e, f->clock, pkt, len);
		engine_run(e, f->clock);
		/* the first data, 1 ms later: the round's quiet time runs */
		f->clock = t + 22000000;
		len = window_data(f, win, irs, 0, 1000, WIRE_TH_ACK, pkt, sizeof(pkt));
		engine_input(e, f->clock, pkt, len);
		next = engine_run(e, f->clock);
		print_message("row %zu: next %llu ns after the data\n", r,
		    (unsigned long long)(next - f->clock));
		assert_int_equal(next - f->clock, rows[r].quiet);
		engine_free(e);
		free(f);
	}
}

/* Which SYN-ACK draws a RST (rst_decide): one per flow, ever, and nothing
 * for a flow whose record is gone or a SYN-ACK no SYN of ours drew. */
static void
test_rst_decide_table(void **state)
{
	static const struct {
		const char *name;
		bool ours, recorded;
		uint64_t paid;
		int tag;
		bool second;
		enum rst_decision want;
	} rows[] = {
		{ "handshake, first SYN-ACK", true, true, 0, 0, false, RST_SEND },
		{ "handshake, again (a copy)", true, true, 1, 0, false, RST_REPLAY },
		{ "trace TTL 6, first", true, true, 1, 6, false, RST_SEND },
		{ "trace TTL 6, again", true, true, 1u << 6, 6, false, RST_REPLAY },
		{ "window flow, first (late)", true, true, 1, COOKIE_TAG_WINDOW, false,
		    RST_SEND },
		{ "window flow held by its test", true, true,
		    (uint64_t)1 << COOKIE_TAG_WINDOW, COOKIE_TAG_WINDOW, false, RST_REPLAY },
		{ "second port, first", true, true, (uint64_t)1 << COOKIE_TAG_WINDOW,
		    COOKIE_TAG_WINDOW, true, RST_SEND },
		{ "second port, again", true, true, (uint64_t)1 << RST_FLOW_SECOND,
		    COOKIE_TAG_WINDOW, true, RST_REPLAY },
		{ "second port, not a window tag", true, true, 0, 0, true, RST_FOREIGN },
		{ "every other flow paid, this one not", true, true,
		    ~((uint64_t)1 << 3), 3, false, RST_SEND },
		{ "record gone (memo overwritten)", true, false, 0, 0, false, RST_REPLAY },
		{ "no SYN of ours", false, true, 0, 0, false, RST_FOREIGN },
		{ "no SYN of ours, no record", false, false, 0, 0, false, RST_FOREIGN },
		{ "tag out of range", true, true, 0, 32, false, RST_FOREIGN },
		{ "negative tag", true, true, 0, -1, false, RST_FOREIGN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rst_flow f = { rows[i].ours, rows[i].recorded, rows[i].paid,
		    rows[i].tag, rows[i].second };

		print_message("rst_decide: %s\n", rows[i].name);
		assert_int_equal(rst_decide(&f), rows[i].want);
	}
}

/* The memo: what was put is got back, a newer entry overwrites, key 0 is
 * never held, the size is fixed whatever goes in. */
static void
test_rst_memo(void **state)
{
	struct rst_memo m;
	struct cookie_key k;
	struct addr src = A("198.18.1.1"), dst = A("198.18.100.1"), dst6 = A("fd00::1");
	uint64_t paid = 0, k0, k1;
	size_t bytes;

	(void)state;
	cookie_key_init(&k, key);
	rst_memo_init(&m, 100);
	bytes = rst_memo_bytes(&m);
	assert_int_equal(bytes, 128 * sizeof(struct rst_memo_entry));
	k0 = rst_memo_key(&k, &src, &dst, 80, 0);
	k1 = rst_memo_key(&k, &src, &dst, 80, 1);
	assert_true(k0 != k1 && k0 != 0);
	assert_true(k0 != rst_memo_key(&k, &src, &dst, 443, 0));
	assert_true(k0 != rst_memo_key(&k, &src, &dst6, 80, 0));
	assert_false(rst_memo_get(&m, k0, &paid));
	rst_memo_put(&m, k0, 5);
	assert_true(rst_memo_get(&m, k0, &paid));
	assert_int_equal(paid, 5);
	rst_memo_put(&m, k0, 7);
	assert_true(rst_memo_get(&m, k0, &paid));
	assert_int_equal(paid, 7);
	/* the entry of k0 taken by another key: k0's record is gone */
	rst_memo_put(&m, k0 + 128, 1);
	assert_false(rst_memo_get(&m, k0, &paid));
	rst_memo_put(&m, 0, 1);
	assert_false(rst_memo_get(&m, 0, &paid));
	for (uint64_t i = 1; i < 100000; i++)
		rst_memo_put(&m, i * 0x9e3779b97f4a7c15ull, i);
	assert_int_equal(rst_memo_bytes(&m), bytes);
	rst_memo_free(&m);
	rst_memo_init(&m, (size_t)1 << 40);	/* capped, not 16 TiB */
	assert_int_equal(rst_memo_bytes(&m), ((size_t)1 << 20) * sizeof(struct rst_memo_entry));
	rst_memo_free(&m);
}

/* Every SYN-ACK of a path copied 2,000 times, while it is in flight and
 * after its result: one RST per SYN, the copies counted replayed; with
 * --rate 100 the next path's SYNs still leave on time (before, the 7,000
 * RSTs owed went first, 70 s of the rate).  A late SYN-ACK of a flow
 * that had none still draws its one. */
static void
test_replay_flood(void **state)
{
	struct fake *f = fake_new(3, 0);
	struct engine *e = engine_for(f, 100, 0, 1);
	struct engine_counters n;
	uint8_t pkt[128];
	size_t len;
	uint64_t now = 1 * SEC;

	(void)state;
	engine_run(e, now);
	assert_int_equal(f->nsyn, 4);		/* path 1: the bucket's burst */
	/* three variants answered, each 1,000 times, while in flight */
	for (int copy = 0; copy < 1000; copy++)
		for (int i = 0; i < 3; i++) {
			len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, i ? 7 : -1, 1,
			    pkt, sizeof(pkt));
			engine_input(e, now + 1000, pkt, len);
		}
	engine_counters(e, &n);
	assert_int_equal(n.replayed, 3 * 999);
	assert_int_equal(n.synacks, 3);
	/* the fourth is silent: the path ends at its timeout, then its
	 * SYN-ACKs are copied 1,000 times more */
	for (; f->nres == 0 && now <= 3 * SEC; now += SEC / 100)
		engine_run(e, now);
	assert_int_equal(f->nres, 1);
	assert_int_equal(f->nseg, 3);
	for (int copy = 0; copy < 1000; copy++)
		for (int i = 0; i < 3; i++) {
			len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
			engine_input(e, now, pkt, len);
		}
	/* the silent variant's SYN-ACK comes late: its one RST, then copies */
	for (int copy = 0; copy < 1000; copy++) {
		len = answer(f, 3, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
		engine_input(e, now, pkt, len);
	}
	engine_counters(e, &n);
	assert_int_equal(n.replayed, 3 * 999 + 3 * 1000 + 999);
	assert_int_equal(n.late, 1);
	assert_int_equal(n.rejected, 0);
	/* paths 2 and 3 (one at a time, silent: 1 s each) send their SYNs
	 * as if nothing had come, behind that one RST */
	for (uint64_t end = now + 2 * SEC + SEC / 2; now <= end; now += SEC / 100)
		engine_run(e, now);
	assert_int_equal(f->nsyn, 12);
	assert_int_equal(f->nres, 3);
	assert_int_equal(f->nseg, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(f->seg[i].flags, WIRE_TH_RST);
		assert_int_equal(f->seg[i].seq, f->syn[i].isn + 1);
	}
	engine_counters(e, &n);
	assert_true(n.rsts_sent <= n.syns_sent);
	engine_free(e);
	free(f);
}

/* The window test shares the handshake's 4-tuple: copies of the
 * handshake's SYN-ACKs while it runs draw no RST (one at the handshake's
 * sequence number could disturb the test), and copies of the test's own
 * SYN-ACK, during the test and after its end, draw no RST either: the
 * machine ends its connection with its own. */
static void
test_replay_window_flows(void **state)
{
	struct fake *f = fake_new(1, 1);
	struct engine *e;
	struct engine_counters n;
	uint8_t pkt[256];
	uint64_t now = 1 * SEC;
	int seen = 0, wsyn = -1, hs_rsts = 0, rsts = 0, copies = 0;

	(void)state;
	f->window_test = true;
	e = engine_traced(f, 100000, 0, 16, PROBE_TRACE_NEVER);
	for (int ms = 0; ms < 40000 && !engine_finished(e); ms++, now += 1000000) {
		engine_run(e, now);
		for (; seen < f->nsyn; seen++) {
			bool window = (f->syn[seen].isn & COOKIE_TAG_MASK) == COOKIE_TAG_WINDOW;

			/* the handshake all answered; the window test only for
			 * variant 1, whose server then sends nothing */
			if (window && f->syn[seen].variant != 1)
				continue;
			if (window)
				wsyn = seen;
			size_t len = answer(f, seen, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
			    pkt, sizeof(pkt));
			engine_input(e, now + 100000, pkt, len);
		}
		/* while the test runs: every SYN-ACK so far copied, each ms */
		if (wsyn >= 0 && copies < 2000)
			for (int i = 0; i <= wsyn; i++, copies++) {
				size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
				    pkt, sizeof(pkt));
				engine_input(e, now + 200000, pkt, len);
			}
	}
	assert_true(engine_finished(e));
	assert_true(wsyn >= 4);
	assert_int_equal(f->nres, 1);
	assert_true(f->res[0].window[0].ran);
	/* after the end: the test's SYN-ACK and the handshake's, 100 more */
	for (int k = 0; k < 100; k++)
		for (int i = 0; i <= wsyn; i++) {
			size_t len = answer(f, i, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
			    pkt, sizeof(pkt));
			engine_input(e, now, pkt, len);
		}
	engine_run(e, now);
	for (int i = 0; i < f->nseg; i++) {
		if (!(f->seg[i].flags & WIRE_TH_RST))
			continue;
		rsts++;
		for (int j = 0; j < 4; j++)
			if (f->seg[i].seq == f->syn[j].isn + 1 && f->seg[i].sport == f->syn[j].sport)
				hs_rsts++;
	}
	/* one per handshake SYN, and the window connection's own end */
	assert_int_equal(hs_rsts, 4);
	assert_true(rsts <= 4 + 2);
	engine_counters(e, &n);
	assert_true(n.replayed >= (uint64_t)copies + 100 * 4);
	print_message("# %d copies during the test, %llu replayed, %d RSTs\n", copies,
	    (unsigned long long)n.replayed, rsts);
	engine_free(e);
	free(f);
}

/* The memo holds about max-inflight finished paths: a flow whose record
 * was overwritten by later paths' draws no RST, ever (it may have had
 * one); a recent one still does. */
static void
test_rst_memo_forgets(void **state)
{
	struct fake *f = fake_new(200, 0);
	struct engine *e = engine_for(f, 100000, 0, 1);
	uint8_t pkt[128];
	size_t len;
	uint64_t now = 1 * SEC;
	struct engine_counters n;
	int nseg;

	(void)state;
	/* 200 silent paths, one at a time: 800 flows, a memo of 64 entries */
	while (!engine_finished(e) && now < 1000 * SEC) {
		engine_run(e, now);
		now += SEC / 10;
	}
	assert_int_equal(f->nres, 200);
	nseg = f->nseg;
	assert_int_equal(nseg, 0);
	/* the first path's SYN-ACK: its record is long gone */
	len = answer(f, 0, WIRE_TH_SYN | WIRE_TH_ACK, -1, 1, pkt, sizeof(pkt));
	engine_input(e, now, pkt, len);
	/* the last path's: held, owed its one RST */
	len = answer(f, f->nsyn - 1, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1, pkt, sizeof(pkt));
	engine_input(e, now, pkt, len);
	engine_input(e, now, pkt, len);
	engine_run(e, now);
	engine_counters(e, &n);
	assert_int_equal(f->nseg, 1);
	assert_int_equal(f->seg[0].seq, f->syn[f->nsyn - 1].isn + 1);
	assert_int_equal(n.replayed, 2);
	engine_free(e);
	free(f);
}

/* A router's ICMP budget as Linux keeps it per destination (here, the
 * prober): a burst of 6, then 1 per second. */
struct linux_icmp {
	uint64_t credit_ms, last_ms;
	bool started;
};

static bool
linux_icmp_allows(struct linux_icmp *r, uint64_t now)
{
	uint64_t ms = now / 1000000;

	if (!r->started) {
		r->started = true;
		r->credit_ms = 6000;
	} else {
		r->credit_ms += ms - r->last_ms;
		if (r->credit_ms > 6000)
			r->credit_ms = 6000;
	}
	r->last_ms = ms;
	if (r->credit_ms < 1000)
		return false;
	r->credit_ms -= 1000;
	return true;
}

/* Hop 1 is one router with an address per family: at Linux's defaults
 * (6, then 1 a second, per destination: each family on its own) or, when
 * global, at one error a second in all (burst 1: hardware routers, the
 * lab's LAB_ICMP_SLOW); hop 2 a Linux router per family; the destination
 * at 3.  n4 IPv4 and n6 IPv6 paths traced at once, paced (pace: the
 * runner's 1) or not (0).  *asked and *answered: hop 1's probes and errors; *secs the run;
 * returns the hops (path, variant, TTL 1..2) left silent. */
static int
traced_through_hop1(uint32_t pace, int n4, int n6, bool global, int *asked, int *answered,
    double *secs)
{
	int n = n4 + n6;
	struct fake *f = fake_new(n, 0);
	struct engine *e;
	struct linux_icmp hop1[2], hop2[2];
	uint64_t slow_credit = 0, slow_last = 0;
	struct addr hop[2][3];
	uint8_t pkt[256], q[128];
	uint64_t start = 1 * SEC, now = start;
	int seen = 0, silent = 0;

	memset(hop1, 0, sizeof(hop1));
	memset(hop2, 0, sizeof(hop2));
	for (int i = n4; i < n; i++) {
		snprintf(f->names[i], sizeof(f->names[i]), "fd00:5ca1:100::%x", i + 1);
		f->paths[i].dst = A(f->names[i]);
		f->paths[i].src = A("fd00:5ca1:1::1");
	}
	hop[0][1] = A("198.18.1.2");
	hop[0][2] = A("198.18.2.2");
	hop[1][1] = A("fd00:5ca1:1::2");
	hop[1][2] = A("fd00:5ca1:2::2");
	f->trace_pace = pace;
	f->trace_pace_floor_milli = pace * 1000;	/* as the runner */
	f->max_traces = (size_t)n;
	*asked = *answered = 0;
	e = engine_traced(f, 100000, 2, (size_t)n, PROBE_TRACE_ALWAYS);
	for (int step = 0; step < 400000 && f->nres < n; step++) {
		engine_run(e, now);
		for (; seen < f->nsyn; seen++) {
			int ttl = f->syn[seen].ttl, v6 = f->syn_dst[seen].family == ADDR_V6;
			size_t ql, len;

			if (ttl >= 3) {
				len = answer(f, seen, WIRE_TH_SYN | WIRE_TH_ACK, 7, 1,
				    pkt, sizeof(pkt));
			} else {
				if (ttl == 1 && global) {
					uint64_t ms = now / 1000000;

					/* one token a second, at most one kept */
					slow_credit += slow_last == 0 ? 1000 : ms - slow_last;
					if (slow_credit > 1000)
						slow_credit = 1000;
					slow_last = ms;
					(*asked)++;
					if (slow_credit < 1000)
						continue;
					slow_credit -= 1000;
				} else if (ttl == 1) {
					(*asked)++;
					if (!linux_icmp_allows(&hop1[v6], now))
						continue;
				} else if (!linux_icmp_allows(&hop2[v6], now))
					continue;
				*answered += ttl == 1;
				ql = f_render(f, &f->syn[seen], q, sizeof(q));
				len = pkt_build_icmp(pkt, sizeof(pkt), &hop[v6][ttl],
				    &f->syn_src[seen], v6 ? 3 : 11, 0, q, ql, 0);
			}
			engine_input(e, now + 1000000, pkt, len);
		}
		now += 5000000;
	}
	assert_int_equal(f->nres, n);
	for (int i = 0; i < n; i++)
		for (int v = 0; v < 4; v++)
			for (int k = 1; k <= 2; k++)
				silent += f->res[i].trace[v]->hop[k].quote == QUOTE_NONE;
	*secs = (double)(now - start) / SEC;
	engine_free(e);
	free(f);
	return silent;
}

/* Sixteen paths traced at once through two Linux routers at their default
 * ICMP limits (TTL 1 and 2; the destination at 3).  Returns the hops
 * (path, variant, TTL 1..2) that stayed silent, of 128; *secs the time
 * the run took. */
static int
traced_through_limits(uint32_t pace, double *secs)
{
	int asked, answered;

	return traced_through_hop1(pace, 16, 0, false, &asked, &answered, secs);
}

/* Paced per router across paths, the routers' budgets are not overrun: every
 * hop answers in the end; unpaced, most of them stay silent. */
static void
test_trace_paced(void **state)
{
	double paced_s, unpaced_s;
	int paced = traced_through_limits(1, &paced_s);
	int unpaced = traced_through_limits(0, &unpaced_s);

	(void)state;
	print_message("# 16 traces through two Linux-limited routers: paced %d of 128 hops "
	    "silent in %.1f s, unpaced %d silent in %.1f s\n", paced, paced_s, unpaced,
	    unpaced_s);
	assert_true(unpaced >= 64);
	assert_true(paced <= 6);
}

/* A rate-limited first hop shared by every path is not asked for much more
 * than it answers (per router, the first burst's answers do not raise
 * the rate, and a probe one router answered after another shows the other
 * lost at once, not a timeout later), and its two families' budgets are
 * both used. */
static void
test_trace_hop1_asked(void **state)
{
	static const struct {
		int n4, n6;
		bool global;
		int most_pct;		/* asked at most this % of answered */
		double most_secs;
	} rows[] = {
		/* per router 83 asked for 61 answers (per TTL 89 for 63):
		 * its first burst is paid once, so a router without a limit
		 * is not held back, and one at Linux's 1/s is tried above it */
		{ 16, 0, false, 150, 70 },
		{ 0, 16, false, 150, 70 },
		/* one budget for both families (they are one router): 53 s,
		 * as per TTL (56 s); a key per family took 26 s */
		{ 8, 8, false, 160, 70 },
		/* 81 for 62 (131 %; with a floor of 0.5/s 78 for 63): held
		 * near the rate it lost at; per TTL 115 for 56 */
		{ 16, 0, true, 140, 120 },
		/* its two families one key: as above; a key per family asked
		 * it 110 for 56 (196 %) */
		{ 8, 8, true, 140, 120 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int asked, answered, silent;
		double secs;

		silent = traced_through_hop1(1, rows[i].n4, rows[i].n6, rows[i].global, &asked,
		    &answered, &secs);
		print_message("# %d IPv4 + %d IPv6 traces, hop 1 %s: asked %d, answered %d, "
		    "%d of %d hops silent, %.1f s\n", rows[i].n4, rows[i].n6,
		    rows[i].global ? "at 1 error/s in all" : "at Linux's defaults", asked,
		    answered, silent, 8 * (rows[i].n4 + rows[i].n6), secs);
		assert_true(answered > 0);
		assert_true(asked * 100 <= answered * rows[i].most_pct);
		assert_true(secs <= rows[i].most_secs);
	}
}

/* n paths traced, at most max_traces at once, paced as the runner paces,
 * through two routers without an ICMP limit (TTL 1 and 2; the destination
 * at 3); from path `first` on, every `dropped`-th crosses a box at hop 2 that drops the
 * SYNs with the option (variants 1..3), handshake and trace alike, before
 * its router could answer.  Returns the run's simulated seconds; *silent
 * the hops (path, variant, TTL 1..2) left silent but those behind the box. */
static double
traced_past_box(int n, int first, int dropped, size_t max_traces, int *silent)
{
	struct fake *f = fake_new(n, 0);
	struct engine *e;
	struct addr hop[3];
	uint8_t pkt[256], q[128];
	uint64_t start = 1 * SEC, now = start;
	int seen = 0;
	double secs;

	hop[1] = A("198.18.101.2");
	hop[2] = A("198.18.102.2");
	f->trace_pace = 1;
	f->trace_pace_floor_milli = 1000;	/* as the runner */
	f->max_traces = max_traces;
	e = engine_traced(f, 100000, 2, (size_t)n, PROBE_TRACE_ALWAYS);
	for (int step = 0; step < 400000 && f->nres < n; step++) {
		engine_run(e, now);
		for (; seen < f->nsyn; seen++) {
			int ttl = f->syn[seen].ttl, path = 0;
			size_t ql, len;

			while (path < n && !addr_equal(&f->syn_dst[seen], &f->paths[path].dst))
				path++;
			assert_true(path < n);
			if (dropped > 0 && path >= first && path % dropped == dropped - 1 &&
			    f->syn[seen].variant != 0 && ttl >= 2)
				continue;	/* the box */
			if (ttl >= 3) {
				len = answer(f, seen, WIRE_TH_SYN | WIRE_TH_ACK,
				    f->syn[seen].variant ? 7 : -1, 1, pkt, sizeof(pkt));
			} else {
				ql = f_render(f, &f->syn[seen], q, sizeof(q));
				len = pkt_build_icmp(pkt, sizeof(pkt), &hop[ttl],
				    &f->syn_src[seen], 11, 0, q, ql, 0);
			}
			engine_input(e, now + 1000000, pkt, len);
		}
		now += 5000000;
	}
	assert_int_equal(f->nres, n);
	*silent = 0;
	for (int r = 0; r < n; r++) {
		int i = 0;

		while (i < n && !addr_equal(&f->res[r].dst, &f->paths[i].dst))
			i++;
		assert_true(i < n);
		for (int v = 0; v < 4; v++)
			for (int k = 1; k <= 2; k++)
				if (dropped == 0 || i < first || i % dropped != dropped - 1 ||
				    v == 0 || k == 1)
					*silent += f->res[r].trace[v]->hop[k].quote ==
					    QUOTE_NONE;
	}
	secs = (double)(now - start) / SEC;
	engine_free(e);
	free(f);
	return secs;
}

/* A box that drops some paths' SYNs just before a router without an ICMP
 * limit leaves their probes there unanswered, but those losses are the
 * paths' own (their handshake went unanswered already): the router's
 * budget is not cut for them, so the traces through it do not slow to one
 * probe a second, and they do not fill its places of probes waiting for a
 * timeout.  And a trace whose every hop answered ends at once, not a
 * timeout later, so a bounded stage of traces is not held a timeout per
 * path.  Simulated time, not the machine's: on e225117 10.0, 644 and
 * 222 s; with the losses only not cut for, 3.9, 36 and 14.8 s. */
static void
test_trace_box_not_limit(void **state)
{
	int silent[4];
	double clean = traced_past_box(64, 0, 0, 8, &silent[0]);
	double quarter = traced_past_box(64, 0, 4, 64, &silent[1]);
	double all = traced_past_box(64, 0, 1, 64, &silent[2]);
	double late = traced_past_box(192, 128, 1, 192, &silent[3]);

	(void)state;
	print_message("# traces past hop 2, no ICMP limits: 64 none dropped, 8 at once "
	    "%.1f s; 64, every fourth dropped at hop 2 %.1f s; 64, all %.1f s; 128 then "
	    "64 dropped %.1f s; hops silent (but behind the box) %d %d %d %d\n", clean,
	    quarter, all, late, silent[0], silent[1], silent[2], silent[3]);
	assert_int_equal(silent[0] + silent[1] + silent[2] + silent[3], 0);
	assert_true(clean <= 6.0);
	assert_true(all <= 120.0);
	assert_true(late <= 11.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_answered),
		cmocka_unit_test(test_flows_auto),
		cmocka_unit_test(test_silence_retries),
		cmocka_unit_test(test_forged_and_icmp),
		cmocka_unit_test(test_rst_and_late),
		cmocka_unit_test(test_syn_dropped_mixed),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_inflight_bound),
		cmocka_unit_test(test_capture_drops_charged),
		cmocka_unit_test(test_trace_ladder),
		cmocka_unit_test(test_late_reply_after_handshake),
		cmocka_unit_test(test_window_queue),
		cmocka_unit_test(test_window_timer_drains),
		cmocka_unit_test(test_waiting_bounded),
		cmocka_unit_test(test_every_packet_charged),
		cmocka_unit_test(test_waiting_does_not_spin),
		cmocka_unit_test(test_trace_auto_table),
		cmocka_unit_test(test_nat_quotes_table),
		cmocka_unit_test(test_capture_failure_reported),
		cmocka_unit_test(test_burst_reads_capture),
		cmocka_unit_test(test_window_second_port),
		cmocka_unit_test(test_trace_paced),
		cmocka_unit_test(test_trace_hop1_asked),
		cmocka_unit_test(test_trace_box_not_limit),
		cmocka_unit_test(test_rst_decide_table),
		cmocka_unit_test(test_rst_memo),
		cmocka_unit_test(test_replay_flood),
		cmocka_unit_test(test_replay_window_flows),
		cmocka_unit_test(test_rst_memo_forgets),
		cmocka_unit_test(test_window_rtt_from_leaving),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
