/*
 * alerting.c -- a path's verdicts through alert.h's N of M: on a raise, a
 * change or a clear, one log line with the reason and, when the
 * alert-command setting names a program, that program run once with the
 * change as JSON on stdin (alertcmd.h).  A path's memory goes once it
 * has no problem in sight and is no longer probed (tracks.h). The store's own alert goes
 * the same way: raised when it cannot write (its rows wait in memory),
 * cleared when it writes.
 */
#include <sys/random.h>

#include <errno.h>
#include <stdio.h>
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

static void
alert_json(struct json *j, const char *event, const char *vantage,
    const struct path_result *res, int i, enum verdict from, enum verdict to)
{
	char buf[ADDR_STRLEN];
	const struct scale_verdict *v = &res->verdicts[i];

	json_reset(j);
	json_object_begin(j);
	json_kstring(j, "event", event);
	json_kstring(j, "vantage", vantage);
	json_kstring(j, "target", res->target);
	json_kstring(j, "address", addr_format(&res->dst, buf, sizeof(buf)));
	json_kuint(j, "port", res->port);
	json_kint(j, "scale", res->scales[i].scale);
	json_kstring(j, "from", verdict_name(from));
	json_kstring(j, "to", verdict_name(to));
	json_kstring(j, "reason", v->reason);
	if (v->hop.present) {
		json_kint(j, "hop", v->hop.index);
		json_kstring(j, "hop_address", addr_format(&v->hop.address, buf, sizeof(buf)));
	}
	json_key(j, "time");
	json_time(j, &res->time);
	json_object_end(j);
}

void
daemon_alerts(struct daemon *d, const struct unit *u, const struct path_result *res)
{
	const struct conf *c = &u->gen->c;
	struct alert_cfg cfg = { (int)c->alert_confirm, (int)c->alert_window };
	uint64_t now = daemon_wall_ns();
	struct track *t;

	tracks_keyed(&d->tracks);
	(void)tracks_expire(&d->tracks, now, track_age_ns(d));
	t = tracks_get(&d->tracks, &res->dst, res->port, now);

	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++) {
		enum verdict from, to;
		enum alert_event e = alert_observe(&t->t[i], &cfg, res->verdicts[i].verdict,
		    &from, &to);
		char addr[ADDR_STRLEN], hop[ADDR_STRLEN + 32] = "";
		const char *text;
		struct json j;
		size_t len;

		if (e == ALERT_NONE)
			continue;
		if (e == ALERT_CLEAR) {
			if (d->n.alerts_open > 0)
				d->n.alerts_open--;
		} else if (e == ALERT_RAISE)
			d->n.alerts_open++;
		if (res->verdicts[i].hop.present)
			snprintf(hop, sizeof(hop), " at hop %d, %s", res->verdicts[i].hop.index,
			    addr_format(&res->verdicts[i].hop.address, addr, sizeof(addr)));
		log_warnx("alert %s: %s [%s]:%u scale %d: %s -> %s: %s%s", alert_event_name(e),
		    res->target, addr_format(&res->dst, addr, sizeof(addr)), res->port,
		    res->scales[i].scale, verdict_name(from), verdict_name(to),
		    res->verdicts[i].reason, hop);
		if (c->alert_command == NULL)
			continue;
		json_init(&j);
		alert_json(&j, alert_event_name(e), d->vantage, res, i, from, to);
		text = json_text(&j, &len);
		alertcmd_run(d->alertcmd, c->alert_command, c->alert_timeout, text, len);
		json_free(&j);
	}
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
