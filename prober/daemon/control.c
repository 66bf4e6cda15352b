/*
 * control.c -- the control socket: accepts on the daemon's loop and
 * writes the status at once (a few hundred bytes: the socket buffer takes
 * them, nothing waits on a slow reader), then closes.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "log.h"
#include "store.h"

struct control {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct event *ev;
};

static void
control_accept(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct probe_run_stats st;
	char buf[1024];
	uint64_t due, running, done;
	int c, n;

	(void)what;
	/* closed by this function: no exec can inherit it in between */
	if ((c = accept(fd, NULL, NULL)) == -1)
		return;
	runner_stats(d->runner, &st);
	daemon_cycle_counts(d, &due, &running, &done);
	n = snprintf(buf, sizeof(buf),
	    "targets %zu\n"
	    "due %llu\n"
	    "in_flight %llu\n"
	    "paths_in_flight %zu\n"
	    "done_this_cycle %llu\n"
	    "problems %llu\n"
	    "alerts_open %llu\n"
	    "packets_rejected %llu\n"
	    "scheduler_lag_seconds %.3f\n"
	    "results_stored %llu\n"
	    "states_stored %llu\n"
	    "cycles_missed %llu\n"
	    "store_failing %d\n"
	    "store_failed_writes %llu\n"
	    "store_dropped %llu\n",
	    gen_units(d->cur), (unsigned long long)due, (unsigned long long)running,
	    runner_inflight(d->runner), (unsigned long long)done,
	    (unsigned long long)d->n.problems,
	    (unsigned long long)d->n.alerts_open, (unsigned long long)st.n.rejected,
	    d->n.lag_ns / 1e9, (unsigned long long)d->n.results,
	    (unsigned long long)d->n.states, (unsigned long long)d->n.cycles_missed,
	    d->st != NULL && store_failing(d->st),
	    (unsigned long long)(d->st != NULL ? store_get_stats(d->st)->failed_writes : 0),
	    (unsigned long long)(d->st != NULL ? store_get_stats(d->st)->dropped : 0));
	if (n > 0 && write(c, buf, (size_t)n) != n)
		log_debug("control: a reader went away");
	close(c);
}

int
control_open(struct daemon *d, const char *path)
{
	struct control *ct = xcalloc(1, sizeof(*ct));
	struct sockaddr_un sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("%s: too long for a socket's name", path);
		free(ct);
		return -1;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	snprintf(ct->path, sizeof(ct->path), "%s", path);
	if ((ct->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1) {
		log_warn("control socket");
		free(ct);
		return -1;
	}
	/* the database's lock is ours: a socket left here is a dead one's */
	if (unlink(path) != 0 && errno != ENOENT)
		log_warn("%s", path);
	if (bind(ct->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 || listen(ct->fd, 8) != 0) {
		log_warn("%s", path);
		close(ct->fd);
		free(ct);
		return -1;
	}
	ct->ev = event_new(d->base, ct->fd, EV_READ | EV_PERSIST, control_accept, d);
	if (ct->ev == NULL || event_add(ct->ev, NULL) != 0) {
		log_warnx("control: cannot watch the socket");
		close(ct->fd);
		free(ct);
		return -1;
	}
	d->control = ct;
	return 0;
}

void
control_close(struct daemon *d)
{
	struct control *ct = d->control;

	if (ct == NULL)
		return;
	event_free(ct->ev);
	close(ct->fd);
	unlink(ct->path);
	free(ct);
	d->control = NULL;
}
