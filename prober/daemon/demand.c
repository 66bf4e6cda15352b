/*
 * demand.c -- on-demand requests (demand.h): a request read and judged
 * (demand_req.h, demand_rate.h), its targets walked as one batch handed
 * to the runner before the scheduled ones waiting (runner_add_first),
 * each result stored in the request's own run (with the asker's uid)
 * and sent to the asker as probe prints it.  The client may leave: the
 * probe goes on and is stored all the same.
 */
#define _GNU_SOURCE		/* open_memstream */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocklist.h"
#include "clockwatch.h"
#include "daemon.h"
#include "demand.h"
#include "demand_rate.h"
#include "demand_req.h"
#include "infer.h"
#include "json.h"
#include "log.h"
#include "output.h"
#include "store.h"
#include "version.h"

/* One request in flight. */
struct demand_run {
	struct daemon *d;
	struct serve_client *c;		/* NULL once the client is gone */
	uint32_t uid;
	bool json;
	struct targets t;		/* the request's, on their ports */
	struct blocklist *bl;		/* the lists when it was asked: a
					   reload frees the configuration's */
	struct addr source4, source6;
	bool have_source4, have_source6;
	struct srcrange range4, range6;
	char *ifname;
	struct paths paths;
	bool paths_open;
	int64_t run_id;
	bool stored;			/* its run began in the store */
	size_t results, problems, unmeasured;
	struct demand_run *next;
};

/* A request being read: the parse so far. */
struct demand_reading {
	struct demand_parser p;
	struct demand_req q;
};

struct demand {
	struct demand_rate rate;
	struct demand_run *runs;
	size_t nruns;
};

static struct demand *
demand_of(struct daemon *d)
{
	if (d->demand == NULL) {
		d->demand = xcalloc(1, sizeof(*d->demand));
		demand_rate_init(&d->demand->rate, d->cur->c.on_demand_rate);
	}
	/* a reload's new rate: counted afresh */
	if (d->demand->rate.limit != d->cur->c.on_demand_rate) {
		demand_rate_free(&d->demand->rate);
		demand_rate_init(&d->demand->rate, d->cur->c.on_demand_rate);
	}
	return d->demand;
}

/* A one-line reply (kind WHY) as the handler's *out. */
static enum serve_next
demand_say(char **out, size_t *out_len, const char *kind, const char *why, uint32_t uid,
    bool known)
{
	char line[600];
	int n;

	n = snprintf(line, sizeof(line), "%s %s\n", kind, why);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = snprintf(line, sizeof(line), "%s (cut)\n", kind);
	if (known)
		log_info("on demand: uid %" PRIu32 ": %s %s", uid, kind, why);
	else
		log_info("on demand: %s %s", kind, why);
	*out = xmalloc((size_t)n);
	memcpy(*out, line, (size_t)n);
	*out_len = (size_t)n;
	return SERVE_REPLY;
}

static void
run_free(struct demand_run *r)
{
	if (r->paths_open)
		paths_free(&r->paths);
	targets_free(&r->t);
	blocklist_free(r->bl);
	free(r->ifname);
	free(r);
}

static void
run_unlink(struct demand *dm, struct demand_run *r)
{
	for (struct demand_run **pp = &dm->runs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			dm->nruns--;
			return;
		}
}

static void
run_gone(void *owner)
{
	struct demand_run *r = owner;

	r->c = NULL;
	log_info("on demand: uid %" PRIu32 ": the client left; its probe goes on, stored",
	    r->uid);
}

/* Sends a line or a framed block to r's client while it is there. */
static void
run_send(struct demand_run *r, const char *buf, size_t len)
{
	if (r->c != NULL && serve_send(r->c, buf, len) != 0)
		r->c = NULL;	/* closed: gone was told */
}

