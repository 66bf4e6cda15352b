/*
 * fuzz_engine.c -- libFuzzer harness for the engine's door for bytes from
 * the network (engine_input: decoding, validation, matching to a path and
 * its stage), with the stages, pacing and inference behind it.  A fake wire
 * records the SYNs the engine sends; the input is a list of events, each a
 * reply built on one of those SYNs (so it passes validation and goes deep:
 * SYN-ACKs, RSTs, ICMP errors quoting it, segments on a window-test
 * connection, each with hostile fields and options) or raw bytes, and time
 * moving on.  Checks what must hold whatever arrives: no crash or sanitizer
 * report, the run ends once time runs on, every path gets exactly one
 * result, and its inference completes with a verdict per scale.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/pktbuild.h"
#include "engine.h"
#include "infer.h"
#include "reply.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define SEC 1000000000ull
#define MAXSYN 512
#define NPATHS 4

struct fz {
	const uint8_t *p;
	size_t n;
};

static uint32_t
take(struct fz *f, int bytes)
{
	uint32_t v = 0;

	while (bytes-- > 0) {
		v = v << 8 | (f->n > 0 ? *f->p : 0);
		if (f->n > 0) {
			f->p++;
			f->n--;
		}
	}
	return v;
}

struct wire {
	struct send_syn syn[MAXSYN];
	struct addr src[MAXSYN], dst[MAXSYN];
	int nsyn;
	uint64_t segs;
	struct engine_path paths[NPATHS];
	int next;
	int done[NPATHS];
};

static int
w_next(void *arg, struct engine_path *out)
{
	struct wire *w = arg;

	if (w->next >= NPATHS)
		return 0;
	*out = w->paths[w->next++];
	return 1;
}

static int
w_syn(void *arg, const struct send_syn *syn)
{
	struct wire *w = arg;
	int i = w->nsyn < MAXSYN ? w->nsyn++ : MAXSYN - 1;

	w->syn[i] = *syn;
	w->src[i] = *syn->src;
	w->dst[i] = *syn->dst;
	w->syn[i].src = &w->src[i];
	w->syn[i].dst = &w->dst[i];
	return 0;
}

static int
w_seg(void *arg, const struct send_segment *seg)
{
	(void)seg;
	((struct wire *)arg)->segs++;
	return 0;
}

static size_t
w_request(void *arg, const struct engine_path *p, uint8_t *buf, size_t cap)
{
	static const char get[] = "GET / HTTP/1.1\r\nHost: fuzz\r\n\r\n";

	(void)arg;
	if (p->port != 80 || cap < sizeof(get) - 1)
		return 0;
	memcpy(buf, get, sizeof(get) - 1);
	return sizeof(get) - 1;
}

static void
w_done(void *arg, struct path_result *res)
{
	struct wire *w = arg;
	int i;

	for (i = 0; i < NPATHS; i++)
		if (addr_equal(&res->dst, &w->paths[i].dst) && res->port == w->paths[i].port)
			break;
	if (i == NPATHS)
		abort();		/* a result for a path never handed in */
	w->done[i]++;
	infer_path(res);
	for (int s = 0; s < res->nscales; s++)
		if (res->verdicts[s].verdict == VERDICT_NONE ||
		    res->verdicts[s].reason[0] == '\0')
			abort();
}

static struct addr
A(const char *s)
{
	struct addr a;

	if (addr_parse(s, &a) != 0)
		abort();
	return a;
}

