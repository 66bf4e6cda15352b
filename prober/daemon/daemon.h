/*
 * daemon.h -- what scaleprobed's files share: the daemon's state (the
 * configuration in force, its groups of targets, the scheduler, the
 * runner, the store) and the functions each file gives the others.
 */
#ifndef SCALEPROBE_DAEMON_H
#define SCALEPROBE_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alert_state.h"
#include "conf.h"
#include "paths.h"
#include "runner.h"
#include "startq.h"
#include "targets.h"
#include "tracks.h"

struct event;
struct event_base;
struct store;
struct sched;
struct blocklist;
struct config_gen;
struct control;
struct demand;
struct serve;
struct notify;
struct retention;
struct alert_hold;

/* One target as written in a group, on each of its ports: what is
 * scheduled, probed as one batch, and given one state per cycle. */
struct unit {
	struct config_gen *config_gen;
	size_t group, index;
	char *spec;			/* as written (targets.spec) */
	struct targets t;		/* one entry per port */
	struct paths_files files;	/* a group's long file: the unit walks it
					   streamed (its spec is the path) */
	bool busy;			/* a batch of it is in the runner */
	bool queued;			/* due again while busy: started after */
	bool pending;			/* waits for room in the runner */
	uint64_t queued_cycle;
	uint64_t cycle;			/* the cycle it runs for */
	struct paths paths;
	int64_t run_id;
	bool off_cycle;			/* --once over a cycle another run measured:
					   its run has no cycle, nor it a state */
	unsigned results, problems;
};

struct dgroup {
	char *name;
	uint64_t interval_ns, jitter_ns;
	struct unit *u;
	size_t n;
	uint64_t st_cycle;		/* the latest cycle started, and of it: */
	size_t started, ended;		/* targets started, and ended */
	int64_t run_id;			/* the store's run of run_cycle */
	uint64_t run_cycle;
	bool have_run;
	int64_t again_run_id;		/* --once: the run of no cycle, for */
	bool have_again;		/* targets the cycle already holds */
};

/* A configuration in force: its groups and their schedule.  Kept after a
 * reload until its last batch is done (probes in flight are stored). */
struct config_gen {
	struct conf c;
	struct blocklist *bl;
	struct dgroup *g;
	size_t ng;
	struct sched *sched;
	size_t busy;			/* units of it in the runner */
	bool retired;			/* a newer one is in force */
	struct config_gen *next;		/* the retired ones */
};

struct daemon_stats {
	uint64_t due, done_cycle, problems, alerts_open, skipped;
	uint64_t cycles_missed, results, states;
	uint64_t lag_ns;		/* the last start's delay past its due time */
	uint64_t probes[4];		/* SYNs by answer: metrics_reply's order */
	uint64_t verdicts[VERDICT_INCONCLUSIVE + 1];	/* per scale result */
};

struct daemon {
	const char *conf_path;
	bool once, foreground;
	struct event_base *base;
	struct config_gen *cur;		/* in force */
	struct config_gen *retired;
	struct store *st;
	struct runner *runner;
	struct runner_config rc;
	char vantage[256];
	char settings[512];		/* the runs' settings text */
	struct event *timer, *sigterm, *sighup, *sigint, *watchdog;
	struct notify *notify;
	struct tracks tracks;		/* alert_notify.c */
	struct alert_hold *hold;	/* alert_notify.c: raises held, incidents */
	struct alertcmd *alertcmd;
	struct daemon_stats n;
	size_t once_left;		/* --once: units not yet done */
	struct startq pending;		/* due units waiting for room: at most
					   max-inflight units in the runner */
	size_t unit_limit;		/* that room: the runner's max-inflight */
	bool admitting;			/* daemon_admit runs (not re-entered) */
	struct route *rt;		/* every walk's route lookups: one
					   netlink socket */
	bool stopping;
	bool store_alert;		/* the store cannot write (alert_tell.c) */
	bool ckpt_failed;		/* its last checkpoint failed (alert_tell.c) */
	int lock_fd;
	struct control *control;
	struct demand *demand;		/* demand.c: on-demand requests */
	struct serve *http;		/* --metrics */
	struct retention *retention;	/* retention.c */
	struct upload *up;		/* upload_watch.c; NULL: no upload */
	int64_t upload_since_ns;
	bool upload_failing, upload_alert;
	int exit_status;
};

