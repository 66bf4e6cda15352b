/*
 * alert_tell.c -- telling an alert: its log line, its run of the
 * alert-command program with the change as JSON on stdin (alertcmd.h),
 * and its row of the store's open alerts (store_alert_put, committed
 * before the program runs); the store's own alert (store-failing) the
 * same way, and a line when its checkpoints fail.  What to tell is
 * decided in alert_notify.c.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "alert_hold.h"
#include "alertcmd.h"
#include "daemon.h"
#include "json.h"
#include "log.h"
#include "store.h"

/* A first state has no state before it: "new" in the log, null in the
 * JSON. */
const char *
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
void
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
void
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
void
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
void
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
/* The store's checkpoints failing: a line as they begin to fail and one
 * as they succeed again; no alert, nothing is lost (the WAL keeps every
 * commit meanwhile). */
static void
ckpt_watch(struct daemon *d)
{
	char why[STORE_ERRLEN];
	bool failed = d->st != NULL && store_ckpt_failed(d->st, why, sizeof(why));

	if (failed == d->ckpt_failed)
		return;
	d->ckpt_failed = failed;
	if (failed)
		log_warnx("%s (commits go on into the WAL, which keeps them until a "
		    "checkpoint succeeds; tried again every second)", why);
	else
		log_info("%s: checkpoints succeed again", d->cur->c.database);
}

void
daemon_store_alert(struct daemon *d)
{
	const struct conf *c = &d->cur->c;
	bool failing = d->st != NULL && store_failing(d->st);
	const struct store_stats *ss;
	struct json j;
	char db[256];		/* a URI without its password */

	store_where_safe(c->database, db, sizeof(db));
	ckpt_watch(d);
	if (failing == d->store_alert)
		return;
	d->store_alert = failing;
	ss = store_get_stats(d->st);
	if (failing)
		log_warnx("alert raise: store-failing: %s (probing goes on; results kept in "
		    "memory are written when it can)", store_error(d->st));
	else
		log_warnx("alert clear: store-failing: %s writes again; %llu results and "
		    "states dropped while it could not", db,
		    (unsigned long long)ss->dropped);
	if (c->alert_command == NULL)
		return;
	daemon_event_begin(d, &j, failing ? "store-failing" : "store-recovered");
	json_kstring(&j, "database", db);
	if (failing)
		json_kstring(&j, "reason", store_error(d->st));
	json_kuint(&j, "pending", store_pending(d->st));
	json_kuint(&j, "failed_writes", ss->failed_writes);
	json_kuint(&j, "dropped", ss->dropped);
	daemon_event_send(d, &j);
}

void
daemon_event_begin(struct daemon *d, struct json *j, const char *event)
{
	json_init(j);
	json_object_begin(j);
	json_kstring(j, "event", event);
	json_kstring(j, "vantage", d->vantage);
}

void
daemon_event_send(struct daemon *d, struct json *j)
{
	const struct conf *c = &d->cur->c;
	struct timespec now;
	const char *text;
	size_t len;

	clock_gettime(CLOCK_REALTIME, &now);
	json_key(j, "time");
	json_time(j, &now);
	json_object_end(j);
	text = json_text(j, &len);
	alertcmd_run(d->alertcmd, c->alert_command, c->alert_timeout, c->alert_retry, text, len);
	json_free(j);
}
