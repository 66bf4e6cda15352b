/*
 * alert_notify.c -- a path's verdicts through alert_state.h: each scale's state
 * confirmed by N of M, the path's alert raised when one of its scales
 * goes bad, changed when what is broken changes (the worst state or the
 * hop), cleared when none is bad, whatever the number of scales.  Each
 * is one log line and, when the alert-command setting names a program,
 * one run of it with the change as JSON on stdin (alert_tell.c).  The open
 * alerts are rows of the store (store_alert_put, committed before the
 * program runs) read back at start (alert_restore.c), so a restart
 * neither raises them again nor forgets them.  A path's memory shrinks to
 * a few bytes while it has one verdict in sight and nothing raised, and
 * goes once it has no problem in sight and is no longer probed (tracks.h).  The
 * store's own alert goes the same way: raised when it cannot write (its
 * rows wait in memory), cleared when it writes.
 */
#include <sys/random.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert_hold.h"
#include "daemon.h"
#include "infer.h"
#include "json.h"
#include "log.h"
#include "siphash.h"
#include "store.h"

/* The tracks' hash key, secret and new at each start: targets and names
 * are chosen by others too (a prefix, a name's addresses), and a known
 * key would let them put every path in one bucket. */
void
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

struct alert_hold *
hold_of(struct daemon *d)
{
	if (d->hold == NULL)
		d->hold = xcalloc(1, sizeof(*d->hold));
	return d->hold;
}

struct incident *
incident_find(struct alert_hold *h, const struct addr *hop)
{
	for (size_t i = 0; i < h->ninc; i++)
		if (addr_equal(&h->inc[i].hop, hop))
			return &h->inc[i];
	return NULL;
}

struct incident *
incident_add(struct alert_hold *h, const struct addr *hop)
{
	struct incident *x;

	h->inc = xreallocarray(h->inc, h->ninc + 1, sizeof(*h->inc));
	x = &h->inc[h->ninc++];
	memset(x, 0, sizeof(*x));
	x->hop = *hop;
	return x;
}

void
incident_drop(struct alert_hold *h, struct incident *x)
{
	*x = h->inc[--h->ninc];
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

/* The longest cycle in force: raises whose cycle's end is not seen are
 * not held longer once no unit that raised them runs. */
static uint64_t
hold_max_ns(const struct daemon *d)
{
	return track_age_ns(d) / 2;
}

/* Whether the held raises are told without their cycle's end: the oldest
 * waited the longest cycle and none of the units that raised them is still
 * in the runner.  Wall time alone is not enough: the traces of one unit
 * end as their routers' ICMP budgets allow, minutes apart in a big cycle,
 * and a partial flush tells an incident's paths one by one. */
static bool
hold_expired(const struct daemon *d, uint64_t now_ns)
{
	const struct alert_hold *h = d->hold;

	return h != NULL && h->nh > 0 && h->nprod == 0 &&
	    now_ns - h->first_ns > hold_max_ns(d);
}

static void
producer_add(struct alert_hold *h, const struct unit *u)
{
	for (size_t i = 0; i < h->nprod; i++)
		if (h->prod[i] == u)
			return;
	if (h->nprod == h->prodcap) {
		h->prodcap = h->prodcap ? 2 * h->prodcap : 8;
		h->prod = xreallocarray(h->prod, h->prodcap, sizeof(*h->prod));
	}
	h->prod[h->nprod++] = u;
}

void
daemon_alerts_unit_end(struct daemon *d, const struct unit *u)
{
	struct alert_hold *h = d->hold;

	if (h == NULL)
		return;
	for (size_t i = 0; i < h->nprod; i++)
		if (h->prod[i] == u) {
			h->prod[i] = h->prod[--h->nprod];
			return;
		}
}

/* What one result changed of its path's alert: the event, the summary
 * before and after, the worst scale's states before and after (a clear:
 * the scale that was worst) and the reason of the result's verdict. */
struct alert_change {
	enum alert_event e;
	struct alert_path now, prev;
	enum verdict from, to;
	const char *reason;
};

/* res's verdicts through t's scales (N of M); the summary's decision in
 * ch.  false when nothing of the alert changed. */
static bool
observe(struct track *t, const struct alert_cfg *cfg, const struct path_result *res,
    struct alert_change *ch)
{
	const struct hop_loc *hops[RESULT_MAX_SCALES];
	int scale[RESULT_MAX_SCALES], n = res->nscales < RESULT_MAX_SCALES ? res->nscales :
	    RESULT_MAX_SCALES;
	uint8_t before[RESULT_MAX_SCALES];
	bool update;

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
		(void)alert_observe(&t->t[i], cfg, res->verdicts[i].verdict, &f, &x2);
		hops[i] = &res->verdicts[i].hop;
	}
	alert_path_summary(t->t, n, scale, hops, &t->open, &ch->now);
	ch->e = alert_path_decide(&t->open, &ch->now, &update);
	if (!update)
		return false;
	ch->prev = t->open;
	t->open = ch->now;
	ch->reason = NULL;
	/* from and to: the worst scale's states before and after (a clear:
	 * the scale that was worst) */
	if (ch->e == ALERT_CLEAR) {
		int worst = ch->prev.nscales > 0 ? ch->prev.scale[0] : -1;

		for (int k = 0; k < ch->prev.nscales; k++)
			if (ch->prev.verdict[k] == ch->prev.worst) {
				worst = ch->prev.scale[k];
				break;
			}
		ch->from = (enum verdict)ch->prev.worst;
		ch->to = scale_state(t, res, worst);
		for (int i = 0; i < n; i++)
			if (scale[i] == worst)
				ch->reason = res->verdicts[i].reason;
	} else {
		ch->to = (enum verdict)ch->now.worst;
		ch->from = ch->e == ALERT_CHANGE ? (enum verdict)ch->prev.worst : VERDICT_NONE;
		for (int i = 0; i < n; i++)
			if (t->t[i].confirmed == ch->now.worst) {
				if (ch->e == ALERT_RAISE)
					ch->from = (enum verdict)before[i];
				ch->reason = res->verdicts[i].reason;
				break;
			}
	}
	return true;
}

