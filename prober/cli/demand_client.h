/*
 * demand_client.h -- asking the running scaleprobed to probe now, on its
 * control socket (scaleprobed(8) "CONTROL PROTOCOL"): probe --via-daemon,
 * and show --live for a user who may not probe.  The daemon's reply is
 * read as hostile: bounded lines and blocks, escaped before it is shown.
 */
#ifndef SCALEPROBE_DEMAND_CLIENT_H
#define SCALEPROBE_DEMAND_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

struct demand_client {
	const char *socket;		/* the control setting */
	const char *const *targets;	/* as written */
	size_t ntargets;
	bool json;
	/* a path's result as probe prints it (text, or one JSON line with
	 * its newline), escaped; non-zero stops (stdout is gone) */
	int (*result)(void *arg, const char *text, size_t len);
	void *arg;
};

/* Asks and hands each result over; notes go to stderr, a line each.
 * Returns probe's exit status as the daemon gave it, or EXIT_USAGE after
 * one line saying why (refused, an error, no daemon, a broken reply). */
int demand_ask(const struct demand_client *q);

#endif
