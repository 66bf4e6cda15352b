/*
 * runner_int.h -- the runner's insides, shared by runner.c (its life, the
 * batches' bookkeeping, the loop's events, new settings) and runner_ops.c
 * (what the engine asks of it: paths, packets out, captures, the request,
 * the judged result).
 */
#ifndef SCALEPROBE_RUNNER_INT_H
#define SCALEPROBE_RUNNER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>

#include "capture.h"
#include "engine.h"
#include "guard.h"
#include "runner.h"
#include "send.h"

/* A batch: one paths walk and the paths of it still in flight. */
struct batch {
	struct paths *p;
	void *tag;
	size_t inflight;
	bool walked;			/* paths_next said 0 (or failed) */
	bool error;			/* ... failed: the run cannot go on */
	unsigned gen;			/* the settings it was added under */
	bool first;			/* runner_add_first's: its paths another
					   batch has in flight wait for them,
					   never skipped */
	struct path *waiting;		/* those paths, until they are free */
	size_t nwaiting, capwaiting;
	struct batch *next;
};

struct runner {
	const struct runner_config *cfg;
	struct probe_settings ps;	/* the engine's, copied */
	struct probe_settings next;	/* runner_configure's, until applied */
	bool have_next;
	unsigned gen, gen_next;		/* ps's and the batches added now */
	uint8_t key[16];		/* the cookies' key: one for the runner's
					   life, so late replies stay ours */
	struct engine_counters past;	/* of the engines replaced */
	struct send_config sc;
	struct event_base *base;
	struct event *timer;
	struct event *more;		/* paths_next paused: ask again */
	struct event *ended;		/* batches to tell done */
	struct guard *guard;
	int flows;			/* per path, fixed at open (the guard's
					   range is sized by it); under
					   flows_auto the most a path gets */
	bool flows_auto;		/* --flows auto */
	struct sender *sender;
	struct capture *cap[PATHS_MAX_IFACES];
	char ifnames[PATHS_MAX_IFACES][ROUTE_IFNAMSIZ];
	int ncap;
	struct engine *engine;
	struct batch *head, **tail;
	size_t nbatches;
	char filter[256];		/* the captures' BPF filter */
	bool run_now;			/* the timer is set to fire at once */
	bool drops_fresh;		/* drops read in this run of the engine */
	uint64_t drops;			/* capture drops, as last read */
	bool failed;			/* on_result could not hand a result on */
	bool finishing, idle_told;
	bool batch_error;		/* a walk failed (too many interfaces) */
	uint64_t duplicates;
	size_t waiting;			/* paths of first batches waiting */
	int send_errno;			/* the last send error logged */
	bool cap_told[PATHS_MAX_IFACES];	/* its failure was logged */
	char cap_why[PATHS_MAX_IFACES][160];	/* "ifname: why" */
};

/* runner.c: a captured packet into the engine (the captures' callback) */
void run_packet(void *arg, const uint8_t *pkt, size_t len, const struct timeval *ts);

/* runner_ops.c: the engine's callbacks onto r, and why capture i failed
 * ("ifname: why", logged once), NULL while it works */
void run_engine_ops(struct runner *r, struct engine_ops *ops);
const char *run_capture_failure(void *arg, int i);

#endif
