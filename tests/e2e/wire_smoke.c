/*
 * wire_smoke.c -- the I/O edges tried for real, inside the namespaces that
 * tests/e2e/wire-smoke builds: guard + sender + capture on one event_base.
 * For every target it sends the control SYN and the scale variants, waits
 * for the SYN-ACKs on every capture, answers each with our own RST, and
 * checks what it can see from the prober side; the script checks the
 * server side.  Prints PASS/FAIL per claim and "wire_smoke: N passed, N
 * failed".
 *
 * usage: wire_smoke [-g] [-t SRC,DST]... [-c IF]... [-p PORT]
 *                   [-u PORT] [-r FILE] [-H MS] [-W MS]
 *        wire_smoke -x -f FILTER -n COUNT -c IF... [-W MS]
 *        wire_smoke -b SECONDS -t SRC,DST [-B BATCH]
 *   -t     a target (either family); SRC must be the route's source
 *   -c     capture on IF
 *   -p     server port (80)
 *   -u     also send one control SYN per target from this port, outside
 *          the guard's block: the kernel must RST its SYN-ACK (the
 *          script counts those, proving its RST counter can count)
 *   -r     write the exact bytes of every SYN sent, one "SPORT DST HEX" line
 *   -g     guard only: open the guard, hold, close; no packets
 *   -H     hold this long (ms) before closing, so runs overlap; SIGTERM
 *          and SIGINT end the hold through libevent signal events
 *   -W     how long to wait for SYN-ACKs (ms, default 3000)
 *   -x     capture only: print "got IF HEX" for every L3 packet each
 *          capture hands over (filter -f), until each has COUNT (-n), -W
 *          ends or SIGTERM comes
 *   -b     send-rate bench: SYNs flat out to DST's /16, no guard/capture
 */
#include <event2/event.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "capture.h"
#include "guard.h"
#include "route.h"
#include "send.h"
#include "wire.h"
#include "wire_packet.h"
#include "wire_smoke.h"

void
claim(struct smoke *sm, int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		sm->pass++;
	else
		sm->fail++;
}

static void
usage(void)
{
	fprintf(stderr, "usage: wire_smoke [-g] [-t SRC,DST]... [-c IF]... "
	    "[-p PORT] [-u PORT] [-r FILE] [-H MS] [-W MS]\n"
	    "       wire_smoke -x -f FILTER [-n COUNT] -c IF... [-W MS]\n"
	    "       wire_smoke -b SECS -t SRC,DST [-B N]\n");
	exit(2);
}

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs cmd and returns its stdout (at most cap-1 bytes); -1 if it failed. */
static int
run_cmd(const char *cmd, char *out, size_t cap)
{
	size_t n = 0, r;
	FILE *f;

	out[0] = '\0';
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (n + 1 < cap && (r = fread(out + n, 1, cap - 1 - n, f)) > 0)
		n += r;
	out[n] = '\0';
	return pclose(f) == 0 ? 0 : -1;
}

/* Whether nft (the CLI, independent of the guard's libnftables) lists
 * our table, and whether it drops our block. */
static void
table_state(const char *name, unsigned port_lo, int *exists, int *drops_block)
{
	char cmd[160], out[8192], want[96];

	snprintf(cmd, sizeof(cmd), "nft list table inet %s 2>/dev/null", name);
	*exists = run_cmd(cmd, out, sizeof(out)) == 0;
	snprintf(want, sizeof(want), "fib daddr type local tcp dport %u-%u drop", port_lo,
	    port_lo + GUARD_BLOCK_PORTS - 1);
	*drops_block = *exists && strstr(out, want) != NULL &&
	    strstr(out, "hook prerouting priority raw") != NULL;
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct smoke *sm = arg;

	(void)what;
	printf("signal %d: shutting down\n", (int)sig);
	sm->signalled = 1;
	event_base_loopbreak(sm->base);
}

static void
on_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

static int
all_answered(const struct smoke *sm)
{
	for (int i = 0; i < sm->nprobes; i++)
		for (int c = 0; c < sm->ncaps; c++)
			if (!sm->probes[i].got[c])
				return 0;
	return 1;
}

static void
on_poll(evutil_socket_t fd, short what, void *arg)
{
	struct smoke *sm = arg;

	(void)fd;
	(void)what;
	if (all_answered(sm))
		event_base_loopbreak(sm->base);
}


