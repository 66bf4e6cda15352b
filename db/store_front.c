/*
 * store_front.c -- store.h, history.h and report_query.h as callers see
 * them: the engine is chosen by what the database names (a PostgreSQL
 * URI or a SQLite file, store_where.c) and every call goes to its
 * function (store_engine.h).  Holds no state of its own but the engine
 * and its handle.
 */
#include <stdio.h>
#include <stdlib.h>

#include "store_engine.h"

struct store {
	const struct store_engine *eng;
	void *e;
	char where[256];	/* the database, without a password */
	char err[STORE_ERRLEN];		/* a call the engine lacks */
};

struct history {
	const struct store_engine *eng;
	void *h;
	char where[256];
	char err[STORE_ERRLEN];
};

static _Thread_local bool open_refused;

static const struct store_engine *
engine_of(const char *where)
{
	return store_is_uri(where) ? &store_engine_pg : &store_engine_sqlite;
}

/* st's engine lacks what: its one line, -1 */
static int
lacks(struct store *st, const char *what)
{
	snprintf(st->err, sizeof(st->err), "%s: %s is not supported by the %s store yet",
	    st->where, what, st->eng->name);
	return -1;
}

static void
lacks_err(const struct store_engine *eng, const char *where, const char *what, char *err,
    size_t errlen)
{
	char safe[256];

	store_where_safe(where, safe, sizeof(safe));
	snprintf(err, errlen, "%s: %s is not supported by the %s store yet", safe, what,
	    eng->name);
}

/* st's engine handle for a call that may fail: the front's own message
 * of an earlier call is forgotten, so store_error says the engine's */
static void *
E(struct store *st)
{
	st->err[0] = '\0';
	return st->e;
}

static void *
H(struct history *h)
{
	h->err[0] = '\0';
	return h->h;
}

struct store *
store_open(const char *file, enum store_mode mode, const struct store_opts *o, char *err,
    size_t errlen)
{
	const struct store_engine *eng = engine_of(file);
	struct store *st = calloc(1, sizeof(*st));

	open_refused = false;
	if (st == NULL) {
		snprintf(err, errlen, "store: out of memory");
		return NULL;
	}
	st->eng = eng;
	store_where_safe(file, st->where, sizeof(st->where));
	if ((st->e = eng->open(file, mode, o, err, errlen)) == NULL) {
		open_refused = eng->open_refused();
		free(st);
		return NULL;
	}
	return st;
}

bool
store_open_refused(void)
{
	return open_refused;
}

const char *
store_backup(const struct store *st)
{
	return st->eng->backup != NULL ? st->eng->backup(st->e) : NULL;
}

int64_t
store_migrated_from(const struct store *st)
{
	return st->eng->migrated_from(st->e);
}

int
store_close(struct store *st, char *err, size_t errlen)
{
	int rc;

	if (st == NULL)
		return 0;
	rc = st->eng->close(E(st), err, errlen);
	free(st);
	return rc;
}

int
store_run_begin(struct store *st, const struct store_run *run, int64_t *run_id)
{
	return st->eng->run_begin(E(st), run, run_id);
}

int
store_add(struct store *st, int64_t run_id, const struct path_result *res)
{
	return st->eng->add(E(st), run_id, res);
}

int
store_flush(struct store *st, bool force)
{
	return st->eng->flush(E(st), force);
}

const char *
store_error(const struct store *st)
{
	return st->err[0] != '\0' ? st->err : st->eng->error(st->e);
}

bool
store_failing(const struct store *st)
{
	return st->eng->failing(st->e);
}

bool
store_ckpt_failed(struct store *st, char *why, size_t len)
{
	return st->eng->ckpt_failed != NULL && st->eng->ckpt_failed(E(st), why, len);
}

uint64_t
store_pending(const struct store *st)
{
	return st->eng->pending(st->e);
}

const struct store_stats *
store_get_stats(const struct store *st)
{
	return st->eng->stats(st->e);
}

int64_t
store_prune(struct store *st, int64_t cutoff_ns)
{
	struct store_prune p;
	int rc;

	if (st->eng->prune != NULL)
		return st->eng->prune(E(st), cutoff_ns);
	if (st->eng->prune_step == NULL)
		return lacks(st, "retention");
	/* an engine without a whole prune of its own: its steps */
	store_prune_init(&p, cutoff_ns, 0, false);
	while ((rc = st->eng->prune_step(E(st), &p)) > 0)
		;
	return rc != 0 ? -1 : (int64_t)p.results;
}