static void
run_note(struct demand_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
run_note(struct demand_run *r, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "note ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	run_send(r, line, (size_t)n);
}

/*
 * The request's targets checked and put on their ports into r->t; 0, or
 * -1 with why (one line).  Every target is checked before any is probed,
 * so a refusal leaves nothing half done.
 */
static int
run_targets(struct daemon *d, const struct demand_req *q, struct demand_run *r, char *why,
    size_t whylen)
{
	const struct conf *c = &d->cur->c;

	if (q->n > c->on_demand_targets) {
		snprintf(why, whylen, "%zu targets, at most %" PRIu32 " a request "
		    "(on-demand-targets)", q->n, c->on_demand_targets);
		return -1;
	}
	for (size_t i = 0; i < q->n; i++) {
		struct targets one;
		struct targets_opts o = { false, 0 };
		const struct blocklist_entry *e;
		uint16_t ports[CONF_MAX_PORTS];
		bool given = demand_spec_has_port(q->target[i]);
		int n;

		targets_init(&one);
		if (targets_parse_spec(&one, q->target[i], &o) != 0 || one.n != 1) {
			const char *err = strbuf_str(&one.errors);

			snprintf(why, whylen, "%.*s", (int)strcspn(err, "\n"), err);
			targets_free(&one);
			return -1;
		}
		if ((n = demand_ports(c, &one.v[0], given, ports, why, whylen)) == 0) {
			targets_free(&one);
			return -1;
		}
		if (one.v[0].kind == TARGET_ADDR && (e = blocklist_check(r->bl,
		    &one.v[0].addr)) != NULL) {
			snprintf(why, whylen, "%s: blocked: %s", q->target[i], e->text);
			targets_free(&one);
			return -1;
		}
		targets_free(&one);
		for (int k = 0; k < n; k++) {
			struct targets_opts ok = { false, ports[k] };

			if (targets_parse_spec(&r->t, q->target[i], &ok) != 0) {
				snprintf(why, whylen, "%s: does not parse", q->target[i]);
				return -1;
			}
		}
	}
	return 0;
}

/* Its walk opened, its batch handed to the runner; 0, or -1 with why. */
static int
run_start(struct daemon *d, struct demand_run *r, char *why, size_t whylen)
{
	struct paths_opts po;

	memset(&po, 0, sizeof(po));
	po.bl = r->bl;
	po.source4 = r->have_source4 ? &r->source4 : NULL;
	po.source6 = r->have_source6 ? &r->source6 : NULL;
	po.range4 = r->range4.first.family != 0 ? &r->range4 : NULL;
	po.range6 = r->range6.first.family != 0 ? &r->range6 : NULL;
	po.ifname = r->ifname;
	po.rt = d->rt;
	if (paths_open(&r->paths, &r->t, &po) != 0) {
		paths_free(&r->paths);
		snprintf(why, whylen, "its paths cannot be walked");
		return -1;
	}
	r->paths_open = true;
	if (r->paths.n == 0 && r->paths.nnames == 0 && !r->paths.more_now) {
		snprintf(why, whylen, "nothing to probe: %s", r->paths.blocked_targets > 0 ?
		    "every address is blocked" : r->paths.unrouted > 0 ? "no route" :
		    "no address");
		return -1;
	}
	/* handed to the runner before its run is begun: a refusal leaves no
	 * run in the store without results or an end */
	if (runner_add_first(d->runner, &r->paths, r) != 0) {
		snprintf(why, whylen, "the name resolver cannot start");
		return -1;
	}
	return 0;
}

/* r's run begun in the store (its results come from the loop, after
 * this); false with why when the store refused it: r is probed and its
 * results sent all the same, not stored. */
static bool
run_store(struct daemon *d, struct demand_run *r, char *why, size_t whylen)
{
	struct store_run run;

	memset(&run, 0, sizeof(run));
	clock_gettime(CLOCK_REALTIME, &run.start);
	run.vantage = d->vantage;
	run.settings = d->settings;
	run.program = "scaleprobed " SCALEPROBE_VERSION " on demand";
	run.on_demand = true;
	run.uid = r->uid;
	run.clock = clockwatch_now();
	r->stored = store_run_begin(d->st, &run, &r->run_id) == 0;
	if (!r->stored) {
		snprintf(why, whylen, "the daemon's store refused the run: %s; its results are "
		    "not stored", store_error(d->st));
		daemon_store_alert(d);
	}
	return r->stored;
}

/* uid's requests in flight */
static size_t
user_runs(const struct demand *dm, uint32_t uid)
{
	size_t n = 0;

	for (const struct demand_run *r = dm->runs; r != NULL; r = r->next)
		n += r->uid == uid;
	return n;
}

/* Whether uid may start a request now: places in flight (the daemon's
 * and the user's), then the per-user rate, only checked here (counted once
 * the request starts: a later refusal costs nothing); false with why. */
static bool
admitted(struct demand *dm, uint32_t uid, char *why, size_t whylen)
{
	uint64_t wait;

	switch (demand_admit(dm->nruns, user_runs(dm, uid))) {
	case DEMAND_ADMIT_OK:
		break;
	case DEMAND_ADMIT_USER_BUSY:
		snprintf(why, whylen, "busy: uid %" PRIu32 " has %d requests in flight "
		    "already, at most %d a user", uid, DEMAND_USER_RUNS_MAX, DEMAND_USER_RUNS_MAX);
		return false;
	case DEMAND_ADMIT_BUSY:
	default:
		snprintf(why, whylen, "busy: %d requests in flight already", DEMAND_RUNS_MAX);
		return false;
	}
	switch (demand_rate_check(&dm->rate, uid, demand_rate_now_ns(), &wait)) {
	case DEMAND_RATE_OK:
		return true;
	case DEMAND_RATE_USER:
		snprintf(why, whylen, "uid %" PRIu32 " made %u requests in the last minute "
		    "(on-demand-rate %u): again in %" PRIu64 " s", uid, dm->rate.limit,
		    dm->rate.limit, (wait + 999999999) / 1000000000);
		return false;
	case DEMAND_RATE_FULL:
	default:
		snprintf(why, whylen, "%d other users asked in the last minute",
		    DEMAND_RATE_USERS);
		return false;
	}
}

enum serve_next
demand_request(struct daemon *d, struct serve_client *c, const char *in, size_t len,
    char **out, size_t *out_len)
{
	struct demand *dm;
	struct demand_reading *rd;
	struct demand_req *q;
	struct demand_run *r;
	void **st;
	char why[512], line[64];
	uint64_t wait;
	uint32_t uid = 0;
	enum demand_parse p;
	const struct conf *conf = &d->cur->c;

	/* the parse goes on across reads: each byte judged once */
	st = serve_state(c);
	if (*st == NULL) {
		rd = xmalloc(sizeof(*rd));
		demand_parser_init(&rd->p, &rd->q);
		*st = rd;
	}
	rd = *st;
	p = demand_req_feed(&rd->p, in, len, DEMAND_REQ_MAX, why, sizeof(why));
	if (p == DEMAND_MORE)
		return SERVE_MORE;
	*st = NULL;
	q = &rd->q;
	if (p != DEMAND_OK) {
		free(rd);
		return demand_say(out, out_len, "error", why, 0, false);
	}
	if (serve_peer_uid(c, &uid) != 0) {
		free(rd);
		return demand_say(out, out_len, "error", "the peer's credentials cannot be read",
		    0, false);
	}
	dm = demand_of(d);
	if (conf->on_demand == ON_DEMAND_OFF || d->once || d->stopping) {
		free(rd);
		return demand_say(out, out_len, "refused", conf->on_demand == ON_DEMAND_OFF ?
		    "on-demand is off in the daemon's configuration" :
		    "the daemon is not running its schedule (--once, or stopping)", uid, true);
	}
	r = xcalloc(1, sizeof(*r));
	r->d = d;
	r->uid = uid;
	r->json = q->json;
	targets_init(&r->t);
	r->bl = conf_blocklist(conf);
	if (run_targets(d, q, r, why, sizeof(why)) != 0) {
		free(rd);
		run_free(r);
		return demand_say(out, out_len, "refused", why, uid, true);
	}
	free(rd);
	if (!admitted(dm, uid, why, sizeof(why))) {
		run_free(r);
		return demand_say(out, out_len, "refused", why, uid, true);
	}
	r->source4 = conf->source4;
	r->source6 = conf->source6;
	r->have_source4 = conf->have_source4;
	r->have_source6 = conf->have_source6;
	r->range4 = conf->range4;
	r->range6 = conf->range6;
	r->ifname = conf->interface != NULL ? xstrdup(conf->interface) : NULL;
	if (run_start(d, r, why, sizeof(why)) != 0) {
		run_free(r);
		return demand_say(out, out_len, "refused", why, uid, true);
	}
	(void)demand_rate_take(&dm->rate, uid, demand_rate_now_ns(), &wait);
	r->next = dm->runs;
	dm->runs = r;
	dm->nruns++;
	r->c = c;
	serve_hold(c, DEMAND_TIMEOUT_MS, run_gone, r);
	log_info("on demand: uid %" PRIu32 ": %zu targets", uid, r->t.n);
	snprintf(line, sizeof(line), "ok %zu\n", r->t.n);
	if (run_store(d, r, why, sizeof(why))) {
		*out = xstrdup(line);
		*out_len = strlen(line);
	} else {
		char *both;

		log_warnx("on demand: uid %" PRIu32 ": %s", uid, why);
		if (asprintf(&both, "%snote %s\n", line, why) < 0)
			fatal("asprintf");
		*out = both;
		*out_len = strlen(both);
	}
	return SERVE_HOLD;
}

bool
demand_owns(const struct daemon *d, const void *tag)
{
	if (d->demand == NULL)
		return false;
	for (const struct demand_run *r = d->demand->runs; r != NULL; r = r->next)
		if ((const void *)r == tag)
			return true;
	return false;
}

/* res as probe prints it: its text, or its JSON line. */
static char *
run_render(struct demand_run *r, const struct path_result *res, size_t *len)
{
	char *buf = NULL;
	FILE *f;

	if (r->json) {
		struct json j;
		const char *text;
		size_t n;

		json_init(&j);
		output_json(&j, res, r->d->vantage);
		text = json_text(&j, &n);
		buf = xmalloc(n + 1);
		memcpy(buf, text, n);
		buf[n] = '\n';
		*len = n + 1;
		json_free(&j);
		return buf;
	}
	if ((f = open_memstream(&buf, len)) == NULL)
		fatal("open_memstream");
	output_text(f, res);
	if (fclose(f) != 0)
		fatal("open_memstream");
	return buf;
}

int
demand_on_result(struct daemon *d, void *tag, struct path_result *res)
{
	struct demand_run *r = tag;
	char head[64];
	size_t len;
	char *text;

	/* not stored: told at its start */
	if (r->stored && store_add(d->st, r->run_id, res) != 0) {
		if (!store_failing(d->st))
			log_warnx("%s", store_error(d->st));
		run_note(r, "the daemon's store did not take this result: %s",
		    store_error(d->st));
	} else if (r->stored)
		d->n.results++;
	daemon_store_alert(d);
	r->results++;
	r->problems += output_class(res) == OUTPUT_PROBLEM;
	r->unmeasured += output_class(res) == OUTPUT_UNMEASURED;
	if (r->c == NULL)
		return 0;
	text = run_render(r, res, &len);
	snprintf(head, sizeof(head), "result %zu\n", len);
	run_send(r, head, strlen(head));
	run_send(r, text, len);
	free(text);
	return 0;
}

void
demand_on_batch(struct daemon *d, void *tag)
{
	struct demand_run *r = tag;
	const struct paths *p = &r->paths;
	char line[32];
	int status;

	if (p->unresolved > 0)
		run_note(r, "%zu names gave no address", p->unresolved);
	if (p->blocked_targets > 0)
		run_note(r, "%zu targets have an address the lists block: not probed",
		    p->blocked_targets);
	if (p->unrouted > 0)
		run_note(r, "%zu addresses have no route", p->unrouted);
	if (p->n > r->results)
		run_note(r, "%zu paths gave no result", p->n - r->results);
	/* probe's exit status (scaleprobe(1)) */
	if (r->results == 0)
		status = 2;
	else if (r->problems > 0)
		status = 1;
	else if (r->unmeasured > 0 || p->blocked_targets > 0 || p->unresolved > 0 ||
	    p->unrouted > 0 || p->n > r->results)
		status = 3;
	else
		status = 0;
	snprintf(line, sizeof(line), "end %d\n", status);
	run_send(r, line, strlen(line));
	if (r->c != NULL)
		serve_end(r->c);
	/* committed now: show, right after, has it */
	if (store_flush(d->st, true) != 0 && !store_failing(d->st))
		log_warnx("%s", store_error(d->st));
	daemon_store_alert(d);
	log_info("on demand: uid %" PRIu32 ": %zu results", r->uid, r->results);
	run_unlink(d->demand, r);
	run_free(r);
}

void
demand_free(struct daemon *d)
{
	struct demand_run *r, *next;

	if (d->demand == NULL)
		return;
	for (r = d->demand->runs; r != NULL; r = next) {
		next = r->next;
		run_free(r);
	}
	demand_rate_free(&d->demand->rate);
	free(d->demand);
	d->demand = NULL;
}