void
run_loop(struct smoke *sm, int ms, int until_answered)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 }, poll = { 0, 20000 };
	struct event *t, *p = NULL;

	t = evtimer_new(sm->base, on_timeout, sm->base);
	evtimer_add(t, &tv);
	if (until_answered) {
		p = event_new(sm->base, -1, EV_PERSIST, on_poll, sm);
		event_add(p, &poll);
	}
	event_base_dispatch(sm->base);
	event_free(t);
	if (p != NULL)
		event_free(p);
}

static void
on_packet(void *arg, const uint8_t *l3, size_t len, const struct timeval *ts)
{
	struct capctx *cc = arg;
	struct smoke *sm = cc->sm;
	struct wire_packet pkt;
	struct addr from, to;

	(void)ts;
	if (wire_packet_parse(l3, len, &pkt) != WIRE_OK || pkt.l4 != WIRE_L4_TCP)
		return;
	if ((pkt.tcp.flags & (WIRE_TH_SYN | WIRE_TH_ACK)) != (WIRE_TH_SYN | WIRE_TH_ACK))
		return;
	memset(&from, 0, sizeof(from));
	memset(&to, 0, sizeof(to));
	from.family = to.family = pkt.ip.version == 4 ? ADDR_V4 : ADDR_V6;
	memcpy(from.bytes, pkt.ip.src, addr_len(&from));
	memcpy(to.bytes, pkt.ip.dst, addr_len(&to));
	for (int i = 0; i < sm->nprobes; i++) {
		struct probe *p = &sm->probes[i];

		if (!addr_equal(&p->src, &to) || !addr_equal(&p->dst, &from) ||
		    p->sport != pkt.tcp.dport)
			continue;
		if (pkt.tcp.ack != p->isn + 1) {
			p->bad_ack = 1;
			continue;
		}
		p->got[cc->idx] = 1;
		p->srv_isn = pkt.tcp.seq;
		p->has_ws = pkt.opts.has_wscale;
		p->ws = pkt.opts.wscale;
	}
}

/* What the command line asked for. */
struct opts {
	const char	*caps[MAX_CAPS];
	const char	*render_file;
	struct addr	 tsrc[MAX_TARGETS], tdst[MAX_TARGETS];
	int		 ntargets;
	unsigned	 dport;
	unsigned	 unguarded;	/* -u port, 0: none */
	int		 wait_ms;
};

/* Parses "SRC,DST" into two addresses of one family. */
static int
parse_pair(const char *s, struct addr *src, struct addr *dst)
{
	char buf[128], *comma;

	snprintf(buf, sizeof(buf), "%s", s);
	if ((comma = strchr(buf, ',')) == NULL)
		return -1;
	*comma = '\0';
	if (addr_parse(buf, src) == -1 || addr_parse(comma + 1, dst) == -1 ||
	    src->family != dst->family)
		return -1;
	return 0;
}

/* Sends the control SYN and each scale variant to every target (and one
 * control SYN from the unguarded port), writing their bytes to -r's file. */
