/*
 * cli_run.h -- the CLI's run: one runner (runner.h) with one batch on an
 * event loop of its own, ended cleanly by SIGINT, SIGTERM or SIGHUP (so
 * the guard's nftables table is always removed), with a progress line.
 */
#ifndef SCALEPROBE_CLI_RUN_H
#define SCALEPROBE_CLI_RUN_H

#include <stdbool.h>

#include "paths.h"
#include "result.h"
#include "runner.h"

struct cli_run_config {
	struct paths *paths;		/* walked as the engine has room */
	const struct probe_settings *settings;
	bool no_evidence;		/* nobody stores the results' packets */
	bool progress;			/* a progress line on stderr */
	/* A path's result, judged; non-zero ends the run as a failure. */
	int (*on_result)(void *arg, struct path_result *res);
	void *arg;
};

/* Runs until every path has its result or a signal arrives.
 * Returns 0, or -1 after printing why the run could not start. */
int cli_run(const struct cli_run_config *cfg, struct runner_stats *stats);

#endif
