/*
 * alerting.c -- a path's verdicts through alert.h: each scale's state
 * confirmed by N of M, the path's alert raised when one of its scales
 * goes bad, changed when what is broken changes (the worst state or the
 * hop), cleared when none is bad, whatever the number of scales.  Each
 * is one log line and, when the alert-command setting names a program,
 * one run of it with the change as JSON on stdin (alertcmd.h).  The open
 * alerts are rows of the store (store_alert_put, committed before the
 * program runs) read back at start (daemon_alerts_load), so a restart
 * neither raises them again nor forgets them.  A path's memory goes once
 * it has no problem in sight and is no longer probed (tracks.h).  The
 * store's own alert goes the same way: raised when it cannot write (its
 * rows wait in memory), cleared when it writes.
 */
#include <sys/random.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alertcmd.h"
#include "daemon.h"
#include "infer.h"
#include "json.h"
#include "log.h"
#include "siphash.h"
#include "store.h"

/* The tracks' hash key, secret and new at each start: targets and names
 * are chosen by others too (a prefix, a name's addresses), and a known
 * key would let them put every path in one bucket. */
static void
tracks_keyed(struct tracks *ts)
{
	uint8_t key[SIPHASH_KEY_LEN];
	ssize_t k;

	if (ts->keyed)
		return;
	do
		k = getrandom(key, sizeof(key), 0);
	while (k == -1 && errno == EINTR);
	if (k != (ssize_t)sizeof(key))
		fatal("getrandom");
	tracks_key(ts, key);
}

/* How long a path without a problem in sight is remembered without a
 * result: two of the longest cycles in force, so every path still
 * probed is seen again in time (a reload's groups too, since expiry
 * looks at the configuration in force when it runs). */
static uint64_t
track_age_ns(const struct daemon *d)
{
	uint64_t longest = 0;

	for (size_t i = 0; i < d->cur->ng; i++) {
		const struct dgroup *g = &d->cur->g[i];

		if (g->interval_ns + g->jitter_ns > longest)
			longest = g->interval_ns + g->jitter_ns;
	}
	return 2 * longest;
}

/* A first state has no state before it: "new" in the log, null in the
 * JSON. */
static const char *
state_name(enum verdict v)
{
	const char *n = verdict_name(v);

	return n != NULL ? n : "new";
}

/* "7:rewritten,14:stripped": the store's scales column. */
static void
scales_text(const struct alert_path *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < p->nscales && off < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%d:%s", i > 0 ? "," : "", p->scale[i],
		    state_name((enum verdict)p->verdict[i]));

		if (k < 0)
			break;
		off += (size_t)k;
	}
}

/* The store's scales column back; 0, or -1 when it does not parse. */
static int
scales_parse(const char *s, struct alert_path *p)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	p->nscales = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		long sc;
		enum verdict v;

		if (colon == NULL || p->nscales == RESULT_MAX_SCALES)
			return -1;
		*colon = '\0';
		sc = strtol(tok, &end, 10);
		v = verdict_from_name(colon + 1);
		if (*end != '\0' || end == tok || sc < 0 || sc > 255 || alert_severity(v) == 0)
			return -1;
		p->scale[p->nscales] = (int)sc;
		p->verdict[p->nscales++] = (uint8_t)v;
	}
	return p->nscales > 0 ? 0 : -1;
}

/* An incident: paths raised at one hop (alert.h). */
struct incident {
	struct addr hop;
	int hop_index;
	unsigned paths;			/* its open paths */
	uint8_t worst;
	int64_t raised_ns;
};

/* A raise held for the cycle's end, and what it will tell. */
struct held {
	struct track *t;
	enum verdict from;
	char *reason;
	struct timespec time;
};

struct alert_hold {
	struct held *h;
	size_t nh, cap;
	uint64_t first_ns;		/* wall clock of the oldest held */
	struct incident *inc;
	size_t ninc;
};