static void
send_probes(struct smoke *sm, struct sender *snd, const struct opts *o,
    unsigned port_lo)
{
	FILE *rf = o->render_file ? fopen(o->render_file, "w") : NULL;
	int send_fail = 0, fams = 0, seen4 = 0, seen6 = 0;

	for (int t = 0; t < o->ntargets; t++) {
		for (int v = 0; v <= NVARIANTS; v++) {
			struct probe *p;
			struct send_syn syn;
			uint8_t buf[128];
			size_t len;

			if (v == NVARIANTS && o->unguarded == 0)
				continue;
			p = &sm->probes[sm->nprobes++];
			p->target = t;
			p->unguarded = v == NVARIANTS;
			p->variant = p->unguarded ? 0 : v;
			p->src = o->tsrc[t];
			p->dst = o->tdst[t];
			p->sport = p->unguarded ? (uint16_t)o->unguarded :
			    (uint16_t)(port_lo + t * NVARIANTS + v);
			p->isn = 0x5ca1e000u + (uint32_t)(t * 0x1000000 + v * 0x10101 +
			    getpid());
			p->tsval = 1000u + (uint32_t)v;
			p->flow = 0xabcde ^ (uint32_t)(t << 4 | v);
			memset(&syn, 0, sizeof(syn));
			syn.variant = p->variant;
			syn.src = &p->src;
			syn.dst = &p->dst;
			syn.sport = p->sport;
			syn.dport = (uint16_t)o->dport;
			syn.isn = p->isn;
			syn.tsval = p->tsval;
			syn.ttl = 64;
			syn.flow_label = p->flow;
			if (sender_syn(snd, &syn) != 0)
				send_fail++;
			len = sender_render_syn(snd, &syn, buf, sizeof(buf));
			if (rf != NULL) {
				char b[ADDR_STRLEN];

				fprintf(rf, "%u %s ", p->sport, addr_format(&p->dst, b, sizeof(b)));
				for (size_t k = 0; k < len; k++)
					fprintf(rf, "%02x", buf[k]);
				fprintf(rf, "\n");
			}
		}
		if (o->tdst[t].family == ADDR_V4)
			seen4 = 1;
		else
			seen6 = 1;
	}
	if (rf != NULL)
		fclose(rf);
	fams = seen4 + seen6;
	int flushed = sender_drain(snd);
	struct send_stats st;
	sender_stats(snd, &st);
	claim(sm, send_fail == 0 && flushed == sm->nprobes &&
	    st.syns == (uint64_t)sm->nprobes && st.errors == 0 &&
	    st.batches == (uint64_t)fams,
	    "%d SYNs left in %llu sendmmsg batches (one per family), %llu errors",
	    sm->nprobes, (unsigned long long)st.batches, (unsigned long long)st.errors);
}

/* What came back to each probe, on each capture. */
static void
check_replies(struct smoke *sm, const char *const *caps)
{
	for (int i = 0; i < sm->nprobes; i++) {
		struct probe *p = &sm->probes[i];
		char b[ADDR_STRLEN];
		int seen = 0, sc = variant_scale[p->variant];

		for (int k = 0; k < sm->ncaps; k++)
			seen += p->got[k];
		addr_format(&p->dst, b, sizeof(b));
		if (p->unguarded) {
			claim(sm, seen == sm->ncaps, "%s unguarded port %u: SYN-ACK captured "
			    "on %d/%d captures", b, p->sport, seen, sm->ncaps);
			continue;
		}
		claim(sm, seen == sm->ncaps && !p->bad_ack,
		    "%s %s%d: SYN-ACK with ack = ISN+1 on %d/%d captures", b,
		    sc < 0 ? "control" : "wscale ", sc < 0 ? 0 : sc, seen, sm->ncaps);
		if (seen == 0)
			continue;
		if (sc < 0)
			claim(sm, !p->has_ws, "%s control: the SYN-ACK has no window scale "
			    "(none was offered)", b);
		else
			claim(sm, p->has_ws, "%s wscale %d: the SYN-ACK carries the "
			    "server's window scale (%d)", b, sc, p->ws);
	}
	for (int i = 0; i < sm->ncaps; i++) {
		struct capture_stats cs;
		int r = capture_stats(sm->caps[i], &cs);

		claim(sm, r == 0 && cs.dropped == 0 && cs.ifdropped == 0 && cs.errors == 0 &&
		    cs.received >= (uint64_t)sm->nprobes,
		    "capture %s: %llu received, %llu dropped, %llu ifdropped, %llu errors",
		    caps[i], (unsigned long long)cs.received, (unsigned long long)cs.dropped,
		    (unsigned long long)cs.ifdropped, (unsigned long long)cs.errors);
	}
}

/* Our own RST|ACK for every SYN-ACK of a guarded probe; the script
 * counts them at the server. */
