/*
 * control.c -- the control socket: a connection silent for
 * CONTROL_GRACE_MS is answered with the status (at most CONTROL_REPLY_MAX
 * bytes), one that sends a request gets demand.c's reply, through
 * serve.c, so a client that never reads holds one of CONTROL_CLIENTS
 * places until its deadline and never the daemon.
 */
#define _GNU_SOURCE	/* O_PATH: the working directory kept, even unreadable */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "demand.h"
#include "demand_req.h"
#include "log.h"
#include "statedir.h"
#include "unixaddr.h"
#include "serve.h"
#include "store.h"
#include "upload.h"
#include "when.h"

struct control {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct serve *srv;
};

static enum serve_next
control_reply(void *arg, struct serve_client *c, const char *in, size_t len, char **out,
    size_t *out_len)
{
	struct daemon *d = arg;
	struct runner_stats st;
	uint64_t due, running, done;
	int64_t bytes, oldest;
	char *buf, oldest_s[WHEN_RFC3339_LEN];
	struct upload_figures uf;
	int n;

	/* a client that speaks makes a request (demand.h); one that stays
	 * silent for its grace gets the status, as it always did */
	if (len > 0)
		return demand_request(d, c, in, len, out, out_len);
	runner_stats(d->runner, &st);
	daemon_cycle_counts(d, &due, &running, &done);
	daemon_store_figures(d, &bytes, &oldest);
	if (oldest != 0)
		when_format_utc(oldest / 1000000000, oldest_s);
	else
		snprintf(oldest_s, sizeof(oldest_s), "none");
	buf = xmalloc(CONTROL_REPLY_MAX);
	n = snprintf(buf, CONTROL_REPLY_MAX,
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
	    "store_dropped %llu\n"
	    "store_bytes %lld\n"
	    "store_oldest_result %s\n",
	    config_gen_units(d->cur), (unsigned long long)due, (unsigned long long)running,
	    runner_inflight(d->runner), (unsigned long long)done,
	    (unsigned long long)d->n.problems,
	    (unsigned long long)d->n.alerts_open, (unsigned long long)st.n.rejected,
	    d->n.lag_ns / 1e9, (unsigned long long)d->n.results,
	    (unsigned long long)d->n.states, (unsigned long long)d->n.cycles_missed,
	    d->st != NULL && store_failing(d->st),
	    (unsigned long long)(d->st != NULL ? store_get_stats(d->st)->failed_writes : 0),
	    (unsigned long long)(d->st != NULL ? store_get_stats(d->st)->dropped : 0),
	    (long long)bytes, oldest_s);
	if (n < 0) {
		free(buf);
		return SERVE_CLOSE;
	}
	/* the upload's, when one is set */
	if (n >= 0 && (size_t)n < CONTROL_REPLY_MAX && daemon_upload_figures(d, &uf)) {
		char last[WHEN_RFC3339_LEN];

		if (uf.last_ok_ns != 0)
			when_format_utc(uf.last_ok_ns / 1000000000, last);
		else
			snprintf(last, sizeof(last), "never");
		n += snprintf(buf + n, CONTROL_REPLY_MAX - (size_t)n,
		    "upload_backlog %llu\nupload_last_success %s\nupload_failing %d\n"
		    "upload_stale %d\n", (unsigned long long)uf.backlog, last, uf.failing,
		    d->upload_alert);
		if ((size_t)n >= CONTROL_REPLY_MAX)
			n = CONTROL_REPLY_MAX - 1;
	}
	/* then the open alerts, as many as the reply's bound holds */
	if ((size_t)n < CONTROL_REPLY_MAX)
		n += (int)daemon_alerts_list(d, buf + n, CONTROL_REPLY_MAX - (size_t)n);
	*out = buf;
	*out_len = (size_t)n < CONTROL_REPLY_MAX ? (size_t)n : CONTROL_REPLY_MAX - 1;
	return SERVE_REPLY;
}

/* Bound in its directory reached by a descriptor opened without following
 * a link at the directory's own name, never replacing anything but a
 * socket (a dead daemon's), and 0660 whatever the umask (systemd's
 * UMask=0027 would make it 0750): the user's group may ask the status. */
int
control_check(const char *path)
{
	struct sockaddr_un sun;
	struct stat sb;
	int fd, rc;

	if (lstat(path, &sb) != 0)
		return 0;	/* nothing there; any other trouble is control_open's */
	if (!S_ISSOCK(sb.st_mode)) {
		log_warnx("%s: %s, not a socket: refused", path, statedir_type(sb.st_mode));
		return -1;
	}
	if (!unixaddr_fits(path))
		return 0;	/* control_open names it */
	(void)unixaddr_set(&sun, path);
	/* a listener answers (or is busy): a live socket, someone else's */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		return 0;
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	if (rc == 0 || errno == EAGAIN || errno == EINPROGRESS) {
		close(fd);
		log_warnx("%s: a socket another program listens on: refused", path);
		return -1;
	}
	close(fd);
	return 0;
}

int
control_open(struct daemon *d, const char *path)
{
	struct control *ct;
	struct sockaddr_un sun;
	struct stat sb;
	char dir[sizeof(sun.sun_path)];
	const char *name, *slash;
	int dfd, cwd = -1, rc;
	mode_t mask;

	if (unixaddr_set(&sun, path) != 0)
		return -1;
	if ((slash = strrchr(path, '/')) == NULL) {
		snprintf(dir, sizeof(dir), ".");
		name = path;
	} else {
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		name = slash + 1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		log_warn("%s", dir);
		return -1;
	}
	/* the database's lock is ours: a socket left here is a dead one's */
	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISSOCK(sb.st_mode)) {
			log_warnx("%s: %s, not a socket: refused", path, statedir_type(sb.st_mode));
			close(dfd);
			return -1;
		}
		if (unlinkat(dfd, name, 0) != 0)
			log_warn("%s", path);
	}
	(void)unixaddr_set(&sun, name);	/* shorter than path */
	ct = xcalloc(1, sizeof(*ct));
	snprintf(ct->path, sizeof(ct->path), "%s", path);
	if ((ct->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1) {
		log_warn("control socket");
		close(dfd);
		free(ct);
		return -1;
	}
	/* no bindat: bound by its name from within the directory */
	if ((cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 || fchdir(dfd) != 0) {
		log_warn("%s", dir);
		if (cwd != -1)
			close(cwd);
		close(dfd);
		close(ct->fd);
		free(ct);
		return -1;
	}
	mask = umask(0117);
	rc = bind(ct->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(mask);
	if (fchdir(cwd) != 0)
		fatal("back to the working directory");
	close(cwd);
	close(dfd);
	if (rc != 0 || listen(ct->fd, 8) != 0) {
		log_warn("%s", path);
		close(ct->fd);
		free(ct);
		return -1;
	}
	if ((ct->srv = serve_new(d->base, ct->fd, &(struct serve_conf){ .name = "control",
	    .max_clients = CONTROL_CLIENTS, .in_max = DEMAND_REQ_MAX,
	    .timeout_ms = CONTROL_TIMEOUT_MS, .handle_client = control_reply, .arg = d,
	    .grace_ms = CONTROL_GRACE_MS, .out_max = DEMAND_OUT_MAX })) == NULL) {
		free(ct);	/* serve_new closed the socket */
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
	serve_free(ct->srv);	/* the socket and its clients */
	unlink(ct->path);
	free(ct);
	d->control = NULL;
}
