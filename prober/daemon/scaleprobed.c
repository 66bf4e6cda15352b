/*
 * scaleprobed.c -- the daemon's life: options, the configuration (checked,
 * printed with -t), privileges, the single instance per database, the
 * signals (SIGHUP reloads, SIGTERM stops), the service manager's
 * notifications, and the loop every other part runs on.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alertcmd.h"
#include "control.h"
#include "clockwatch.h"
#include "daemon.h"
#include "demand.h"
#include "log.h"
#include "notify.h"
#include "schedule.h"
#include "store.h"
#include "version.h"


static void
usage(FILE *f)
{
	fprintf(f, "usage: scaleprobed [-dtv] [--once] [-c file] [-u user] [--metrics addr:port]\n"
	    "  -c FILE     configuration (default %s)\n"
	    "  -t          check the configuration, print it normalized, exit\n"
	    "  --once      run every group once and exit\n"
	    "  -d, --foreground  log to stderr, not syslog\n"
	    "  -u USER     the user to run as when started as root (default scaleprobe)\n"
	    "  --metrics ADDR:PORT  serve GET /metrics (Prometheus text) there\n"
	    "  -v          more verbose (repeat)\n", CONF_DEFAULT_PATH);
}

/* Reads path into c; its errors logged, file:line each.  0 or -1. */
/* The configuration read, its sharded groups cut for vantage (empty: the
 * vantage setting's, else the host name, written there; a reload keeps
 * the one in force, vantage needing a restart). */
static int
load_conf(const char *path, struct conf *c, char *vantage, size_t vlen)
{
	struct conf_errors e = { NULL, 0 };
	char *text, *line, *save = NULL;
	int rc;

	conf_init(c);
	if ((rc = conf_load(c, path, &e)) == 0 && vantage[0] == '\0') {
		if (c->vantage != NULL)
			snprintf(vantage, vlen, "%s", c->vantage);
		else if (gethostname(vantage, vlen) != 0)
			snprintf(vantage, vlen, "unknown");
	}
	if (rc == 0 && conf_shard_apply(c, vantage, path, &e) == 0 &&
	    conf_shard_files(c, path, &e) == 0) {
		conf_errors_free(&e);
		return 0;
	}
	text = conf_errors_text(&e);
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		log_warnx("%s", line);
	free(text);
	conf_errors_free(&e);
	conf_free(c);
	return -1;
}

static void
runner_setup(struct daemon *d, const struct conf *c)
{
	struct runner_config *rc = &d->rc;

	memset(rc, 0, sizeof(*rc));
	rc->settings = &c->probe;	/* copied: a reload frees c */
	rc->want_v4 = rc->want_v6 = true;	/* names may give either, later */
	rc->on_result = daemon_on_result;
	rc->on_batch = daemon_on_batch;
	rc->arg = d;
}

void
daemon_status_line(struct daemon *d, char *buf, size_t len)
{
	struct runner_stats st;
	uint64_t due, running, done;

	runner_stats(d->runner, &st);
	daemon_cycle_counts(d, &due, &running, &done);
	snprintf(buf, len, "%zu targets, %llu due, %llu in flight, %llu done this cycle, "
	    "%llu problems, %llu alerts open, %llu packets rejected, lag %.3f s",
	    config_gen_units(d->cur), (unsigned long long)due, (unsigned long long)running,
	    (unsigned long long)done, (unsigned long long)d->n.problems,
	    (unsigned long long)d->n.alerts_open, (unsigned long long)st.n.rejected,
	    d->n.lag_ns / 1e9);
	if (d->st != NULL && store_failing(d->st)) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, ", STORE FAILING (%llu results kept, %llu dropped)",
		    (unsigned long long)store_pending(d->st),
		    (unsigned long long)store_get_stats(d->st)->dropped);
	}
}

static void
status_notify(struct daemon *d)
{
	char buf[400], msg[420];

	if (!notify_enabled(d->notify))
		return;
	daemon_status_line(d, buf, sizeof(buf));
	snprintf(msg, sizeof(msg), "STATUS=%s", buf);
	notify_send(d->notify, msg);
}

