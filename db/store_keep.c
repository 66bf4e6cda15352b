/*
 * store_keep.c -- the open batch's rows kept in memory until its COMMIT
 * succeeds.  A failed COMMIT (or insert) rolls the transaction back:
 * rows and the ids SQLite gave them are gone, so the writer's id caches
 * are dropped with them and the kept rows are written again, in order,
 * in a later transaction; every row is then written with the ids of
 * that transaction.  Rows beyond keep_bytes while the store fails are
 * dropped and counted.  A run keeps the id its caller was given: when
 * its row comes back under another id, run_map says which.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "flow_branch.h"
#include "store_int.h"

static char *
dup_or_null(const char *s, size_t *bytes)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) != NULL)
		*bytes += strlen(s) + 1;
	return d;
}

static struct keep *
keep_new(enum keep_kind kind, int64_t run)
{
	struct keep *k = calloc(1, sizeof(*k));

	if (k != NULL) {
		k->kind = kind;
		k->run = run;
		k->bytes = sizeof(*k);
	}
	return k;
}

/* Scale i of res as the store writes it; 0 or -1 (out of memory). */
static int
keep_scale(struct kept_scale *ks, const struct path_result *res, int i, size_t *bytes)
{
	const struct variant_obs *o = &res->scales[i];
	const struct scale_verdict *v = &res->verdicts[i];
	const struct window_obs *w = &res->window[i];
	int nf = v->nfindings < RESULT_MAX_FINDINGS ? v->nfindings : RESULT_MAX_FINDINGS;

	ks->scale = o->scale;
	ks->reply = o->reply;
	ks->icmp_type = o->icmp_type;
	ks->icmp_code = o->icmp_code;
	ks->sa = o->sa;
	ks->verdict = v->verdict;
	ks->scale_quoted = v->scale_quoted;
	ks->hop = v->hop;
	ks->w_ran = w->ran;
	ks->w_inconclusive = w->inconclusive;
	ks->scale_effective = w->scale_effective;
	ks->scale_effective_min = w->scale_effective_min;
	ks->flight_bytes = w->flight_bytes;
	ks->flows = res->flows;
	ks->flows_affected = res->flows_affected[i];
	if (flow_branch_of(res, i) != NULL)
		ks->branch = *flow_branch_of(res, i);
	if (verdict_name(v->verdict) != NULL && (ks->reason = dup_or_null(v->reason, bytes)) == NULL)
		return -1;
	if (nf > 0) {
		if ((ks->findings = malloc((size_t)nf * sizeof(*ks->findings))) == NULL)
			return -1;
		memcpy(ks->findings, v->findings, (size_t)nf * sizeof(*ks->findings));
		ks->nfindings = nf;
		*bytes += (size_t)nf * sizeof(*ks->findings);
	}
	return 0;
}

