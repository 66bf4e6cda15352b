/*
 * probe_run.c -- the runner on the caller's event loop: a timer drives the
 * engine, each interface's capture feeds it, batches of paths are walked
 * in the order given; and probe_run(), the CLI's one batch on a loop of
 * its own where SIGINT/SIGTERM end it cleanly (so the guard's nftables
 * table is always removed).  The guard's table and the raw sockets are
 * opened with the runner, captures as interfaces appear; new probing
 * settings make a new engine once the batches before them are done.
 */
#include <sys/random.h>

#include <errno.h>
#include <math.h>
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "guard.h"
#include "infer.h"
#include "log.h"
#include "probe_run.h"
#include "request.h"
#include "send.h"

#define PROBE_TRACE_MAX_TTL	30
#define PROBE_TRACE_GAP_NS	5000000u	/* 5 ms between TTL levels */
#define PROBE_MAX_TRACES	256	/* ~40 KiB each while it runs */
#define PROBE_TRACE_PACE	1	/* trace probes per second per TTL at the
					   start and at least: a Linux router's
					   ICMP rate (hop_pace.h) */
#define PROBE_MAX_WINDOWS	512	/* paths window-testing at once: a
					   test mostly waits on its rounds'
					   quiet time, so a high --rate needs
					   many at once to keep the CPU busy;
					   past 512 (~8.6 KiB each, ~4.4 MiB
					   in all) more gain little
					   (prober/design-notes.md "The
					   engine").  At a low rate the rate's
					   share per connection admits fewer */
#define PROBE_HTTP_PORT		80
#define PROBE_TLS_PORT		443
#define PROBE_INFLIGHT_MIN	256
#define PROBE_INFLIGHT_MAX	(1u << 14)	/* derived, at most: ~512 bytes
					   each, 8 MiB; --max-inflight may ask
					   for more (up to 1,048,576) */
#define PROBE_SNAPLEN		256	/* IP + TCP with options, or an ICMP
					   error quoting all of that */
#define PROBE_CAPTURE_BUFFER	(4 * 1024 * 1024)	/* the ring is resident
					   memory: ~14,000 frames of 256 bytes */

/* A batch: one paths walk and the paths of it still in flight. */
struct batch {
	struct paths *p;
	void *tag;
	size_t inflight;
	bool walked;			/* paths_next said 0 (or failed) */
	bool error;			/* ... failed: the run cannot go on */
	unsigned gen;			/* the settings it was added under */
	struct batch *next;
};

struct runner {
	const struct runner_config *cfg;
	struct probe_settings ps;	/* the engine's, copied */
	struct probe_settings next;	/* runner_configure's, until applied */
	bool have_next;
	unsigned gen, gen_next;		/* ps's and the batches added now */
	uint8_t key[16];		/* the cookies' key: one for the runner's
					   life, so late replies stay ours */
	struct engine_counters past;	/* of the engines replaced */
	struct send_config sc;
	struct event_base *base;
	struct event *timer;
	struct event *more;		/* paths_next paused: ask again */
	struct event *ended;		/* batches to tell done */
	struct guard *guard;
	struct sender *sender;
	struct capture *cap[PATHS_MAX_IFACES];
	char ifnames[PATHS_MAX_IFACES][ROUTE_IFNAMSIZ];
	int ncap;
	struct engine *engine;
	struct batch *head, **tail;
	size_t nbatches;
	char filter[256];		/* the captures' BPF filter */
	bool run_now;			/* the timer is set to fire at once */
	bool drops_fresh;		/* drops read in this run of the engine */
	uint64_t drops;			/* capture drops, as last read */
	bool failed;			/* on_result could not hand a result on */
	bool finishing, idle_told;
	bool batch_error;		/* a walk failed (too many interfaces) */
	uint64_t duplicates;
	int send_errno;			/* the last send error logged */
	bool cap_told[PATHS_MAX_IFACES];	/* its failure was logged */
	char cap_why[PATHS_MAX_IFACES][160];	/* "ifname: why" */
};

static uint64_t
run_timeout_ns(const struct probe_settings *ps)
{
	return (uint64_t)llround(ps->timeout * 1e9);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * ENGINE_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* --- engine callbacks ---------------------------------------------------- */

static void run_packet(void *arg, const uint8_t *pkt, size_t len, const struct timeval *ts);

/* The capture of interface name, opened the first time a path goes
 * through it (paths are found lazily, so interfaces are too): its index,
 * or -1 after logging why. */
static int
run_capture_of(struct runner *r, const char *name)
{
	struct capture_config cc;
	char err[512];
	int i;

	for (i = 0; i < r->ncap; i++)
		if (strcmp(r->ifnames[i], name) == 0)
			return i;
	if (r->ncap == PATHS_MAX_IFACES) {
		log_warnx("%s: more than %d interfaces", name, PATHS_MAX_IFACES);
		return -1;
	}
	snprintf(r->ifnames[i], sizeof(r->ifnames[i]), "%s", name);
	memset(&cc, 0, sizeof(cc));
	cc.ifname = r->ifnames[i];
	cc.filter = r->filter;
	cc.snaplen = PROBE_SNAPLEN;
	cc.buffer_bytes = PROBE_CAPTURE_BUFFER;
	r->cap[i] = capture_open(r->base, &cc, run_packet, r, err, sizeof(err));
	if (r->cap[i] == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	return r->ncap++;
}

static void
run_batch_walked(struct runner *r, struct batch *b)
{
	b->walked = true;
	if (b->inflight == 0)
		event_active(r->ended, EV_TIMEOUT, 0);
}

/* The next path: from the first batch that has one ready; LATER while a
 * batch waits for names (or for more batches: the daemon's runner never
 * runs dry until runner_finish). */
static int
run_next_path(void *arg, struct engine_path *out)
{
	struct runner *r = arg;
	bool later = false;

	if (r->failed)
		return 0;
	for (struct batch *b = r->head; b != NULL; b = b->next) {
		struct path p;
		int rc, cap;

		/* added under newer settings: they wait for this engine's end */
		if (b->gen != r->gen) {
			later = true;
			break;
		}

		while (!b->walked) {
			rc = paths_next(b->p, &p);
			if (rc == PATHS_LATER) {
				/* a pause in a long skip: on at the loop's next turn */
				if (b->p->more_now)
					event_active(r->more, EV_TIMEOUT, 0);
				later = true;
				break;
			}
			if (rc != 1) {
				if (rc < 0)
					b->error = r->batch_error = true;
				run_batch_walked(r, b);
				break;
			}
			if ((cap = run_capture_of(r, b->p->ifnames[p.iface])) < 0) {
				b->error = r->batch_error = true;
				run_batch_walked(r, b);
				break;
			}
			if (engine_has_path(r->engine, &p.dst, p.port)) {
				/* another batch probes it now: that result serves */
				r->duplicates++;
				continue;
			}
			memset(out, 0, sizeof(*out));
			out->target = p.target;
			out->dst = p.dst;
			out->src = p.src;
			out->port = p.port;
			out->host = p.host;
			out->capture = cap;
			out->tag = b;
			clock_gettime(CLOCK_REALTIME, &out->wall);
			b->inflight++;
			return 1;
		}
	}
	if (later || !r->finishing)
		return ENGINE_PATH_LATER;
	return 0;
}

static int
run_send_syn(void *arg, const struct send_syn *syn)
{
	struct runner *r = arg;

	return sender_syn(r->sender, syn);
}

static int
run_send_segment(void *arg, const struct send_segment *seg)
{
	struct runner *r = arg;

	return sender_segment(r->sender, seg);
}

/* The window test's request: the payload for the port when given, else
 * the payload for any port, else an HTTP GET on 80 and a TLS ClientHello
 * on 443; nothing (no test) on other ports. */
static size_t
run_request(void *arg, const struct engine_path *p, uint8_t *buf, size_t cap)
{
	struct runner *r = arg;
	char lit[ADDR_STRLEN];
	const char *host = p->host != NULL ? p->host :
	    addr_format(&p->dst, lit, sizeof(lit));
	const struct probe_payload *pl = NULL;

	for (size_t i = 0; i < r->ps.npayloads; i++)
		if (r->ps.payloads[i].port == p->port ||
		    (r->ps.payloads[i].port == 0 && pl == NULL))
			pl = &r->ps.payloads[i];
	if (pl != NULL) {
		if (pl->len > cap)
			return 0;
		memcpy(buf, pl->bytes, pl->len);
		return pl->len;
	}
	if (p->port == PROBE_HTTP_PORT)
		return request_http(buf, cap, host, r->ps.contact);
	if (p->port == PROBE_TLS_PORT)
		return request_tls(buf, cap, p->host, (uint64_t)p->wall.tv_nsec ^
		    (uint64_t)p->wall.tv_sec << 30);
	return 0;
}

static size_t
run_render_syn(void *arg, const struct send_syn *syn, uint8_t *buf, size_t cap)
{
	struct runner *r = arg;

	return sender_render_syn(r->sender, syn, buf, cap);
}

/* Sends what is queued.  A failure is logged once per kind of error (a
 * route gone fails every packet: one line, not thousands); the count is
 * charged to the paths in flight and -v prints it. */
static void
run_flush(void *arg)
{
	struct runner *r = arg;

	if (sender_flush(r->sender) < 0 && errno != r->send_errno) {
		r->send_errno = errno;
		log_warn("send (the paths in flight end inconclusive; logged once)");
	}
}

static uint64_t
run_send_failures(void *arg)
{
	struct runner *r = arg;
	struct send_stats st;

	sender_stats(r->sender, &st);
	return st.errors;
}

static void
run_drain(void *arg)
{
	struct runner *r = arg;

	for (int i = 0; i < r->ncap; i++)
		capture_drain(r->cap[i]);
	r->drops_fresh = false;	/* silence is judged next: read them anew */
}

static uint64_t
run_capture_drops(void *arg)
{
	struct runner *r = arg;
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
	struct runner *r = arg;
	const char *why;

	if (i < 0 || i >= r->ncap || (why = capture_error(r->cap[i])) == NULL)
		return NULL;
	if (!r->cap_told[i]) {
		char name[ROUTE_IFNAMSIZ];

		memcpy(name, r->ifnames[i], sizeof(name));
		r->cap_told[i] = true;
		snprintf(r->cap_why[i], sizeof(r->cap_why[i]), "%s: %s", name, why);
		log_warnx("capture on %s; the paths through it end inconclusive",
		    r->cap_why[i]);
	}
	return r->cap_why[i];
}

/* A path's end: judged here, so that every caller stores and prints the
 * same verdicts. */
static void
run_done(void *arg, struct path_result *res)
{
	struct runner *r = arg;
	struct batch *b = (struct batch *)(uintptr_t)res->tag;

	infer_path(res);
	if (!r->failed && r->cfg->on_result(r->cfg->arg, b->tag, res) != 0) {
		r->failed = true;
		event_active(r->ended, EV_TIMEOUT, 0);
	}
	if (--b->inflight == 0 && b->walked)
		event_active(r->ended, EV_TIMEOUT, 0);
}

/* --- events -------------------------------------------------------------- */

static void
run_schedule(struct runner *r, uint64_t now, uint64_t next)
{
	struct timeval tv;
	uint64_t wait;

	if (engine_finished(r->engine)) {
		event_active(r->ended, EV_TIMEOUT, 0);
		return;
	}
	/* idle (nothing in flight, waiting for batches): no timer at all */
	if (next == ENGINE_NEVER)
		return;
	wait = next > now ? next - now : 0;
	tv.tv_sec = (time_t)(wait / ENGINE_NS_PER_SEC);
	tv.tv_usec = (suseconds_t)((wait % ENGINE_NS_PER_SEC) / 1000);
	evtimer_add(r->timer, &tv);
}

static void
run_tick(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
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
	/* the last RST owed may have left: new settings can take over */
	if (r->have_next && engine_idle(r->engine))
		event_active(r->ended, EV_TIMEOUT, 0);
	run_schedule(r, now, next);
}

static void
run_kick(struct runner *r)
{
	if (!r->run_now) {
		r->run_now = true;
		evtimer_del(r->timer);
		run_schedule(r, 0, 0);
	}
}

static void
run_packet(void *arg, const uint8_t *pkt, size_t len, const struct timeval *ts)
{
	struct runner *r = arg;

	(void)ts;
	engine_input(r->engine, now_ns(), pkt, len);
	/* what the reply made due (a RST, a window test's ACK, the next
	 * stage, a result) goes out now, not at the next deadline */
	if (engine_wants_run(r->engine))
		run_kick(r);
}

/* A name's addresses came, or a batch was added: the engine may admit
 * paths now. */
static void
run_names_ready(void *arg)
{
	struct runner *r = arg;

	if (r->engine == NULL)
		return;
	engine_paths_ready(r->engine);
	run_kick(r);
}

static void
run_more(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	run_names_ready(arg);
}

static int run_engine_new(struct runner *r);

/* a replaced engine's counters into the runner's: sums, and the peaks */
static void
run_counters_add(struct engine_counters *to, const struct engine_counters *n)
{
	to->paths_started += n->paths_started;
	to->paths_done += n->paths_done;
	to->syns_sent += n->syns_sent;
	to->retries_sent += n->retries_sent;
	to->rsts_sent += n->rsts_sent;
	to->send_errors += n->send_errors;
	to->synacks += n->synacks;
	to->rsts += n->rsts;
	to->icmp_errors += n->icmp_errors;
	to->paths_traced += n->paths_traced;
	to->trace_sent += n->trace_sent;
	to->trace_hops += n->trace_hops;
	to->trace_dest += n->trace_dest;
	to->paths_windowed += n->paths_windowed;
	to->window_sent += n->window_sent;
	to->rejected += n->rejected;
	to->replayed += n->replayed;
	to->late += n->late;
	to->ignored += n->ignored;
	if (n->mem_peak > to->mem_peak) {
		to->mem_peak = n->mem_peak;
		to->mem_peak_paths = n->mem_peak_paths;
	}
	if (n->inflight_peak > to->inflight_peak)
		to->inflight_peak = n->inflight_peak;
}

/* The settings runner_configure gave take over: a new engine (the old
 * one's counters kept) and the sender's templates for the new scales. */
static void
run_switch(struct runner *r)
{
	struct probe_settings old = r->ps;
	struct engine *e = r->engine;
	struct send_config sc = r->sc;
	char err[512] = "";

	r->ps = r->next;
	r->have_next = false;
	memset(&r->next, 0, sizeof(r->next));
	if (run_engine_new(r) != 0 ||
	    sender_set_variants(r->sender, &r->sc, err, sizeof(err)) != 0) {
		if (err[0] != '\0')
			log_warnx("%s", err);
		if (r->engine != e)
			engine_free(r->engine);
		/* the settings in force stay (the table checked the new ones:
		 * only memory could refuse them) */
		log_warnx("the new probing settings cannot be applied; the old ones stay");
		r->engine = e;
		r->sc = sc;
		probe_settings_free(&r->ps);
		r->ps = old;
	} else {
		struct engine_counters n;

		engine_counters(e, &n);
		run_counters_add(&r->past, &n);
		engine_free(e);
		probe_settings_free(&old);
		log_info("the new probing settings are in force");
	}
	r->gen = r->gen_next;
	evtimer_del(r->timer);
	r->run_now = false;
	run_names_ready(r);
}

/* Batches walked with nothing in flight are told done, in order of
 * arrival; then, after runner_finish, the runner's end. */
static void
run_ended(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	struct batch **pp = &r->head, *b;

	(void)fd;
	(void)what;
	while ((b = *pp) != NULL) {
		if (!b->walked || b->inflight > 0) {
			pp = &b->next;
			continue;
		}
		*pp = b->next;
		if (r->tail == &b->next)
			r->tail = pp;
		r->nbatches--;
		if (r->cfg->on_batch != NULL)
			r->cfg->on_batch(r->cfg->arg, b->tag);
		free(b);
	}
	/* the batches of the settings in force are done: the next ones' */
	if (r->have_next && !r->failed && (r->head == NULL || r->head->gen != r->gen) &&
	    engine_idle(r->engine))
		run_switch(r);
	if (r->finishing && !r->idle_told && (r->failed ||
	    (r->nbatches == 0 && engine_finished(r->engine)))) {
		r->idle_told = true;
		if (r->cfg->on_idle != NULL)
			r->cfg->on_idle(r->cfg->arg);
	}
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

size_t
runner_max_inflight(const struct probe_settings *ps)
{
	/* enough paths to keep the rate busy over a path's longest life
	 * (every attempt timing out), and never more than a few MiB: paths
	 * that answer leave within an RTT, so only a list of silent
	 * addresses probed flat out meets the bound (16,384 paths of 6 s:
	 * ~2,700 paths a second), and --max-inflight lifts it */
	uint64_t life_s = run_timeout_ns(ps) * (uint64_t)(ps->retries + 1) /
	    ENGINE_NS_PER_SEC + 1;
	uint64_t n = (uint64_t)ps->rate * life_s / (uint64_t)(ps->nscales + 1);

	if (ps->max_inflight > 0)
		return ps->max_inflight;
	if (n < PROBE_INFLIGHT_MIN)
		n = PROBE_INFLIGHT_MIN;
	if (n > PROBE_INFLIGHT_MAX)
		n = PROBE_INFLIGHT_MAX;
	return (size_t)n;
}

/* The sender's variants from r->ps: the control SYN, then each scale;
 * the one place the scale list becomes probes. */
static void
run_variants(struct runner *r)
{
	r->sc.nvariants = r->ps.nscales + 1;
	r->sc.variant_scale[0] = SEND_VARIANT_CONTROL;
	for (int i = 0; i < r->ps.nscales; i++)
		r->sc.variant_scale[i + 1] = r->ps.scales[i];
}

/* An engine for r->ps (and r->sc's variants, which run_variants sets). */
static int
run_engine_new(struct runner *r)
{
	const struct probe_settings *ps = &r->ps;
	struct engine_config ec;
	struct engine_ops ops;

	run_variants(r);
	memset(&ec, 0, sizeof(ec));
	ec.nvariants = r->sc.nvariants;
	memcpy(ec.variant_scale, r->sc.variant_scale, sizeof(ec.variant_scale));
	ec.rate = ps->rate;
	ec.timeout_ns = run_timeout_ns(ps);
	ec.retries = (int)ps->retries;
	ec.port_lo = guard_port_lo(r->guard);
	ec.max_inflight = runner_max_inflight(ps);
	ec.ttl = (uint8_t)ps->syn_ttl;
	ec.trace = ps->trace;
	ec.trace_max_ttl = PROBE_TRACE_MAX_TTL;
	ec.trace_gap_ns = PROBE_TRACE_GAP_NS;
	ec.max_traces = PROBE_MAX_TRACES;
	ec.trace_pace = PROBE_TRACE_PACE;
	ec.window_test = ps->window_test;
	ec.no_evidence = r->cfg->no_evidence;
	ec.max_windows = PROBE_MAX_WINDOWS;
	memcpy(ec.key, r->key, sizeof(ec.key));
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
	return 0;
}

static int
run_open(struct runner *r)
{
	char err[512];

	r->timer = evtimer_new(r->base, run_tick, r);
	r->more = event_new(r->base, -1, 0, run_more, r);
	r->ended = event_new(r->base, -1, 0, run_ended, r);
	if (r->timer == NULL || r->more == NULL || r->ended == NULL) {
		log_warnx("cannot set up the event loop");
		return -1;
	}
	if ((r->guard = guard_open(err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	run_variants(r);
	r->sc.mss = 1460;
	r->sc.window = 64240;
	r->sc.batch = 64;
	r->sender = sender_open(&r->sc, r->cfg->want_v4, r->cfg->want_v6, err, sizeof(err));
	if (r->sender == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	/* every variant a reload may bring: the captures keep their filter */
	run_filter(r->filter, sizeof(r->filter), guard_port_lo(r->guard), SEND_MAX_VARIANTS);
	if (getrandom(r->key, sizeof(r->key), 0) != (ssize_t)sizeof(r->key)) {
		log_warn("getrandom");
		return -1;
	}
	return run_engine_new(r);
}

struct runner *
runner_open(struct event_base *base, const struct runner_config *cfg)
{
	struct runner *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		log_warn("runner");
		return NULL;
	}
	r->cfg = cfg;
	probe_settings_copy(&r->ps, cfg->settings);
	r->base = base;
	r->tail = &r->head;
	if (run_open(r) != 0) {
		runner_close(r, NULL);
		return NULL;
	}
	return r;
}

void
runner_configure(struct runner *r, const struct probe_settings *ps)
{
	if (r->have_next)
		probe_settings_free(&r->next);
	probe_settings_copy(&r->next, ps);
	r->have_next = true;
	r->gen_next++;
	/* nothing in flight: at once (from the loop, not from here) */
	event_active(r->ended, EV_TIMEOUT, 0);
}

int
runner_add(struct runner *r, struct paths *p, void *tag)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (b == NULL) {
		log_warn("runner");
		return -1;
	}
	/* names resolve while the prefixes and addresses are probed */
	if (paths_resolve(p, r->base, run_names_ready, r) != 0) {
		free(b);
		return -1;
	}
	b->p = p;
	b->tag = tag;
	b->gen = r->gen_next;
	*r->tail = b;
	r->tail = &b->next;
	r->nbatches++;
	run_names_ready(r);
	return 0;
}

void
runner_finish(struct runner *r)
{
	r->finishing = true;
	run_names_ready(r);
	event_active(r->ended, EV_TIMEOUT, 0);
}

size_t
runner_batches(const struct runner *r)
{
	return r->nbatches;
}

size_t
runner_inflight(const struct runner *r)
{
	return engine_inflight(r->engine);
}

void
runner_stats(const struct runner *r, struct probe_run_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (r->engine != NULL)
		engine_counters(r->engine, &stats->n);
	run_counters_add(&stats->n, &r->past);
	for (int i = 0; i < r->ncap; i++) {
		struct capture_stats st;
		if (capture_stats(r->cap[i], &st) == 0) {
			stats->captured += st.received;
			stats->capture_drops += st.dropped + st.ifdropped;
		}
	}
	stats->duplicates = r->duplicates;
	stats->failed = r->failed || r->batch_error;
}

void
runner_close(struct runner *r, struct probe_run_stats *stats)
{
	struct batch *b, *next;

	if (r == NULL)
		return;
	if (stats != NULL)
		runner_stats(r, stats);
	for (int i = 0; i < r->ncap; i++)
		capture_close(r->cap[i]);
	engine_free(r->engine);
	if (r->sender != NULL)
		sender_close(r->sender);
	if (r->guard != NULL)
		guard_close(r->guard);
	if (r->timer != NULL)
		event_free(r->timer);
	if (r->more != NULL)
		event_free(r->more);
	if (r->ended != NULL)
		event_free(r->ended);
	for (b = r->head; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	probe_settings_free(&r->ps);
	if (r->have_next)
		probe_settings_free(&r->next);
	free(r);
}

/* --- probe_run: the CLI's ------------------------------------------------ */

struct cli_run {
	const struct probe_run_config *cfg;
	struct event_base *base;
	struct runner *r;
	bool interrupted;
};

static int
cli_result(void *arg, void *tag, struct path_result *res)
{
	struct cli_run *c = arg;

	(void)tag;
	if (c->cfg->on_result(c->cfg->arg, res) != 0) {
		event_base_loopexit(c->base, NULL);
		return -1;
	}
	return 0;
}

static void
cli_idle(void *arg)
{
	struct cli_run *c = arg;

	event_base_loopexit(c->base, NULL);
}

static void
cli_signal(evutil_socket_t sig, short what, void *arg)
{
	struct cli_run *c = arg;

	(void)what;
	log_warnx("%s: stopping", strsignal((int)sig));
	c->interrupted = true;
	event_base_loopexit(c->base, NULL);
}

static void
cli_progress(evutil_socket_t fd, short what, void *arg)
{
	struct cli_run *c = arg;
	struct probe_run_stats st;

	(void)fd;
	(void)what;
	runner_stats(c->r, &st);
	fprintf(stderr, "\rscaleprobe: %llu/%llu paths done, %zu in flight, %llu SYNs sent  ",
	    (unsigned long long)st.n.paths_done, (unsigned long long)c->cfg->paths->total,
	    runner_inflight(c->r), (unsigned long long)st.n.syns_sent);
}

int
probe_run(const struct probe_run_config *cfg, struct probe_run_stats *stats)
{
	struct runner_config rc;
	struct cli_run c;
	struct event *sig[3] = { NULL, NULL, NULL }, *progress = NULL;
	static const int signo[3] = { SIGINT, SIGTERM, SIGHUP };
	int rc_ = -1;

	memset(stats, 0, sizeof(*stats));
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	memset(&rc, 0, sizeof(rc));
	rc.settings = cfg->settings;
	rc.no_evidence = cfg->no_evidence;
	rc.want_v4 = cfg->paths->want_v4;
	rc.want_v6 = cfg->paths->want_v6;
	rc.on_result = cli_result;
	rc.on_idle = cli_idle;
	rc.arg = &c;
	if ((c.base = event_base_new()) == NULL) {
		log_warnx("event_base_new failed");
		return -1;
	}
	/* signals first: a SIGTERM while the table exists must remove it; a
	 * closed terminal (SIGHUP) ends the run as they do, and a closed
	 * pipe on stdout is a write error (EPIPE), not a death by SIGPIPE */
	for (int i = 0; i < 3; i++)
		if ((sig[i] = evsignal_new(c.base, signo[i], cli_signal, &c)) == NULL ||
		    evsignal_add(sig[i], NULL) == -1)
			goto setup;
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		goto setup;
	if ((c.r = runner_open(c.base, &rc)) == NULL)
		goto out;
	if (runner_add(c.r, cfg->paths, NULL) != 0)
		goto out;
	runner_finish(c.r);
	if (cfg->progress) {
		struct timeval sec = { 1, 0 };
		progress = event_new(c.base, -1, EV_PERSIST, cli_progress, &c);
		if (progress != NULL)
			event_add(progress, &sec);
	}
	if (event_base_dispatch(c.base) == -1) {
		log_warnx("event loop failed");
		goto out;
	}
	if (cfg->progress)
		fprintf(stderr, "\n");
	runner_stats(c.r, stats);
	rc_ = stats->failed ? -1 : 0;
	goto out;
setup:
	log_warnx("cannot set up the event loop");
out:
	runner_close(c.r, NULL);
	stats->interrupted = c.interrupted;
	if (progress != NULL)
		event_free(progress);
	for (int i = 0; i < 3; i++)
		if (sig[i] != NULL)
			event_free(sig[i]);
	event_base_free(c.base);
	return rc_;
}
