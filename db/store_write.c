/*
 * store_write.c -- the batched writer: rows go in as results come (the
 * trace's memory is the engine's only during the callback), inside one
 * transaction that commits after batch_rows results or batch_ns, so a
 * reader sees whole batches or nothing and the writer pays one commit per
 * batch.  Each row is kept (store_keep.c) and written by store_rows.c.
 */
#include <stdio.h>

#include "store_int.h"

int
store_run_begin(struct store *st, const struct store_run *run, int64_t *run_id)
{
	struct keep *k;

	if (st->mode != STORE_WRITE)
		return -1;
	if ((k = keep_run(run)) == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return -1;
	}
	return keep_add(st, k, run_id);
}

int
store_add(struct store *st, int64_t run_id, const struct path_result *res)
{
	uint64_t t0 = store_now_ns(), dt;
	struct keep *k;

	if (st->mode != STORE_WRITE)
		return -1;
	if ((k = keep_path(run_id, res)) == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return -1;
	}
	if (keep_add(st, k, NULL) != 0)
		return -1;
	dt = store_now_ns() - t0;
	if (dt > st->stats.add_ns_max)
		st->stats.add_ns_max = dt;
	(void)store_flush(st, false);
	return 0;
}

int
store_flush(struct store *st, bool force)
{
	if (st->failing) {
		/* the kept rows again, every retry_ns (or when asked: the
		 * last flush before closing) */
		if (!force && store_now_ns() < st->retry_at)
			return -1;
		return keep_retry(st);
	}
	if (!st->in_batch)
		return 0;
	if (!force && store_now_ns() - st->batch_start < st->o.batch_ns)
		return 0;
	return keep_commit(st);
}

bool
store_failing(const struct store *st)
{
	return st->failing;
}

int64_t
store_query_int(struct store *st, const char *sql)
{
	int rc;
	int64_t v;

	/* it sees the open batch whole: its pending scale rows written */
	if (st->in_batch && keep_pending_write(st) != 0)
		return -1;
	v = store_db_int(st->db, sql, &rc);
	if (rc != SQLITE_OK) {
		store_fail(st, "query");
		return -1;
	}
	return v;
}