struct keep *
keep_path(int64_t run, const struct path_result *res)
{
	const struct hop_quote *hop[RESULT_MAX_HOPS + 1];
	struct keep *k = keep_new(KEEP_PATH, run);
	struct kept_path *p;
	int n = res->nscales < RESULT_MAX_SCALES ? res->nscales : RESULT_MAX_SCALES;
	bool problem = false;

	if (k == NULL)
		return NULL;
	p = &k->u.path;
	p->dst = res->dst;
	p->port = res->port;
	p->time = res->time;
	p->control = res->control;
	p->nscales = n < 0 ? 0 : n;
	p->capture_drops = res->capture_drops;
	p->send_failures = res->send_failures;
	p->last = result_hops(res, hop);
	p->target = dup_or_null(res->target != NULL ? res->target : "", &k->bytes);
	if (res->capture_error[0] != '\0')
		p->capture_error = dup_or_null(res->capture_error, &k->bytes);
	p->scales = calloc((size_t)p->nscales + 1, sizeof(*p->scales));
	p->hops = calloc((size_t)(p->last > 0 ? p->last : 0) + 1, sizeof(*p->hops));
	p->hop_present = calloc((size_t)(p->last > 0 ? p->last : 0) + 1, 1);
	if (p->target == NULL || p->scales == NULL || p->hops == NULL ||
	    p->hop_present == NULL ||
	    (res->capture_error[0] != '\0' && p->capture_error == NULL))
		goto fail;
	k->bytes += (size_t)(p->nscales + 1) * sizeof(*p->scales);
	for (int i = 0; i < p->nscales; i++) {
		if (keep_scale(&p->scales[i], res, i, &k->bytes) != 0)
			goto fail;
		problem |= verdict_is_problem(res->verdicts[i].verdict);
	}
	for (int h = 1; h <= p->last; h++)
		if (hop[h] != NULL) {
			p->hops[h] = *hop[h];
			p->hop_present[h] = true;
		}
	k->bytes += (size_t)(p->last > 0 ? p->last : 0) * (sizeof(*p->hops) + 1);
	/* the packets that prove it, for a result that has a problem or a
	 * trace: a clean untraced path needs no proof and costs no bytes */
	if ((problem || p->last >= 0) && res->evidence != NULL && res->evidence->n > 0) {
		/* packed here, kept at its size (the writer has one thread) */
		static uint8_t buf[EVIDENCE_PACKED_MAX];

		p->evlen = evidence_pack(res->evidence, buf, sizeof(buf));
		if ((p->ev = malloc(p->evlen > 0 ? p->evlen : 1)) == NULL)
			goto fail;
		memcpy(p->ev, buf, p->evlen);
		p->ev_packets = res->evidence->n;
		p->ev_truncated = res->evidence->truncated;
		k->bytes += p->evlen;
	}
	return k;
fail:
	keep_free(k);
	return NULL;
}

struct keep *
keep_run(const struct store_run *run)
{
	struct keep *k = keep_new(KEEP_RUN, 0);

	if (k == NULL)
		return NULL;
	k->u.run.start = run->start;
	k->u.run.on_demand = run->on_demand;
	k->u.run.uid = run->uid;
	k->u.run.clock = run->clock;
	k->u.run.vantage = dup_or_null(run->vantage != NULL ? run->vantage : "", &k->bytes);
	k->u.run.settings = dup_or_null(run->settings != NULL ? run->settings : "", &k->bytes);
	k->u.run.program = dup_or_null(run->program != NULL ? run->program : "scaleprobe",
	    &k->bytes);
	if (k->u.run.vantage == NULL || k->u.run.settings == NULL || k->u.run.program == NULL) {
		keep_free(k);
		return NULL;
	}
	return k;
}

struct keep *
keep_cycle(int64_t run, const char *group, int64_t cycle)
{
	struct keep *k = keep_new(KEEP_CYCLE, run);

	if (k == NULL)
		return NULL;
	k->u.cycle.cycle = cycle;
	if ((k->u.cycle.group = dup_or_null(group, &k->bytes)) == NULL) {
		keep_free(k);
		return NULL;
	}
	return k;
}

struct keep *
keep_state(int64_t run, const struct store_state *s)
{
	struct keep *k = keep_new(KEEP_STATE, run);

	if (k == NULL)
		return NULL;
	k->u.state.group = dup_or_null(s->group, &k->bytes);
	k->u.state.target = dup_or_null(s->target, &k->bytes);
	k->u.state.state = dup_or_null(s->state, &k->bytes);
	k->u.state.reason = dup_or_null(s->reason, &k->bytes);
	k->u.state.cycle = s->cycle;
	k->u.state.time_ns = s->time_ns;
	k->u.state.next_due_ns = s->next_due_ns;
	k->u.state.paths = s->paths;
	if (k->u.state.group == NULL || k->u.state.target == NULL || k->u.state.state == NULL ||
	    (s->reason != NULL && k->u.state.reason == NULL)) {
		keep_free(k);
		return NULL;
	}
	return k;
}

