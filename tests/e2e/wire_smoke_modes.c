/*
 * wire_smoke_modes.c -- the parts of wire_smoke that are not the probe
 * run: the render checks (many SYNs against a full recomputation), the
 * capture-only mode (-x) for frames the script forges, and the send-rate
 * bench (-b).
 */
#include <event2/event.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "send.h"
#include "wire.h"
#include "wire_csum.h"
#include "wire_smoke.h"

/* xorshift32: varied field values for the render checks */
static uint32_t
rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static const uint8_t *
opt_area(const uint8_t *pkt, int v6)
{
	return pkt + (v6 ? 40 : 20) + 20;
}

/*
 * The render checks: many SYNs with varied fields, each checked against a
 * full recomputation of both checksums and against the layout send.h
 * promises, byte for byte.
 */
void
check_render(struct smoke *sm, const struct sender *s, const struct addr *src4,
    const struct addr *src6)
{
	uint32_t x = 0x9e3779b9;
	int bad_csum = 0, bad_layout = 0, n = 0;

	for (int fam = 0; fam < 2; fam++) {
		const struct addr *base = fam ? src6 : src4;
		struct addr a, b;
		uint8_t buf[128];

		if (base == NULL)
			continue;
		for (int k = 0; k < 4000; k++) {
			struct send_syn syn;
			int v6 = fam, v = k % NVARIANTS;
			size_t len;

			a = *base;
			b = *base;
			for (size_t j = 0; j < addr_len(&a); j++) {
				a.bytes[j] = (uint8_t)rnd(&x);
				b.bytes[j] = (uint8_t)rnd(&x);
			}
			memset(&syn, 0, sizeof(syn));
			syn.variant = v;
			syn.src = &a;
			syn.dst = &b;
			syn.sport = (uint16_t)rnd(&x);
			syn.dport = (uint16_t)rnd(&x);
			syn.isn = rnd(&x);
			syn.tsval = rnd(&x);
			syn.ttl = (uint8_t)rnd(&x);
			syn.flow_label = rnd(&x);
			if (k < 4) {	/* the extremes of every field */
				memset(a.bytes, k & 1 ? 0xff : 0, addr_len(&a));
				memset(b.bytes, k & 2 ? 0xff : 0, addr_len(&b));
				syn.sport = syn.dport = k & 1 ? 0xffff : 0;
				syn.isn = syn.tsval = k & 2 ? 0xffffffff : 0;
				syn.ttl = k & 1 ? 255 : 0;
			}
			len = sender_render_syn(s, &syn, buf, sizeof(buf));
			n++;
			if (len != (size_t)(v6 ? 80 : 60)) {
				bad_layout++;
				continue;
			}
			const uint8_t *tcp = buf + (v6 ? 40 : 20), *o = opt_area(buf, v6);
			uint8_t want[20] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10 };
			wire_put32(want + 8, syn.tsval);
			want[16] = 1;
			if (variant_scale[v] == SEND_VARIANT_CONTROL) {
				want[17] = want[18] = want[19] = 1;
			} else {
				want[17] = 3;
				want[18] = 3;
				want[19] = (uint8_t)variant_scale[v];
			}
			if (memcmp(o, want, 20) != 0 || wire_get16(tcp) != syn.sport ||
			    wire_get16(tcp + 2) != syn.dport ||
			    wire_get32(tcp + 4) != syn.isn || wire_get32(tcp + 8) != 0 ||
			    tcp[12] != 0xa0 || tcp[13] != 0x02 ||
			    wire_get16(tcp + 14) != 64240)
				bad_layout++;
			if (v6) {
				if (wire_get32(buf) != (6u << 28 | (syn.flow_label & 0xfffff)) ||
				    buf[7] != syn.ttl || buf[6] != 6 ||
				    memcmp(buf + 8, a.bytes, 16) != 0 ||
				    memcmp(buf + 24, b.bytes, 16) != 0)
					bad_layout++;
				if (wire_tcp_csum6(a.bytes, b.bytes, tcp, 40) != 0)
					bad_csum++;
			} else {
				if (buf[0] != 0x45 || buf[1] != 0 || wire_get16(buf + 2) != 60 ||
				    wire_get16(buf + 4) != 0 || wire_get16(buf + 6) != 0x4000 ||
				    buf[8] != syn.ttl || buf[9] != 6 ||
				    memcmp(buf + 12, a.bytes, 4) != 0 ||
				    memcmp(buf + 16, b.bytes, 4) != 0)
					bad_layout++;
				if (wire_csum(buf, 20) != 0 ||
				    wire_tcp_csum4(a.bytes, b.bytes, tcp, 40) != 0)
					bad_csum++;
			}
		}
	}
	claim(sm, n > 0 && bad_layout == 0,
	    "rendered SYNs have send.h's layout (%d rendered, %d wrong)", n, bad_layout);
	claim(sm, n > 0 && bad_csum == 0,
	    "incrementally patched checksums equal full recomputation (%d, %d wrong)",
	    n, bad_csum);

	/* a SYN of a variant that does not exist, or mixed families, renders
	 * nothing */
	struct send_syn bad;
	uint8_t buf[128];
	memset(&bad, 0, sizeof(bad));
	bad.variant = NVARIANTS;
	bad.src = bad.dst = src4 != NULL ? src4 : src6;
	size_t l1 = sender_render_syn(s, &bad, buf, sizeof(buf));
	bad.variant = 0;
	size_t l2 = sender_render_syn(s, &bad, buf, 10);
	claim(sm, l1 == 0 && l2 == 0, "render refuses a bad variant and a short buffer");
}