/* Whether s is one of the probing settings (struct probe_settings). */
static bool
probing(const struct setting *s)
{
	size_t at = offsetof(struct conf, probe);

	return s->off >= at && s->off < at + sizeof(struct probe_settings);
}

/* SIGHUP: a new configuration in force, or the old one kept.  Every
 * setting applies but the table's restart ones; the probing settings
 * from the runner's next batch on. */
static void
reload(struct daemon *d)
{
	struct conf c;
	const struct setting *changed[SET_COUNT];
	char applied[600] = "";
	size_t n, limit = d->unit_limit;
	bool probe = false;
	struct config_gen *old = d->cur;

	log_info("%s: reloading", d->conf_path);
	if (load_conf(d->conf_path, &c, d->vantage, sizeof(d->vantage)) != 0) {
		log_warnx("%s: not reloaded; the configuration in force stays", d->conf_path);
		return;
	}
	n = conf_changed(&old->c, &c, changed, SET_COUNT);
	d->unit_limit = runner_max_inflight(&c.probe);
	d->cur = config_gen_new(&c, daemon_wall_ns());
	/* targets by name added may need more descriptors than there are */
	if (daemon_check_fds(d, d->cur, d->http != NULL) != 0) {
		config_gen_free(d->cur);
		d->cur = old;
		d->unit_limit = limit;
		log_warnx("%s: not reloaded; the configuration in force stays", d->conf_path);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (changed[i]->restart) {
			log_warnx("%s: %s changed; it takes effect at a restart", d->conf_path,
			    changed[i]->key);
			continue;
		}
		snprintf(applied + strlen(applied), sizeof(applied) - strlen(applied), "%s%s",
		    applied[0] != '\0' ? ", " : "", changed[i]->key);
		probe |= probing(changed[i]);
	}
	if (applied[0] != '\0')
		log_info("%s: %s changed; applied", d->conf_path, applied);
	if (probe) {
		/* the batches in the runner finish with the settings they had */
		runner_configure(d->runner, &d->cur->c.probe);
		conf_shaping(&d->cur->c, d->settings, sizeof(d->settings));
	}
	daemon_retire(d, old);
	log_info("%s: %zu groups, %zu targets in force", d->conf_path, d->cur->ng,
	    config_gen_units(d->cur));
	daemon_reschedule(d);
	status_notify(d);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;
	(void)what;
	if (sig == SIGHUP) {
		reload(d);
		return;
	}
	log_info("%s: stopping", strsignal((int)sig));
	d->stopping = true;
	notify_send(d->notify, "STOPPING=1");
	/* in flight is abandoned: what was stored stays, the rest is
	 * probed again at the next start */
	event_base_loopbreak(d->base);
}

static void
on_idle(void *arg)
{
	struct daemon *d = arg;

	event_base_loopexit(d->base, NULL);
}

static void
on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	(void)fd;
	(void)what;
	notify_send(d->notify, "WATCHDOG=1");
	status_notify(d);
	/* commits an idle batch, or tries a failing store again */
	if (d->st != NULL && store_flush(d->st, false) != 0 && !store_failing(d->st))
		log_warnx("%s", store_error(d->st));
	daemon_store_alert(d);
	daemon_alerts_tick(d);
	daemon_upload_tick(d);
}

/* One daemon per database: a lock on FILE.lock, held for the process's
 * life.  -2 (logged) when another holds it (two configurations name one
 * database) or it cannot be opened for good (a read-only file or file
 * system): no restart helps; -1 for any other failure. */
static int
lock_db(struct daemon *d, const char *db, const char *user)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s.lock", db);
	/* never through a link: the lock is made as root; what refuses it
	 * (a link, a read-only file system, no permission) stays so */
	if ((d->lock_fd = privs_open_lock(db, user)) == -1)
		return -2;
	if (flock(d->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK) {
			log_warnx("%s: another scaleprobed uses this database", db);
			return -2;
		}
		log_warn("%s", path);
		return -1;
	}
	return 0;
}