void
keep_free(struct keep *k)
{
	if (k == NULL)
		return;
	switch (k->kind) {
	case KEEP_RUN:
		free(k->u.run.vantage);
		free(k->u.run.settings);
		free(k->u.run.program);
		break;
	case KEEP_CYCLE:
		free(k->u.cycle.group);
		break;
	case KEEP_PATH:
		free(k->u.path.target);
		free(k->u.path.capture_error);
		for (int i = 0; k->u.path.scales != NULL && i < k->u.path.nscales; i++) {
			free(k->u.path.scales[i].reason);
			free(k->u.path.scales[i].findings);
		}
		free(k->u.path.scales);
		free(k->u.path.hops);
		free(k->u.path.hop_present);
		free(k->u.path.ev);
		break;
	case KEEP_ALERT:
		for (size_t i = 0; i < sizeof(k->u.alert.s) / sizeof(k->u.alert.s[0]); i++)
			free(k->u.alert.s[i]);
		break;
	case KEEP_STATE:
		free(k->u.state.group);
		free(k->u.state.target);
		free(k->u.state.state);
		free(k->u.state.reason);
		break;
	}
	free(k);
}

void
keep_clear(struct store *st)
{
	while (st->keep_head != NULL) {
		struct keep *k = st->keep_head;

		st->keep_head = k->next;
		keep_free(k);
	}
	st->keep_tail = NULL;
	st->keep_n = 0;
	st->keep_bytes = 0;
}

/* A failure that is the row's own (the schema refuses it): retrying it
 * would fail again, so it goes alone; any other failure is the store's. */
static bool
row_refused(struct store *st)
{
	switch (st->errcode & 0xff) {
	case SQLITE_CONSTRAINT:
	case SQLITE_TOOBIG:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return true;
	default:
		return false;
	}
}

/* Writes k in the open transaction: 0, 1 refused (err set), -1 the
 * store failed. */
static int
keep_exec(struct store *st, struct keep *k)
{
	int rc;

	st->errcode = SQLITE_NOMEM;	/* unless SQLite says otherwise */
	/* any other row, or a result whose scale rows do not fit, comes after
	 * the pending scale rows (a reader of the batch sees them where they
	 * were added).  Their failure is the store's: nothing in them can be
	 * refused (store_rows.c) */
	if ((k->kind != KEEP_PATH ||
	    st->pending_rows + k->u.path.nscales > STORE_SCALE_ROWS) &&
	    store_scales_flush(st) != 0)
		return -1;
	switch (k->kind) {
	case KEEP_RUN:
		rc = store_exec_run(st, k);
		break;
	case KEEP_CYCLE:
		rc = store_exec_cycle(st, k);
		break;
	case KEEP_PATH:
		rc = store_exec_path(st, k);
		break;
	case KEEP_ALERT:
		rc = store_exec_alert(st, k);
		break;
	default:
		rc = store_exec_state(st, k);
		break;
	}
	if (rc == 0)
		return 0;
	return row_refused(st) ? 1 : -1;
}

/* After a failed write: the transaction goes whole, and with it every id
 * the caches took from it (a cached id is only true once committed; the
 * committed ones are looked up again). */
static void
keep_fail(struct store *st)
{
	char why[STORE_ERRLEN];

	snprintf(why, sizeof(why), "%s", st->err);
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	store_scales_drop(st);
	st->in_batch = false;
	store_caches_free(st);
	st->failing = true;
	if (st->retry_wait == 0)
		st->retry_wait = st->o.retry_ns;
	else if ((st->retry_wait *= 2) > STORE_RETRY_MAX_NS)
		st->retry_wait = STORE_RETRY_MAX_NS > st->o.retry_ns ? STORE_RETRY_MAX_NS :
		    st->o.retry_ns;
	st->retry_at = store_now_ns() + st->retry_wait;
	st->stats.failed_writes++;
	snprintf(st->err, sizeof(st->err), "%.400s; %llu rows kept in memory until it writes again",
	    why, (unsigned long long)st->keep_n);
}

static void
unlink_keep(struct store *st, struct keep *prev, struct keep *k)
{
	if (prev == NULL)
		st->keep_head = k->next;
	else
		prev->next = k->next;
	if (st->keep_tail == k)
		st->keep_tail = prev;
	if (k->kind == KEEP_PATH || k->kind == KEEP_STATE)
		st->keep_n--;
	st->keep_bytes -= k->bytes;
	keep_free(k);
}

