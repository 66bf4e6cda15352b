/*
 * store_int.h -- what the store's files share and nothing else sees: the
 * connection, its prepared statements and the open batch.
 */
#ifndef SCALEPROBE_STORE_INT_H
#define SCALEPROBE_STORE_INT_H

#include <sqlite3.h>

#include "store_sqlite.h"	/* first: this engine's names */
#include "store.h"

enum store_stmt {
	SQL_BEGIN,
	SQL_COMMIT,
	SQL_ROLLBACK,
	SQL_PATH_RESULT_DEL,
	SQL_HOPS_DEL,
	SQL_TARGET_GET,
	SQL_TARGET_ADD,
	SQL_PATH_GET,
	SQL_PATH_ADD,
	SQL_RUN_ADD,
	SQL_PATH_RESULT_ADD,
	SQL_EVIDENCE_ADD,
	SQL_COUNT,
};

/* Scale rows written in one statement: those of several results
 * (store_rows.c, pending until then). */
#define STORE_SCALE_ROWS	64
#define STORE_FINDING_ROWS	16
_Static_assert(STORE_SCALE_ROWS >= RESULT_MAX_SCALES, "a result's scale rows fit one statement");

/* A result whose scale rows (and side findings) wait for that
 * statement; res is its kept row, which outlives the batch's statements. */
struct scale_pending {
	int64_t pr, pid;
	const struct kept_path *res;
};

struct path_cache;
struct target_cache;
struct store_ckpt;
struct keep;

/* A run's row as the caller knows it (the id store_run_begin gave) and
 * the id its row has now: they differ when a failed batch's run was
 * inserted again after another writer had taken its id. */
struct run_map {
	int64_t handle, id;
};

struct store {
	sqlite3 *db;
	char *file;
	enum store_mode mode;
	struct store_opts o;
	sqlite3_stmt *stmt[SQL_COUNT];
	bool in_batch;
	bool fk_on;			/* PRAGMA foreign_keys (store_fk) */
	unsigned batch_n;
	uint64_t batch_start;		/* monotonic ns */
	struct target_cache *targets;	/* spec -> targets.id */
	struct path_cache *paths;	/* (address, port) -> paths.id */
	sqlite3_stmt *scale_multi[STORE_SCALE_ROWS + 1];	/* [n]: n rows */
	sqlite3_stmt *hop_multi[RESULT_MAX_HOPS + 1];
	sqlite3_stmt *finding_multi[STORE_FINDING_ROWS + 1];
	struct scale_pending pending[STORE_SCALE_ROWS];
	int npending, pending_rows;
	struct store_ckpt *ckpt;	/* the writer's checkpoint thread */
	struct store_stats stats;
	/* What the open batch holds, in order, kept until its COMMIT
	 * succeeds: after a failed one the transaction's rows are gone
	 * and these are written again (store_keep.c). */
	struct keep *keep_head, *keep_tail;
	uint64_t keep_n;		/* results and states kept */
	size_t keep_bytes;
	bool failing;			/* the last write failed: nothing is
					   written until a retry succeeds */
	uint64_t retry_at;		/* monotonic ns */
	uint64_t retry_wait;		/* retry_ns, doubled at each failure
					   in a row up to STORE_RETRY_MAX_NS;
					   0 after a success */
	struct run_map *runs;
	size_t nruns;
	uint64_t run_seq;		/* handles of runs begun while failing */
	int errcode;			/* SQLite's, of the last store_fail */
	char *backup;			/* the copy taken before a migration */
	int64_t migrated_from;		/* the version it had; 0: none */
	char err[STORE_ERRLEN];
};

/* store_schema.c: the migrations, in order; migration i (0-based) takes
 * the schema from version i to i + 1. */
extern const char *const store_migrations[STORE_SCHEMA_VERSION];

#define STORE_SCALE_COLS	30
#define STORE_HOP_COLS		6
#define STORE_FINDING_COLS	7

