/*
 * metrics_http.c -- the metrics endpoint (scaleprobed --metrics ADDR:PORT):
 * libevent's evhttp on the daemon's loop answers GET /metrics with
 * metrics_render()'s text, built from the daemon's counters at the time
 * of the request.
 */
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "log.h"
#include "metrics.h"
#include "store.h"

#define METRICS_BUF 16384

static void
metrics_snapshot_of(struct daemon *d, struct metrics_snapshot *s)
{
	struct probe_run_stats st;

	memset(s, 0, sizeof(*s));
	runner_stats(d->runner, &st);
	memcpy(s->probes, d->n.probes, sizeof(s->probes));
	memcpy(s->paths, d->n.verdicts, sizeof(s->paths));
	s->alerts_open = d->n.alerts_open;
	daemon_cycle_counts(d, &s->targets_due, &s->targets_in_flight,
	    &s->targets_done_cycle);
	s->scheduler_lag_seconds = d->n.lag_ns / 1e9;
	s->writer_backlog = d->st != NULL ? store_pending(d->st) : 0;
	s->packets_rejected = st.n.rejected;
	s->capture_drops = st.capture_drops;
	s->cycles_missed = d->n.cycles_missed;
	if (d->st != NULL) {
		s->store_failing = store_failing(d->st);
		s->store_failed_writes = store_get_stats(d->st)->failed_writes;
		s->store_dropped = store_get_stats(d->st)->dropped;
	}
}

static void
metrics_request(struct evhttp_request *req, void *arg)
{
	struct daemon *d = arg;
	struct metrics_snapshot s;
	struct metrics_buf b = { NULL, 0, METRICS_BUF, false };
	struct evbuffer *out;

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		evhttp_send_error(req, 405, NULL);
		return;
	}
	b.p = xmalloc(b.cap);
	metrics_snapshot_of(d, &s);
	if (metrics_render(&s, &b) != 0 || (out = evbuffer_new()) == NULL) {
		free(b.p);
		evhttp_send_error(req, 500, NULL);
		return;
	}
	evbuffer_add(out, b.p, b.len);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
	    "text/plain; version=0.0.4");
	evhttp_send_reply(req, 200, "OK", out);
	evbuffer_free(out);
	free(b.p);
}

int
metrics_http_open(struct daemon *d, const char *spec)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	char *end;
	unsigned long port;

	if (colon == NULL || (size_t)(colon - spec) >= sizeof(host) ||
	    (port = strtoul(colon + 1, &end, 10)) == 0 || port > 65535 || *end != '\0') {
		log_warnx("--metrics %s: expected ADDR:PORT", spec);
		return -1;
	}
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	if (host[0] == '[' && strlen(host) > 2 && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host) - 2);
		host[strlen(host) - 2] = '\0';
	}
	if ((d->http = evhttp_new(d->base)) == NULL ||
	    evhttp_bind_socket(d->http, host, (uint16_t)port) != 0) {
		log_warnx("--metrics %s: cannot listen", spec);
		return -1;
	}
	evhttp_set_allowed_methods(d->http, EVHTTP_REQ_GET);
	evhttp_set_cb(d->http, "/metrics", metrics_request, d);
	return 0;
}

void
metrics_http_close(struct daemon *d)
{
	if (d->http != NULL)
		evhttp_free(d->http);
	d->http = NULL;
}
