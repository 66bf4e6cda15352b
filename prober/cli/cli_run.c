/*
 * cli_run.c -- cli_run(), the CLI's one batch on a loop of its own:
 * SIGINT, SIGTERM and SIGHUP end it cleanly (the runner closed, so the
 * guard's nftables table is removed), a closed pipe is a write error, and
 * --progress prints a line a second.
 */
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli_run.h"
#include "log.h"

struct cli_run {
	const struct cli_run_config *cfg;
	struct event_base *base;
	struct runner *r;
	bool interrupted;
};

static int
cli_result(void *arg, void *tag, struct path_result *res)
{
	struct cli_run *c = arg;

	(void)tag;
	if (c->cfg->on_result(c->cfg->arg, res) != 0) {
		event_base_loopexit(c->base, NULL);
		return -1;
	}
	return 0;
}

static void
cli_idle(void *arg)
{
	struct cli_run *c = arg;

	event_base_loopexit(c->base, NULL);
}

static void
cli_signal(evutil_socket_t sig, short what, void *arg)
{
	struct cli_run *c = arg;

	(void)what;
	log_warnx("%s: stopping", strsignal((int)sig));
	c->interrupted = true;
	event_base_loopexit(c->base, NULL);
}

static void
cli_progress(evutil_socket_t fd, short what, void *arg)
{
	struct cli_run *c = arg;
	struct runner_stats st;

	(void)fd;
	(void)what;
	runner_stats(c->r, &st);
	fprintf(stderr, "\rscaleprobe: %llu/%llu paths done, %zu in flight, %llu SYNs sent  ",
	    (unsigned long long)st.n.paths_done, (unsigned long long)c->cfg->paths->total,
	    runner_inflight(c->r), (unsigned long long)st.n.syns_sent);
}

int
cli_run(const struct cli_run_config *cfg, struct runner_stats *stats)
{
	struct runner_config rc;
	struct cli_run c;
	struct event *sig[3] = { NULL, NULL, NULL }, *progress = NULL;
	static const int signo[3] = { SIGINT, SIGTERM, SIGHUP };
	int rc_ = -1;

	memset(stats, 0, sizeof(*stats));
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	memset(&rc, 0, sizeof(rc));
	rc.settings = cfg->settings;
	rc.no_evidence = cfg->no_evidence;
	rc.want_v4 = cfg->paths->want_v4;
	rc.want_v6 = cfg->paths->want_v6;
	rc.on_result = cli_result;
	rc.on_idle = cli_idle;
	rc.arg = &c;
	if ((c.base = event_base_new()) == NULL) {
		log_warnx("event_base_new failed");
		return -1;
	}
	/* signals first: a SIGTERM while the table exists must remove it; a
	 * closed terminal (SIGHUP) ends the run as they do, and a closed
	 * pipe on stdout is a write error (EPIPE), not a death by SIGPIPE */
	for (int i = 0; i < 3; i++)
		if ((sig[i] = evsignal_new(c.base, signo[i], cli_signal, &c)) == NULL ||
		    evsignal_add(sig[i], NULL) == -1)
			goto setup;
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		goto setup;
	if ((c.r = runner_open(c.base, &rc)) == NULL)
		goto out;
	if (runner_add(c.r, cfg->paths, NULL) != 0)
		goto out;
	runner_finish(c.r);
	if (cfg->progress) {
		struct timeval sec = { 1, 0 };
		progress = event_new(c.base, -1, EV_PERSIST, cli_progress, &c);
		if (progress != NULL)
			event_add(progress, &sec);
	}
	if (event_base_dispatch(c.base) == -1) {
		log_warnx("event loop failed");
		goto out;
	}
	if (cfg->progress)
		fprintf(stderr, "\n");
	runner_stats(c.r, stats);
	rc_ = stats->failed ? -1 : 0;
	goto out;
setup:
	log_warnx("cannot set up the event loop");
out:
	runner_close(c.r, NULL);
	stats->interrupted = c.interrupted;
	if (progress != NULL)
		event_free(progress);
	for (int i = 0; i < 3; i++)
		if (sig[i] != NULL)
			event_free(sig[i]);
	event_base_free(c.base);
	return rc_;
}
