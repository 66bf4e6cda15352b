/*
 * store_sqlite.h -- the SQLite engine's own names for the functions of
 * store.h, history.h and report_query.h: its files define and call
 * sqlite_store_open and so on, and store_front.c's store_open is the one
 * callers reach, which picks the engine (store_engine.h).  Included
 * first by store_int.h, so every SQLite file is renamed without an edit
 * of its code; a file outside the SQLite engine never includes it.
 */
#ifndef SCALEPROBE_STORE_SQLITE_H
#define SCALEPROBE_STORE_SQLITE_H

#define store			sqlite_store
#define history			sqlite_history
#define store_open		sqlite_store_open
#define store_open_refused	sqlite_store_open_refused
#define store_backup		sqlite_store_backup
#define store_migrated_from	sqlite_store_migrated_from
#define store_close		sqlite_store_close
#define store_run_begin		sqlite_store_run_begin
#define store_add		sqlite_store_add
#define store_flush		sqlite_store_flush
#define store_error		sqlite_store_error
#define store_failing		sqlite_store_failing
#define store_ckpt_failed	sqlite_store_ckpt_failed
#define store_pending		sqlite_store_pending
#define store_get_stats		sqlite_store_get_stats
#define store_prune		sqlite_store_prune
#define store_prune_step	sqlite_store_prune_step
#define store_check		sqlite_store_check
#define store_size		sqlite_store_size
#define store_run_cycle		sqlite_store_run_cycle
#define store_state_add		sqlite_store_state_add
#define store_state_has		sqlite_store_state_has
#define store_last_cycle	sqlite_store_last_cycle
#define store_discard_unfinished sqlite_store_discard_unfinished
#define store_alert_put		sqlite_store_alert_put
#define store_alert_each	sqlite_store_alert_each
#define store_exec		sqlite_store_exec
#define store_query_int		sqlite_store_query_int
#define history_open		sqlite_history_open
#define history_close		sqlite_history_close
#define history_error		sqlite_history_error
#define history_show		sqlite_history_show
#define history_export		sqlite_history_export
#define history_findings	sqlite_history_findings
#define history_evidence	sqlite_history_evidence
#define history_show_plan	sqlite_history_show_plan
#define history_export_plan	sqlite_history_export_plan
#define report_query		sqlite_report_query

#endif
