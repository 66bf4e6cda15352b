/*
 * store_int.h -- what the store's files share and nothing else sees: the
 * connection, its prepared statements and the open batch.
 */
#ifndef SCALEPROBE_STORE_INT_H
#define SCALEPROBE_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

enum store_stmt {
	SQL_BEGIN,
	SQL_COMMIT,
	SQL_ROLLBACK,
	SQL_PATH_RESULT_DEL,
	SQL_TARGET_GET,
	SQL_TARGET_ADD,
	SQL_PATH_GET,
	SQL_PATH_ADD,
	SQL_RUN_ADD,
	SQL_PATH_RESULT_ADD,
	SQL_FINDING_ADD,
	SQL_EVIDENCE_ADD,
	SQL_COUNT,
};

struct path_cache;
struct target_cache;
struct store_ckpt;

struct store {
	sqlite3 *db;
	char *file;
	enum store_mode mode;
	struct store_opts o;
	sqlite3_stmt *stmt[SQL_COUNT];
	bool in_batch;
	unsigned batch_n;
	uint64_t batch_start;		/* monotonic ns */
	struct target_cache *targets;	/* spec -> targets.id */
	struct path_cache *paths;	/* (address, port) -> paths.id */
	sqlite3_stmt *scale_multi[RESULT_MAX_SCALES + 1];	/* [n]: n rows */
	sqlite3_stmt *hop_multi[RESULT_MAX_HOPS + 1];
	struct store_ckpt *ckpt;	/* the writer's checkpoint thread */
	struct store_stats stats;
	char err[STORE_ERRLEN];
};

/* store_schema.c: the migrations, in order; migration i (0-based) takes
 * the schema from version i to i + 1. */
extern const char *const store_migrations[STORE_SCHEMA_VERSION];

#define STORE_SCALE_COLS	24
#define STORE_HOP_COLS		6

/* store_ckpt.c: checkpoints on a thread of their own, not in COMMIT */
int store_ckpt_start(struct store *st);
void store_ckpt_stop(struct store *st);

/* store_write.c: opens the batch when none is; targets.id of spec (added
 * when new); frees the id caches */
int store_batch_begin(struct store *st);
int64_t store_target_id(struct store *st, const char *spec);
void store_caches_free(struct store *st);

/* store_open.c */
/* The insert of n scale_results rows (kind 0) or n hops (kind 1) in one
 * statement; NULL (err set) when it cannot be prepared. */
sqlite3_stmt *store_multi(struct store *st, int kind, int n);
uint64_t store_now_ns(void);
/* Fills st->err with "FILE: what: sqlite's message" and returns -1. */
int store_fail(struct store *st, const char *what);

#endif
