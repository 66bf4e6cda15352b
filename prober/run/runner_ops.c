/*
 * runner_ops.c -- what the engine asks of its runner (engine_ops): the
 * next path from the batches in order, the sender for packets out, the
 * captures (opened as interfaces appear, drained, their drops and
 * failures), the window test's request, and each path's end, judged
 * (infer.h) before the caller sees it.
 */
#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "infer.h"
#include "infer_flows.h"
#include "portplan.h"
#include "log.h"
#include "request.h"
#include "runner_int.h"

#define PROBE_HTTP_PORT		80
#define PROBE_TLS_PORT		443
#define PROBE_SNAPLEN		256	/* IP + TCP with options, or an ICMP
					   error quoting all of that */
#define PROBE_CAPTURE_BUFFER	(4 * 1024 * 1024)	/* the ring is resident
					   memory: ~14,000 frames of 256 bytes */



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
	if (b->inflight == 0 && b->nwaiting == 0)
		event_active(r->ended, EV_TIMEOUT, 0);
}

/* p into out, as b's path in flight. */
static int
run_hand_out(struct runner *r, struct batch *b, const struct path *p, int cap,
    struct engine_path *out)
{
	(void)r;
	*out = (struct engine_path){ .target = p->target, .host = p->host, .dst = p->dst,
	    .src = p->src, .port = p->port, .capture = cap, .tag = b };
	clock_gettime(CLOCK_REALTIME, &out->wall);
	b->inflight++;
	return 1;
}

/* A path another batch has in flight, where either is a first batch:
 * kept for when it is free, so that whoever asked, and the schedule,
 * each get a result of their own. */
static void
run_wait_path(struct runner *r, struct batch *b, const struct path *p)
{
	if (b->nwaiting == b->capwaiting) {
		b->capwaiting = b->capwaiting ? 2 * b->capwaiting : 8;
		b->waiting = xreallocarray(b->waiting, b->capwaiting, sizeof(*b->waiting));
	}
	b->waiting[b->nwaiting++] = *p;
	r->waiting++;
}

/* A waiting path of b that is free now: handed out (1), or 0. */
static int
run_waited(struct runner *r, struct batch *b, struct engine_path *out)
{
	for (size_t i = 0; i < b->nwaiting; i++) {
		struct path p = b->waiting[i];
		int cap;

		if (engine_has_path(r->engine, &p.dst, p.port))
			continue;
		b->waiting[i] = b->waiting[--b->nwaiting];
		r->waiting--;
		if ((cap = run_capture_of(r, b->p->ifnames[p.iface])) < 0) {
			b->error = r->batch_error = true;
			if (b->nwaiting == 0 && b->walked && b->inflight == 0)
				event_active(r->ended, EV_TIMEOUT, 0);
			return 0;
		}
		return run_hand_out(r, b, &p, cap, out);
	}
	return 0;
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
		struct batch *held;
		int rc, cap;

		/* added under newer settings: they wait for this engine's end */
		if (b->gen != r->gen) {
			later = true;
			break;
		}
		if (b->nwaiting > 0) {
			if (run_waited(r, b, out) == 1)
				return 1;
			later = true;
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
			if ((held = (struct batch *)(uintptr_t)engine_path_tag(r->engine, &p.dst,
			    p.port)) != NULL) {
				/* another batch probes it now: that result serves;
				 * but a first batch's own is not another's, nor
				 * another's its: the one waits for the other */
				if (b->first || held->first) {
					run_wait_path(r, b, &p);
					later = true;
				} else {
					r->duplicates++;
					paths_done(b->p, p.target);
				}
				continue;
			}
			return run_hand_out(r, b, &p, cap, out);
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
run_sent_id(void *arg)
{
	struct runner *r = arg;

	return sender_last_id(r->sender);
}

/* The sender's clock is CLOCK_MONOTONIC, the engine's (now_ns). */
static uint64_t
run_left_at(void *arg, uint64_t id)
{
	struct runner *r = arg;

	return sender_left_at(r->sender, id);
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
const char *
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

/* The first source port of res's flow: the port plan's (portplan.h). */
static uint16_t
run_flow_sport(const struct runner *r, const struct path_result *res)
{
	struct portplan pp;
	char err[160];

	if (portplan_init(&pp, guard_port_lo(r->guard), r->flows, ENGINE_PLAN_VARIANTS,
	    err, sizeof(err)) != 0)
		return 0;
	return portplan_port(&pp, res->flow, 0, PORTPLAN_FIRST);
}

/* A judged path to the caller. */
static void
run_hand_on(struct runner *r, struct batch *b, struct path_result *res)
{
	if (!r->failed && r->cfg->on_result(r->cfg->arg, b->tag, res) != 0) {
		r->failed = true;
		event_active(r->ended, EV_TIMEOUT, 0);
	}
	/* its target's text is no longer needed: a streamed chunk may go */
	paths_done(b->p, res->target);
	if (--b->inflight == 0 && b->walked && b->nwaiting == 0)
		event_active(r->ended, EV_TIMEOUT, 0);
	/* a path a first batch waits for may be free now: ask again (from
	 * the loop: the engine is handing this result over) */
	if (r->waiting > 0)
		event_active(r->more, EV_TIMEOUT, 0);
}

/* A path's end: judged here, so that every caller stores and prints the
 * same verdicts. */
static void
run_done(void *arg, struct path_result *res)
{
	struct runner *r = arg;
	struct batch *b = (struct batch *)(uintptr_t)res->tag;

	infer_path(res);
	if (res->flows > 1 && res->group_user != NULL) {
		/* each flow judged as it ends; the path's result is the last
		 * one's, with the verdicts of all of them */
		struct flows_acc *acc = *res->group_user;

		if (acc == NULL)
			*res->group_user = acc = xcalloc(1, sizeof(*acc));
		infer_flows_add(acc, res, run_flow_sport(r, res));
		if (!res->group_last)
			return;
		if (r->flows_auto) {
			/* another flow where this one leaves doubt (MDA's rule) */
			int want = infer_flows_want(acc, r->flows);

			if (want > acc->n) {
				res->flows_more = want - acc->n;
				return;
			}
		}
		*res->group_user = NULL;
		if (acc->n == 1) {
			/* auto on a path its first flow settled: one flow, as
			 * --flows 1 reports it */
			res->flows = 1;
			res->flow = 0;
		} else
			infer_flows_merge(res, acc);
		run_hand_on(r, b, res);
		free(acc);
		return;
	}
	run_hand_on(r, b, res);
}

void
run_engine_ops(struct runner *r, struct engine_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->arg = r;
	ops->next_path = run_next_path;
	ops->send_syn = run_send_syn;
	ops->send_segment = run_send_segment;
	ops->render_syn = run_render_syn;
	ops->request = run_request;
	ops->flush = run_flush;
	ops->drain = run_drain;
	ops->capture_drops = run_capture_drops;
	ops->capture_failure = run_capture_failure;
	ops->send_failures = run_send_failures;
	ops->sent_id = run_sent_id;
	ops->left_at = run_left_at;
	ops->done = run_done;
}
