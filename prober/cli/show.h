/*
 * show.h -- what cmd_show.c and cmd_show_live.c share: show's options
 * and the live probe.
 */
#ifndef SCALEPROBE_SHOW_H
#define SCALEPROBE_SHOW_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "history.h"
#include "vantage_filter.h"

struct show_opts {
	const char *host;		/* as the store writes it */
	int port;			/* -1: every port */
	int64_t since_ns;		/* INT64_MIN: no --since */
	const char *vantage;		/* the first --vantage: --live's name */
	struct vantage_filter vf;	/* every --vantage */
	bool live, json;
	const char *db, *conf;
};

/* Whether this process may probe itself (root, or CAP_NET_RAW and
 * CAP_NET_ADMIN); cmd_probe.c's test.  show --live asks the daemon
 * when not. */
bool cli_may_probe(void);

/* A port 0..65535 from the command line, or -1 after saying why. */
int show_parse_port(const char *opt, const char *s);

/* --live: probes o->host now (on --port, else the configuration's ports)
 * through the run API with c's settings, from vantage --vantage (else the
 * configuration's, else the host name), prints each result (text or
 * NDJSON {"live": object}) and stores it in db; a user who may not probe
 * has the daemon probe it (its control setting, its settings, its store,
 * demand_client.h).  Returns an exit status:
 * EXIT_CLEAN when the history may follow. */
int show_live(struct conf *c, const struct show_opts *o, const char *db, struct history *h);

#endif