/* -x: what the captures hand over, printed for the script to compare;
 * the capture callback has no other way to reach these. */
static int	xcount[MAX_CAPS];
static int	xwant;
static const char *xnames[MAX_CAPS];

static void
on_raw(void *arg, const uint8_t *l3, size_t len, const struct timeval *ts)
{
	struct capctx *cc = arg;

	(void)ts;
	printf("got %s ", xnames[cc->idx]);
	for (size_t i = 0; i < len; i++)
		printf("%02x", l3[i]);
	printf("\n");
	xcount[cc->idx]++;
	if (xwant == 0)
		return;
	for (int i = 0; i < cc->sm->ncaps; i++)
		if (xcount[i] < xwant)
			return;
	event_base_loopbreak(cc->sm->base);
}

/* Another capture run, another count: the script compares what got
 * printed with the frames it sent. */
static void
on_xsignal(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	event_base_loopbreak(arg);
}

int
capture_only(struct smoke *sm, const char **caps, const char *filter, int want, int ms)
{
	char err[256];
	int rc = 0;

	xwant = want;
	if ((sm->base = event_base_new()) == NULL)
		return 1;
	struct event *sigterm = evsignal_new(sm->base, SIGTERM, on_xsignal, sm->base);
	evsignal_add(sigterm, NULL);
	printf("pid=%ld\n", (long)getpid());
	for (int i = 0; i < sm->ncaps; i++) {
		struct capture_config cc = { caps[i], filter, 0, 0 };

		xnames[i] = caps[i];
		sm->capctx[i].sm = sm;
		sm->capctx[i].idx = i;
		if ((sm->caps[i] = capture_open(sm->base, &cc, on_raw, &sm->capctx[i],
		    err, sizeof(err))) == NULL) {
			fprintf(stderr, "wire_smoke: %s\n", err);
			return 1;
		}
	}
	printf("capturing\n");
	run_loop(sm, ms, 0);
	for (int i = 0; i < sm->ncaps; i++) {
		struct capture_stats st;

		capture_stats(sm->caps[i], &st);
		printf("stats %s received=%llu dropped=%llu\n", caps[i],
		    (unsigned long long)st.received, (unsigned long long)st.dropped);
		if (xcount[i] < xwant)
			rc = 1;
		capture_close(sm->caps[i]);
	}
	event_free(sigterm);
	event_base_free(sm->base);
	return rc;
}

/* SYNs flat out from src to the /16 of dst (IPv4), batch at a time. */
int
bench(const struct addr *srcp, const struct addr *dstp, int secs, int batch)
{
	struct send_config cfg;
	struct send_stats st;
	struct addr src = *srcp, dst = *dstp, d;
	struct sender *s;
	char err[256];
	uint64_t i = 0;
	double t0, t, tend;

	if (src.family != ADDR_V4) {
		fprintf(stderr, "wire_smoke: the bench sends IPv4\n");
		return 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.nvariants = NVARIANTS;
	memcpy(cfg.variant_scale, variant_scale, sizeof(variant_scale));
	cfg.batch = batch;
	if ((s = sender_open(&cfg, 1, 0, err, sizeof(err))) == NULL) {
		fprintf(stderr, "wire_smoke: %s\n", err);
		return 1;
	}
	/* the patching alone: what a probe costs before the kernel */
	{
		struct send_syn syn;
		uint8_t buf[128];
		uint32_t sink = 0;
		const int n = 4000000;

		memset(&syn, 0, sizeof(syn));
		syn.src = &src;
		syn.dst = &d;
		syn.ttl = 64;
		d = dst;
		t0 = now_s();
		for (int k = 0; k < n; k++) {
			d.bytes[3] = (uint8_t)k;
			syn.variant = k % NVARIANTS;
			syn.sport = (uint16_t)k;
			syn.isn = (uint32_t)k * 2654435761u;
			syn.tsval = (uint32_t)k;
			sink += (uint32_t)sender_render_syn(s, &syn, buf, sizeof(buf)) + buf[37];
		}
		t = now_s() - t0;
		printf("render ns_per_syn=%.1f (sink %u)\n", t * 1e9 / n, sink);
	}
	d = dst;
	t0 = now_s();
	tend = t0 + secs;
	do {
		for (int k = 0; k < 1024; k++, i++) {
			struct send_syn syn;

			memset(&syn, 0, sizeof(syn));
			d.bytes[2] = (uint8_t)(i >> 8);
			d.bytes[3] = (uint8_t)i;
			syn.variant = (int)(i % NVARIANTS);
			syn.src = &src;
			syn.dst = &d;
			syn.sport = (uint16_t)(61000 + (i >> 16) % 64);
			syn.dport = 80;
			syn.isn = (uint32_t)(i * 2654435761u);
			syn.tsval = (uint32_t)i;
			syn.ttl = 64;
			(void)sender_syn(s, &syn);
		}
		t = now_s();
	} while (t < tend);
	sender_drain(s);
	t = now_s() - t0;
	sender_stats(s, &st);
	printf("bench batch=%d syns=%llu secs=%.3f pps=%.0f errors=%llu batches=%llu\n",
	    cfg.batch, (unsigned long long)st.syns, t, (double)st.syns / t,
	    (unsigned long long)st.errors, (unsigned long long)st.batches);
	sender_close(s);
	return 0;
}

