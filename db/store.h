/*
 * store.h -- the SQLite store of results: one file per history,
 * opened by a writer (schema created or migrated at open, results written
 * in batches of one transaction each) or by readers (read-only, never
 * blocked by the writer: WAL).  Only db/ sees sqlite3.h; callers see these
 * functions and the structs of result.h.
 *
 * A database this program does not own (another application_id), a newer
 * schema than it knows, or a corrupt file is refused with one line in err
 * and left byte for byte as it was: it is opened read-only and checked
 * before anything is written.  The check reads the header and the schema
 * only (a few pages, whatever the file's size); a full quick_check is
 * scaleprobe db check's.  A writer refuses a file or directory it cannot
 * write (mode, read-only mount) rather than opening it read-only.
 */
#ifndef SCALEPROBE_STORE_H
#define SCALEPROBE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocksync.h"
#include "result.h"

/* "SCPR": what PRAGMA application_id holds in every scaleprobe store. */
#define STORE_APPLICATION_ID	0x53435052
/* The schema this binary writes (db/store_schema.c has one migration per
 * version; a fixture per version lives in tests/db/fixtures/). */
#define STORE_SCHEMA_VERSION	10

#define STORE_ERRLEN		512

struct store;

enum store_mode {
	STORE_READ,		/* read-only; the schema must be this binary's */
	STORE_WRITE,		/* created when missing, migrated at open */
};

struct store_opts {
	unsigned batch_rows;	/* commit after this many path results (0: 1000) */
	uint64_t batch_ns;	/* ... or when the open batch is this old (0: 1 s) */
	int busy_ms;		/* busy_timeout (0: 5000) */
	size_t keep_bytes;	/* memory for rows not yet committed
				   (0: STORE_KEEP_BYTES) */
	uint64_t retry_ns;	/* a failing store is tried again after
				   this (0: 5 s), doubled at each failure
				   in a row up to STORE_RETRY_MAX_NS: a
				   retry writes every kept row again */
	uint64_t ckpt_ns;	/* the checkpoint thread's turn while
				   anything is pending, and a failed
				   checkpoint's retry (0: 1 s) */
	uint64_t wal_bytes;	/* the WAL's bound: a commit that leaves
				   it larger is followed by the writer's
				   own RESTART checkpoint (0:
				   STORE_WAL_BYTES) */
};

/* The WAL's bound (db/store_ckpt.c): the thread's checkpoints never let
 * a writer that commits without pause restart it, so it grew with every
 * commit (5 GB in a daemon cycle of a million results, its -shm index
 * 10 MiB of the daemon's memory).  Also the size the WAL file is cut to
 * when it restarts. */
#define STORE_WAL_BYTES		(64u << 20)
/* How long the writer's RESTART checkpoint waits for readers that hold
 * older snapshots (show, report) before it gives up until the next
 * turn (ckpt_ns): the event loop's stall when a reader is in the way. */
#define STORE_WAL_BUSY_MS	50

#define STORE_RETRY_MAX_NS	(60 * 1000000000ull)

/* What rows waiting for a store that cannot write may take in memory
 * (db/README.md): some 50,000 results of three scales. */
#define STORE_KEEP_BYTES	(64u << 20)

/* What a run was: one row, every result of the run refers to it. */
struct store_run {
	struct timespec start;	/* wall clock */
	const char *vantage;
	const char *settings;	/* the settings that shape results, as text;
				   the store keeps it and its digest */
	const char *program;	/* name and version */
	bool on_demand;		/* the daemon's, asked by uid on its control
				   socket (runs.on_demand_uid) */
	uint32_t uid;
	enum clock_sync clock;	/* the vantage's clock when it began
				   (runs.clock); NONE: not recorded */
};

struct store_stats {
	uint64_t batches;		/* transactions committed */
	uint64_t paths, scales;		/* path results and scale rows written */
	uint64_t evidence, evidence_bytes;
	uint64_t commit_ns_max;		/* the longest COMMIT: the writer's stall */
	uint64_t add_ns_max;		/* the longest store_add (inserts) */
	uint64_t failed_writes;		/* transactions that failed (COMMIT or
					   an insert), each rolled back whole */
	uint64_t dropped;		/* results and states lost: the store
					   failed with STORE_KEEP_BYTES kept */
	uint64_t refused;		/* rows the schema refused (constraint) */
	uint64_t wal_ckpt;		/* the writer's RESTART checkpoints
					   (the WAL past wal_bytes) ... */
	uint64_t wal_busy;		/* ... those readers kept from
					   completing */
	uint64_t wal_ckpt_ns_max;	/* the longest of them: its stall */
};

