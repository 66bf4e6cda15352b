/*
 * probe_run.h -- one probing run of a path list: owns the event loop and
 * wires the engine to the guard, the sender and the captures.  The CLI's
 * probe command and (later) the daemon's scheduled scans both call it.
 */
#ifndef SCALEPROBE_PROBE_RUN_H
#define SCALEPROBE_PROBE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "paths.h"
#include "result.h"

struct probe_payload {
	uint16_t port;			/* 0: any port */
	const uint8_t *bytes;
	size_t len;
};

struct probe_run_config {
	struct paths *paths;		/* walked as the engine has room */
	int nscales;
	int scales[RESULT_MAX_SCALES];
	uint32_t rate;
	uint64_t timeout_ns;
	int retries;
	size_t max_inflight;		/* 0: derived from rate and timeout */
	enum engine_trace trace;	/* --trace */
	bool window_test;		/* --[no-]window-test */
	const char *contact;		/* --contact URL, or NULL */
	/* The window test's requests by port (payload PORT FILE); port 0
	 * stands for every port without its own (--payload FILE). */
	const struct probe_payload *payloads;
	size_t npayloads;
	bool progress;			/* a progress line on stderr */
	/* Called for each finished path; res is valid during the call. */
	/* A path's result; non-zero ends the run as a failure (the caller
	 * can no longer hand results on: its output is gone). */
	int (*on_result)(void *arg, struct path_result *res);
	void *arg;
};

struct probe_run_stats {
	struct engine_counters n;
	uint64_t captured, capture_drops;
	bool interrupted;		/* SIGINT, SIGTERM or SIGHUP ended the run */
};

/* Runs until every path has its result or a signal arrives.
 * Returns 0, or -1 after printing why the run could not start. */
int probe_run(const struct probe_run_config *cfg, struct probe_run_stats *stats);

#endif
