/*
 * retention.c -- the daemon's retention: at start and then every hour,
 * results older than the retention setting go with store_prune's rule
 * (what begins or ends a state stays), one store_prune_step per turn of
 * the event loop with RETENTION_GAP_MS between steps, so the writer (the
 * same connection, on this loop) and the capture wait at most one short
 * transaction.  The free pages go back in bounded incremental vacuums;
 * the checkpoint thread (db/store_ckpt.c) then shrinks the file.  Only
 * this daemon's vantage's results go (store_prune.vantage), on either
 * engine: on a store other vantages write too (the shared PostgreSQL
 * store, a SQLite file of several vantage names) each keeps its history
 * for its own retention, and results under a former name of this vantage
 * wait for scaleprobe db prune, which prunes every vantage.  Also the
 * store's size and oldest result for /metrics and status.
 */
#include <event2/event.h>
#include <stdlib.h>

#include "daemon.h"
#include "log.h"
#include "store.h"

#define RETENTION_EVERY_S	3600
#define RETENTION_RETRY_S	60	/* a failing store: tried again then */
#define RETENTION_GAP_MS	10	/* between steps: the loop's turn */
#define RETENTION_BATCH		64	/* paths a transaction */
#define FIGURES_MAX_AGE_NS	(600 * 1000000000ull)

struct retention {
	struct event *ev;
	struct store_prune p;
	bool running;
	int64_t oldest_ns;		/* cached; 0: none or unknown */
	uint64_t oldest_at;		/* daemon_wall_ns of the cache */
};

static void
arm(struct daemon *d, long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_add(d->retention->ev, &tv);
}

static void
refresh(struct daemon *d)
{
	int64_t bytes;

	if (store_size(d->st, &bytes, &d->retention->oldest_ns) != 0)
		log_warnx("%s", store_error(d->st));
	d->retention->oldest_at = daemon_wall_ns();
}

static void
pass_begin(struct daemon *d)
{
	struct retention *r = d->retention;
	int64_t days = d->cur->c.retention;
	int64_t cutoff = (int64_t)daemon_wall_ns() - days * 86400 * 1000000000;

	store_prune_init(&r->p, cutoff, RETENTION_BATCH, false);
	r->p.vantage = d->vantage;	/* fixed for the daemon's life */
	r->running = true;
}

static void
pass_end(struct daemon *d)
{
	struct retention *r = d->retention;
	const struct store_prune *p = &r->p;
	char db[256];

	r->running = false;
	refresh(d);
	if (p->results == 0 && p->runs == 0 && p->bytes_before == p->bytes_after)
		return;
	store_where_safe(d->cur->c.database, db, sizeof(db));
	log_info("%s: retention %u days of vantage %s: %llu results of %llu paths, %llu runs "
	    "removed, %lld bytes given back; %llu transactions, the longest %.1f ms, %.2f s",
	    db, d->cur->c.retention, d->vantage, (unsigned long long)p->results,
	    (unsigned long long)p->paths, (unsigned long long)p->runs,
	    (long long)(p->bytes_before - p->bytes_after), (unsigned long long)p->batches,
	    (double)p->lock_ns_max / 1e6, (double)p->took_ns / 1e9);
}

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct retention *r = d->retention;
	int rc;

	(void)fd;
	(void)what;
	if (d->stopping || d->st == NULL)
		return;
	/* rows waiting for a store that cannot write come first */
	if (store_failing(d->st)) {
		r->running = false;
		arm(d, RETENTION_RETRY_S * 1000);
		return;
	}
	if (!r->running)
		pass_begin(d);
	rc = store_prune_step(d->st, &r->p);
	if (rc > 0) {
		arm(d, RETENTION_GAP_MS);
		return;
	}
	if (rc < 0) {
		/* a step is one transaction: what it did is whole or undone;
		 * the next pass starts over */
		r->running = false;
		log_warnx("%s; retention tried again in %d s", store_error(d->st),
		    RETENTION_RETRY_S);
		daemon_store_alert(d);
		arm(d, RETENTION_RETRY_S * 1000);
		return;
	}
	pass_end(d);
	arm(d, RETENTION_EVERY_S * 1000);
}

int
daemon_retention_start(struct daemon *d)
{
	struct retention *r = calloc(1, sizeof(*r));

	if (r == NULL || (r->ev = event_new(d->base, -1, 0, on_tick, d)) == NULL) {
		free(r);
		log_warnx("retention: out of memory");
		return -1;
	}
	d->retention = r;
	refresh(d);
	if (d->once) {
		int rc;

		/* a run from cron: the whole pass now, before probing */
		pass_begin(d);
		while ((rc = store_prune_step(d->st, &r->p)) > 0)
			;
		if (rc < 0) {
			r->running = false;
			log_warnx("%s", store_error(d->st));
		} else
			pass_end(d);
		return 0;
	}
	arm(d, 0);
	return 0;
}

void
daemon_retention_stop(struct daemon *d)
{
	if (d->retention == NULL)
		return;
	event_free(d->retention->ev);
	free(d->retention);
	d->retention = NULL;
}

void
daemon_store_figures(struct daemon *d, int64_t *bytes, int64_t *oldest_ns)
{
	struct retention *r = d->retention;
	int64_t oldest;

	*bytes = *oldest_ns = 0;
	if (d->st == NULL || r == NULL)
		return;
	/* the size is a stat; the oldest result only moves with a prune, or
	 * from none to the first: looked up again when none or stale */
	if (r->oldest_ns == 0 || daemon_wall_ns() - r->oldest_at > FIGURES_MAX_AGE_NS)
		refresh(d);
	if (store_size(d->st, bytes, NULL) != 0)
		*bytes = 0;
	oldest = r->oldest_ns;
	*oldest_ns = oldest;
}