/* Opens file; NULL with one line in err (naming the file) when it cannot
 * or must not be used.  o may be NULL for the defaults. */
struct store *store_open(const char *file, enum store_mode mode,
    const struct store_opts *o, char *err, size_t errlen);

/* After store_open failed on this thread: true when the file cannot be
 * used as it is (another program's, a newer schema, corrupt, not a
 * database, not a regular file, read-only, no permission), so trying
 * again changes nothing; false when it may pass later (busy, I/O, out of
 * memory, a full disk). */
bool store_open_refused(void);

/* A writer's open that migrated the schema took a copy first (db/
 * store_backup.c): its name, and the version it has; NULL and 0 when
 * the open migrated nothing. */
const char *store_backup(const struct store *st);
int64_t store_migrated_from(const struct store *st);

/* Writes what is pending and closes; -1 (err filled) when the last commit
 * failed, or when a writer's last checkpoint fails (nothing is lost: the
 * WAL keeps its commits, read from there and checkpointed at the next
 * open). */
int store_close(struct store *st, char *err, size_t errlen);

/* A run's row (in the open batch); its id in *run_id. */
int store_run_begin(struct store *st, const struct store_run *run, int64_t *run_id);

/* One path's result, exactly as output_json prints it, with its evidence
 * when res carries some; the batch commits when full or old.  Returns 0 or
 * -1 (store_error says why).
 *
 * A batch is kept in memory until its COMMIT succeeds.  When a write
 * fails (disk full, I/O error, read-only, locked) the transaction is
 * rolled back whole, the ids the writer had cached are dropped, and the
 * batch's rows stay in memory and are written again, all of them in one
 * transaction, every retry_ns (store_failing() says so meanwhile);
 * results keep coming into memory up to keep_bytes, beyond which they
 * are dropped and counted.  So a row is never stored under another row's
 * id, and none is lost while the bound holds.  0 is returned when the
 * row is written or kept. */
int store_add(struct store *st, int64_t run_id, const struct path_result *res);

/* Commits the open batch now when it is older than batch_ns (an idle
 * writer's timer calls it) or, with force, whatever its age. */
int store_flush(struct store *st, bool force);

const char *store_error(const struct store *st);
/* The last write failed and its rows wait in memory for a retry. */
bool store_failing(const struct store *st);
/* The writer's last checkpoint (db/store_ckpt.c: the WAL copied into the
 * file, on a thread of its own) failed, not merely busy, or the WAL is
 * past its bound and readers kept the writer's RESTART checkpoint from
 * completing: one line into why.  Commits go on into the WAL, which keeps
 * them until a checkpoint, tried again every second, succeeds. */
bool store_ckpt_failed(struct store *st, char *why, size_t len);
/* Rows (path results and target states) in the open batch, not yet
 * committed: the writer's backlog. */
uint64_t store_pending(const struct store *st);
const struct store_stats *store_get_stats(const struct store *st);

/* Retention: path results older than cutoff (ns since the epoch), of
 * every vantage, are deleted except those that begin or end a state (one verdict per path,
 * vantage and scale sent, in time order); the evidence of the surviving
 * old ones is deleted too, except for the first and the last old problem
 * per path and vantage.  Frees the pages (incremental vacuum).  Returns the
 * number of path results deleted, or -1. */
int64_t store_prune(struct store *st, int64_t cutoff_ns);

/* The same in steps, each one short transaction (store_prune.c): a batch
 * of whole paths (a reader sees each path before or after its prune,
 * never half), then the runs left without results, then the free pages
 * given back in bounded steps.  The daemon's retention and scaleprobe db
 * prune call store_prune_step until it returns 0; a dry run (any mode)
 * counts what would go and writes nothing. */
struct store_prune {
	int64_t cutoff_ns;
	unsigned batch_paths;		/* paths a transaction, at most ... */
	unsigned batch_rows;		/* ... or about this many old results
					   (whole paths: a path's old results
					   are one transaction) */
	bool dry_run;
	const char *vantage;		/* NULL (store_prune_init's): every
					   vantage's results; else only the
					   runs of this vantage and what hangs
					   off them (set after the init; not
					   copied: kept alive by the caller) */
	int phase;			/* store_prune.c's */
	int64_t next_id;		/* the last id done in this phase */
	uint64_t paths;			/* paths that lost results */
	uint64_t results;		/* path results deleted */
	uint64_t evidence;		/* evidence of kept results deleted */
	uint64_t runs;			/* runs left without results, deleted */
	uint64_t batches;		/* write transactions */
	uint64_t lock_ns_max;		/* the longest one: the write lock held */
	uint64_t lock_ns_total;
	int64_t bytes_before, bytes_after;	/* pages x page size; a dry
						   run's after: an estimate */
	uint64_t started_ns, took_ns;	/* monotonic */
};

