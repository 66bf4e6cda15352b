/*
 * store_pg_write.c -- the rows the PostgreSQL engine writes, in the open
 * batch (one transaction, committed by store_flush when full or old):
 * a run, a path result with its scales, side findings, hops and
 * evidence (the fields and their NULLs as store_rows.c writes them, so
 * both engines read back the same), the daemon's cycles, target states
 * and open alerts.  A result is stored whole or not at all: each is
 * inside a savepoint, and one the server refuses is rolled back alone.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "flow_branch.h"
#include "siphash.h"
#include "store_pg_int.h"

static int64_t
ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* The id a statement's RETURNING gave; -1 (err set). */
static int64_t
returned_id(struct pg_store *st, const char *sql, const struct pg_params *p, const char *what)
{
	PGresult *r = pg_run(st, sql, p, PGRES_TUPLES_OK, what);
	int64_t id = -1;

	if (r == NULL)
		return -1;
	if (!pg_cell_int(r, 0, 0, 1, INT64_MAX, &id)) {
		snprintf(st->err, sizeof(st->err), "%.200s: %s: no id returned", st->where, what);
		id = -1;
	}
	PQclear(r);
	return id;
}

int
pg_run_begin(void *e, const struct store_run *run, int64_t *run_id)
{
	static const uint8_t key[SIPHASH_KEY_LEN];	/* a digest, not a secret */
	struct pg_store *st = e;
	const char *settings = run->settings != NULL ? run->settings : "";
	struct pg_params p;
	char digest[17];
	int64_t id;

	if (pg_batch_begin(st) != 0)
		return -1;
	snprintf(digest, sizeof(digest), "%016llx",
	    (unsigned long long)siphash24(key, settings, strlen(settings)));
	pgp_init(&p);
	pgp_int(&p, ts_ns(&run->start));
	pgp_text(&p, run->vantage != NULL ? run->vantage : "");
	pgp_text(&p, digest);
	pgp_text(&p, settings);
	pgp_text(&p, run->program != NULL ? run->program : "scaleprobe");
	pgp_opt(&p, run->on_demand, run->uid);
	pgp_text(&p, clock_sync_name(run->clock));
	if ((id = returned_id(st, "INSERT INTO runs (started_ns, vantage, settings_digest,"
	    " settings, program, on_demand_uid, clock) VALUES ($1, $2, $3, $4, $5, $6, $7)"
	    " RETURNING id",
	    &p, "insert run")) < 0)
		return pg_batch_lost(st);
	*run_id = id;
	return 0;
}

static void
pgp_addr(struct pg_params *p, const struct addr *a, char *buf)
{
	if (a->family == 0)
		pgp_null(p);
	else
		pgp_text(p, addr_format(a, buf, ADDR_STRLEN));
}

/* The id of a target or path: inserted, or the row already there. */
static int64_t
target_id(struct pg_store *st, const char *spec)
{
	struct pg_params p;

	pgp_init(&p);
	pgp_text(&p, spec);
	return returned_id(st, "INSERT INTO targets (spec) VALUES ($1) ON CONFLICT (spec)"
	    " DO UPDATE SET spec = EXCLUDED.spec RETURNING id", &p, "insert target");
}

static int64_t
path_id(struct pg_store *st, const struct path_result *res)
{
	char a[ADDR_STRLEN];
	struct pg_params p;

	pgp_init(&p);
	pgp_addr(&p, &res->dst, a);
	pgp_int(&p, res->port);
	pgp_text(&p, res->dst.family == ADDR_V4 ? "ipv4" : "ipv6");
	return returned_id(st, "INSERT INTO paths (address, port, family) VALUES ($1, $2, $3)"
	    " ON CONFLICT (address, port) DO UPDATE SET port = EXCLUDED.port RETURNING id", &p,
	    "insert path");
}