int
store_prune_step(struct store *st, struct store_prune *p)
{
	if (st->eng->prune_step == NULL)
		return lacks(st, "retention");
	return st->eng->prune_step(E(st), p);
}

int
store_check(const char *file, bool quick, store_fault_fn fn, void *arg, char *err,
    size_t errlen)
{
	const struct store_engine *eng = engine_of(file);

	if (eng->check == NULL) {
		lacks_err(eng, file, "db check", err, errlen);
		return -1;
	}
	return eng->check(file, quick, fn, arg, err, errlen);
}

int
store_size(struct store *st, int64_t *bytes, int64_t *oldest_ns)
{
	return st->eng->size(E(st), bytes, oldest_ns);
}

int
store_run_cycle(struct store *st, int64_t run_id, const char *group, int64_t cycle)
{
	return st->eng->run_cycle(E(st), run_id, group, cycle);
}

int
store_state_add(struct store *st, int64_t run_id, const struct store_state *s)
{
	return st->eng->state_add(E(st), run_id, s);
}

int
store_state_has(struct store *st, const char *group, const char *target, int64_t cycle)
{
	return st->eng->state_has(E(st), group, target, cycle);
}

int64_t
store_last_cycle(struct store *st, const char *group)
{
	return st->eng->last_cycle(E(st), group);
}

int64_t
store_discard_unfinished(struct store *st)
{
	return st->eng->discard_unfinished(E(st));
}

int
store_alert_put(struct store *st, const struct store_alert *a, bool clear)
{
	return st->eng->alert_put(E(st), a, clear);
}

int64_t
store_alert_each(struct store *st, const char *vantage, store_alert_fn fn, void *arg)
{
	return st->eng->alert_each(E(st), vantage, fn, arg);
}

int
store_exec(struct store *st, const char *sql)
{
	return st->eng->exec(E(st), sql);
}

int64_t
store_query_int(struct store *st, const char *sql)
{
	return st->eng->query_int(E(st), sql);
}

/* --- the readers --------------------------------------------------------- */

struct history *
history_open(struct store *st, char *err, size_t errlen)
{
	struct history *h = calloc(1, sizeof(*h));

	if (h != NULL) {
		h->eng = st->eng;
		snprintf(h->where, sizeof(h->where), "%s", st->where);
		if ((h->h = st->eng->h_open(st->e, err, errlen)) != NULL)
			return h;
	} else
		snprintf(err, errlen, "%s: out of memory", st->where);
	free(h);
	return NULL;
}

void
history_close(struct history *h)
{
	if (h != NULL)
		h->eng->h_close(h->h);
	free(h);
}

const char *
history_error(const struct history *h)
{
	return h->err[0] != '\0' ? h->err : h->eng->h_error(h->h);
}

int
history_show(struct history *h, const struct history_query *q, history_row_fn fn, void *arg)
{
	return h->eng->h_show(H(h), q, fn, arg);
}

int
history_export(struct history *h, const struct history_export_query *q, history_row_fn fn,
    void *arg)
{
	return h->eng->h_export(H(h), q, fn, arg);
}

int
history_findings(struct history *h, int64_t path_result_id, int scale_idx,
    history_finding_fn fn, void *arg)
{
	return h->eng->h_findings(H(h), path_result_id, scale_idx, fn, arg);
}

int
history_evidence(struct history *h, int64_t path_result_id, uint8_t **buf, size_t *len)
{
	return h->eng->h_evidence(H(h), path_result_id, buf, len);
}

/* the plans are each engine's own words (EXPLAIN) */
static int
plan_lacks(struct history *h)
{
	snprintf(h->err, sizeof(h->err), "%s: query plans are not supported by the %s store",
	    h->where, h->eng->name);
	return -1;
}

int
history_show_plan(struct history *h, char *buf, size_t len)
{
	if (h->eng->h_show_plan == NULL)
		return plan_lacks(h);
	return h->eng->h_show_plan(H(h), buf, len);
}

int
history_export_plan(struct history *h, const struct history_export_query *q, char *buf,
    size_t len)
{
	if (h->eng->h_export_plan == NULL)
		return plan_lacks(h);
	return h->eng->h_export_plan(H(h), q, buf, len);
}

int
report_query(const char *file, int64_t since_ns, int64_t until_ns, report_row_fn fn,
    void *arg, char *err, size_t errlen)
{
	return engine_of(file)->report(file, since_ns, until_ns, fn, arg, err, errlen);
}
