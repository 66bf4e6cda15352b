/*
 * metrics_http.c -- the metrics endpoint (scaleprobed --metrics ADDR:PORT):
 * a listening socket on the daemon's loop served by serve.c (connections
 * capped, each with a deadline and a fixed request buffer) that answers
 * GET /metrics with metrics_render()'s text, built from the daemon's
 * counters at the time of the request.  What a request asks for is
 * judged by http_req.c; HTTP/1.0, one request per connection.
 */
#include <sys/socket.h>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "http_req.h"
#include "log.h"
#include "metrics.h"
#include "serve.h"
#include "store.h"
#include "upload.h"

#define METRICS_BUF 16384
#define METRICS_HEAD 256
/* What clients can hold (scaleprobed(8) states it): METRICS_CLIENTS
 * connections (metrics.h; a new one closes another, serve.c), each closed
 * this long after it connected, HTTP_REQ_MAX bytes of request each. */
#define METRICS_TIMEOUT_MS 5000
/* a burst of connections waits in the kernel (at most somaxconn) rather
 * than having the scraper's SYN dropped with the rest */
#define METRICS_BACKLOG 4096
#define METRICS_DEFER_S 5

static void
metrics_snapshot_of(struct daemon *d, struct metrics_snapshot *s)
{
	struct runner_stats st;
	struct upload_figures uf;

	memset(s, 0, sizeof(*s));
	runner_stats(d->runner, &st);
	memcpy(s->probes, d->n.probes, sizeof(s->probes));
	memcpy(s->paths, d->n.verdicts, sizeof(s->paths));
	s->alerts_open = d->n.alerts_open;
	daemon_cycle_counts(d, &s->targets_due, &s->targets_in_flight,
	    &s->targets_done_cycle);
	s->scheduler_lag_seconds = d->n.lag_ns / 1e9;
	s->writer_backlog = d->st != NULL ? store_pending(d->st) : 0;
	memcpy(s->packets_rejected, st.n.rejects, sizeof(s->packets_rejected));
	s->packets_replayed = st.n.replayed;
	s->capture_drops = st.capture_drops;
	s->cycles_missed = d->n.cycles_missed;
	if (d->st != NULL) {
		s->store_failing = store_failing(d->st);
		s->store_failed_writes = store_get_stats(d->st)->failed_writes;
		s->store_dropped = store_get_stats(d->st)->dropped;
		daemon_store_figures(d, &s->store_bytes, &s->store_oldest_ns);
	}
	if (daemon_upload_figures(d, &uf)) {
		s->upload = true;
		s->upload_backlog = uf.backlog;
		s->upload_last_ok_ns = uf.last_ok_ns;
		s->upload_failing = uf.failing;
		s->upload_stale = d->upload_alert;
	}
}

/* The reply: its head first, the body rendered just after the room kept
 * for it, then moved up to follow the head. */
static enum serve_next
metrics_request(void *arg, const char *in, size_t len, char **out, size_t *out_len)
{
	struct daemon *d = arg;
	struct metrics_snapshot s;
	struct metrics_buf b = { NULL, 0, METRICS_BUF, false };
	enum http_req r = http_req_parse(in, len, HTTP_REQ_MAX);
	char *p;
	size_t h;

	if (r == HTTP_REQ_MORE)
		return SERVE_MORE;
	p = xmalloc(METRICS_HEAD + METRICS_BUF);
	if (r == HTTP_REQ_METRICS) {
		b.p = p + METRICS_HEAD;
		metrics_snapshot_of(d, &s);
		if (metrics_render(&s, &b) != 0) {
			log_warnx("--metrics: the figures outgrew %d bytes", METRICS_BUF);
			free(p);
			return SERVE_CLOSE;
		}
	}
	if ((h = http_reply_head(r, b.len, p, METRICS_HEAD)) == 0) {
		free(p);
		return SERVE_CLOSE;
	}
	memmove(p + h, p + METRICS_HEAD, b.len);
	*out = p;
	*out_len = h + b.len;
	return SERVE_REPLY;
}

/* A listening TCP socket on host:port (host may be a name); -1 after
 * logging. */
static int
metrics_listen(const char *spec, const char *host, const char *port)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, one = 1, defer = METRICS_DEFER_S, e;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	if ((e = getaddrinfo(host[0] != '\0' ? host : NULL, port, &hints, &res)) != 0) {
		log_warnx("--metrics %s: %s", spec, gai_strerror(e));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1)
			continue;
		/* a connection reaches accept() only once its request has begun
		 * (or after METRICS_DEFER_S): a crowd of silent ones stays in
		 * the kernel and cannot push a scraper out of the cap between
		 * its accept and its first byte */
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
		    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer)) == 0 &&
		    bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, METRICS_BACKLOG) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		log_warn("--metrics %s: cannot listen", spec);
	return fd;
}

int
metrics_http_spec(const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char *end;
	unsigned long port;

	if (colon == NULL || (size_t)(colon - spec) >= 256 || colon[1] < '0' ||
	    colon[1] > '9' || (port = strtoul(colon + 1, &end, 10)) == 0 || port > 65535 ||
	    *end != '\0') {
		log_warnx("--metrics %s: expected ADDR:PORT, a port 1 to 65535", spec);
		return -1;
	}
	return 0;
}

int
metrics_http_open(struct daemon *d, const char *spec)
{
	char host[256];
	const char *colon = strrchr(spec, ':');
	int fd;

	if (metrics_http_spec(spec) != 0)
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	if (host[0] == '[' && strlen(host) > 2 && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host) - 2);
		host[strlen(host) - 2] = '\0';
	}
	if ((fd = metrics_listen(spec, host, colon + 1)) == -1)
		return -1;
	d->http = serve_new(d->base, fd, &(struct serve_conf){ .name = "--metrics",
	    .max_clients = METRICS_CLIENTS, .in_max = HTTP_REQ_MAX,
	    .timeout_ms = METRICS_TIMEOUT_MS, .handle = metrics_request, .arg = d });
	return d->http != NULL ? 0 : -1;
}

void
metrics_http_close(struct daemon *d)
{
	serve_free(d->http);
	d->http = NULL;
}
