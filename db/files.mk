# db/: the store (the only folder that includes sqlite3.h): schema
# and migrations, opening and its refusals, the batched writer, retention.
# Linked into both programs, and into the store's unit test and bench.
# The store as callers see it: the engine picked by what the database names
DB_SRCS  = db/store_front.c
DB_SRCS += db/store_where.c
# the SQLite engine: its table, then its files
DB_SRCS += db/store_sqlite.c
DB_SRCS += db/store_open.c
DB_SRCS += db/store_schema.c
DB_SRCS += db/store_write.c
DB_SRCS += db/store_rows.c
DB_SRCS += db/store_rows_daemon.c
DB_SRCS += db/store_util.c
DB_SRCS += db/store_keep.c
DB_SRCS += db/store_prune.c
DB_SRCS += db/store_backup.c
DB_SRCS += db/store_check.c
# db check's fault lines, both engines'
DB_SRCS += db/store_fault.c
DB_SRCS += db/store_ckpt.c
DB_SRCS += db/store_state.c
DB_SRCS += db/store_alert.c
DB_SRCS += db/history_show.c
DB_SRCS += db/history_export.c
# show's and export's rows read alike by both engines
DB_SRCS += db/history_row.c
# what scaleprobe report reads (report_query.h), folded alike by both engines
DB_SRCS += db/report_query.c
DB_SRCS += db/report_fold.c
# the PostgreSQL engine (libpq): opening and plumbing, schema, rows, readers
DB_SRCS += db/store_pg.c
DB_SRCS += db/store_pg_schema.c
DB_SRCS += db/store_pg_write.c
DB_SRCS += db/store_pg_read.c
DB_SRCS += db/store_pg_report.c
# its retention and db check
DB_SRCS += db/store_pg_prune.c
DB_SRCS += db/store_pg_check.c
# scaleprobed's upload of its results to a shared PostgreSQL, on a thread
DB_SRCS += db/upload.c
# its cursor dropped when the daemon starts without an upload
DB_SRCS += db/upload_forget.c
# its batches: read from the local store, copied into the shared one's tables
DB_SRCS += db/upload_rows.c
# libpq, loaded on the first connect rather than linked (pq_lazy.c)
DB_SRCS += db/pq_lazy.c
PROBER_SRCS += $(DB_SRCS)