/* A run not yet inserted gets a handle no row id reaches (SQLite counts
 * rowids up from the largest, one a row: 2^62 is never met), positive as
 * every caller's run id is; its row's id is mapped to it when the retry
 * inserts it. */
#define RUN_PROVISIONAL	((int64_t)1 << 62)

static int64_t
run_handle(struct store *st, struct keep *k)
{
	if (k->kind == KEEP_RUN && k->run == 0)
		k->run = RUN_PROVISIONAL + (int64_t)++st->run_seq;
	return k->run;
}

int
keep_add(struct store *st, struct keep *k, int64_t *handle)
{
	bool row = k->kind == KEEP_PATH || k->kind == KEEP_STATE;
	int rc;

	if (st->failing && st->keep_bytes + k->bytes > st->o.keep_bytes) {
		st->stats.dropped++;
		snprintf(st->err, sizeof(st->err), "%s: cannot write, %llu rows kept in memory "
		    "(%zu bytes, the bound): a row dropped (%llu so far)", st->file,
		    (unsigned long long)st->keep_n, st->keep_bytes,
		    (unsigned long long)st->stats.dropped);
		keep_free(k);
		return -1;
	}
	if (st->keep_tail != NULL)
		st->keep_tail->next = k;
	else
		st->keep_head = k;
	st->keep_tail = k;
	st->keep_bytes += k->bytes;
	if (row)
		st->keep_n++;
	if (st->failing)
		goto kept;
	if (store_batch_begin(st, false) != 0) {
		keep_fail(st);
		goto kept;
	}
	if ((rc = keep_exec(st, k)) > 0) {
		struct keep *prev = NULL;

		/* the last one: find its predecessor */
		for (struct keep *p = st->keep_head; p != k; p = p->next)
			prev = p;
		st->stats.refused++;
		unlink_keep(st, prev, k);
		return -1;
	}
	if (rc < 0) {
		keep_fail(st);
		goto kept;
	}
	if (handle != NULL)
		*handle = run_handle(st, k);
	if (row)
		st->batch_n++;
	/* a batch whose rows outgrow the memory they may take commits now */
	if (st->keep_bytes > st->o.keep_bytes / 2 || st->batch_n >= st->o.batch_rows)
		(void)keep_commit(st);
	return 0;
kept:
	if (handle != NULL)
		*handle = run_handle(st, k);
	return 0;
}

int
keep_pending_write(struct store *st)
{
	if (store_scales_flush(st) == 0)
		return 0;
	keep_fail(st);
	return -1;
}

int
keep_commit(struct store *st)
{
	sqlite3_stmt *s = st->stmt[SQL_COMMIT];
	uint64_t t0 = store_now_ns(), dt;
	int rc;

	if (!st->in_batch)
		return 0;
	if (keep_pending_write(st) != 0)
		return -1;
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		store_fail(st, "commit");
		keep_fail(st);
		return -1;
	}
	dt = store_now_ns() - t0;
	if (dt > st->stats.commit_ns_max)
		st->stats.commit_ns_max = dt;
	st->stats.batches++;
	for (struct keep *k = st->keep_head; k != NULL; k = k->next)
		if (k->kind == KEEP_PATH)
			st->stats.paths++;
	st->in_batch = false;
	st->retry_wait = 0;
	keep_clear(st);
	/* between batches, no transaction open: where the writer can take
	 * a checkpoint's stall when the WAL is past its bound */
	store_ckpt_bound(st);
	return 0;
}

int
keep_retry(struct store *st)
{
	struct keep *prev = NULL, *k, *next;

	st->failing = false;
	if (store_batch_begin(st, false) != 0) {
		keep_fail(st);
		return -1;
	}
	st->batch_n = 0;
	for (k = st->keep_head; k != NULL; k = next) {
		int rc;

		next = k->next;
		if ((rc = keep_exec(st, k)) < 0) {
			keep_fail(st);
			return -1;
		}
		if (rc > 0) {
			st->stats.refused++;
			unlink_keep(st, prev, k);
			continue;
		}
		if (k->kind == KEEP_PATH || k->kind == KEEP_STATE)
			st->batch_n++;
		prev = k;
	}
	return keep_commit(st);
}