static struct alert_hold *
hold_of(struct daemon *d)
{
	if (d->hold == NULL)
		d->hold = xcalloc(1, sizeof(*d->hold));
	return d->hold;
}

static struct incident *
incident_find(struct alert_hold *h, const struct addr *hop)
{
	for (size_t i = 0; i < h->ninc; i++)
		if (addr_equal(&h->inc[i].hop, hop))
			return &h->inc[i];
	return NULL;
}

static struct incident *
incident_add(struct alert_hold *h, const struct addr *hop)
{
	struct incident *x;

	h->inc = xreallocarray(h->inc, h->ninc + 1, sizeof(*h->inc));
	x = &h->inc[h->ninc++];
	memset(x, 0, sizeof(*x));
	x->hop = *hop;
	return x;
}

static void
incident_drop(struct alert_hold *h, struct incident *x)
{
	*x = h->inc[--h->ninc];
}

static void
alert_json(struct json *j, const char *event, const char *vantage, const char *target,
    const struct addr *dst, unsigned port, const struct alert_path *p, enum verdict from,
    enum verdict to, const char *reason, const struct timespec *time)
{
	char buf[ADDR_STRLEN];

	json_reset(j);
	json_object_begin(j);
	json_kstring(j, "event", event);
	json_kstring(j, "kind", "path");
	json_kstring(j, "vantage", vantage);
	json_kstring(j, "target", target != NULL ? target : "");
	json_kstring(j, "address", addr_format(dst, buf, sizeof(buf)));
	json_kuint(j, "port", port);
	json_key(j, "scales");
	json_array_begin(j);
	for (int i = 0; i < p->nscales; i++)
		json_int(j, p->scale[i]);
	json_array_end(j);
	if (verdict_name(from) != NULL)
		json_kstring(j, "from", verdict_name(from));
	else
		json_knull(j, "from");
	json_kstring(j, "to", verdict_name(to) != NULL ? verdict_name(to) : "");
	if (reason != NULL)
		json_kstring(j, "reason", reason);
	if (p->hop > 0) {
		json_kint(j, "hop", p->hop);
		json_kstring(j, "hop_address", addr_format(&p->hop_address, buf, sizeof(buf)));
	}
	json_key(j, "time");
	json_time(j, time);
	json_object_end(j);
}

static void
run_command(struct daemon *d, struct json *j)
{
	const struct conf *c = &d->cur->c;
	const char *text;
	size_t len;

	if (c->alert_command == NULL)
		return;
	text = json_text(j, &len);
	alertcmd_run(d->alertcmd, c->alert_command, c->alert_timeout, c->alert_retry, text, len);
}

static void
store_put(struct daemon *d, const struct store_alert *a, bool clear)
{
	if (d->st == NULL)
		return;
	if (store_alert_put(d->st, a, clear) != 0 && !store_failing(d->st))
		log_warnx("%s", store_error(d->st));
	daemon_store_alert(d);
}

/* The store's row of t's alert (now, or gone with clear). */
static void
alert_store(struct daemon *d, const struct track *t, bool clear)
{
	struct store_alert a;
	char addr[ADDR_STRLEN], hop[ADDR_STRLEN], inc[ADDR_STRLEN], scales[512];

	memset(&a, 0, sizeof(a));
	a.vantage = d->vantage;
	a.kind = "path";
	a.address = addr_format(&t->dst, addr, sizeof(addr));
	a.port = t->port;
	a.target = t->target;
	a.state = state_name((enum verdict)t->open.worst);
	scales_text(&t->open, scales, sizeof(scales));
	a.scales = scales;
	a.hop_index = t->open.hop;
	if (t->open.hop > 0)
		a.hop_address = addr_format(&t->open.hop_address, hop, sizeof(hop));
	if (t->incident.family != 0)
		a.incident = addr_format(&t->incident, inc, sizeof(inc));
	a.raised_ns = t->raised_ns;
	a.changed_ns = (int64_t)daemon_wall_ns();
	store_put(d, &a, clear);
}