/*
 * The store's files call down this list, never up (a file may call any
 * file below it):
 *   store_open.c, store_prune.c, store_state.c, store_alert.c  (the API)
 *   store_write.c      the batched writer's API
 *   store_keep.c       the open batch kept in memory, its commit and retry
 *   store_rows_daemon.c, store_rows.c  the statements of one kept row
 *   store_ckpt.c, store_backup.c, store_schema.c
 *   store_util.c       the clock, store_fail, statements run once
 */

/* store_util.c */
uint64_t store_now_ns(void);
/* Fills st->err with "FILE: what: sqlite's message" (and, for an I/O
 * error or a full disk, the system's: "(No space left on device)") and
 * returns -1. */
int store_fail(struct store *st, const char *what);
/* " (the system's error)" of db's last failure rc when it is an I/O
 * error, a full disk or a file that cannot be opened; "" otherwise. */
void store_sys_error(sqlite3 *db, int rc, char *out, size_t len);
/* An integer pragma or query on db; -1 with *rc set when it fails. */
int64_t store_db_int(sqlite3 *db, const char *sql, int *rc);
/* sql prepared (NULL, err set, when it cannot be); stepped once and
 * finalized (0, or -1 err set naming what). */
sqlite3_stmt *store_prep(struct store *st, const char *sql);
int store_done(struct store *st, sqlite3_stmt *s, const char *what);
/* A writer's connection db keeps the -wal and -shm at its close, the WAL
 * cut to limit bytes when it restarts; 0 or -1. */
int store_keep_wal(sqlite3 *db, uint64_t limit);
/* PRAGMA foreign_keys on (the cascades of a delete) or off (the writer's
 * batches), only outside a transaction; a change re-prepares every
 * statement, so it is made only when it differs.  0, or -1 err set. */
int store_fk(struct store *st, bool on);

/* store_ckpt.c: checkpoints on a thread of their own, not in COMMIT */
int store_ckpt_start(struct store *st);
void store_ckpt_stop(struct store *st);
/* While held, the thread runs no checkpoint: the writer's own (a
 * TRUNCATE, which another checkpoint in progress would refuse busy at
 * once, never waiting) gets the checkpoint lock. */
void store_ckpt_hold(struct store *st, bool hold);
/* After a commit, on the writer's thread: the WAL past wal_bytes gets
 * the writer's RESTART checkpoint (readers waited for STORE_WAL_BUSY_MS
 * at most; when they are still in the way, not again before ckpt_ns). */
void store_ckpt_bound(struct store *st);

/* store_rows.c: the writer's statements prepared (0, or -1 err set) and
 * finalized; opens the batch when none is; targets.id of spec (added
 * when new); frees the id caches */
int store_rows_prepare(struct store *st);
void store_rows_finalize(struct store *st);
/* The batch's transaction (when none is open) with foreign_keys off: the
 * writer's rows name only ids it inserted or found in that transaction,
 * and the checks were 14 % of its instructions; on when cascade (a
 * delete whose children go with it). */
int store_batch_begin(struct store *st, bool cascade);
int64_t store_target_id(struct store *st, const char *spec);
void store_caches_free(struct store *st);

/* store_keep.c: the open batch's rows in memory.  A kept row, its kind
 * and what it names; the run handle is the caller's. */
enum keep_kind { KEEP_RUN, KEEP_CYCLE, KEEP_PATH, KEEP_STATE, KEEP_ALERT };

/* What the store writes of one scale: the fields of its row and its side
 * findings, nothing else (a result's structs are ~1 KB a scale). */
struct kept_scale {
	int scale;
	enum reply_kind reply;
	uint8_t icmp_type, icmp_code;
	struct synack_obs sa;
	enum verdict verdict;
	char *reason;			/* NULL when no verdict */
	int scale_quoted;
	struct hop_loc hop;
	bool w_ran, w_inconclusive;
	int scale_effective, scale_effective_min;
	int64_t flight_bytes;
	int flows, flows_affected;	/* flows 0 or 1: one flow (NULL) */
	struct flow_branch branch;	/* hop_index 0: none (NULL) */
	int nfindings;
	struct side_finding *findings;	/* [nfindings] */
};

