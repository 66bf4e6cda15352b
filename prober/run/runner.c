/*
 * runner.c -- the runner on the caller's event loop: a timer drives the
 * engine, each interface's capture feeds it (runner_ops.c answers what the
 * engine asks), batches of paths are walked in the order given and told
 * done in that order.  The guard's table and the raw sockets are opened
 * with the runner, captures as interfaces appear; new probing settings
 * make a new engine once the batches before them are done.
 */
#include <sys/random.h>

#include <event2/event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "portplan.h"
#include "when.h"
#include "runner_int.h"

#define PROBE_TRACE_MAX_TTL	30
#define PROBE_TRACE_GAP_NS	5000000u	/* 5 ms between TTL levels */
#define PROBE_MAX_TRACES	256	/* ~40 KiB each while it runs */
#define PROBE_TRACE_CLOSE_ROUNDS 4	/* a silent hop inside the box's
					   interval is asked 4 more times, a
					   timeout apart (trace.h) */
#define PROBE_TRACE_PACE	1	/* trace probes per second per router at
					   the start: a Linux router's ICMP
					   rate (router_pace.h) */
#define PROBE_TRACE_PACE_FLOOR_MILLI 1000	/* and not below it: a
					   router's two families are one key
					   where paths share it (router_pace.h),
					   and a lower floor slowed a cycle
					   over Linux routers by half */