static void
incident_store(struct daemon *d, const struct incident *x, bool clear)
{
	struct store_alert a;
	char hop[ADDR_STRLEN], paths[32];

	memset(&a, 0, sizeof(a));
	a.vantage = d->vantage;
	a.kind = "incident";
	a.address = addr_format(&x->hop, hop, sizeof(hop));
	a.state = state_name((enum verdict)x->worst);
	snprintf(paths, sizeof(paths), "%u paths", x->paths);
	a.scales = "";
	a.hop_index = x->hop_index;
	a.hop_address = a.address;
	a.paths = x->paths;
	a.reason = paths;
	a.raised_ns = x->raised_ns;
	a.changed_ns = (int64_t)daemon_wall_ns();
	store_put(d, &a, clear);
}

/* An incident's raise or clear: a log line and a run. */
static void
incident_tell(struct daemon *d, const struct incident *x, enum alert_event e)
{
	char hop[ADDR_STRLEN];
	struct timespec now;
	struct json j;

	addr_format(&x->hop, hop, sizeof(hop));
	if (e == ALERT_RAISE)
		log_warnx("alert raise: incident at hop %d, %s: %u paths %s", x->hop_index, hop,
		    x->paths, state_name((enum verdict)x->worst));
	else
		log_warnx("alert clear: incident at hop %d, %s: its paths are fixed", x->hop_index,
		    hop);
	clock_gettime(CLOCK_REALTIME, &now);
	json_init(&j);
	json_object_begin(&j);
	json_kstring(&j, "event", alert_event_name(e));
	json_kstring(&j, "kind", "incident");
	json_kstring(&j, "vantage", d->vantage);
	json_kint(&j, "hop", x->hop_index);
	json_kstring(&j, "hop_address", hop);
	json_kuint(&j, "paths", x->paths);
	json_kstring(&j, "to", e == ALERT_RAISE ? state_name((enum verdict)x->worst) : "fixed");
	json_key(&j, "time");
	json_time(&j, &now);
	json_object_end(&j);
	run_command(d, &j);
	json_free(&j);
}

/* One path's raise, change or clear: its log line and, unless it is one
 * path of an incident (whose alert speaks for it), its run.  For a clear
 * p is what was broken. */
static void
path_tell(struct daemon *d, const struct track *t, enum alert_event e,
    const struct alert_path *p, enum verdict from, enum verdict to, const char *reason,
    const struct timespec *time)
{
	char addr[ADDR_STRLEN], hop[ADDR_STRLEN + 32] = "", sc[64], inc[ADDR_STRLEN + 64] = "";
	struct json j;

	if (p->hop > 0)
		snprintf(hop, sizeof(hop), " at hop %d, %s", p->hop,
		    addr_format(&p->hop_address, addr, sizeof(addr)));
	if (t->incident.family != 0)
		snprintf(inc, sizeof(inc), " (one path of the incident at %s)",
		    addr_format(&t->incident, addr, sizeof(addr)));
	log_warnx("alert %s: %s [%s]:%u scales %s: %s -> %s: %s%s%s", alert_event_name(e),
	    t->target != NULL ? t->target : "", addr_format(&t->dst, addr, sizeof(addr)),
	    t->port, alert_path_scales(p, sc, sizeof(sc)), state_name(from), state_name(to),
	    reason != NULL ? reason : "", hop, inc);
	if (t->incident.family != 0)
		return;
	json_init(&j);
	alert_json(&j, alert_event_name(e), d->vantage, t->target, &t->dst, t->port, p, from, to,
	    reason, time);
	run_command(d, &j);
	json_free(&j);
}

static void
unhold(struct alert_hold *h, const struct track *t)
{
	for (size_t i = 0; i < h->nh; i++)
		if (h->h[i].t == t) {
			free(h->h[i].reason);
			h->h[i] = h->h[--h->nh];
			return;
		}
}