/* batch_paths 0: 64; batch_rows 1,000. */
void store_prune_init(struct store_prune *p, int64_t cutoff_ns, unsigned batch_paths,
    bool dry_run);
/* One step: 1 while work remains, 0 when done, -1 (store_error). */
int store_prune_step(struct store *st, struct store_prune *p);

/* scaleprobe db check: file opened read-only; each fault (not this
 * program's, a schema version other than this binary's, what SQLite's
 * integrity_check -- quick_check with quick -- and foreign_key_check
 * find, the schema against the one this binary's migrations build for
 * its version) is one line to fn.  Returns the number of faults, or -1
 * (err filled) when the file cannot be opened at all. */
typedef void (*store_fault_fn)(void *arg, const char *line);
int store_check(const char *file, bool quick, store_fault_fn fn, void *arg, char *err,
    size_t errlen);

/* The file's bytes on disk (with its WAL) and, unless oldest_ns is NULL,
 * the oldest result's time (ns; 0: no result): one index seek per path.
 * 0 or -1. */
int store_size(struct store *st, int64_t *bytes, int64_t *oldest_ns);

/* --- the daemon's cycles (store_state.c) --------------------------------- */

/* A target's state at the end of its work in a cycle. */
struct store_state {
	const char *group, *target;	/* target: as written (targets.spec) */
	int64_t cycle;
	const char *state;		/* measured, missed, blocked, unresolved,
					   failed */
	const char *reason;		/* NULL, or one line */
	unsigned paths;			/* results stored for it */
	int64_t time_ns, next_due_ns;	/* wall clock; next_due 0: unknown */
};

/* Marks run_id as cycle of group (in the batch, kept like the rest). */
int store_run_cycle(struct store *st, int64_t run_id, const char *group, int64_t cycle);

/* The state row (in the open batch, after the target's results: it
 * commits with or after them, never before).  run_id 0: none (missed).
 * A second state of one group, target and cycle is ignored. */
int store_state_add(struct store *st, int64_t run_id, const struct store_state *s);

/* 1 when the target has a state for the cycle, 0 when not, -1. */
int store_state_has(struct store *st, const char *group, const char *target, int64_t cycle);

/* The last cycle of group that has a run, or -1 (none, or an error). */
int64_t store_last_cycle(struct store *st, const char *group);

/* After a crash: the results of cycles' targets that left no state (the
 * work was not finished; it is probed again).  Returns how many went. */
int64_t store_discard_unfinished(struct store *st);

/* --- the daemon's open alerts (store_alert.c) ----------------------------- */

/* One open alert as the store keeps it (db/store_schema.c's v3). */
struct store_alert {
	const char *vantage;
	const char *kind;		/* "path" or "incident" */
	const char *address;		/* the path's, or the incident's hop's */
	unsigned port;			/* 0 for an incident */
	const char *target;		/* NULL: none */
	const char *state;		/* the worst verdict */
	const char *scales;		/* "7:rewritten,14:stripped" */
	int hop_index;			/* 0: not known */
	const char *hop_address;	/* NULL: not known */
	const char *incident;		/* a path's incident's hop address, or NULL */
	unsigned paths;			/* an incident's paths */
	const char *reason;		/* NULL: none */
	int64_t raised_ns, changed_ns;
};

/* Written (inserted or replaced by vantage, kind, address and port) in
 * the open batch, like a result; with clear, the row goes instead. */
int store_alert_put(struct store *st, const struct store_alert *a, bool clear);

/* Calls fn for each open alert of vantage (every vantage: NULL), in the
 * order they were raised; fn's strings last for the call.  The number
 * read, or -1. */
typedef void (*store_alert_fn)(void *arg, const struct store_alert *a);
int64_t store_alert_each(struct store *st, const char *vantage, store_alert_fn fn, void *arg);

/* True when a database setting names a PostgreSQL database
 * (postgresql:// or postgres://), false for a SQLite file. */
bool store_is_uri(const char *where);
/* where as a message may carry it: a URI without its password (the user
 * info's ":secret" and a "password=" parameter's value cut); a file as
 * it is. */
void store_where_safe(const char *where, char *out, size_t len);

/* For the tests and the tools: runs sql (no rows expected); -1 on error. */
int store_exec(struct store *st, const char *sql);
/* For the tests: the first column of the first row of sql as an integer
 * (-1 when there is none or it fails). */
int64_t store_query_int(struct store *st, const char *sql);

#endif