static int
open_store(struct daemon *d)
{
	char err[STORE_ERRLEN], db[256];
	int64_t n;

	store_where_safe(d->cur->c.database, db, sizeof(db));
	if ((d->st = store_open(d->cur->c.database, STORE_WRITE, NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	if ((n = store_discard_unfinished(d->st)) < 0) {
		log_warnx("%s", store_error(d->st));
		return -1;
	}
	if (n > 0)
		log_info("%s: %lld results of targets left unfinished discarded; they are "
		    "probed again", db, (long long)n);
	if (store_backup(d->st) != NULL)
		log_info("%s: schema version %lld migrated to %d; the copy before it: %s",
		    db, (long long)store_migrated_from(d->st),
		    STORE_SCHEMA_VERSION, store_backup(d->st));
	return daemon_retention_start(d);
}

/* Whether db holds something that is not a SQLite database (logged): an
 * empty or missing file is a new store; links, hard links and other types
 * are privs_prepare_dir's to refuse, unread. */
static bool
db_foreign(const char *db)
{
	static const char magic[16] = "SQLite format 3";
	char head[sizeof(magic)];
	struct stat sb;
	ssize_t n;
	int fd;

	/* a device is not even opened: an open may do something */
	if (lstat(db, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1 ||
	    (fd = open(db, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return false;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1) {
		close(fd);
		return false;
	}
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n == 0 || (n == (ssize_t)sizeof(head) && memcmp(head, magic, sizeof(magic)) == 0))
		return false;
	log_warnx("%s: not a SQLite database", db);
	return true;
}

/* Whether another daemon holds db's lock (logged), asked before anything
 * is made: its control socket is then not taken for another program's.
 * A lock file that is not there is no one's, and is not made here. */
static bool
db_held(const char *db)
{
	char path[4200];
	bool held;
	int fd;

	snprintf(path, sizeof(path), "%s.lock", db);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return false;
	held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	if (held)
		log_warnx("%s: another scaleprobed uses this database", db);
	return held;
}

/* What the command line says beyond the configuration's path. */
struct daemon_opts {
	const char *user, *metrics;
	bool check;
	int verbose;
};

/* The options into d and o; -1 to go on, else the exit status (the usage
 * said, on stdout for -h). */
static int
parse_options(int argc, char **argv, struct daemon *d, struct daemon_opts *o)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, 'O' },
		{ "foreground", no_argument, NULL, 'd' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*o = (struct daemon_opts){ .user = "scaleprobe" };
	while ((ch = getopt_long(argc, argv, "c:dhtu:v", longopts, NULL)) != -1)
		switch (ch) {
		case 'c':
			d->conf_path = optarg;
			break;
		case 'd':
			d->foreground = true;
			break;
		case 'O':
			d->once = true;
			break;
		case 'M':
			o->metrics = optarg;
			break;
		case 't':
			o->check = true;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;	/* getopt_long said why, in one line */
		}
	if (optind != argc) {
		fprintf(stderr, "scaleprobed: '%s': no operands (scaleprobed --help)\n",
		    argv[optind]);
		return 2;
	}
	return -1;
}

/* The log, the configuration read (printed and done with -t), the
 * vantage's name and the first generation with its runner settings; -1
 * to go on, else the exit status. */
static int
configure(struct daemon *d, const struct daemon_opts *o)
{
	struct conf c;

	/* -t and --once talk to a terminal or a cron mail; the service's
	 * stderr is journald's */
	log_init(d->foreground || o->check || d->once || getenv("JOURNAL_STREAM") != NULL ||
	    isatty(STDERR_FILENO), o->verbose, "scaleprobed");
	if (o->metrics != NULL && metrics_http_spec(o->metrics) != 0)
		return 2;
	if (load_conf(d->conf_path, &c, d->vantage, sizeof(d->vantage)) != 0)
		return 2;
	if (o->check) {
		char *text = conf_print(&c);
		struct strbuf b = { 0 };

		fputs(text, stdout);
		free(text);
		conf_shard_summary(&b, &c);
		fputs(strbuf_str(&b), stdout);
		strbuf_free(&b);
		conf_free(&c);
		return 0;
	}
	if (c.ngroups == 0) {
		log_warnx("%s: no group of targets", d->conf_path);
		conf_free(&c);
		return 2;
	}
	conf_shaping(&c, d->settings, sizeof(d->settings));
	d->cur = config_gen_new(&c, daemon_wall_ns());
	runner_setup(d, &d->cur->c);
	if (d->once)
		d->rc.on_idle = on_idle;
	return -1;
}

/* The event loop and its signals; a failure here is fatal. */
static void
setup_loop(struct daemon *d)
{
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		fatal("signal");
	if ((d->base = event_base_new()) == NULL)
		fatalx("event_base_new");
	/* SIGCHLD on the loop: alert-command's runs are reaped there */
	if ((d->alertcmd = alertcmd_open(d->base)) == NULL)
		fatalx("cannot set up the signals");
	d->sigterm = evsignal_new(d->base, SIGTERM, on_signal, d);
	d->sigint = evsignal_new(d->base, SIGINT, on_signal, d);
	d->sighup = evsignal_new(d->base, SIGHUP, on_signal, d);
	if (d->sigterm == NULL || d->sigint == NULL || d->sighup == NULL ||
	    evsignal_add(d->sigterm, NULL) != 0 || evsignal_add(d->sigint, NULL) != 0 ||
	    evsignal_add(d->sighup, NULL) != 0)
		fatalx("cannot set up the signals");
	/* units wait for room in the runner: max-inflight of them at once */
	d->unit_limit = runner_max_inflight(&d->cur->c.probe);
	startq_init(&d->pending);
}

/*
 * The start-up steps, in their order: the descriptors' budget, the state
 * directory and the lock of the database (one daemon per database before
 * anything is touched), the control socket (bound while its directory may
 * still need root), the metrics listener, the privileged handles (opened
 * once, before the drop), the drop, the store and the open alerts.  0, or
 * the exit status: 2 for what a restart would not mend.
 */
static int
start_up(struct daemon *d, const struct daemon_opts *o)
{
	const char *user = o->user;
	int rc;

	/* a PostgreSQL URI is no file: no lock, directory or mode of ours */
	const char *file = store_is_uri(d->cur->c.database) ? NULL : d->cur->c.database;

	if (daemon_check_fds(d, d->cur, o->metrics != NULL) != 0)
		return 2;
	/* what the configuration names wrongly is refused before a lock or
	 * a socket is made beside it */
	if ((file != NULL && (db_foreign(file) || db_held(file))) ||
	    (d->cur->c.control != NULL && control_check(d->cur->c.control) != 0))
		return 2;
	umask(027);
	if (file != NULL && privs_prepare_dir(file, NULL, user) != 0)
		return 2;	/* what is at the state directory's names stays as it is */
	if (file != NULL && (rc = lock_db(d, file, user)) != 0)
		return rc == -2 ? 2 : 1;
	if (d->cur->c.control != NULL && (privs_prepare_dir(NULL, d->cur->c.control, user) != 0 ||
	    control_open(d, d->cur->c.control) != 0))
		return 1;
	if (file != NULL && privs_prepare_dir(file, d->cur->c.control, user) != 0)
		return 1;
	if (o->metrics != NULL && metrics_http_open(d, o->metrics) != 0)
		return 1;
	if ((d->runner = runner_open(d->base, &d->rc)) == NULL)
		return 1;
	if ((d->rt = route_open()) == NULL) {
		log_warn("route: netlink");
		return 1;
	}
	if (privs_drop(user) != 0)
		return 1;
	if (open_store(d) != 0) {
		/* a store that cannot be used as it is (corrupt, foreign,
		 * newer, read-only): exit 2, which the unit does not restart */
		return store_open_refused() ? 2 : 1;
	}
	if (daemon_upload_start(d) != 0)
		return 2;
	clockwatch_start();
	daemon_alerts_load(d);
	return 0;
}

/* A tick a second, under a service manager too: an idle batch commits
 * within a second of its age, so what status counts is soon in the file
 * for readers; the watchdog is fed on the same tick (sooner only when
 * half its period is under a second). */
static void
start_watchdog(struct daemon *d)
{
	struct timeval tv = { 1, 0 };

	d->notify = notify_open();
	if (notify_enabled(d->notify)) {
		uint64_t wd = notify_watchdog_usec(d->notify);

		if (wd > 0 && wd / 2 < 1000000) {
			tv.tv_sec = 0;
			tv.tv_usec = (suseconds_t)(wd / 2);
		}
	}
	d->watchdog = event_new(d->base, -1, EV_PERSIST, on_watchdog, d);
	if (d->watchdog != NULL)
		event_add(d->watchdog, &tv);
}

/* The first units started (all of them with --once, else the schedule
 * after a crash's recovery), READY said, and the loop until it stops; with
 * --once the alert commands waited for.  0, or 1 when the loop failed. */
static int
run_loop(struct daemon *d)
{
	char db[256];

	store_where_safe(d->cur->c.database, db, sizeof(db));
	log_info("%s: %zu groups, %zu targets; database %s", d->conf_path, d->cur->ng,
	    config_gen_units(d->cur), db);
	if (d->once)
		daemon_start_all(d);
	else {
		(void)daemon_recover(d);
		daemon_reschedule(d);
	}
	notify_send(d->notify, "READY=1");
	status_notify(d);
	if (event_base_dispatch(d->base) == -1) {
		log_warnx("event loop failed");
		return 1;
	}
	if (d->once)
		alertcmd_wait(d->alertcmd, &d->stopping);
	return 0;
}

/* Everything closed in the reverse order, the store's last batch
 * committed; the exit status (rc, or 1 when the store could not close). */
static int
shut_down(struct daemon *d, int rc)
{
	struct runner_stats st;
	char err[STORE_ERRLEN];

	notify_send(d->notify, "STOPPING=1");
	alertcmd_close(d->alertcmd);
	control_close(d);
	metrics_http_close(d);
	/* in flight abandoned, the guard's table removed */
	runner_close(d->runner, &st);
	if (log_getverbose() > 0) {
		char why[512];

		runner_rejects_line(&st, why, sizeof(why));
		log_info("packets: %s", why);
	}
	demand_free(d);		/* after the runner: its batches were theirs */
	daemon_retention_stop(d);
	clockwatch_stop();
	if (d->st != NULL) {
		if (store_flush(d->st, true) != 0) {
			log_warnx("%s", store_error(d->st));
			rc = 1;
		}
		/* what was committed sent, for a while, before the store closes */
		daemon_upload_stop(d);
		if (store_close(d->st, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			rc = 1;
		}
	}
	if (rc == 0)
		log_info("stopped: %llu results, %llu states stored",
		    (unsigned long long)d->n.results, (unsigned long long)d->n.states);
	if (d->timer != NULL)
		event_free(d->timer);
	if (d->watchdog != NULL)
		event_free(d->watchdog);
	event_free(d->sigterm);
	event_free(d->sigint);
	event_free(d->sighup);
	while (d->retired != NULL) {
		struct config_gen *g = d->retired;
		d->retired = g->next;
		config_gen_free(g);
	}
	config_gen_free(d->cur);
	startq_free(&d->pending);
	route_close(d->rt);
	daemon_alerts_free(d);
	tracks_free(&d->tracks);
	notify_close(d->notify);
	if (d->base != NULL)
		event_base_free(d->base);
	if (d->lock_fd != -1)
		close(d->lock_fd);
	return rc;
}

int
main(int argc, char **argv)
{
	struct daemon d;
	struct daemon_opts o;
	int rc;

	memset(&d, 0, sizeof(d));
	d.conf_path = CONF_DEFAULT_PATH;
	d.lock_fd = -1;
	if ((rc = parse_options(argc, argv, &d, &o)) >= 0 || (rc = configure(&d, &o)) >= 0)
		return rc;
	setup_loop(&d);
	if ((rc = start_up(&d, &o)) == 0) {
		start_watchdog(&d);
		rc = run_loop(&d);
	}
	return shut_down(&d, rc);
}