/* The state at the place of scale sc in t, or VERDICT_NONE. */
static enum verdict
scale_state(const struct track *t, const struct path_result *res, int sc)
{
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++)
		if (res->scales[i].scale == sc)
			return (enum verdict)t->t[i].confirmed;
	return VERDICT_NONE;
}

/* The longest cycle in force: raises are not held longer. */
static uint64_t
hold_max_ns(const struct daemon *d)
{
	return track_age_ns(d) / 2;
}

void
daemon_alerts(struct daemon *d, const struct unit *u, const struct path_result *res)
{
	const struct conf *c = &u->gen->c;
	struct alert_cfg cfg = { (int)c->alert_confirm, (int)c->alert_window };
	uint64_t now_ns = daemon_wall_ns();
	const struct hop_loc *hops[RESULT_MAX_SCALES];
	int scale[RESULT_MAX_SCALES], n = res->nscales < RESULT_MAX_SCALES ? res->nscales :
	    RESULT_MAX_SCALES;
	uint8_t before[RESULT_MAX_SCALES];
	struct alert_path now, prev;
	struct alert_hold *h = hold_of(d);
	struct incident *x;
	enum alert_event e;
	enum verdict from, to;
	const char *reason = NULL;
	struct track *t;
	bool update;

	tracks_keyed(&d->tracks);
	if (h->nh > 0 && now_ns - h->first_ns > hold_max_ns(d))
		daemon_alerts_flush(d);
	(void)tracks_expire(&d->tracks, now_ns, track_age_ns(d));
	t = tracks_get(&d->tracks, &res->dst, res->port, now_ns);
	for (int i = 0; i < n; i++)
		scale[i] = res->scales[i].scale;
	if (t->restored) {
		/* its clear needs N clean runs, as before the restart */
		alert_path_seed(t->t, n, scale, &t->open);
		t->restored = false;
	}
	for (int i = 0; i < n; i++) {
		enum verdict f, x2;

		before[i] = t->t[i].confirmed;
		(void)alert_observe(&t->t[i], &cfg, res->verdicts[i].verdict, &f, &x2);
		hops[i] = &res->verdicts[i].hop;
	}
	alert_path_summary(t->t, n, scale, hops, &t->open, &now);
	e = alert_path_decide(&t->open, &now, &update);
	if (!update)
		return;
	prev = t->open;
	t->open = now;
	/* from and to: the worst scale's states before and after (a clear:
	 * the scale that was worst) */
	if (e == ALERT_CLEAR) {
		int worst = prev.nscales > 0 ? prev.scale[0] : -1;

		for (int k = 0; k < prev.nscales; k++)
			if (prev.verdict[k] == prev.worst) {
				worst = prev.scale[k];
				break;
			}
		from = (enum verdict)prev.worst;
		to = scale_state(t, res, worst);
		for (int i = 0; i < n; i++)
			if (scale[i] == worst)
				reason = res->verdicts[i].reason;
	} else {
		to = (enum verdict)now.worst;
		from = e == ALERT_CHANGE ? (enum verdict)prev.worst : VERDICT_NONE;
		for (int i = 0; i < n; i++)
			if (t->t[i].confirmed == now.worst) {
				if (e == ALERT_RAISE)
					from = (enum verdict)before[i];
				reason = res->verdicts[i].reason;
				break;
			}
	}
	if (e == ALERT_RAISE) {
		free(t->target);
		t->target = xstrdup(res->target != NULL ? res->target : "");
		t->raised_ns = (int64_t)now_ns;
		t->incident.family = 0;
		d->n.alerts_open++;
		x = now.hop > 0 ? incident_find(h, &now.hop_address) : NULL;
		if (x != NULL) {
			/* the incident open at its hop speaks for it */
			t->incident = x->hop;
			x->paths++;
			incident_store(d, x, false);
		} else if (c->incident_paths > 0 && now.hop > 0) {
			/* held: counted with the cycle's other raises */
			if (h->nh == h->cap) {
				h->cap = h->cap ? 2 * h->cap : 64;
				h->h = xreallocarray(h->h, h->cap, sizeof(*h->h));
			}
			if (h->nh == 0)
				h->first_ns = now_ns;
			h->h[h->nh++] = (struct held){ t, from,
			    reason != NULL ? xstrdup(reason) : NULL, res->time };
			t->held = true;
			return;
		}
	}
	if (t->held) {
		/* changed or fixed before it was told: nothing to tell yet,
		 * or ever */
		if (e == ALERT_CLEAR) {
			unhold(h, t);
			t->held = false;
			if (d->n.alerts_open > 0)
				d->n.alerts_open--;
		}
		return;
	}
	if (e == ALERT_CLEAR && d->n.alerts_open > 0)
		d->n.alerts_open--;
	alert_store(d, t, e == ALERT_CLEAR);
	if (e == ALERT_NONE)
		return;
	path_tell(d, t, e, e == ALERT_CLEAR ? &prev : &now, from, to, reason, &res->time);
	if (e == ALERT_CLEAR) {
		free(t->target);
		t->target = NULL;
		if (t->incident.family != 0 && (x = incident_find(h, &t->incident)) != NULL) {
			if (x->paths > 0)
				x->paths--;
			if (x->paths == 0) {
				incident_store(d, x, true);
				incident_tell(d, x, ALERT_CLEAR);
				incident_drop(h, x);
			} else
				incident_store(d, x, false);
		}
		t->incident.family = 0;
	}
}

