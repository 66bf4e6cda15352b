/*
 * store_sqlite.c -- the SQLite engine (store_engine.h): the functions of
 * the store's SQLite files, under the names store_sqlite.h gives them,
 * on their own handles.  Nothing here but the table: the engine's code
 * stays in its files.
 */
#include "history_int.h"	/* first: the SQLite engine's names */
#include "report_query.h"
#include "store_engine.h"

/* Each wrapper only gives the engine's function its own handle type. */
static void *
e_open(const char *where, enum store_mode mode, const struct store_opts *o, char *err,
    size_t errlen)
{
	return sqlite_store_open(where, mode, o, err, errlen);
}

static int e_close(void *e, char *err, size_t n) { return sqlite_store_close(e, err, n); }
static const char *e_backup(const void *e) { return sqlite_store_backup(e); }
static int64_t e_migrated_from(const void *e) { return sqlite_store_migrated_from(e); }
static int e_run_begin(void *e, const struct store_run *r, int64_t *id)
{ return sqlite_store_run_begin(e, r, id); }
static int e_add(void *e, int64_t run, const struct path_result *res)
{ return sqlite_store_add(e, run, res); }
static int e_flush(void *e, bool force) { return sqlite_store_flush(e, force); }
static const char *e_error(const void *e) { return sqlite_store_error(e); }
static bool e_failing(const void *e) { return sqlite_store_failing(e); }
static bool e_ckpt_failed(void *e, char *why, size_t len)
{ return sqlite_store_ckpt_failed(e, why, len); }
static uint64_t e_pending(const void *e) { return sqlite_store_pending(e); }
static const struct store_stats *e_stats(const void *e) { return sqlite_store_get_stats(e); }
static int64_t e_prune(void *e, int64_t cutoff) { return sqlite_store_prune(e, cutoff); }
static int e_prune_step(void *e, struct store_prune *p) { return sqlite_store_prune_step(e, p); }
static int e_size(void *e, int64_t *b, int64_t *o) { return sqlite_store_size(e, b, o); }
static int e_run_cycle(void *e, int64_t run, const char *g, int64_t c)
{ return sqlite_store_run_cycle(e, run, g, c); }
static int e_state_add(void *e, int64_t run, const struct store_state *s)
{ return sqlite_store_state_add(e, run, s); }
static int e_state_has(void *e, const char *g, const char *t, int64_t c)
{ return sqlite_store_state_has(e, g, t, c); }
static int64_t e_last_cycle(void *e, const char *g) { return sqlite_store_last_cycle(e, g); }
static int64_t e_discard(void *e) { return sqlite_store_discard_unfinished(e); }
static int e_alert_put(void *e, const struct store_alert *a, bool clear)
{ return sqlite_store_alert_put(e, a, clear); }
static int64_t e_alert_each(void *e, const char *v, store_alert_fn fn, void *arg)
{ return sqlite_store_alert_each(e, v, fn, arg); }
static int e_exec(void *e, const char *sql) { return sqlite_store_exec(e, sql); }
static int64_t e_query_int(void *e, const char *sql) { return sqlite_store_query_int(e, sql); }
static void *e_history_open(void *e, char *err, size_t n)
{ return sqlite_history_open(e, err, n); }
static void e_history_close(void *h) { sqlite_history_close(h); }
static const char *e_history_error(const void *h) { return sqlite_history_error(h); }
static int e_show(void *h, const struct history_query *q, history_row_fn fn, void *arg)
{ return sqlite_history_show(h, q, fn, arg); }
static int e_export(void *h, const struct history_export_query *q, history_row_fn fn, void *arg)
{ return sqlite_history_export(h, q, fn, arg); }
static int e_findings(void *h, int64_t id, int idx, history_finding_fn fn, void *arg)
{ return sqlite_history_findings(h, id, idx, fn, arg); }
static int e_evidence(void *h, int64_t id, uint8_t **buf, size_t *len)
{ return sqlite_history_evidence(h, id, buf, len); }
static int e_show_plan(void *h, char *buf, size_t len)
{ return sqlite_history_show_plan(h, buf, len); }
static int e_export_plan(void *h, const struct history_export_query *q, char *buf, size_t len)
{ return sqlite_history_export_plan(h, q, buf, len); }

const struct store_engine store_engine_sqlite = {
	.name = "SQLite",
	.open = e_open,
	.open_refused = sqlite_store_open_refused,
	.close = e_close,
	.backup = e_backup,
	.migrated_from = e_migrated_from,
	.run_begin = e_run_begin,
	.add = e_add,
	.flush = e_flush,
	.error = e_error,
	.failing = e_failing,
	.ckpt_failed = e_ckpt_failed,
	.pending = e_pending,
	.stats = e_stats,
	.prune = e_prune,
	.prune_step = e_prune_step,
	.check = sqlite_store_check,
	.size = e_size,
	.run_cycle = e_run_cycle,
	.state_add = e_state_add,
	.state_has = e_state_has,
	.last_cycle = e_last_cycle,
	.discard_unfinished = e_discard,
	.alert_put = e_alert_put,
	.alert_each = e_alert_each,
	.exec = e_exec,
	.query_int = e_query_int,
	.h_open = e_history_open,
	.h_close = e_history_close,
	.h_error = e_history_error,
	.h_show = e_show,
	.h_export = e_export,
	.h_findings = e_findings,
	.h_evidence = e_evidence,
	.h_show_plan = e_show_plan,
	.h_export_plan = e_export_plan,
	.report = sqlite_report_query,
};
