/*
 * store_pg_int.h -- what the PostgreSQL engine's files share and nothing
 * else sees: the connection, the open batch, the parameters of a
 * statement, and the defensive readers of a result's cells (a server's
 * bytes are as hostile as a file's: each cell's type, length and NULL is
 * checked before it is used).
 */
#ifndef SCALEPROBE_STORE_PG_INT_H
#define SCALEPROBE_STORE_PG_INT_H

#include <libpq-fe.h>

#include "history.h"
#include "report_query.h"
#include "store.h"

struct pg_store {
	PGconn *c;
	char where[256];		/* the URI without its password */
	enum store_mode mode;
	struct store_opts o;
	bool in_batch;
	unsigned batch_n;		/* path results and states in it */
	uint64_t batch_start;		/* monotonic ns */
	bool failing;			/* the last commit failed */
	int64_t migrated_from;		/* the version it had; 0: none */
	struct store_stats stats;
	char err[STORE_ERRLEN];
};

/* A statement's parameters: text, or binary (bytea), or NULL. */
#define PG_MAXP		32
struct pg_params {
	int n;
	const char *v[PG_MAXP];
	int len[PG_MAXP];
	int fmt[PG_MAXP];
	char num[PG_MAXP][24];
};

void pgp_init(struct pg_params *p);
void pgp_null(struct pg_params *p);
void pgp_int(struct pg_params *p, int64_t v);
/* v when present, else NULL */
void pgp_opt(struct pg_params *p, bool present, int64_t v);
void pgp_text(struct pg_params *p, const char *s);	/* NULL: NULL */
void pgp_bin(struct pg_params *p, const uint8_t *b, size_t len);

/* store_pg.c: st connected to where (st->where its name without a
 * password; NOTICEs quiet); 0, or -1 with st->err (st->c may be set:
 * PQfinish it). */
int pg_connect(struct pg_store *st, const char *where);
/* "WHERE: what: the server's message" into st->err (one
 * line), -1. */
int pg_fail(struct pg_store *st, const char *what);
int pg_failres(struct pg_store *st, PGresult *r, const char *what);
/* sql with p (NULL: none); the result when its status is want (the
 * caller clears it), else NULL with err set naming what. */
PGresult *pg_run(struct pg_store *st, const char *sql, const struct pg_params *p,
    ExecStatusType want, const char *what);
/* sql without rows (PGRES_COMMAND_OK); 0 or -1. */
int pg_cmd(struct pg_store *st, const char *sql, const struct pg_params *p, const char *what);
uint64_t pg_now_ns(void);
/* The open batch: BEGIN when none is. */
int pg_batch_begin(struct pg_store *st);
/* A write of the open batch failed outside a result's savepoint: the
 * server's transaction is aborted, so the batch is rolled back, its rows
 * counted as dropped (store_stats), and the store is failing until a
 * batch commits again; -1, err kept. */
int pg_batch_lost(struct pg_store *st);
/* COMMIT of the open batch, if any. */
int pg_batch_commit(struct pg_store *st);

/* The cell (row, col) of r: as an integer when its type is one and it
 * parses whole within lo..hi (else false: NULL, another type, garbage,
 * out of range); as text when its type is text (else NULL). */
bool pg_cell_int(const PGresult *r, int row, int col, int64_t lo, int64_t hi, int64_t *v);
const char *pg_cell_text(const PGresult *r, int row, int col);
/* A bytea cell of a result asked in binary: 0 with its bytes, or -1. */
int pg_cell_bytes(const PGresult *r, int row, int col, const uint8_t **b, size_t *len);

/* store_pg_write.c */
int pg_run_begin(void *e, const struct store_run *run, int64_t *run_id);
int pg_add(void *e, int64_t run_id, const struct path_result *res);
int pg_run_cycle(void *e, int64_t run_id, const char *group, int64_t cycle);
int pg_state_add(void *e, int64_t run_id, const struct store_state *s);
int pg_state_has(void *e, const char *group, const char *target, int64_t cycle);
int64_t pg_last_cycle(void *e, const char *group);
int64_t pg_discard_unfinished(void *e);
int pg_alert_put(void *e, const struct store_alert *a, bool clear);
int64_t pg_alert_each(void *e, const char *vantage, store_alert_fn fn, void *arg);

/* store_pg_prune.c: retention, store_prune.c's rules */
int pg_prune_step(void *e, struct store_prune *p);
/* store_pg_check.c: scaleprobe db check on a PostgreSQL store */
int pg_check(const char *where, bool quick, store_fault_fn fn, void *arg, char *err,
    size_t errlen);

/* store_pg_read.c */
void *pg_history_open(void *e, char *err, size_t errlen);
void pg_history_close(void *h);
const char *pg_history_error(const void *h);
int pg_history_show(void *h, const struct history_query *q, history_row_fn fn, void *arg);
int pg_history_export(void *h, const struct history_export_query *q, history_row_fn fn,
    void *arg);
int pg_history_findings(void *h, int64_t id, int idx, history_finding_fn fn, void *arg);
int pg_history_evidence(void *h, int64_t id, uint8_t **buf, size_t *len);
int pg_report(const char *where, int64_t since_ns, int64_t until_ns, report_row_fn fn,
    void *arg, char *err, size_t errlen);

/* store_pg_schema.c: the schema of version PG_SCHEMA_VERSION in one step
 * from nothing.  Both engines must be at one version: a SQLite migration
 * (store_schema.c, STORE_SCHEMA_VERSION) stops the build here until this
 * engine has its own (a migration from PG_SCHEMA_VERSION, run in
 * setup_writer's transaction, and this number raised). */
#define PG_SCHEMA_VERSION	10
/* the version pg_schema_full creates */
#define PG_SCHEMA_BASE		5
_Static_assert(PG_SCHEMA_VERSION == STORE_SCHEMA_VERSION,
    "a new schema version needs its PostgreSQL migration (db/store_pg_schema.c)");
extern const char pg_schema_full[];
extern const char *const pg_migrations[PG_SCHEMA_VERSION - PG_SCHEMA_BASE];

#endif