void
daemon_alerts_tick(struct daemon *d)
{
	if (d->hold != NULL && d->hold->nh > 0 &&
	    daemon_wall_ns() - d->hold->first_ns > hold_max_ns(d))
		daemon_alerts_flush(d);
}

void
daemon_alerts_flush(struct daemon *d)
{
	struct alert_hold *h = d->hold;
	struct addr *hops;
	long *inc;
	size_t n;

	if (h == NULL || h->nh == 0)
		return;
	n = h->nh;
	hops = xcalloc(n, sizeof(*hops));
	inc = xcalloc(n, sizeof(*inc));
	for (size_t i = 0; i < n; i++)
		hops[i] = h->h[i].t->open.hop_address;
	(void)alert_incidents(hops, n, d->cur->c.incident_paths, inc);
	/* the incidents first: their paths' lines name them */
	for (size_t i = 0; i < n; i++) {
		struct track *t = h->h[i].t;
		struct incident *x;

		if (inc[i] < 0)
			continue;
		if ((x = incident_find(h, &hops[i])) == NULL) {
			x = incident_add(h, &hops[i]);
			x->hop_index = t->open.hop;
			x->raised_ns = (int64_t)daemon_wall_ns();
		}
		x->paths++;
		if (t->open.worst > x->worst)
			x->worst = t->open.worst;
		t->incident = hops[i];
	}
	for (size_t i = 0; i < n; i++)
		if (inc[i] == (long)i) {
			struct incident *x = incident_find(h, &hops[i]);

			incident_store(d, x, false);
			incident_tell(d, x, ALERT_RAISE);
		}
	for (size_t i = 0; i < n; i++) {
		struct held *k = &h->h[i];

		k->t->held = false;
		alert_store(d, k->t, false);
		path_tell(d, k->t, ALERT_RAISE, &k->t->open, k->from,
		    (enum verdict)k->t->open.worst, k->reason, &k->time);
		free(k->reason);
	}
	h->nh = 0;
	free(hops);
	free(inc);
}

static int
by_raised(const void *a, const void *b)
{
	const struct track *x = *(const struct track *const *)a;
	const struct track *y = *(const struct track *const *)b;

	return (x->raised_ns > y->raised_ns) - (x->raised_ns < y->raised_ns);
}