static int
add_scale(struct pg_store *st, int64_t pr, int64_t pid, const struct path_result *res, int i)
{
	const struct variant_obs *o = &res->scales[i];
	const struct scale_verdict *v = &res->verdicts[i];
	const struct window_obs *w = &res->window[i];
	const char *vname = verdict_name(v->verdict);
	char hop[ADDR_STRLEN], clean[ADDR_STRLEN];
	char bp[FLOW_BRANCH_TEXT], bc[FLOW_BRANCH_TEXT];
	const struct flow_branch *b = flow_branch_of(res, i);
	bool sa = o->sa.present, win = w->ran && !w->inconclusive;
	struct pg_params p;

	pgp_init(&p);
	pgp_int(&p, pr);
	pgp_int(&p, i);
	pgp_int(&p, pid);
	pgp_int(&p, ts_ns(&res->time));
	pgp_int(&p, verdict_is_problem(v->verdict));
	pgp_int(&p, o->scale);
	pgp_text(&p, reply_kind_name(o->reply));
	pgp_opt(&p, o->reply == REPLY_ICMP_UNREACH, o->icmp_type);
	pgp_opt(&p, o->reply == REPLY_ICMP_UNREACH, o->icmp_code);
	pgp_int(&p, sa);
	pgp_opt(&p, sa && o->sa.wscale >= 0, o->sa.wscale);
	pgp_opt(&p, sa && o->sa.mss >= 0, o->sa.mss);
	pgp_opt(&p, sa, o->sa.sack);
	pgp_opt(&p, sa, o->sa.ts);
	pgp_opt(&p, v->scale_quoted >= 0, v->scale_quoted);
	pgp_opt(&p, win && w->scale_effective >= 0, w->scale_effective);
	pgp_opt(&p, win && w->scale_effective_min >= 0, w->scale_effective_min);
	pgp_opt(&p, w->ran && w->flight_bytes >= 0, w->flight_bytes);
	pgp_text(&p, vname);
	pgp_text(&p, vname != NULL ? v->reason : NULL);
	pgp_opt(&p, v->hop.present, v->hop.index);
	if (v->hop.present)
		pgp_addr(&p, &v->hop.address, hop);
	else
		pgp_null(&p);
	pgp_opt(&p, v->hop.present, v->hop.last_clean_index);
	if (v->hop.present)
		pgp_addr(&p, &v->hop.last_clean_address, clean);
	else
		pgp_null(&p);
	pgp_opt(&p, v->hop.present && v->hop.silent != 0, (int64_t)v->hop.silent);
	pgp_opt(&p, res->flows > 1, res->flows);
	pgp_opt(&p, res->flows > 1, res->flows_affected[i]);
	pgp_opt(&p, b != NULL, b != NULL ? b->hop_index : 0);
	if (b != NULL) {
		flow_branch_side_format(b->problem, b->nproblem, bp, sizeof(bp));
		flow_branch_side_format(b->clean, b->nclean, bc, sizeof(bc));
	}
	pgp_text(&p, b != NULL ? bp : NULL);
	pgp_text(&p, b != NULL ? bc : NULL);
	if (pg_cmd(st, "INSERT INTO scale_results (path_result_id, idx, path_id, time_ns,"
	    " problem, scale_sent, reply, icmp_type, icmp_code, sa_present, sa_wscale, sa_mss,"
	    " sa_sack, sa_ts, scale_quoted, scale_effective, scale_effective_min, flight_bytes,"
	    " verdict, reason, hop_index, hop_address, last_clean_index, last_clean_address,"
	    " hop_silent, flows, flows_affected, branch_hop, branch_problem, branch_clean)"
	    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
	    " $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25,"
	    " $26, $27, $28, $29, $30)", &p,
	    "insert scale result") != 0)
		return -1;
	st->stats.scales++;
	for (int k = 0; k < v->nfindings && k < RESULT_MAX_FINDINGS; k++) {
		const struct side_finding *f = &v->findings[k];
		char fa[ADDR_STRLEN];

		pgp_init(&p);
		pgp_int(&p, pr);
		pgp_int(&p, i);
		pgp_int(&p, k);
		pgp_text(&p, result_finding_name(f->kind));
		pgp_text(&p, f->detail[0] != '\0' ? f->detail : NULL);
		pgp_opt(&p, f->hop_index >= 0, f->hop_index);
		if (f->hop_index >= 0)
			pgp_addr(&p, &f->hop_address, fa);
		else
			pgp_null(&p);
		if (pg_cmd(st, "INSERT INTO side_findings (path_result_id, scale_idx, idx, kind,"
		    " detail, hop_index, hop_address) VALUES ($1, $2, $3, $4, $5, $6, $7)", &p,
		    "insert side finding") != 0)
			return -1;
	}
	return 0;
}

