/*
 * alerting.c -- a path's verdicts through alert.h's N of M: on a raise, a
 * change or a clear, one log line with the reason and, when the
 * alert-command setting names a program, that program run once with the
 * change as JSON on stdin.  The store's own alert goes the same way: raised
 * when it cannot write (its rows wait in memory), cleared when it writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "infer.h"
#include "json.h"
#include "log.h"
#include "siphash.h"
#include "store.h"

#define TRACKS (sizeof(((struct daemon *)0)->tracks) / sizeof(struct track *))

static struct track *
track_of(struct daemon *d, const struct path_result *res)
{
	static const uint8_t key[SIPHASH_KEY_LEN];
	uint8_t k[sizeof(res->dst) + 2];
	struct track **pp, *t;
	size_t h;

	memcpy(k, &res->dst, sizeof(res->dst));
	memcpy(k + sizeof(res->dst), &res->port, 2);
	h = (size_t)(siphash24(key, k, sizeof(k)) % TRACKS);
	for (pp = &d->tracks[h]; (t = *pp) != NULL; pp = &t->next)
		if (t->port == res->port && addr_equal(&t->dst, &res->dst))
			return t;
	t = xcalloc(1, sizeof(*t));
	t->dst = res->dst;
	t->port = res->port;
	*pp = t;
	return t;
}

/* The program of alert-command, the change on its stdin.  exec follows
 * fork at once: the store's checkpoint thread holds locks a child must
 * never touch. */
static void
alert_command(const char *cmd, const char *json, size_t len)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd) != 0 || fcntl(fd[0], F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(fd[1], F_SETFD, FD_CLOEXEC) != 0) {
		log_warn("alert-command: pipe");
		return;
	}
	if ((pid = fork()) == -1) {
		log_warn("alert-command: fork");
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		if (dup2(fd[0], STDIN_FILENO) == -1)
			_exit(127);
		execl(cmd, cmd, (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	/* a change is a few hundred bytes: far below the pipe's buffer */
	if (write(fd[1], json, len) != (ssize_t)len)
		log_warn("alert-command: write");
	close(fd[1]);
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
	struct track *t = track_of(d, res);

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
		alert_command(c->alert_command, text, len);
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
	alert_command(c->alert_command, text, len);
	json_free(&j);
}