static void
when(int64_t ns, char *buf, size_t len)
{
	struct timespec ts = { (time_t)(ns / 1000000000), 0 };

	if (json_format_time(buf, len, &ts) < 0)
		snprintf(buf, len, "?");
}

size_t
daemon_alerts_list(struct daemon *d, char *buf, size_t len)
{
	/* room kept for the last line */
	const size_t tail = 64;
	struct track **v = NULL;
	size_t nv = 0, cap = 0, off = 0, shown = 0, total;
	char a[ADDR_STRLEN], hop[ADDR_STRLEN + 32], t[64], sc[64], line[1024];

	if (len <= tail)
		return 0;
	buf[0] = '\0';
	for (size_t b = 0; b < TRACKS_BUCKETS; b++)
		for (struct track *k = d->tracks.b[b]; k != NULL; k = k->next)
			if (k->open.bad && !k->held) {
				if (nv == cap) {
					cap = cap ? 2 * cap : 64;
					v = xreallocarray(v, cap, sizeof(*v));
				}
				v[nv++] = k;
			}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), by_raised);
	total = nv + (d->hold != NULL ? d->hold->ninc : 0);
	for (size_t i = 0; d->hold != NULL && i < d->hold->ninc; i++) {
		const struct incident *x = &d->hold->inc[i];
		int k;

		when(x->raised_ns, t, sizeof(t));
		k = snprintf(line, sizeof(line), "alert incident at hop %d, %s: %u paths %s, since %s\n",
		    x->hop_index, addr_format(&x->hop, a, sizeof(a)), x->paths,
		    state_name((enum verdict)x->worst), t);
		if (k < 0 || off + (size_t)k >= len - tail)
			goto cut;
		memcpy(buf + off, line, (size_t)k + 1);
		off += (size_t)k;
		shown++;
	}
	for (size_t i = 0; i < nv; i++) {
		const struct track *x = v[i];
		char esc[LOG_ESCAPE_SIZE(256)];
		int k;

		hop[0] = '\0';
		if (x->open.hop > 0)
			snprintf(hop, sizeof(hop), " at hop %d, %s", x->open.hop,
			    addr_format(&x->open.hop_address, a, sizeof(a)));
		when(x->raised_ns, t, sizeof(t));
		k = snprintf(line, sizeof(line), "alert path %s [%s]:%u scales %s: %s%s%s, since %s\n",
		    log_escape(esc, sizeof(esc), x->target != NULL ? x->target : "",
		    x->target != NULL ? strlen(x->target) : 0),
		    addr_format(&x->dst, a, sizeof(a)), x->port,
		    alert_path_scales(&x->open, sc, sizeof(sc)),
		    state_name((enum verdict)x->open.worst), hop,
		    x->incident.family != 0 ? " (in an incident)" : "", t);
		if (k < 0 || off + (size_t)k >= len - tail)
			goto cut;
		memcpy(buf + off, line, (size_t)k + 1);
		off += (size_t)k;
		shown++;
	}
	free(v);
	return off;
cut:
	free(v);
	off += (size_t)snprintf(buf + off, len - off, "... and %zu more\n", total - shown);
	return off;
}