static int
add_hops(struct pg_store *st, int64_t pr, const struct hop_quote *const *hop, int last)
{
	for (int k = 1; k <= last; k++) {
		char a[ADDR_STRLEN];
		struct pg_params p;

		pgp_init(&p);
		pgp_int(&p, pr);
		pgp_int(&p, k);
		if (hop[k] != NULL) {
			pgp_addr(&p, &hop[k]->from, a);
			pgp_text(&p, result_quote_name(hop[k]->quote));
			pgp_int(&p, hop[k]->rfc4884);
			pgp_int(&p, hop[k]->rtt_us);
		} else {
			pgp_null(&p);
			pgp_text(&p, "none");
			pgp_null(&p);
			pgp_null(&p);
		}
		if (pg_cmd(st, "INSERT INTO hops (path_result_id, ttl, address, quote, rfc4884,"
		    " rtt_us) VALUES ($1, $2, $3, $4, $5, $6)", &p, "insert hops") != 0)
			return -1;
	}
	return 0;
}

/* The packets that prove a result that has a problem or a trace, as
 * store_keep.c keeps them. */
static int
add_evidence(struct pg_store *st, int64_t pr, const struct path_result *res, bool problem,
    int last)
{
	static uint8_t buf[EVIDENCE_PACKED_MAX];
	struct pg_params p;
	size_t len;

	if (!(problem || last >= 0) || res->evidence == NULL || res->evidence->n <= 0)
		return 0;
	len = evidence_pack(res->evidence, buf, sizeof(buf));
	pgp_init(&p);
	pgp_int(&p, pr);
	pgp_int(&p, res->evidence->n);
	pgp_int(&p, res->evidence->truncated);
	pgp_bin(&p, buf, len);
	if (pg_cmd(st, "INSERT INTO evidence (path_result_id, packets, truncated, bytes)"
	    " VALUES ($1, $2, $3, $4)", &p, "insert evidence") != 0)
		return -1;
	st->stats.evidence += (uint64_t)res->evidence->n;
	st->stats.evidence_bytes += len;
	return 0;
}

static int
add_result(struct pg_store *st, int64_t run_id, const struct path_result *res)
{
	const struct hop_quote *hop[RESULT_MAX_HOPS + 1];
	int last = result_hops(res, hop);
	int n = res->nscales < 0 ? 0 : res->nscales < RESULT_MAX_SCALES ? res->nscales :
	    RESULT_MAX_SCALES;
	bool sa = res->control.sa.present, problem = false;
	struct pg_params p;
	int64_t tid, pid, pr;

	if ((tid = target_id(st, res->target != NULL ? res->target : "")) < 0 ||
	    (pid = path_id(st, res)) < 0)
		return -1;
	pgp_init(&p);
	pgp_int(&p, run_id);
	pgp_int(&p, tid);
	pgp_int(&p, pid);
	pgp_int(&p, ts_ns(&res->time));
	pgp_text(&p, reply_kind_name(res->control.reply));
	pgp_int(&p, sa);
	pgp_opt(&p, sa && res->control.sa.wscale >= 0, res->control.sa.wscale);
	pgp_opt(&p, sa && res->control.sa.mss >= 0, res->control.sa.mss);
	pgp_opt(&p, sa, res->control.sa.sack);
	pgp_opt(&p, sa, res->control.sa.ts);
	pgp_int(&p, last >= 0);
	pgp_int(&p, (int64_t)res->capture_drops);
	pgp_int(&p, (int64_t)res->send_failures);
	pgp_text(&p, res->capture_error[0] != '\0' ? res->capture_error : NULL);
	if ((pr = returned_id(st, "INSERT INTO path_results (run_id, target_id, path_id,"
	    " time_ns, control_reply, control_sa_present, control_wscale, control_mss,"
	    " control_sack, control_ts, traced, capture_drops, send_failures, capture_error)"
	    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
	    &p, "insert path result")) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (add_scale(st, pr, pid, res, i) != 0)
			return -1;
		problem |= verdict_is_problem(res->verdicts[i].verdict);
	}
	if (add_hops(st, pr, hop, last) != 0 || add_evidence(st, pr, res, problem, last) != 0)
		return -1;
	st->stats.paths++;
	return 0;
}