#define PROBE_MAX_WINDOWS	512	/* paths window-testing at once: a
					   test mostly waits on its rounds'
					   quiet time, so a high --rate needs
					   many at once to keep the CPU busy;
					   past 512 (~5.4 KiB each, ~2.7 MiB
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

void
run_packet(void *arg, const uint8_t *pkt, size_t len, const struct timeval *ts)
{
	struct runner *r = arg;
	struct timespec real;
	uint64_t now = now_ns();

	/* the kernel's receive time, on the engine's clock by the offset the
	 * two clocks show now: a loop that reads late does not stretch the
	 * window test's RTT and quiet time (when.h) */
	clock_gettime(CLOCK_REALTIME, &real);
	engine_input_at(r->engine, now, when_stamp_mono((int64_t)ts->tv_sec,
	    (int64_t)ts->tv_usec, (int64_t)real.tv_sec * ENGINE_NS_PER_SEC + real.tv_nsec,
	    now), pkt, len);
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
static void run_sender_limit(struct runner *r, const struct engine *e);

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
	for (int i = 0; i < REPLY_REJECT_COUNT; i++)
		to->rejects[i] += n->rejects[i];
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
		run_sender_limit(r, e);
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
		if (!b->walked || b->inflight > 0 || b->nwaiting > 0) {
			pp = &b->next;
			continue;
		}
		*pp = b->next;
		if (r->tail == &b->next)
			r->tail = pp;
		r->nbatches--;
		if (r->cfg->on_batch != NULL)
			r->cfg->on_batch(r->cfg->arg, b->tag);
		free(b->waiting);
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

/* TCP to our port range, and the ICMP errors that could quote our SYNs. */
/* one flow's ports, both connections, fill the guard's first block */
_Static_assert(ENGINE_SECOND_PORTS + SEND_MAX_VARIANTS <= GUARD_BLOCK_PORTS,
    "the second connections' ports lie outside the guard's block");
_Static_assert(PORTPLAN_BLOCK == GUARD_BLOCK_PORTS, "the plan's block is the guard's");

static void
run_filter(char *buf, size_t len, uint16_t lo, unsigned nports)
{
	snprintf(buf, len,
	    "(tcp and dst portrange %u-%u) or "
	    "(icmp and (icmp[0] == 3 or icmp[0] == 11)) or "
	    "(icmp6 and (ip6[40] == 1 or ip6[40] == 3))",
	    lo, lo + nports - 1);
}

/* The flows of a path: the guard's range is sized by them once (a change
 * takes a restart, config/settings.c). */
static int
run_flows(const struct probe_settings *ps)
{
	if (ps->flows == 0)
		return PROBE_FLOWS_AUTO_MAX;
	return ps->flows <= PORTPLAN_MAX_FLOWS ? (int)ps->flows : 1;
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

/* The sending thread holds back no more than the pacer's burst (send.h):
 * a second on the wire then keeps to the rate but for that burst. */
static void
run_sender_limit(struct runner *r, const struct engine *e)
{
	uint64_t b = engine_burst(e);

	if (r->sender != NULL)
		sender_set_limit(r->sender, b > UINT32_MAX ? UINT32_MAX : (uint32_t)b);
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
	ec.flows = r->flows;
	ec.flows_auto = r->flows_auto;
	ec.max_inflight = runner_max_inflight(ps);
	ec.ttl = (uint8_t)ps->syn_ttl;
	ec.trace = ps->trace;
	ec.trace_max_ttl = PROBE_TRACE_MAX_TTL;
	ec.trace_gap_ns = PROBE_TRACE_GAP_NS;
	ec.max_traces = PROBE_MAX_TRACES;
	ec.trace_pace = PROBE_TRACE_PACE;
	ec.trace_pace_floor_milli = PROBE_TRACE_PACE_FLOOR_MILLI;
	ec.trace_close_rounds = PROBE_TRACE_CLOSE_ROUNDS;
	ec.window_test = ps->window_test;
	ec.no_evidence = r->cfg->no_evidence;
	ec.max_windows = PROBE_MAX_WINDOWS;
	memcpy(ec.key, r->key, sizeof(ec.key));
	run_engine_ops(r, &ops);
	if ((r->engine = engine_new(&ec, &ops)) == NULL) {
		log_warnx("engine: bad configuration");
		return -1;
	}
	run_sender_limit(r, r->engine);
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
	r->flows = run_flows(&r->ps);
	r->flows_auto = r->ps.flows == 0;
	if ((r->guard = guard_open(portplan_blocks(r->flows, ENGINE_PLAN_VARIANTS), err,
	    sizeof(err))) == NULL) {
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
	run_filter(r->filter, sizeof(r->filter), guard_port_lo(r->guard),
	    guard_ports(r->guard));
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

static int
run_add(struct runner *r, struct paths *p, void *tag, bool first)
{
	struct batch *b = calloc(1, sizeof(*b)), **pp;

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
	b->first = first;
	/* first: before every batch of its settings (the batches stay in
	 * the order of their settings, which run_next_path relies on) */
	for (pp = &r->head; first && *pp != NULL && (*pp)->gen != b->gen; pp = &(*pp)->next)
		;
	if (!first || *pp == NULL) {
		*r->tail = b;
		r->tail = &b->next;
	} else {
		b->next = *pp;
		*pp = b;
	}
	r->nbatches++;
	run_names_ready(r);
	return 0;
}

int
runner_add(struct runner *r, struct paths *p, void *tag)
{
	return run_add(r, p, tag, false);
}

int
runner_add_first(struct runner *r, struct paths *p, void *tag)
{
	return run_add(r, p, tag, true);
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
runner_stats(const struct runner *r, struct runner_stats *stats)
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
runner_rejects_line(const struct runner_stats *st, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%llu rejected (", (unsigned long long)st->n.rejected);
	for (int i = REPLY_REJECT_NONE + 1; i < REPLY_REJECT_COUNT; i++) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s %llu", i > 1 ? ", " : "",
		    reply_reject_name((enum reply_reject)i),
		    (unsigned long long)st->n.rejects[i]);
	}
	n = strlen(buf);
	snprintf(buf + n, len - n, "), %llu replayed, %llu late, %llu ignored; "
	    "capture: %llu packets, %llu dropped", (unsigned long long)st->n.replayed,
	    (unsigned long long)st->n.late, (unsigned long long)st->n.ignored,
	    (unsigned long long)st->captured, (unsigned long long)st->capture_drops);
}

void
runner_close(struct runner *r, struct runner_stats *stats)
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
		free(b->waiting);
		free(b);
	}
	probe_settings_free(&r->ps);
	if (r->have_next)
		probe_settings_free(&r->next);
	free(r);
}
