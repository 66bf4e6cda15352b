/*
 * fdbudget.h -- the descriptors scaleprobed may hold at once, from its
 * configuration, and the one-line refusal when the limit it was started
 * with (RLIMIT_NOFILE: systemd's LimitNOFILE=, 1,024 by default) is lower:
 * a daemon that ran out mid-cycle would fail its targets one by one
 * (EMFILE), while one refused at start says which setting to change.
 * Pure: the caller reads the limit and resolv.conf.
 */
#ifndef SCALEPROBE_FDBUDGET_H
#define SCALEPROBE_FDBUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alertrun.h"
#include "control.h"
#include "metrics.h"

/* Held for the daemon's life or briefly, whatever the configuration: */
#define FDB_BASE	8	/* stdin/out/err, the event loop (epoll and
				   its signal pair), the lock file, syslog */
#define FDB_RUNNER	4	/* two raw sockets, the shared netlink route
				   socket, the guard's nftables socket */
#define FDB_CAPTURE	2	/* per interface: the AF_PACKET socket and
				   libpcap's wake-up eventfd */
#define FDB_STORE	8	/* SQLite: the database, -wal, -shm for the
				   writer and its checkpoint connection, and
				   a temporary file or two */
/* each listener (serve.c): itself, its reserve for EMFILE, its clients */
#define FDB_CONTROL	(2 + CONTROL_CLIENTS)
/* alert-command: two pipe ends held per run, four while one starts */
#define FDB_ALERT	(2 * ALERTRUN_MAX + 2)
#define FDB_SPARE	8	/* a reload's configuration and payload
				   files, the notify socket, libraries */
#define FDB_METRICS	(2 + METRICS_CLIENTS)

struct fdb_config {
	size_t max_inflight;	/* units in the runner at once (the runner's
				   max-inflight, derived when not set) */
	size_t units;		/* targets as written, all groups */
	size_t named_units;	/* ... of them with a name: each in the
				   runner resolves with a resolver of its own */
	size_t nameservers;	/* a resolver's sockets: resolv.conf's
				   nameservers (1 when none: evdns asks
				   127.0.0.1) */
	bool one_interface;	/* interface set: one capture, else up to
				   max_interfaces */
	size_t max_interfaces;
	size_t metrics_conns;	/* /metrics: its listener and its connection
				   cap; 0 without --metrics */
	bool control;		/* control socket set */
	bool alert_command;
};

struct fdb_need {
	size_t fixed;		/* base, runner, store, spare, control, alert */
	size_t captures;
	size_t resolvers;	/* units by name in the runner at once, times
				   nameservers */
	size_t metrics;
	size_t total;
};

/* The budget of c; its total is what the limit must reach. */
void fdbudget(const struct fdb_config *c, struct fdb_need *n);

/* 0 when limit (RLIMIT_NOFILE's soft limit) covers n; else -1 and one
 * line in msg naming the limit, the need and what to change. */
int fdbudget_check(const struct fdb_config *c, const struct fdb_need *n, uint64_t limit,
    char *msg, size_t len);

#endif