int
pg_add(void *e, int64_t run_id, const struct path_result *res)
{
	struct pg_store *st = e;
	uint64_t t0 = pg_now_ns(), took;
	char keep[STORE_ERRLEN];
	int rc;

	/* inside a savepoint: a result the server refuses is rolled back
	 * alone, the batch's others stay */
	if (pg_batch_begin(st) != 0)
		return -1;
	if (pg_cmd(st, "SAVEPOINT r", NULL, "savepoint") != 0)
		return pg_batch_lost(st);
	if ((rc = add_result(st, run_id, res)) != 0) {
		snprintf(keep, sizeof(keep), "%s", st->err);
		if (pg_cmd(st, "ROLLBACK TO SAVEPOINT r", NULL, "roll back the result") != 0)
			return pg_batch_lost(st);	/* not the row's: the link's */
		st->stats.refused++;
		snprintf(st->err, sizeof(st->err), "%s", keep);
		return -1;
	}
	if (pg_cmd(st, "RELEASE SAVEPOINT r", NULL, "savepoint") != 0)
		return pg_batch_lost(st);
	st->batch_n++;
	took = pg_now_ns() - t0;
	if (took > st->stats.add_ns_max)
		st->stats.add_ns_max = took;
	if (st->batch_n >= st->o.batch_rows)
		return pg_batch_commit(st);
	return 0;
}

/* --- the daemon's cycles, states and alerts ------------------------------- */

int
pg_run_cycle(void *e, int64_t run_id, const char *group, int64_t cycle)
{
	struct pg_store *st = e;
	struct pg_params p;

	if (pg_batch_begin(st) != 0)
		return -1;
	pgp_init(&p);
	pgp_text(&p, group);
	pgp_int(&p, cycle);
	pgp_int(&p, run_id);
	if (pg_cmd(st, "UPDATE runs SET grp = $1, cycle = $2 WHERE id = $3", &p,
	    "mark the cycle") != 0)
		return pg_batch_lost(st);
	return 0;
}

int
pg_state_add(void *e, int64_t run_id, const struct store_state *s)
{
	struct pg_store *st = e;
	struct pg_params p;
	int64_t tid;

	if (pg_batch_begin(st) != 0)
		return -1;
	if ((tid = target_id(st, s->target)) < 0)
		return pg_batch_lost(st);
	pgp_init(&p);
	pgp_opt(&p, run_id > 0, run_id);
	pgp_int(&p, tid);
	pgp_text(&p, s->group);
	pgp_int(&p, s->cycle);
	pgp_text(&p, s->state);
	pgp_text(&p, s->reason);
	pgp_int(&p, s->paths);
	pgp_int(&p, s->time_ns);
	pgp_opt(&p, s->next_due_ns != 0, s->next_due_ns);
	if (pg_cmd(st, "INSERT INTO target_states (run_id, target_id, grp, cycle, state, reason,"
	    " paths, time_ns, next_due_ns) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
	    " ON CONFLICT (grp, target_id, cycle) DO NOTHING", &p, "insert target state") != 0)
		return pg_batch_lost(st);
	st->batch_n++;
	return 0;
}

int
pg_state_has(void *e, const char *group, const char *target, int64_t cycle)
{
	struct pg_store *st = e;
	struct pg_params p;
	PGresult *r;
	int n;

	pgp_init(&p);
	pgp_text(&p, group);
	pgp_text(&p, target);
	pgp_int(&p, cycle);
	if ((r = pg_run(st, "SELECT 1 FROM target_states s JOIN targets t ON t.id = s.target_id"
	    " WHERE s.grp = $1 AND t.spec = $2 AND s.cycle = $3", &p, PGRES_TUPLES_OK,
	    "read target state")) == NULL)
		return -1;
	n = PQntuples(r) > 0;
	PQclear(r);
	return n;
}

int64_t
pg_last_cycle(void *e, const char *group)
{
	struct pg_store *st = e;
	struct pg_params p;
	PGresult *r;
	int64_t c = -1;

	pgp_init(&p);
	pgp_text(&p, group);
	if ((r = pg_run(st, "SELECT max(cycle) FROM runs WHERE grp = $1", &p, PGRES_TUPLES_OK,
	    "read last cycle")) == NULL)
		return -1;
	if (!pg_cell_int(r, 0, 0, 0, INT64_MAX, &c))
		c = -1;
	PQclear(r);
	return c;
}

int64_t
pg_discard_unfinished(void *e)
{
	struct pg_store *st = e;
	PGresult *r;
	int64_t n;

	if (pg_batch_commit(st) != 0)
		return -1;
	/* an uploaded run (store not NULL) is another vantage's cycle,
	 * whose target states stay in its own store: never discarded here */
	if ((r = pg_run(st, "DELETE FROM path_results pr USING runs r, targets t"
	    " WHERE r.id = pr.run_id AND t.id = pr.target_id AND r.grp IS NOT NULL"
	    " AND r.store IS NULL"
	    " AND NOT EXISTS (SELECT 1 FROM target_states s WHERE s.grp = r.grp"
	    "  AND s.cycle = r.cycle AND s.target_id = pr.target_id)", NULL, PGRES_COMMAND_OK,
	    "discard unfinished")) == NULL)
		return -1;
	n = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return n;
}