static void
load_one(void *arg, const struct store_alert *a)
{
	struct daemon *d = arg;
	struct alert_hold *h = hold_of(d);
	struct alert_path p;
	struct addr dst, hop;
	struct incident *x;
	struct track *t;

	memset(&p, 0, sizeof(p));
	if (strcmp(a->kind, "incident") == 0 && addr_parse(a->address, &hop) == 0) {
		if ((x = incident_find(h, &hop)) == NULL)
			x = incident_add(h, &hop);
		x->hop_index = a->hop_index;
		x->worst = (uint8_t)verdict_from_name(a->state);
		x->raised_ns = a->raised_ns;
		return;
	}
	if (strcmp(a->kind, "path") != 0 || addr_parse(a->address, &dst) != 0 ||
	    scales_parse(a->scales, &p) != 0) {
		log_warnx("open alert %s [%s]:%u in the store does not parse; ignored", a->kind,
		    a->address, a->port);
		return;
	}
	p.bad = true;
	p.worst = (uint8_t)verdict_from_name(a->state);
	if (alert_severity((enum verdict)p.worst) == 0)
		p.worst = p.verdict[0];
	if (a->hop_index > 0 && a->hop_address != NULL &&
	    addr_parse(a->hop_address, &p.hop_address) == 0)
		p.hop = a->hop_index;
	t = tracks_get(&d->tracks, &dst, (uint16_t)a->port, daemon_wall_ns());
	if (!t->open.bad)
		d->n.alerts_open++;
	t->open = p;
	free(t->target);
	t->target = a->target != NULL ? xstrdup(a->target) : NULL;
	t->raised_ns = a->raised_ns;
	t->restored = true;
	t->incident.family = 0;
	if (a->incident != NULL && addr_parse(a->incident, &hop) == 0) {
		if ((x = incident_find(h, &hop)) == NULL)
			x = incident_add(h, &hop);
		x->paths++;
		t->incident = hop;
	}
}

void
daemon_alerts_load(struct daemon *d)
{
	struct alert_hold *h;
	int64_t n;

	if (d->st == NULL)
		return;
	tracks_keyed(&d->tracks);
	h = hold_of(d);
	if ((n = store_alert_each(d->st, d->vantage, load_one, d)) < 0) {
		log_warnx("%s", store_error(d->st));
		return;
	}
	/* an incident whose paths are all gone was cleared but for its row */
	for (size_t i = 0; i < h->ninc;)
		if (h->inc[i].paths == 0) {
			incident_store(d, &h->inc[i], true);
			incident_drop(h, &h->inc[i]);
		} else
			i++;
	if (n > 0)
		log_info("%lld open alerts read from the store: not raised again",
		    (long long)n);
}

void
daemon_alerts_free(struct daemon *d)
{
	struct alert_hold *h = d->hold;

	if (h == NULL)
		return;
	for (size_t i = 0; i < h->nh; i++)
		free(h->h[i].reason);
	free(h->h);
	free(h->inc);
	free(h);
	d->hold = NULL;
}

void
daemon_store_alert(struct daemon *d)
{
	const struct conf *c = &d->cur->c;
	bool failing = d->st != NULL && store_failing(d->st);
	const struct store_stats *ss;
	struct timespec now;
	const char *text;
	struct json j;
	size_t len;

	if (failing == d->store_alert)
		return;
	d->store_alert = failing;
	ss = store_get_stats(d->st);
	if (failing)
		log_warnx("alert raise: store-failing: %s (probing goes on; results kept in "
		    "memory are written when it can)", store_error(d->st));
	else
		log_warnx("alert clear: store-failing: %s writes again; %llu results and "
		    "states dropped while it could not", c->database,
		    (unsigned long long)ss->dropped);
	if (c->alert_command == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	json_init(&j);
	json_object_begin(&j);
	json_kstring(&j, "event", failing ? "store-failing" : "store-recovered");
	json_kstring(&j, "vantage", d->vantage);
	json_kstring(&j, "database", c->database);
	if (failing)
		json_kstring(&j, "reason", store_error(d->st));
	json_kuint(&j, "pending", store_pending(d->st));
	json_kuint(&j, "failed_writes", ss->failed_writes);
	json_kuint(&j, "dropped", ss->dropped);
	json_key(&j, "time");
	json_time(&j, &now);
	json_object_end(&j);
	text = json_text(&j, &len);
	alertcmd_run(d->alertcmd, c->alert_command, c->alert_timeout, c->alert_retry, text, len);
	json_free(&j);
}
