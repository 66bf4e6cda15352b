/*
 * probe_run.c -- the event loop of one run: a timer drives the engine, each
 * interface's capture feeds it, SIGINT/SIGTERM end it cleanly (so the
 * guard's nftables table is always removed).  Privileged resources (the
 * guard's table, raw sockets, captures) are opened before the loop starts.
 */
#include <sys/random.h>

#include <errno.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "guard.h"
#include "log.h"
#include "probe_run.h"
#include "request.h"
#include "send.h"

#define PROBE_TTL		64
#define PROBE_TRACE_MAX_TTL	30
#define PROBE_TRACE_GAP_NS	5000000u	/* 5 ms between TTL levels */
#define PROBE_MAX_TRACES	256	/* ~40 KiB each while it runs */
#define PROBE_TRACE_PACE	1	/* trace probes per second per TTL at the
					   start and at least: a Linux router's
					   ICMP rate (hop_pace.h) */
#define PROBE_MAX_WINDOWS	64	/* paths window-testing at once */
#define PROBE_HTTP_PORT		80
#define PROBE_TLS_PORT		443
#define PROBE_INFLIGHT_MIN	256
#define PROBE_INFLIGHT_MAX	(1u << 20)
#define PROBE_SNAPLEN		256	/* IP + TCP with options, or an ICMP
					   error quoting all of that */
#define PROBE_CAPTURE_BUFFER	(4 * 1024 * 1024)	/* the ring is resident
					   memory: ~14,000 frames of 256 bytes */