int
pg_alert_put(void *e, const struct store_alert *a, bool clear)
{
	struct pg_store *st = e;
	struct pg_params p;

	if (pg_batch_begin(st) != 0)
		return -1;
	pgp_init(&p);
	pgp_text(&p, a->vantage);
	pgp_text(&p, a->kind);
	pgp_text(&p, a->address);
	pgp_int(&p, a->port);
	if (clear)
		return pg_cmd(st, "DELETE FROM open_alerts WHERE vantage = $1 AND kind = $2"
		    " AND address = $3 AND port = $4", &p, "clear alert") != 0 ?
		    pg_batch_lost(st) : 0;
	pgp_text(&p, a->target);
	pgp_text(&p, a->state);
	pgp_text(&p, a->scales != NULL ? a->scales : "");
	pgp_opt(&p, a->hop_index > 0, a->hop_index);
	pgp_text(&p, a->hop_address);
	pgp_text(&p, a->incident);
	pgp_int(&p, a->paths);
	pgp_text(&p, a->reason);
	pgp_int(&p, a->raised_ns);
	pgp_int(&p, a->changed_ns);
	return pg_cmd(st, "INSERT INTO open_alerts (vantage, kind, address, port, target, state,"
	    " scales, hop_index, hop_address, incident, paths, reason, raised_ns, changed_ns)"
	    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
	    " ON CONFLICT (vantage, kind, address, port) DO UPDATE SET target = EXCLUDED.target,"
	    " state = EXCLUDED.state, scales = EXCLUDED.scales, hop_index = EXCLUDED.hop_index,"
	    " hop_address = EXCLUDED.hop_address, incident = EXCLUDED.incident,"
	    " paths = EXCLUDED.paths, reason = EXCLUDED.reason, raised_ns = EXCLUDED.raised_ns,"
	    " changed_ns = EXCLUDED.changed_ns", &p, "put alert") != 0 ? pg_batch_lost(st) : 0;
}

int64_t
pg_alert_each(void *e, const char *vantage, store_alert_fn fn, void *arg)
{
	struct pg_store *st = e;
	struct pg_params p;
	PGresult *r;
	int64_t n = 0;

	pgp_init(&p);
	pgp_text(&p, vantage);
	if ((r = pg_run(st, "SELECT vantage, kind, address, port, target, state, scales,"
	    " hop_index, hop_address, incident, paths, reason, raised_ns, changed_ns"
	    " FROM open_alerts WHERE $1::text IS NULL OR vantage = $1 ORDER BY raised_ns, id",
	    &p, PGRES_TUPLES_OK, "read alerts")) == NULL)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		struct store_alert a;
		int64_t v;

		memset(&a, 0, sizeof(a));
		a.vantage = pg_cell_text(r, i, 0);
		a.kind = pg_cell_text(r, i, 1);
		a.address = pg_cell_text(r, i, 2);
		a.state = pg_cell_text(r, i, 5);
		a.scales = pg_cell_text(r, i, 6);
		if (a.vantage == NULL || a.kind == NULL || a.address == NULL || a.state == NULL ||
		    a.scales == NULL || !pg_cell_int(r, i, 3, 0, 65535, &v))
			continue;	/* not a row this program wrote */
		a.port = (unsigned)v;
		a.target = pg_cell_text(r, i, 4);
		a.hop_index = pg_cell_int(r, i, 7, 1, 255, &v) ? (int)v : 0;
		a.hop_address = pg_cell_text(r, i, 8);
		a.incident = pg_cell_text(r, i, 9);
		a.paths = pg_cell_int(r, i, 10, 0, UINT32_MAX, &v) ? (unsigned)v : 0;
		a.reason = pg_cell_text(r, i, 11);
		a.raised_ns = pg_cell_int(r, i, 12, 0, INT64_MAX, &v) ? v : 0;
		a.changed_ns = pg_cell_int(r, i, 13, 0, INT64_MAX, &v) ? v : 0;
		fn(arg, &a);
		n++;
	}
	PQclear(r);
	return n;
}