static void
send_rsts(struct smoke *sm, struct sender *snd, const struct opts *o)
{
	struct send_stats st;
	int rsts = 0, rst_fail = 0;

	for (int i = 0; i < sm->nprobes; i++) {
		struct probe *p = &sm->probes[i];
		struct send_segment seg;

		if (p->unguarded || !p->got[0])
			continue;
		memset(&seg, 0, sizeof(seg));
		seg.src = &p->src;
		seg.dst = &p->dst;
		seg.sport = p->sport;
		seg.dport = (uint16_t)o->dport;
		seg.seq = p->isn + 1;
		seg.ack = p->srv_isn + 1;
		seg.flags = WIRE_TH_RST | WIRE_TH_ACK;
		seg.ttl = 64;
		seg.flow_label = p->flow;
		if (sender_segment(snd, &seg) == 0)
			rsts++;
		else
			rst_fail++;
	}
	/* RSTs fit a slot: on the ring like SYNs; drained for the count */
	if (sender_drain(snd) < 0)
		rst_fail++;
	sender_stats(snd, &st);
	printf("rsts_sent=%d\n", rsts);
	claim(sm, rst_fail == 0 && st.segments == (uint64_t)rsts && rsts > 0,
	    "sender_segment sent %d RSTs, %d failed", rsts, rst_fail);

	/* options that are not whole words are refused */
	struct send_segment seg;
	uint8_t opt[3] = { 1, 1, 1 };

	memset(&seg, 0, sizeof(seg));
	seg.src = &o->tsrc[0];
	seg.dst = &o->tdst[0];
	seg.options = opt;
	seg.options_len = 3;
	errno = 0;
	claim(sm, sender_segment(snd, &seg) == -1 && errno == EINVAL,
	    "sender_segment refuses options not a multiple of 4");
}