struct run {
	const struct probe_run_config *cfg;
	struct event_base *base;
	struct event *timer, *progress, *sigint, *sigterm, *sighup;
	struct event *more;		/* paths_next paused: ask again */
	struct guard *guard;
	struct sender *sender;
	struct capture *cap[PATHS_MAX_IFACES];
	int ncap;
	struct engine *engine;
	char filter[256];		/* the captures' BPF filter */
	bool run_now;			/* the timer is set to fire at once */
	bool drops_fresh;		/* drops read in this run of the engine */
	uint64_t drops;			/* capture drops, as last read */
	bool interrupted;
	bool failed;			/* on_result could not hand a result on */
	int send_errno;			/* the last send error logged */
	bool cap_told[PATHS_MAX_IFACES];	/* its failure was logged */
	char cap_why[PATHS_MAX_IFACES][160];	/* "ifname: why" */
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * ENGINE_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* --- engine callbacks ---------------------------------------------------- */

static int run_captures(struct run *r);

/* The next path of the walk; a path through an interface not seen
 * before gets its capture first (paths are found lazily, so interfaces
 * are too).  An error ends the run. */
static int
run_next_path(void *arg, struct engine_path *out)
{
	struct run *r = arg;
	struct path p;
	int rc;

	if (r->failed)
		return 0;
	if ((rc = paths_next(r->cfg->paths, &p)) == 1 && p.iface >= r->ncap &&
	    run_captures(r) != 0)
		rc = -1;
	if (rc == PATHS_LATER) {
		/* a pause in a long skip: on at the loop's next turn */
		if (r->cfg->paths->more_now)
			event_active(r->more, EV_TIMEOUT, 0);
		return ENGINE_PATH_LATER;
	}
	if (rc != 1) {
		if (rc < 0) {
			r->failed = true;
			event_base_loopexit(r->base, NULL);
		}
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->target = p.target;
	out->dst = p.dst;
	out->src = p.src;
	out->port = p.port;
	out->host = p.host;
	out->capture = p.iface;
	clock_gettime(CLOCK_REALTIME, &out->wall);
	return 1;
}

static int
run_send_syn(void *arg, const struct send_syn *syn)
{
	struct run *r = arg;

	return sender_syn(r->sender, syn);
}

static int
run_send_segment(void *arg, const struct send_segment *seg)
{
	struct run *r = arg;

	return sender_segment(r->sender, seg);
}

/* The window test's request: the payload for the port when given, else
 * the payload for any port, else an HTTP GET on 80 and a TLS ClientHello
 * on 443; nothing (no test) on other ports. */
static size_t
run_request(void *arg, const struct engine_path *p, uint8_t *buf, size_t cap)
{
	struct run *r = arg;
	char lit[ADDR_STRLEN];
	const char *host = p->host != NULL ? p->host :
	    addr_format(&p->dst, lit, sizeof(lit));
	const struct probe_payload *pl = NULL;

	for (size_t i = 0; i < r->cfg->npayloads; i++)
		if (r->cfg->payloads[i].port == p->port ||
		    (r->cfg->payloads[i].port == 0 && pl == NULL))
			pl = &r->cfg->payloads[i];
	if (pl != NULL) {
		if (pl->len > cap)
			return 0;
		memcpy(buf, pl->bytes, pl->len);
		return pl->len;
	}
	if (p->port == PROBE_HTTP_PORT)
		return request_http(buf, cap, host, r->cfg->contact);
	if (p->port == PROBE_TLS_PORT)
		return request_tls(buf, cap, p->host, (uint64_t)p->wall.tv_nsec ^
		    (uint64_t)p->wall.tv_sec << 30);
	return 0;
}

static size_t
run_render_syn(void *arg, const struct send_syn *syn, uint8_t *buf, size_t cap)
{
	struct run *r = arg;

	return sender_render_syn(r->sender, syn, buf, cap);
}

/* Sends what is queued.  A failure is logged once per kind of error (a
 * route gone fails every packet: one line, not thousands); the count is
 * charged to the paths in flight and -v prints it. */
static void
run_flush(void *arg)
{
	struct run *r = arg;

	if (sender_flush(r->sender) < 0 && errno != r->send_errno) {
		r->send_errno = errno;
		log_warn("send (the paths in flight end inconclusive; logged once)");
	}
}

static uint64_t
run_send_failures(void *arg)
{
	struct run *r = arg;
	struct send_stats st;

	sender_stats(r->sender, &st);
	return st.errors;
}

static void
run_drain(void *arg)
{
	struct run *r = arg;

	for (int i = 0; i < r->ncap; i++)
		capture_drain(r->cap[i]);
	r->drops_fresh = false;	/* silence is judged next: read them anew */
}

static uint64_t
run_capture_drops(void *arg)
{
	struct run *r = arg;
	uint64_t drops = 0;

	/* asked as every path starts and ends: read once per run of the
	 * engine and after each drain, not once per path (a system call
	 * per capture each time) */
	if (r->drops_fresh)
		return r->drops;
	for (int i = 0; i < r->ncap; i++) {
		struct capture_stats st;
		if (capture_stats(r->cap[i], &st) == 0)
			drops += st.dropped + st.ifdropped;
	}
	r->drops = drops;
	r->drops_fresh = true;
	return drops;
}

/* Why capture i stopped, "ifname: why", logged the first time it is
 * seen; NULL while it works. */
static const char *
run_capture_failure(void *arg, int i)
{
	struct run *r = arg;
	const char *why;

	if (i < 0 || i >= r->ncap || (why = capture_error(r->cap[i])) == NULL)
		return NULL;
	if (!r->cap_told[i]) {
		r->cap_told[i] = true;
		snprintf(r->cap_why[i], sizeof(r->cap_why[i]), "%s: %s",
		    r->cfg->paths->ifnames[i], why);
		log_warnx("capture on %s; the paths through it end inconclusive",
		    r->cap_why[i]);
	}
	return r->cap_why[i];
}

static void
run_done(void *arg, struct path_result *res)
{
	struct run *r = arg;

	if (r->failed)
		return;
	if (r->cfg->on_result(r->cfg->arg, res) != 0) {
		r->failed = true;
		event_base_loopexit(r->base, NULL);
	}
}

/* --- events -------------------------------------------------------------- */

static void
run_schedule(struct run *r, uint64_t now, uint64_t next)
{
	struct timeval tv;
	uint64_t wait;

	if (engine_finished(r->engine)) {
		event_base_loopexit(r->base, NULL);
		return;
	}
	wait = next > now ? next - now : 0;
	tv.tv_sec = (time_t)(wait / ENGINE_NS_PER_SEC);
	tv.tv_usec = (suseconds_t)((wait % ENGINE_NS_PER_SEC) / 1000);
	evtimer_add(r->timer, &tv);
}

static void
run_tick(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	uint64_t now = now_ns();
	uint64_t next;

	(void)fd;
	(void)what;
	r->drops_fresh = false;
	next = engine_run(r->engine, now);

	/* input read during the run (the drain before a deadline) may have
	 * made something due that this run did not see */
	r->run_now = false;
	if (engine_wants_run(r->engine))
		next = now;
	/* a capture that failed is told at once, not when a path ends */
	for (int i = 0; i < r->ncap; i++)
		(void)run_capture_failure(r, i);
	run_schedule(r, now, next);
}

static void
run_packet(void *arg, const uint8_t *pkt, size_t len, const struct timeval *ts)
{
	struct run *r = arg;

	(void)ts;
	engine_input(r->engine, now_ns(), pkt, len);
	/* what the reply made due (a RST, a window test's ACK, the next
	 * stage, a result) goes out now, not at the next deadline */
	if (engine_wants_run(r->engine) && !r->run_now) {
		r->run_now = true;
		run_schedule(r, 0, 0);
	}
}

static void run_names_ready(void *arg);

static void
run_more(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	run_names_ready(arg);
}

/* A name's addresses came: the engine may admit them now. */
static void
run_names_ready(void *arg)
{
	struct run *r = arg;

	if (r->engine == NULL)
		return;
	engine_paths_ready(r->engine);
	if (!r->run_now) {
		r->run_now = true;
		run_schedule(r, 0, 0);
	}
}

static void
run_signal(evutil_socket_t sig, short what, void *arg)
{
	struct run *r = arg;

	(void)what;
	log_warnx("%s: stopping", strsignal((int)sig));
	r->interrupted = true;
	event_base_loopexit(r->base, NULL);
}

static void
run_progress(evutil_socket_t fd, short what, void *arg)
{
	struct run *r = arg;
	struct engine_counters n;

	(void)fd;
	(void)what;
	engine_counters(r->engine, &n);
	fprintf(stderr, "\rscaleprobe: %llu/%llu paths done, %zu in flight, %llu SYNs sent  ",
	    (unsigned long long)n.paths_done, (unsigned long long)r->cfg->paths->total,
	    engine_inflight(r->engine), (unsigned long long)n.syns_sent);
}

/* --- set-up -------------------------------------------------------------- */

/* TCP to our port block, and the ICMP errors that could quote our SYNs. */
/* the window test's second connections send from the same guarded block */
_Static_assert(ENGINE_SECOND_PORTS + SEND_MAX_VARIANTS <= GUARD_BLOCK_PORTS,
    "the second connections' ports lie outside the guard's block");

static void
run_filter(char *buf, size_t len, uint16_t lo, int nvariants)
{
	snprintf(buf, len,
	    "(tcp and dst portrange %u-%u) or "
	    "(icmp and (icmp[0] == 3 or icmp[0] == 11)) or "
	    "(icmp6 and (ip6[40] == 1 or ip6[40] == 3))",
	    lo, lo + ENGINE_SECOND_PORTS + nvariants - 1);
}

static size_t
run_inflight(const struct probe_run_config *cfg)
{
	/* enough paths to keep the rate busy over a path's longest life
	 * (every attempt timing out), and never unbounded */
	uint64_t life_s = cfg->timeout_ns * (uint64_t)(cfg->retries + 1) /
	    ENGINE_NS_PER_SEC + 1;
	uint64_t n = (uint64_t)cfg->rate * life_s / (uint64_t)(cfg->nscales + 1);

	if (cfg->max_inflight > 0)
		return cfg->max_inflight;
	if (n < PROBE_INFLIGHT_MIN)
		n = PROBE_INFLIGHT_MIN;
	if (n > PROBE_INFLIGHT_MAX)
		n = PROBE_INFLIGHT_MAX;
	return (size_t)n;
}

/* Opens the capture of every interface the paths have shown so far. */
static int
run_captures(struct run *r)
{
	char err[512];

	while (r->ncap < r->cfg->paths->nifaces) {
		struct capture_config cc;
		int i = r->ncap;

		memset(&cc, 0, sizeof(cc));
		cc.ifname = r->cfg->paths->ifnames[i];
		cc.filter = r->filter;
		cc.snaplen = PROBE_SNAPLEN;
		cc.buffer_bytes = PROBE_CAPTURE_BUFFER;
		r->cap[i] = capture_open(r->base, &cc, run_packet, r, err, sizeof(err));
		if (r->cap[i] == NULL) {
			log_warnx("%s", err);
			return -1;
		}
		r->ncap++;
	}
	return 0;
}

static int
run_open(struct run *r)
{
	const struct probe_run_config *cfg = r->cfg;
	struct send_config sc;
	struct engine_config ec;
	struct engine_ops ops;
	char err[512];

	if ((r->guard = guard_open(err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}

	memset(&sc, 0, sizeof(sc));
	memset(&ec, 0, sizeof(ec));
	sc.nvariants = ec.nvariants = cfg->nscales + 1;
	sc.variant_scale[0] = ec.variant_scale[0] = SEND_VARIANT_CONTROL;
	for (int i = 0; i < cfg->nscales; i++)
		sc.variant_scale[i + 1] = ec.variant_scale[i + 1] = cfg->scales[i];
	sc.mss = 1460;
	sc.window = 64240;
	sc.batch = 64;
	r->sender = sender_open(&sc, cfg->paths->want_v4, cfg->paths->want_v6,
	    err, sizeof(err));
	if (r->sender == NULL) {
		log_warnx("%s", err);
		return -1;
	}

	run_filter(r->filter, sizeof(r->filter), guard_port_lo(r->guard), sc.nvariants);
	if (run_captures(r) != 0)
		return -1;

	ec.rate = cfg->rate;
	ec.timeout_ns = cfg->timeout_ns;
	ec.retries = cfg->retries;
	ec.port_lo = guard_port_lo(r->guard);
	ec.max_inflight = run_inflight(cfg);
	ec.ttl = PROBE_TTL;
	ec.trace = cfg->trace;
	ec.trace_max_ttl = PROBE_TRACE_MAX_TTL;
	ec.trace_gap_ns = PROBE_TRACE_GAP_NS;
	ec.max_traces = PROBE_MAX_TRACES;
	ec.trace_pace = PROBE_TRACE_PACE;
	ec.window_test = cfg->window_test;
	ec.max_windows = PROBE_MAX_WINDOWS;
	if (getrandom(ec.key, sizeof(ec.key), 0) != (ssize_t)sizeof(ec.key)) {
		log_warn("getrandom");
		return -1;
	}
	memset(&ops, 0, sizeof(ops));
	ops.arg = r;
	ops.next_path = run_next_path;
	ops.send_syn = run_send_syn;
	ops.send_segment = run_send_segment;
	ops.render_syn = run_render_syn;
	ops.request = run_request;
	ops.flush = run_flush;
	ops.drain = run_drain;
	ops.capture_drops = run_capture_drops;
	ops.capture_failure = run_capture_failure;
	ops.send_failures = run_send_failures;
	ops.done = run_done;
	if ((r->engine = engine_new(&ec, &ops)) == NULL) {
		log_warnx("engine: bad configuration");
		return -1;
	}
	/* names resolve while the prefixes and addresses are probed */
	if (paths_resolve(cfg->paths, r->base, run_names_ready, r) != 0)
		return -1;
	return 0;
}

static void
run_close(struct run *r, struct probe_run_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (r->engine != NULL)
		engine_counters(r->engine, &stats->n);
	for (int i = 0; i < r->ncap; i++) {
		struct capture_stats st;
		if (capture_stats(r->cap[i], &st) == 0) {
			stats->captured += st.received;
			stats->capture_drops += st.dropped + st.ifdropped;
		}
		capture_close(r->cap[i]);
	}
	stats->interrupted = r->interrupted;
	engine_free(r->engine);
	if (r->sender != NULL)
		sender_close(r->sender);
	if (r->guard != NULL)
		guard_close(r->guard);
	if (r->timer != NULL)
		event_free(r->timer);
	if (r->more != NULL)
		event_free(r->more);
	if (r->progress != NULL)
		event_free(r->progress);
	if (r->sigint != NULL)
		event_free(r->sigint);
	if (r->sigterm != NULL)
		event_free(r->sigterm);
	if (r->sighup != NULL)
		event_free(r->sighup);
	if (r->base != NULL)
		event_base_free(r->base);
}

int
probe_run(const struct probe_run_config *cfg, struct probe_run_stats *stats)
{
	struct run r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	r.cfg = cfg;
	if ((r.base = event_base_new()) == NULL) {
		log_warnx("event_base_new failed");
		goto out;
	}
	/* signals first: a SIGTERM while the table exists must remove it; a
	 * closed terminal (SIGHUP) ends the run as they do, and a closed
	 * pipe on stdout is a write error (EPIPE), not a death by SIGPIPE */
	r.sigint = evsignal_new(r.base, SIGINT, run_signal, &r);
	r.sigterm = evsignal_new(r.base, SIGTERM, run_signal, &r);
	r.sighup = evsignal_new(r.base, SIGHUP, run_signal, &r);
	r.timer = evtimer_new(r.base, run_tick, &r);
	r.more = event_new(r.base, -1, 0, run_more, &r);
	if (r.more == NULL || r.sigint == NULL || r.sigterm == NULL || r.sighup == NULL || r.timer == NULL ||
	    evsignal_add(r.sigint, NULL) == -1 || evsignal_add(r.sigterm, NULL) == -1 ||
	    evsignal_add(r.sighup, NULL) == -1 || signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		log_warnx("cannot set up the event loop");
		goto out;
	}
	if (run_open(&r) != 0)
		goto out;
	if (cfg->progress) {
		struct timeval sec = { 1, 0 };
		r.progress = event_new(r.base, -1, EV_PERSIST, run_progress, &r);
		if (r.progress != NULL)
			event_add(r.progress, &sec);
	}
	run_schedule(&r, 0, 0);
	if (event_base_dispatch(r.base) == -1) {
		log_warnx("event loop failed");
		goto out;
	}
	if (cfg->progress)
		fprintf(stderr, "\n");
	rc = r.failed ? -1 : 0;
out:
	run_close(&r, stats);
	return rc;
}