/* A raise: t's alert opened; joined to the incident open at its hop, or
 * held for the cycle's end when incidents are counted.  true when held
 * (nothing told now). */
static bool
raise_or_hold(struct daemon *d, const struct unit *u, struct track *t,
    const struct path_result *res, const struct alert_change *ch, uint64_t now_ns)
{
	const struct conf *c = &u->config_gen->c;
	struct alert_hold *h = hold_of(d);
	struct incident *x;

	free(t->target);
	t->target = xstrdup(res->target != NULL ? res->target : "");
	t->raised_ns = (int64_t)now_ns;
	t->incident.family = 0;
	d->n.alerts_open++;
	x = ch->now.hop > 0 ? incident_find(h, &ch->now.hop_address) : NULL;
	if (x != NULL) {
		/* the incident open at its hop speaks for it */
		t->incident = x->hop;
		x->paths++;
		incident_store(d, x, false);
	} else if (c->incident_paths > 0 && ch->now.hop > 0) {
		/* held: counted with the cycle's other raises */
		if (h->nh == h->cap) {
			h->cap = h->cap ? 2 * h->cap : 64;
			h->h = xreallocarray(h->h, h->cap, sizeof(*h->h));
		}
		if (h->nh == 0)
			h->first_ns = now_ns;
		h->h[h->nh++] = (struct held){ t, ch->from,
		    ch->reason != NULL ? xstrdup(ch->reason) : NULL, res->time };
		t->held = true;
		producer_add(h, u);
		return true;
	}
	return false;
}

/* A cleared path leaves its incident: the incident cleared with its last
 * path, else its row's count updated. */
static void
leave_incident(struct daemon *d, struct track *t)
{
	struct alert_hold *h = hold_of(d);
	struct incident *x;

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

/* res through its path's memory t: what it tells, told. */
static void
alert_of(struct daemon *d, const struct unit *u, struct track *t, const struct path_result *res,
    uint64_t now_ns)
{
	const struct conf *c = &u->config_gen->c;
	struct alert_cfg cfg = { (int)c->alert_confirm, (int)c->alert_window };
	struct alert_hold *h = hold_of(d);
	struct alert_change ch;

	if (!observe(t, &cfg, res, &ch))
		return;
	if (ch.e == ALERT_RAISE && raise_or_hold(d, u, t, res, &ch, now_ns))
		return;
	if (t->held) {
		/* changed or fixed before it was told: nothing to tell yet,
		 * or ever */
		if (ch.e == ALERT_CLEAR) {
			unhold(h, t);
			t->held = false;
			if (d->n.alerts_open > 0)
				d->n.alerts_open--;
		}
		return;
	}
	if (ch.e == ALERT_CLEAR && d->n.alerts_open > 0)
		d->n.alerts_open--;
	alert_store(d, t, ch.e == ALERT_CLEAR);
	if (ch.e == ALERT_NONE)
		return;
	path_tell(d, t, ch.e, ch.e == ALERT_CLEAR ? &ch.prev : &ch.now, ch.from, ch.to, ch.reason,
	    &res->time);
	if (ch.e == ALERT_CLEAR) {
		free(t->target);
		t->target = NULL;
		leave_incident(d, t);
	}
}

void
daemon_alerts(struct daemon *d, const struct unit *u, const struct path_result *res)
{
	uint64_t now_ns = daemon_wall_ns();
	struct track *t;

	tracks_keyed(&d->tracks);
	if (hold_expired(d, now_ns))
		daemon_alerts_flush(d);
	(void)tracks_expire(&d->tracks, now_ns, track_age_ns(d));
	t = tracks_get(&d->tracks, &res->dst, res->port, now_ns);
	alert_of(d, u, t, res, now_ns);
	/* a path with nothing to say keeps a few bytes, not its entry */
	(void)tracks_settle(&d->tracks, t);
}

void
daemon_alerts_tick(struct daemon *d)
{
	if (hold_expired(d, daemon_wall_ns()))
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
	free(h->prod);
	free(h);
	d->hold = NULL;
}