struct kept_path {
	char *target;
	struct addr dst;
	uint16_t port;
	struct timespec time;
	struct variant_obs control;
	int nscales;
	struct kept_scale *scales;	/* [nscales] */
	int last;			/* result_hops(): -1 not traced */
	struct hop_quote *hops;		/* [last + 1], [0] unused */
	bool *hop_present;
	uint64_t capture_drops, send_failures;
	char *capture_error;		/* NULL: none */
	uint8_t *ev;			/* evidence_pack()'s bytes; NULL: none */
	size_t evlen;
	int ev_packets;
	bool ev_truncated;
};

/* the order of keep.u.alert.s[] */
enum kept_alert_field {
	A_VANTAGE, A_KIND, A_ADDRESS, A_TARGET, A_STATE, A_SCALES, A_HOP, A_INCIDENT, A_REASON
};

struct keep {
	enum keep_kind kind;
	int64_t run;			/* handle; 0: none */
	size_t bytes;			/* what it costs in memory */
	struct keep *next;
	union {
		struct {
			struct timespec start;
			char *vantage, *settings, *program;
			enum clock_sync clock;
			bool on_demand;
			uint32_t uid;
		} run;
		struct {
			char *group;
			int64_t cycle;
		} cycle;
		struct kept_path path;
		struct {
			char *group, *target, *state, *reason;
			int64_t cycle, time_ns, next_due_ns;
			unsigned paths;
		} state;
		struct {	/* store_alert.c; s[] in enum kept_alert_field's order */
			char *s[9];
			unsigned port, paths;
			int hop_index;
			int64_t raised_ns, changed_ns;
			bool clear;
		} alert;
	} u;
};

/* A copy of res as the store writes it (NULL: out of memory). */
struct keep *keep_path(int64_t run, const struct path_result *res);
struct keep *keep_run(const struct store_run *run);
struct keep *keep_cycle(int64_t run, const char *group, int64_t cycle);
struct keep *keep_state(int64_t run, const struct store_state *s);
void keep_free(struct keep *k);
/* Takes k in the open batch and, unless the store is failing, writes it
 * now; a run's handle in *run_handle.  0: written or kept for a retry; -1: refused (its data: a
 * constraint) or dropped (the bound of kept rows reached), err filled. */
int keep_add(struct store *st, struct keep *k, int64_t *run_handle);

/* Ends the batch: COMMIT (and the kept rows freed), or after a failure
 * the transaction rolled back, the id caches dropped and the rows kept
 * for a retry.  0 or -1. */
int keep_commit(struct store *st);
/* A failing store: the kept rows again in a new transaction, committed.
 * 0 when the store writes again, -1. */
int keep_retry(struct store *st);
/* The pending scale rows written now; a failure fails the batch (kept for
 * a retry).  0 or -1. */
int keep_pending_write(struct store *st);
void keep_clear(struct store *st);

/* store_rows.c: the run id of a caller's handle; store_exec_run's: the
 * run's row is id in this transaction. */
int64_t keep_run_id(const struct store *st, int64_t handle);
int keep_run_inserted(struct store *st, struct keep *k, int64_t id);
/* The insert of n scale_results rows (kind 0), n hops (kind 1) or n
 * side_findings (kind 2) in one statement; NULL (err set) when it cannot
 * be prepared. */
sqlite3_stmt *store_multi(struct store *st, int kind, int n);

/* store_rows.c / store_rows_daemon.c: one kept row's statements, in the
 * open transaction.  0, or -1 with err set. */
int store_exec_run(struct store *st, struct keep *k);
/* The pending scale rows written (0, or -1 err set), or forgotten (their
 * transaction rolled back) */
int store_scales_flush(struct store *st);
void store_scales_drop(struct store *st);
int store_exec_cycle(struct store *st, struct keep *k);
int store_exec_path(struct store *st, struct keep *k);
int store_exec_state(struct store *st, struct keep *k);
int store_exec_alert(struct store *st, struct keep *k);

/* store_backup.c: FILE.vVERSION-TIME.bak through the backup API, from
 * st's connection (in the migration's transaction); 0, or -1 err set */
int store_backup_take(struct store *st, int64_t version);
/* The newest copy beside file of a version this binary reads; 0 or -1. */
int store_backup_find(const char *file, char *out, size_t len);

#endif
