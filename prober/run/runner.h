/*
 * runner.h -- probing on the caller's event loop: a runner opens the
 * privileged handles once (the guard's nftables table, the raw sockets),
 * opens each interface's capture when a path first goes through it, and
 * is handed batches of paths (paths.h walks) while it runs; each path is
 * judged (infer.h) and handed to a callback, each batch's end told once.
 * The daemon keeps one runner for its life, and a reload hands it new
 * probing settings for the batches that follow (an engine per settings,
 * on the same privileged handles); the CLI's cli_run() (cli_run.h) is
 * one runner with one batch on a loop of its own.
 */
#ifndef SCALEPROBE_RUNNER_H
#define SCALEPROBE_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "paths.h"
#include "result.h"

struct event_base;

/* What a runner is opened with.  The probing settings are copied: a
 * runner_configure() later replaces them for the batches added after it. */
struct runner_config {
	const struct probe_settings *settings;
	bool no_evidence;		/* nobody stores the results' packets */
	bool want_v4, want_v6;		/* raw sockets to open */
	/* A path's result, judged (infer_path); res is valid during the
	 * call; tag: its batch's.  Non-zero ends the runner as a failure
	 * (the caller can no longer hand results on). */
	int (*on_result)(void *arg, void *tag, struct path_result *res);
	/* Every path of the batch tag has its result (called from the loop,
	 * never from inside runner_add or on_result); may be NULL. */
	void (*on_batch)(void *arg, void *tag);
	/* runner_finish() was called and nothing is left; may be NULL. */
	void (*on_idle)(void *arg);
	void *arg;
};

struct runner_stats {
	struct engine_counters n;
	uint64_t captured, capture_drops;
	uint64_t duplicates;		/* paths of a batch in flight for another */
	bool interrupted;		/* SIGINT, SIGTERM or SIGHUP ended the run */
	bool failed;			/* on_result refused a result */
};

struct runner;

/* Why packets were refused, for a log line: "N rejected (truncated N,
 * bad-header N, ...), N replayed, N late; capture: N packets, N dropped". */
void runner_rejects_line(const struct runner_stats *st, char *buf, size_t len);

/* The paths in flight at once that ps gives: max_inflight, or derived
 * from the rate and the timeout when it is 0. */
size_t runner_max_inflight(const struct probe_settings *ps);

/* Opens the guard, the raw sockets and the engine on base.  cfg must
 * outlive the runner (its settings are copied).  NULL after logging why. */
struct runner *runner_open(struct event_base *base, const struct runner_config *cfg);

/*
 * New probing settings (copied) for the batches added from now on: the
 * batches already added finish with the settings they started with; the
 * next waits until they are done, then the engine is made anew with ps
 * and the packet templates rebuilt, on the privileged handles opened
 * once (the guard, the raw sockets, the captures).
 */
void runner_configure(struct runner *r, const struct probe_settings *ps);

/* Hands a batch over: p (paths_open'ed by the caller, names not yet
 * resolving: the runner starts that on its loop) is walked as the engine
 * has room; p must stay until on_batch(tag) or runner_close.  Returns 0,
 * or -1 (logged: a name resolver could not start). */
int runner_add(struct runner *r, struct paths *p, void *tag);

/* The same, walked before the batches added before it (of the same
 * settings): its paths take the engine's next room, and the one --rate
 * with the rest (the daemon's on-demand requests). */
int runner_add_first(struct runner *r, struct paths *p, void *tag);

/* No batch will follow: on_idle once the last one is done. */
void runner_finish(struct runner *r);

/* Whether a batch is still being walked or has paths in flight. */
size_t runner_batches(const struct runner *r);
size_t runner_inflight(const struct runner *r);
void runner_stats(const struct runner *r, struct runner_stats *stats);

/* Abandons whatever is in flight (no result is handed on), closes the
 * captures, the sockets and the guard (its table removed). */
void runner_close(struct runner *r, struct runner_stats *stats);

#endif