/* Options of up to 40 bytes from the input, padded to a multiple of 4. */
static size_t
options(struct fz *f, uint8_t *o)
{
	size_t n = take(f, 1) % 41;

	for (size_t i = 0; i < n; i++)
		o[i] = (uint8_t)take(f, 1);
	while (n % 4 != 0)
		o[n++] = 1;
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wire w;
	static const uint8_t key[16] = "fuzz-engine-key!";
	struct fz f = { data, size };
	struct engine_config c;
	struct engine_ops o;
	struct engine *e;
	uint8_t pkt[1600], q[256], opt[44];
	uint64_t now = 10 * SEC;
	const char *dst[NPATHS] = { "198.18.100.1", "198.18.100.2", "fd00:5ca1:100::1",
	    "fd00:5ca1:100::2" };

	memset(&w, 0, sizeof(w));
	for (int i = 0; i < NPATHS; i++) {
		w.paths[i].target = dst[i];
		w.paths[i].dst = A(dst[i]);
		w.paths[i].src = i < 2 ? A("198.18.1.1") : A("fd00:5ca1:1::1");
		w.paths[i].port = i % 2 ? 443 : 80;
	}
	memset(&c, 0, sizeof(c));
	c.nvariants = 4;
	c.variant_scale[0] = -1;
	c.variant_scale[1] = 0;
	c.variant_scale[2] = 7;
	c.variant_scale[3] = 14;
	c.rate = 1 + take(&f, 2) % 5000;
	c.timeout_ns = 1 * SEC;
	c.retries = (int)(take(&f, 1) % 3);
	c.port_lo = 60992;
	memcpy(c.key, key, 16);
	c.max_inflight = 1 + take(&f, 1) % NPATHS;
	c.ttl = 64;
	c.trace = (enum probe_trace)(take(&f, 1) % 3);
	c.trace_max_ttl = 6;
	c.trace_gap_ns = SEC / 100;
	c.max_traces = 2;
	c.window_test = true;
	c.max_windows = 2;
	memset(&o, 0, sizeof(o));
	o.arg = &w;
	o.next_path = w_next;
	o.send_syn = w_syn;
	o.send_segment = w_seg;
	o.request = w_request;
	o.done = w_done;
	if ((e = engine_new(&c, &o)) == NULL)
		abort();

	engine_run(e, now);
	while (f.n > 0) {
		unsigned op = take(&f, 1);
		const struct send_syn *s;
		struct pkt_tcp t;
		size_t len = 0, ql;

		if (w.nsyn == 0 || op % 8 == 0) {
			/* time moves on, up to a second */
			now += (take(&f, 2) % 1000 + 1) * 1000000ull;
			engine_run(e, now);
			continue;
		}
		s = &w.syn[take(&f, 1) % w.nsyn];
		memset(&t, 0, sizeof(t));
		t.src = s->dst;
		t.dst = s->src;
		t.sport = s->dport;
		t.dport = s->sport;
		t.window = (uint16_t)take(&f, 2);
		t.ttl = 60;
		switch (op % 8) {
		case 1:		/* SYN-ACK to it, acks right or near, hostile options */
			t.seq = take(&f, 4);
			t.ack = s->isn + 1 + (take(&f, 1) % 4 == 0 ? take(&f, 1) : 0);
			t.flags = WIRE_TH_SYN | WIRE_TH_ACK;
			t.optlen = options(&f, opt);
			t.opts = opt;
			len = pkt_build_tcp(pkt, sizeof(pkt), &t);
			break;
		case 2:		/* RST, with or without ACK */
			t.ack = s->isn + (take(&f, 1) & 1);
			t.flags = WIRE_TH_RST | (op & 0x10 ? WIRE_TH_ACK : 0);
			len = pkt_build_tcp(pkt, sizeof(pkt), &t);
			break;
		case 3: {	/* an ICMP error from a router quoting it, cut anywhere */
			struct pkt_tcp sent;
			struct addr router = s->dst->family == ADDR_V4 ?
			    A("198.18.3.2") : A("fd00:5ca1:3::2");

			memset(&sent, 0, sizeof(sent));
			sent.src = s->src;
			sent.dst = s->dst;
			sent.sport = s->sport;
			sent.dport = s->dport;
			sent.seq = s->isn;
			sent.flags = WIRE_TH_SYN;
			sent.window = 64240;
			sent.ttl = 1;
			sent.optlen = options(&f, opt);
			sent.opts = opt;
			ql = pkt_build_tcp(q, sizeof(q), &sent);
			len = pkt_build_icmp(pkt, sizeof(pkt), &router, s->src,
			    (uint8_t)take(&f, 1), (uint8_t)take(&f, 1), q, ql,
			    take(&f, 1) % (ql + 1));
			break;
		}
		case 4:		/* a segment on its 4-tuple: the window test's */
		case 5:
			t.seq = take(&f, 4);
			t.ack = s->isn + 1 + take(&f, 2);
			t.flags = (uint8_t)take(&f, 1);
			t.optlen = op & 0x20 ? options(&f, opt) : 0;
			t.opts = opt;
			len = pkt_build_tcp(pkt, sizeof(pkt) - 1500, &t);
			if (len > 0 && op % 8 == 5) {
				/* with payload: the IP length says how much */
				size_t extra = take(&f, 2) % 1400;

				memset(pkt + len, 'x', extra);
				len += extra;
				if (pkt[0] >> 4 == 4) {
					pkt[2] = (uint8_t)(len >> 8);
					pkt[3] = (uint8_t)len;
				} else {
					pkt[4] = (uint8_t)((len - 40) >> 8);
					pkt[5] = (uint8_t)(len - 40);
				}
			}
			break;
		case 6: {	/* raw bytes */
			size_t n = take(&f, 1);

			if (n > f.n)
				n = f.n;
			memcpy(pkt, f.p, n);
			f.p += n;
			f.n -= n;
			len = n;
			break;
		}
		default:	/* a run at once */
			engine_run(e, now);
			continue;
		}
		engine_input(e, now, pkt, len);
		if (engine_wants_run(e))
			engine_run(e, now);
	}
	/* however it went, the run ends once time runs on */
	for (int i = 0; i < 20000 && !engine_finished(e); i++) {
		uint64_t next = engine_run(e, now);

		if (next == ENGINE_NEVER)
			break;
		if (next <= now)
			abort();	/* a wake-up never in the past */
		now = next;
	}
	if (!engine_finished(e))
		abort();
	for (int i = 0; i < NPATHS; i++)
		if (w.done[i] != 1)
			abort();	/* every path, exactly once */
	engine_free(e);
	return 0;
}
