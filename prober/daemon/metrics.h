/*
 * metrics.h -- scaleprobed's figures in the Prometheus text exposition
 * format (version 0.0.4): what the daemon counts, rendered into a buffer.
 * Pure; the HTTP endpoint serves what this writes.  No label names a host:
 * a monitoring system's series stay as few as the verdicts.
 */
#ifndef SCALEPROBE_METRICS_H
#define SCALEPROBE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reply.h"
#include "result.h"

/* --metrics: connections served at once (metrics_http.c; the daemon's
 * descriptor budget counts them, fdbudget.h) */
#define METRICS_CLIENTS 64

/* Replies to probes, by what came back. */
enum metrics_reply {
	METRICS_REPLY_SYNACK,
	METRICS_REPLY_RST,
	METRICS_REPLY_ICMP,
	METRICS_REPLY_NONE,
	METRICS_REPLY_COUNT,
};

struct metrics_snapshot {
	uint64_t probes[METRICS_REPLY_COUNT];	/* SYNs sent, by their answer */
	uint64_t paths[VERDICT_INCONCLUSIVE + 1];	/* results stored, by verdict */
	uint64_t alerts_open;
	uint64_t targets_due, targets_in_flight, targets_done_cycle;
	double scheduler_lag_seconds;	/* how late the latest start was */
	uint64_t writer_backlog;	/* results not yet committed */
	uint64_t packets_rejected[REPLY_REJECT_COUNT];	/* packets refused, by
					   reason (reply.h; [0] unused) */
	uint64_t packets_replayed;	/* SYN-ACKs of flows that had their RST */
	uint64_t capture_drops;
	uint64_t cycles_missed;		/* target runs skipped by overruns */
	bool store_failing;		/* the store cannot write */
	uint64_t store_failed_writes;	/* transactions rolled back by a failure */
	uint64_t store_dropped;		/* rows lost past the memory bound */
	int64_t store_bytes;		/* the database and its WAL on disk */
	int64_t store_oldest_ns;	/* the oldest result kept; 0: none
					   (the family has no sample then) */
	bool upload;			/* an upload is set: the families below */
	uint64_t upload_backlog;	/* results not yet uploaded */
	int64_t upload_last_ok_ns;	/* the last upload; 0: none (no sample) */
	bool upload_failing, upload_stale;
};

/* A growing text buffer; overflow is sticky and checked once at the end. */
struct metrics_buf {
	char *p;
	size_t len, cap;
	bool overflow;
};

/* Renders every family into b (p and cap set by the caller); returns 0,
 * or -1 when the buffer was too small. */
int metrics_render(const struct metrics_snapshot *s, struct metrics_buf *b);

/* The verdict's name as the JSON contract spells it ("syn-dropped"). */
const char *metrics_verdict_name(enum verdict v);

#endif