int
main(int argc, char **argv)
{
	const char *xfilter = NULL;
	int xmode = 0, xwant = 0, guard_only = 0, hold_ms = 0;
	int bench_secs = 0, batch = 64, c;
	unsigned lo = 0, hi = 0;
	struct smoke sm;
	struct opts o;
	char err[256];

	memset(&sm, 0, sizeof(sm));
	memset(&o, 0, sizeof(o));
	o.dport = 80;
	o.wait_ms = 3000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "gt:c:p:u:r:H:W:b:B:xf:n:")) != -1) {
		switch (c) {
		case 'g': guard_only = 1; break;
		case 't':
			if (o.ntargets == MAX_TARGETS ||
			    parse_pair(optarg, &o.tsrc[o.ntargets], &o.tdst[o.ntargets]) == -1)
				usage();
			o.ntargets++;
			break;
		case 'c':
			if (sm.ncaps == MAX_CAPS)
				usage();
			o.caps[sm.ncaps++] = optarg;
			break;
		case 'p': o.dport = (unsigned)atoi(optarg); break;
		case 'u': o.unguarded = (unsigned)atoi(optarg); break;
		case 'r': o.render_file = optarg; break;
		case 'H': hold_ms = atoi(optarg); break;
		case 'W': o.wait_ms = atoi(optarg); break;
		case 'b': bench_secs = atoi(optarg); break;
		case 'B': batch = atoi(optarg); break;
		case 'x': xmode = 1; break;
		case 'f': xfilter = optarg; break;
		case 'n': xwant = atoi(optarg); break;
		default: usage();
		}
	}
	if (bench_secs > 0) {
		if (o.ntargets != 1)
			usage();
		return bench(&o.tsrc[0], &o.tdst[0], bench_secs, batch);
	}
	if (xmode) {
		if (xfilter == NULL || sm.ncaps == 0)
			usage();
		return capture_only(&sm, o.caps, xfilter, xwant, o.wait_ms);
	}
	if (!guard_only && (o.ntargets == 0 || sm.ncaps == 0))
		usage();

	if ((sm.base = event_base_new()) == NULL)
		return 1;
	struct event *sigterm = evsignal_new(sm.base, SIGTERM, on_signal, &sm);
	struct event *sigint = evsignal_new(sm.base, SIGINT, on_signal, &sm);
	evsignal_add(sigterm, NULL);
	evsignal_add(sigint, NULL);
	printf("pid=%ld\n", (long)getpid());

	/* --- guard ---------------------------------------------------------- */
	struct guard *g = guard_open(1, err, sizeof(err));
	claim(&sm, g != NULL, "guard_open%s%s", g ? "" : ": ", g ? "" : err);
	if (g == NULL)
		goto out;
	unsigned port_lo = guard_port_lo(g);
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	if (f == NULL || fscanf(f, "%u %u", &lo, &hi) != 2)
		lo = hi = 0;
	if (f != NULL)
		fclose(f);
	printf("port_lo=%u\n", port_lo);
	claim(&sm, hi > 0 && port_lo > hi && port_lo % GUARD_BLOCK_PORTS == 0 &&
	    port_lo + GUARD_BLOCK_PORTS - 1 <= 65535,
	    "port block %u-%u lies above ip_local_port_range %u-%u", port_lo,
	    port_lo + GUARD_BLOCK_PORTS - 1, lo, hi);
	int exists, drops;
	char tname[64];
	snprintf(tname, sizeof(tname), "%s", guard_name(g));
	table_state(tname, port_lo, &exists, &drops);
	claim(&sm, exists && drops, "nft lists table inet %s with a priority -300 "
	    "prerouting drop of tcp dport %u-%u addressed to this host", tname,
	    port_lo, port_lo + GUARD_BLOCK_PORTS - 1);

	struct sender *snd = NULL;
	if (guard_only)
		goto hold;

	/* --- route ---------------------------------------------------------- */
	int want4 = 0, want6 = 0;
	const struct addr *src4 = NULL, *src6 = NULL;
	for (int t = 0; t < o.ntargets; t++) {
		struct addr rsrc;
		char ifn[ROUTE_IFNAMSIZ] = "", b1[ADDR_STRLEN], b2[ADDR_STRLEN];
		int r = route_lookup(&o.tdst[t], NULL, &rsrc, ifn, err, sizeof(err));

		claim(&sm, r == 0 && addr_equal(&rsrc, &o.tsrc[t]) && ifn[0] != '\0',
		    "route to %s: source %s on %s%s%s", addr_format(&o.tdst[t], b1, sizeof(b1)),
		    r == 0 ? addr_format(&rsrc, b2, sizeof(b2)) : "-", ifn,
		    r == 0 ? "" : ": ", r == 0 ? "" : err);
		if (o.tdst[t].family == ADDR_V4) {
			want4 = 1;
			src4 = &o.tsrc[t];
		} else {
			want6 = 1;
			src6 = &o.tsrc[t];
		}
	}

	/* --- sender --------------------------------------------------------- */
	struct send_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.nvariants = NVARIANTS;
	memcpy(cfg.variant_scale, variant_scale, sizeof(variant_scale));
	cfg.batch = batch;
	snd = sender_open(&cfg, want4, want6, err, sizeof(err));
	claim(&sm, snd != NULL, "sender_open%s%s", snd ? "" : ": ", snd ? "" : err);
	if (snd == NULL)
		goto hold;
	check_render(&sm, snd, src4, src6);

	/* --- captures ------------------------------------------------------- */
	char filter[256], extra[32] = "";
	if (o.unguarded)
		snprintf(extra, sizeof(extra), " or dst port %u", o.unguarded);
	snprintf(filter, sizeof(filter), "tcp and (dst portrange %u-%u%s)", port_lo,
	    port_lo + GUARD_BLOCK_PORTS - 1, extra);
	for (int i = 0; i < sm.ncaps; i++) {
		struct capture_config cc = { o.caps[i], filter, 0, 0 };

		sm.capctx[i].sm = &sm;
		sm.capctx[i].idx = i;
		sm.caps[i] = capture_open(sm.base, &cc, on_packet, &sm.capctx[i], err,
		    sizeof(err));
		claim(&sm, sm.caps[i] != NULL, "capture_open %s [%s]%s%s", o.caps[i], filter,
		    sm.caps[i] ? "" : ": ", sm.caps[i] ? "" : err);
		if (sm.caps[i] == NULL)
			goto hold;
	}

	send_probes(&sm, snd, &o, port_lo);
	run_loop(&sm, o.wait_ms, 1);
	check_replies(&sm, o.caps);
	send_rsts(&sm, snd, &o);

hold:
	if (hold_ms > 0)
		run_loop(&sm, hold_ms, 0);
	if (sm.signalled)
		printf("ended by a signal\n");
	for (int i = 0; i < sm.ncaps; i++)
		capture_close(sm.caps[i]);
	sender_close(snd);
	guard_close(g);
	table_state(tname, port_lo, &exists, &drops);
	claim(&sm, !exists, "after guard_close nft no longer lists table inet %s", tname);
out:
	event_free(sigterm);
	event_free(sigint);
	event_base_free(sm.base);
	printf("wire_smoke: %d passed, %d failed\n", sm.pass, sm.fail);
	return sm.fail == 0 ? 0 : 1;
}
