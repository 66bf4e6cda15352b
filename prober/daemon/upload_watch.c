/*
 * upload_watch.c -- the daemon's side of the upload to the shared
 * PostgreSQL (db/upload.h): the thread started after the store opened and
 * stopped before it closes (draining what is committed for a while), its
 * failures logged once as they begin and end, and the upload-stale alert:
 * results wait and the last upload is older than upload-alert.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "alertcmd.h"
#include "daemon.h"
#include "json.h"
#include "log.h"
#include "store.h"
#include "upload.h"

/* seconds a stop waits for the backlog to go (--once: its cycle) */
#define UPLOAD_DRAIN_S	20

int
daemon_upload_start(struct daemon *d)
{
	const struct conf *c = &d->cur->c;
	char err[512];
	int64_t held;

	if (c->upload == NULL) {
		/* taken out of the configuration: its cursor would hold
		 * retention back for ever */
		if (store_is_uri(c->database))
			return 0;
		switch (upload_forget(c->database, &held, err, sizeof(err))) {
		case 1:
			log_info("upload: not set: the upload cursor dropped; retention now "
			    "covers the %lld results the shared store had not taken",
			    (long long)held);
			break;
		case -1:
			log_warnx("%s (retention keeps them)", err);
			break;
		}
		return 0;
	}
	if (store_is_uri(c->database)) {
		log_warnx("upload: the database must be a SQLite file (the results' local "
		    "copy), not a URI");
		return -1;
	}
	if ((d->up = upload_start(c->database, c->upload, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	d->upload_since_ns = (int64_t)daemon_wall_ns();
	return 0;
}

void
daemon_upload_stop(struct daemon *d)
{
	struct upload_figures f;

	if (d->up == NULL)
		return;
	upload_stop(d->up, UPLOAD_DRAIN_S, &f);
	d->up = NULL;
	/* a short run (--once) may end before any tick saw the failure:
	 * said here once, with what is left for the next start */
	if (f.failing && !d->upload_failing)
		log_warnx("%s (at the stop: %llu results wait for the next start)", f.error,
		    (unsigned long long)f.backlog);
}

static void
tell(struct daemon *d, const char *event, const struct upload_figures *f)
{
	const struct conf *c = &d->cur->c;
	char uri[256];
	struct json j;

	if (c->alert_command == NULL)
		return;
	upload_where(c->upload, uri, sizeof(uri));
	daemon_event_begin(d, &j, event);
	json_kstring(&j, "upload", uri);
	if (f->failing)
		json_kstring(&j, "reason", f->error);
	json_kuint(&j, "backlog", f->backlog);
	daemon_event_send(d, &j);
}

void
daemon_upload_tick(struct daemon *d)
{
	struct upload_figures f;
	bool stale;

	if (d->up == NULL)
		return;
	upload_kick(d->up);
	upload_get_figures(d->up, &f);
	if (f.failing != d->upload_failing) {
		d->upload_failing = f.failing;
		if (f.failing)
			log_warnx("%s (probing and the local store go on; tried again with "
			    "backoff)", f.error);
		else
			log_info("upload: the shared store takes results again; %llu waiting",
			    (unsigned long long)f.backlog);
	}
	stale = upload_is_stale(f.backlog, f.last_ok_ns, d->upload_since_ns,
	    (int64_t)daemon_wall_ns(), d->cur->c.upload_alert);
	if (stale == d->upload_alert)
		return;
	d->upload_alert = stale;
	if (stale)
		log_warnx("alert raise: upload-stale: %llu results wait, the last upload "
		    "more than %u s ago%s%s", (unsigned long long)f.backlog,
		    (unsigned)d->cur->c.upload_alert, f.failing ? ": " : "",
		    f.failing ? f.error : "");
	else
		log_warnx("alert clear: upload-stale: the shared store took the results");
	tell(d, stale ? "upload-stale" : "upload-recovered", &f);
}

bool
daemon_upload_figures(struct daemon *d, struct upload_figures *f)
{
	if (d->up == NULL)
		return false;
	upload_get_figures(d->up, f);
	return true;
}
