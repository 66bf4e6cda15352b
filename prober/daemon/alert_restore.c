/*
 * alert_restore.c -- the open alerts outside a result: read back from the
 * store at start (daemon_alerts_load), so a restart neither raises them
 * again nor forgets them, and listed a line each for the status
 * (daemon_alerts_list).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alert_hold.h"
#include "daemon.h"
#include "json.h"
#include "log.h"
#include "store.h"

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
	for (size_t b = 0; b < d->tracks.nb; b++)
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
