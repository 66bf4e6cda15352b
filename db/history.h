/*
 * history.h -- reading results back out of the store: one
 * host's scale results in time order (scaleprobe show), the problems a
 * vendor can act on grouped per vantage, path, scale and verdict
 * (scaleprobe export), and a result's side findings and evidence.
 *
 * The file is untrusted (a store may be edited by hand): every column is
 * read as what it may be, not as what the writer put there -- NULL where
 * the schema forbids it, text in an integer column, numbers out of range
 * all come back as "absent" (-1 or NULL), never as garbage.  Strings in
 * the rows are valid until the callback returns.
 */
#ifndef SCALEPROBE_HISTORY_H
#define SCALEPROBE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

struct store;
struct history;

/* One scale result of one path result, as show and export read it.
 * Integers are -1 where the store has NULL (or nonsense); strings NULL
 * where it has NULL, except target, address, family and vantage ("" then). */
struct history_row {
	int64_t path_result_id;
	int scale_idx;			/* its index in the result */
	int64_t time_ns;		/* the path's time, ns since the epoch UTC */
	const char *target, *address, *family, *vantage;
	int port;			/* -1: not 0..65535 */
	int scale_sent;
	const char *reply, *verdict, *reason;
	int sa_wscale;			/* the SYN-ACK's own shift */
	int scale_quoted, scale_effective;
	int hop_index, last_clean_index;
	const char *hop_address, *last_clean_address;
	uint32_t hop_silent;		/* TTLs inside the interval that never
					   answered (silent_hops.h); 0: exact */
	bool on_demand;			/* the run was asked for on the daemon's
					   control socket, by on_demand_uid */
	uint32_t on_demand_uid;
	int flows, flows_affected;	/* probed over several flows (store v6):
					   how many, and on how many the verdict
					   was a problem; -1 both for one flow */
	struct flow_branch branch;	/* where its flows part (store v8);
					   hop_index 0: none (or not whole) */
	/* export's groups only (0 in show's rows): the group's first time and
	 * how many results it holds; the other fields are its latest row's */
	int64_t first_ns;
	int64_t count;
};

struct history_finding {
	const char *kind, *detail;	/* detail NULL: none */
	int hop_index;			/* -1: not located */
	const char *hop_address;
};

/* A callback returns 0 to go on, non-zero to stop (the query returns it). */
typedef int (*history_row_fn)(void *arg, const struct history_row *row);
typedef int (*history_finding_fn)(void *arg, const struct history_finding *f);

/* The reader's statements on st (opened STORE_READ or STORE_WRITE), prepared
 * once; NULL with one line in err.  st must outlive it. */
struct history *history_open(struct store *st, char *err, size_t errlen);
void history_close(struct history *h);
/* Why the last call failed: "FILE: what: sqlite's message". */
const char *history_error(const struct history *h);

struct history_query {
	const char *host;	/* a target as written, or an address as
				   addr_format writes it */
	int port;		/* -1: every port */
	int64_t since_ns;	/* INT64_MIN: from the beginning */
	const char *vantage;	/* NULL: every vantage */
};

/* show: every scale result of the host's paths, ordered by address, port,
 * vantage, scale sent, time (the order history_fold wants).  Returns 0,
 * the callback's non-zero, or -1 (history_error). */
int history_show(struct history *h, const struct history_query *q, history_row_fn fn,
    void *arg);

#define HISTORY_MAX_VERDICTS 16

struct history_export_query {
	const char *verdicts[HISTORY_MAX_VERDICTS];
	int nverdicts;		/* >= 1 */
	int64_t since_ns;	/* INT64_MIN: from the beginning */
	const char *hop;	/* NULL, or only rows whose changing hop is it */
};

/* export: one row per vantage, address, port, scale sent and verdict
 * among the results since since_ns: the latest result's fields, with the
 * group's first time and count; ordered by address, port, scale sent,
 * vantage, verdict (bytewise).  Returns as history_show. */
int history_export(struct history *h, const struct history_export_query *q,
    history_row_fn fn, void *arg);

/* The side findings of one scale result, in the order printed. */
int history_findings(struct history *h, int64_t path_result_id, int scale_idx,
    history_finding_fn fn, void *arg);

/* The packed evidence of a path result (evidence.h's stored form) into
 * *buf (malloc'ed, the caller frees) and *len; 1 when there is none (*buf
 * NULL), 0, or -1. */
int history_evidence(struct history *h, int64_t path_result_id, uint8_t **buf, size_t *len);

/* For the tests: the EXPLAIN QUERY PLAN of show's queries (by address,
 * then by target), their lines joined by '\n' into buf; 0 or -1. */
int history_show_plan(struct history *h, char *buf, size_t len);
/* ... and of export's for q. */
int history_export_plan(struct history *h, const struct history_export_query *q, char *buf,
    size_t len);

#endif
