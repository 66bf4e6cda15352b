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

static void
alert_json(struct json *j, const char *event, const char *vantage, const char *target,
    const struct addr *dst, unsigned port, const struct alert_path *p, enum verdict from,
    enum verdict to, const char *reason, const struct timespec *time)
{
	char buf[ADDR_STRLEN];

	json_reset(j);
	json_object_begin(j);
	json_kstring(j, "event", event);
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

/* The store's row of t's alert (now, or gone with clear). */
static void
alert_store(struct daemon *d, const struct track *t, bool clear)
{
	struct store_alert a;
	char addr[ADDR_STRLEN], hop[ADDR_STRLEN], scales[512];

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
	a.raised_ns = t->raised_ns;
	a.changed_ns = (int64_t)daemon_wall_ns();
	if (d->st == NULL)
		return;
	if (store_alert_put(d->st, &a, clear) != 0 && !store_failing(d->st))
		log_warnx("%s", store_error(d->st));
	daemon_store_alert(d);
}

/* The state at the place of scale sc in t, or VERDICT_NONE. */
static enum verdict
scale_state(const struct track *t, const struct path_result *res, int sc, bool confirmed)
{
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++)
		if (res->scales[i].scale == sc)
			return confirmed ? (enum verdict)t->t[i].confirmed :
			    res->verdicts[i].verdict;
	return VERDICT_NONE;
}

/* A path's alert read from the store: its scales' tracks take the states
 * it names, so its clear needs N clean runs as before the restart. */
static void
seed(struct track *t, const struct path_result *res)
{
	t->restored = false;
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++)
		for (int k = 0; k < t->open.nscales; k++)
			if (t->open.scale[k] == res->scales[i].scale &&
			    t->t[i].confirmed == VERDICT_NONE) {
				t->t[i].confirmed = t->open.verdict[k];
				t->t[i].open = true;
			}
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
	enum alert_event e;
	enum verdict from, to;
	const char *reason = NULL;
	char addr[ADDR_STRLEN], hop[ADDR_STRLEN + 32] = "", sc[64];
	struct track *t;
	bool update;

	tracks_keyed(&d->tracks);
	(void)tracks_expire(&d->tracks, now_ns, track_age_ns(d));
	t = tracks_get(&d->tracks, &res->dst, res->port, now_ns);
	if (t->restored)
		seed(t, res);
	for (int i = 0; i < n; i++) {
		enum verdict f, x;

		before[i] = t->t[i].confirmed;
		(void)alert_observe(&t->t[i], &cfg, res->verdicts[i].verdict, &f, &x);
		scale[i] = res->scales[i].scale;
		hops[i] = &res->verdicts[i].hop;
	}
	alert_path_summary(t->t, n, scale, hops, &t->open, &now);
	e = alert_path_decide(&t->open, &now, &update);
	if (!update)
		return;
	prev = t->open;
	t->open = now;
	if (e == ALERT_RAISE) {
		free(t->target);
		t->target = xstrdup(res->target != NULL ? res->target : "");
		t->raised_ns = (int64_t)now_ns;
		d->n.alerts_open++;
	} else if (e == ALERT_CLEAR && d->n.alerts_open > 0)
		d->n.alerts_open--;
	alert_store(d, t, e == ALERT_CLEAR);
	if (e == ALERT_NONE)
		return;
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
		to = scale_state(t, res, worst, true);
		reason = NULL;
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
	if (e == ALERT_CLEAR)
		now = prev;		/* a clear names what was broken */
	if (now.hop > 0)
		snprintf(hop, sizeof(hop), " at hop %d, %s", now.hop,
		    addr_format(&now.hop_address, addr, sizeof(addr)));
	log_warnx("alert %s: %s [%s]:%u scales %s: %s -> %s: %s%s", alert_event_name(e),
	    t->target != NULL ? t->target : "", addr_format(&res->dst, addr, sizeof(addr)),
	    res->port, alert_path_scales(&now, sc, sizeof(sc)), state_name(from), state_name(to),
	    reason != NULL ? reason : "", hop);
	if (c->alert_command != NULL) {
		struct json j;
		const char *text;
		size_t len;

		json_init(&j);
		alert_json(&j, alert_event_name(e), d->vantage, t->target, &res->dst, res->port,
		    &now, from, to, reason, &res->time);
		text = json_text(&j, &len);
		alertcmd_run(d->alertcmd, c->alert_command, c->alert_timeout, text, len);
		json_free(&j);
	}
	if (e == ALERT_CLEAR) {
		free(t->target);
		t->target = NULL;
	}
}

static void
load_one(void *arg, const struct store_alert *a)
{
	struct daemon *d = arg;
	struct alert_path p;
	struct addr dst;
	struct track *t;

	memset(&p, 0, sizeof(p));
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
}

void
daemon_alerts_load(struct daemon *d)
{
	int64_t n;

	if (d->st == NULL)
		return;
	tracks_keyed(&d->tracks);
	if ((n = store_alert_each(d->st, d->vantage, load_one, d)) < 0)
		log_warnx("%s", store_error(d->st));
	else if (n > 0)
		log_info("%lld open alerts read from the store: not raised again",
		    (long long)n);
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
	alertcmd_run(d->alertcmd, c->alert_command, c->alert_timeout, text, len);
	json_free(&j);
}
