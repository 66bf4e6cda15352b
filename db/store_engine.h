/*
 * store_engine.h -- the store behind one interface: what an engine (SQLite
 * in a file, store_sqlite.c; PostgreSQL at a connection URI, store_pg.c)
 * provides, one function per call of store.h, history.h and
 * report_query.h, on its own handle.  store_front.c picks the engine by
 * the name of the database (store_is_uri, store.h) and forwards; callers
 * see only store.h, history.h and report_query.h.  A function an engine lacks is NULL: the call fails with one
 * line saying so (or, for a query of state, answers "nothing").
 */
#ifndef SCALEPROBE_STORE_ENGINE_H
#define SCALEPROBE_STORE_ENGINE_H

#include "history.h"
#include "report_query.h"
#include "store.h"

struct store_engine {
	const char *name;		/* "SQLite", "PostgreSQL" */
	void *(*open)(const char *where, enum store_mode mode, const struct store_opts *o,
	    char *err, size_t errlen);
	bool (*open_refused)(void);
	int (*close)(void *e, char *err, size_t errlen);
	const char *(*backup)(const void *e);
	int64_t (*migrated_from)(const void *e);
	int (*run_begin)(void *e, const struct store_run *run, int64_t *run_id);
	int (*add)(void *e, int64_t run_id, const struct path_result *res);
	int (*flush)(void *e, bool force);
	const char *(*error)(const void *e);
	bool (*failing)(const void *e);
	bool (*ckpt_failed)(void *e, char *why, size_t len);
	uint64_t (*pending)(const void *e);
	const struct store_stats *(*stats)(const void *e);
	int64_t (*prune)(void *e, int64_t cutoff_ns);
	int (*prune_step)(void *e, struct store_prune *p);
	int (*check)(const char *where, bool quick, store_fault_fn fn, void *arg, char *err,
	    size_t errlen);
	int (*size)(void *e, int64_t *bytes, int64_t *oldest_ns);
	int (*run_cycle)(void *e, int64_t run_id, const char *group, int64_t cycle);
	int (*state_add)(void *e, int64_t run_id, const struct store_state *s);
	int (*state_has)(void *e, const char *group, const char *target, int64_t cycle);
	int64_t (*last_cycle)(void *e, const char *group);
	int64_t (*discard_unfinished)(void *e);
	int (*alert_put)(void *e, const struct store_alert *a, bool clear);
	int64_t (*alert_each)(void *e, const char *vantage, store_alert_fn fn, void *arg);
	int (*exec)(void *e, const char *sql);
	int64_t (*query_int)(void *e, const char *sql);

	/* the readers: a reader's handle on the engine's store handle */
	void *(*h_open)(void *e, char *err, size_t errlen);
	void (*h_close)(void *h);
	const char *(*h_error)(const void *h);
	int (*h_show)(void *h, const struct history_query *q, history_row_fn fn,
	    void *arg);
	int (*h_export)(void *h, const struct history_export_query *q,
	    history_row_fn fn, void *arg);
	int (*h_findings)(void *h, int64_t path_result_id, int scale_idx,
	    history_finding_fn fn, void *arg);
	int (*h_evidence)(void *h, int64_t path_result_id, uint8_t **buf,
	    size_t *len);
	int (*h_show_plan)(void *h, char *buf, size_t len);
	int (*h_export_plan)(void *h, const struct history_export_query *q,
	    char *buf, size_t len);
	int (*report)(const char *where, int64_t since_ns, int64_t until_ns,
	    report_row_fn fn, void *arg, char *err, size_t errlen);
};

extern const struct store_engine store_engine_sqlite;
extern const struct store_engine store_engine_pg;

#endif