/* cycle.c: groups, the schedule, batches, states */
struct config_gen *config_gen_new(struct conf *c, uint64_t now_ns);	/* takes c over */
void config_gen_free(struct config_gen *g);	/* after runner_close: walks in flight too */
void daemon_reschedule(struct daemon *d);
void daemon_start_all(struct daemon *d);	/* --once */
/* SIGHUP: config_gen replaced; its waiting units dropped, freed when idle. */
void daemon_retire(struct daemon *d, struct config_gen *old);
/* After a restart: the targets of each group's last cycle that left no
 * state (a crash cut them off), and those of the cycle in progress whose
 * time passed while no daemon ran (sched_recovery), are probed now; how
 * many. */
size_t daemon_recover(struct daemon *d);
int daemon_on_result(void *arg, void *tag, struct path_result *res);
void daemon_on_batch(void *arg, void *tag);
uint64_t daemon_wall_ns(void);	/* wallclock.c */
size_t config_gen_units(const struct config_gen *g);
/* Of each group's latest cycle: targets not yet started, running, done. */
void daemon_cycle_counts(const struct daemon *d, uint64_t *due, uint64_t *running,
    uint64_t *done);

/* fdcheck.c: config_gen's descriptor budget against RLIMIT_NOFILE; 0, or -1
 * with one line logged (what is needed, what to change). */
int daemon_check_fds(struct daemon *d, const struct config_gen *config_gen, bool metrics);

/* scaleprobed.c: what `scaleprobe status` and STATUS= say, one line */
void daemon_status_line(struct daemon *d, char *buf, size_t len);

/* metrics_http.c: GET /metrics on ADDR:PORT; 0 or -1 (logged); the
 * form of ADDR:PORT checked alone, as the options are read */
int metrics_http_open(struct daemon *d, const char *spec);
int metrics_http_spec(const char *spec);
void metrics_http_close(struct daemon *d);

/* alert_notify.c: a result's verdicts through alert_state.h; log and command */
void daemon_alerts(struct daemon *d, const struct unit *u, const struct path_result *res);
/* alert_restore.c: at start, the open alerts the store kept, so they are
 * not raised again. */
void daemon_alerts_load(struct daemon *d);
/* A group's cycle ended: the raises held in it told, as incidents where
 * incident-paths of them name one hop. */
void daemon_alerts_flush(struct daemon *d);
/* Each second: held raises told once the oldest waited the longest cycle
 * and no unit that raised them is still running (a cycle whose end was
 * not seen: a restart inside it, a reload). */
void daemon_alerts_tick(struct daemon *d);
/* Unit u's batch is over: its held raises no longer wait for it. */
void daemon_alerts_unit_end(struct daemon *d, const struct unit *u);
/* alert_restore.c: the open alerts, a line each, into buf (at most len bytes, NUL
 * included; cut with "... and N more"); the bytes written. */
size_t daemon_alerts_list(struct daemon *d, char *buf, size_t len);
void daemon_alerts_free(struct daemon *d);
/* alert_tell.c: after a write to the store, raised (log, alert-command) when it cannot
 * write any more, cleared when it writes again. */
void daemon_store_alert(struct daemon *d);
/* An alert-command event: begun with its "event" and "vantage", the
 * caller's keys added, then closed with "time", run and freed. */
struct json;
void daemon_event_begin(struct daemon *d, struct json *j, const char *event);
void daemon_event_send(struct daemon *d, struct json *j);

/* retention.c: the retention setting applied at start and every hour, in
 * short steps on the loop (--once: the whole pass at start); 0 or -1. */
int daemon_retention_start(struct daemon *d);
void daemon_retention_stop(struct daemon *d);
/* The store's bytes on disk and its oldest result (ns; 0: none). */
void daemon_store_figures(struct daemon *d, int64_t *bytes, int64_t *oldest_ns);

/* upload_watch.c: the upload to the shared store (db/upload.h), started
 * with the store (0, or -1 logged) and stopped before it closes; each
 * second its failures and the upload-stale alert; its figures (false:
 * no upload). */
struct upload_figures;
int daemon_upload_start(struct daemon *d);
void daemon_upload_stop(struct daemon *d);
void daemon_upload_tick(struct daemon *d);
bool daemon_upload_figures(struct daemon *d, struct upload_figures *f);

/* privs.c: (as root; nothing otherwise) the database's directory and
 * files, and the control socket, the user's; with dbfile NULL, the
 * control socket's directory made.  Then from root or ambient capabilities to the user with
 * CAP_NET_RAW and CAP_NET_ADMIN only, NoNewPrivs; 0 or -1 (logged). */
int privs_prepare_dir(const char *dbfile, const char *control, const char *user);
/* dbfile.lock opened read-write (made 0640 and, as root, the user's),
 * never through a link (statedir.h); its descriptor, or -1 logged */
int privs_open_lock(const char *dbfile, const char *user);
int privs_drop(const char *user);

#endif
