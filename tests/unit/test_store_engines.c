/*
 * test_store_engines.c -- one store suite for both engines: the database
 * is STORE_ENGINE_DB (a PostgreSQL URI: tests/e2e/store-engines starts a
 * throw-away server; each test drops that database's schema public, so
 * never point it at one that matters) or, unset, a SQLite file in a
 * scratch directory.
 * The same calls and the same expectations whatever the engine: results
 * written through the batched writer come back whole through show,
 * export, side findings, evidence and report, in their orders; NULLs
 * read as absent; states, cycles and alerts; a newer schema is refused;
 * retention's table of histories, its prune of one vantage beside
 * another (test_prune_vantage) and db check's faults alike; and a
 * URI's password never appears in a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libpq-fe.h>

#include "evidence.h"
#include "flow_branch.h"
#include "history.h"
#include "report_query.h"
#include "store.h"
#include "store_engine.h"
#include "storegen.h"

#define N 40		/* results written: hosts 0..39, 3 scales each */
#define T0 1700000000	/* their first time, s */

static char dir[64], db[512];

/* the group's database: emptied of every table for each test */
static int
group_setup(void **state)
{
	const char *env = getenv("STORE_ENGINE_DB");

	(void)state;
	if (env != NULL && env[0] != '\0') {
		snprintf(db, sizeof(db), "%s", env);
		return 0;
	}
	if (storegen_scratch(dir, sizeof(dir), "store_engines") != 0)
		return -1;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	return dir[0] != '\0' ? storegen_scratch_remove(dir) : 0;
}

static unsigned fresh;

/* A new, empty store for one test: a new file, or the server's tables
 * dropped. */
static void
new_store(void)
{
	if (!store_is_uri(db)) {
		snprintf(db, sizeof(db), "%s/s%u.db", dir, fresh++);
		return;
	}
	{
		/* by libpq itself: the store may be one the engine refuses */
		const char *const k[] = { "dbname", NULL }, *const v[] = { db, NULL };
		PGconn *c = PQconnectdbParams(k, v, 1);
		PGresult *r = PQexec(c, "DROP SCHEMA public CASCADE; CREATE SCHEMA public");

		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			fail_msg("reset: %s", PQerrorMessage(c));
		PQclear(r);
		PQfinish(c);
	}
}

/* Writes the N results under one run of vantage v1; returns the store
 * still open (the caller closes). */
static struct store *
fill(void)
{
	char err[STORE_ERRLEN];
	struct store_opts o = { .batch_rows = 16 };
	struct store_run run = { { T0, 0 }, "v1", "scale 7", "test", false, 0, CLOCK_SYNC_NONE };
	struct store *st;
	int64_t id;

	new_store();
	if ((st = store_open(db, STORE_WRITE, &o, err, sizeof(err))) == NULL)
		fail_msg("%s", err);
	assert_int_equal(store_run_begin(st, &run, &id), 0);
	for (unsigned i = 0; i < N; i++) {
		struct storegen g;

		storegen_make(&g, i, T0 + i, true);
		assert_int_equal(store_add(st, id, &g.res), 0);
		storegen_free(&g);
	}
	assert_int_equal(store_flush(st, true), 0);
	return st;
}

static void
test_write_counts(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st = fill();

	(void)state;
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), N);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results"), 3 * N);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM runs"), 1);
	assert_true(store_query_int(st, "SELECT count(*) FROM evidence") > 0);
	assert_int_equal(store_get_stats(st)->paths, N);
	assert_int_equal(store_pending(st), 0);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
}

struct rows {
	int n;
	int64_t last_id;
	char first_vantage[32];
	int scales[8];
	int64_t times[8];
};

static int
show_cb(void *arg, const struct history_row *r)
{
	struct rows *x = arg;

	if (x->n < 8) {
		x->scales[x->n] = r->scale_sent;
		x->times[x->n] = r->time_ns;
	}
	if (x->n == 0)
		snprintf(x->first_vantage, sizeof(x->first_vantage), "%s", r->vantage);
	x->last_id = r->path_result_id;
	x->n++;
	return 0;
}

/* show of one host: its three scales, in scale order, from vantage v1;
 * by address and by target alike; nothing for an unknown host */
static void
test_show(void **state)
{
	char err[STORE_ERRLEN];
	struct store *w = fill(), *st;
	struct history *h;
	struct storegen g;
	char addr[ADDR_STRLEN];
	struct rows x = { 0 };
	struct history_query q = { NULL, -1, INT64_MIN, NULL };

	(void)state;
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
	if ((st = store_open(db, STORE_READ, NULL, err, sizeof(err))) == NULL)
		fail_msg("%s", err);
	assert_non_null(h = history_open(st, err, sizeof(err)));
	storegen_make(&g, 5, T0 + 5, false);
	q.host = addr_format(&g.res.dst, addr, sizeof(addr));
	assert_int_equal(history_show(h, &q, show_cb, &x), 0);
	assert_int_equal(x.n, 3);
	assert_string_equal(x.first_vantage, "v1");
	assert_true(x.scales[0] <= x.scales[1] && x.scales[1] <= x.scales[2]);
	assert_true(x.times[0] >= (int64_t)(T0 + 5) * 1000000000 &&
	    x.times[0] < (int64_t)(T0 + 6) * 1000000000);
	memset(&x, 0, sizeof(x));
	q.host = g.target;
	assert_int_equal(history_show(h, &q, show_cb, &x), 0);
	assert_int_equal(x.n, 3);
	memset(&x, 0, sizeof(x));
	q.host = "192.0.2.99";
	assert_int_equal(history_show(h, &q, show_cb, &x), 0);
	assert_int_equal(x.n, 0);
	storegen_free(&g);
	history_close(h);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
}

struct exp {
	int n;
	int64_t count;
	char prev[96];
	bool ordered;
	int64_t ids[64];
};

static int
export_cb(void *arg, const struct history_row *r)
{
	struct exp *x = arg;
	char key[96];

	/* the fields joined by a byte below any of theirs: the key sorts as
	 * the fields do, one after the other */
	snprintf(key, sizeof(key), "%s\001%05d\001%03d\001%s\001%s", r->address, r->port, r->scale_sent,
	    r->vantage, r->verdict != NULL ? r->verdict : "");
	if (x->n > 0 && strcmp(x->prev, key) >= 0) {
		x->ordered = false;
		fprintf(stderr, "order: %s then %s\n", x->prev, key);
	}
	snprintf(x->prev, sizeof(x->prev), "%s", key);
	if (x->n < 64)
		x->ids[x->n] = r->path_result_id;
	x->count += r->count;
	x->n++;
	return 0;
}

static int
count_finding(void *arg, const struct history_finding *f)
{
	(*(int *)arg)++;
	assert_non_null(f->kind);
	return 0;
}

/* export of every problem: grouped, ordered, counted as the results
 * written; their side findings and evidence read back */
static void
test_export_findings_evidence(void **state)
{
	char err[STORE_ERRLEN];
	struct store *w = fill(), *st;
	struct history *h;
	struct exp x = { .ordered = true };
	struct history_export_query q = { { "rewritten", "stripped", "syn-dropped" }, 3,
	    INT64_MIN, NULL };
	int64_t problems;
	int findings = 0, with_ev = 0;

	(void)state;
	problems = store_query_int(w, "SELECT count(*) FROM scale_results WHERE verdict IN"
	    " ('rewritten', 'stripped', 'syn-dropped')");
	assert_true(problems > 0);
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
	if ((st = store_open(db, STORE_READ, NULL, err, sizeof(err))) == NULL)
		fail_msg("%s", err);
	assert_non_null(h = history_open(st, err, sizeof(err)));
	assert_int_equal(history_export(h, &q, export_cb, &x), 0);
	assert_true(x.n > 0);
	assert_true(x.ordered);
	assert_int_equal(x.count, problems);
	for (int i = 0; i < x.n && i < 64; i++) {
		uint8_t *buf;
		size_t len;
		int rc;

		for (int s = 0; s < 3; s++)
			assert_int_equal(history_findings(h, x.ids[i], s, count_finding,
			    &findings), 0);
		rc = history_evidence(h, x.ids[i], &buf, &len);
		assert_true(rc == 0 || rc == 1);
		if (rc == 0) {
			struct path_evidence *ev = NULL;
			const char *why = NULL;

			assert_true(len > 0);
			/* the stored bytes are evidence_pack's: they unpack */
			assert_int_equal(evidence_unpack(buf, len, &ev, &why), 0);
			evidence_free(&ev);
			free(buf);
			with_ev++;
		}
	}
	assert_true(with_ev > 0);
	history_close(h);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	(void)findings;
}

struct absent {
	int n, wscale, quoted, hop, sent;
	bool target_odd;	/* neither its bytes' text nor "" (absent) */
};

static int
absent_cb(void *arg, const struct history_row *r)
{
	struct absent *x = arg;

	x->n++;
	x->wscale += r->sa_wscale == -1;
	x->quoted += r->scale_quoted == -1;
	x->hop += r->hop_index == -1;
	x->sent += r->scale_sent == -1;
	x->target_odd |= strcmp(r->target, "host4.example") != 0 && r->target[0] != '\0';
	return 0;
}

struct branches {
	int n, whole;
	struct flow_branch b[4];
};

static int
branch_cb(void *arg, const struct history_row *r)
{
	struct branches *x = arg;

	if (r->scale_idx >= 0 && r->scale_idx < 4)
		x->b[r->scale_idx] = r->branch;
	x->whole += r->branch.hop_index > 0;
	x->n++;
	return 0;
}

/* A scale's branch (v8) goes into either engine and comes back through
 * show's reader as written, the other scales' as none; a side edited into
 * something that is not addresses reads as no branch at all */
static void
test_branch_round_trip(void **state)
{
	struct flow_branch br[RESULT_MAX_SCALES] = { { 0 } };
	char err[STORE_ERRLEN];
	struct store *w = fill();
	struct storegen g;
	struct history *h;
	struct branches x = { 0 };
	char addr[ADDR_STRLEN], p[FLOW_BRANCH_TEXT], c[FLOW_BRANCH_TEXT];
	struct history_query q = { NULL, -1, INT64_MIN, NULL };
	struct store_run run = { { T0, 0 }, "v1", "scale 7", "test", false, 0, CLOCK_SYNC_NONE };
	int64_t id;

	(void)state;
	assert_int_equal(flow_branch_from_cells(3, "198.18.31.2", "198.18.32.2,fd00::32",
	    &br[1]), 0);
	assert_int_equal(store_run_begin(w, &run, &id), 0);
	storegen_make(&g, 900, T0 + 900, false);
	g.res.flows = 8;
	g.res.flows_affected[1] = 3;
	g.res.flow_branch = br;
	assert_int_equal(store_add(w, id, &g.res), 0);
	assert_int_equal(store_flush(w, true), 0);
	assert_non_null(h = history_open(w, err, sizeof(err)));
	q.host = addr_format(&g.res.dst, addr, sizeof(addr));
	if (history_show(h, &q, branch_cb, &x) != 0)
		fail_msg("%s", history_error(h));
	assert_int_equal(x.n, 3);
	assert_int_equal(x.whole, 1);
	assert_int_equal(x.b[1].hop_index, 3);
	flow_branch_side_format(x.b[1].problem, x.b[1].nproblem, p, sizeof(p));
	flow_branch_side_format(x.b[1].clean, x.b[1].nclean, c, sizeof(c));
	assert_string_equal(p, "198.18.31.2");
	assert_string_equal(c, "198.18.32.2,fd00::32");
	/* hostile: the clean side edited into text */
	assert_int_equal(store_exec(w, "UPDATE scale_results SET branch_clean = 'x,y'"
	    " WHERE branch_hop IS NOT NULL"), 0);
	memset(&x, 0, sizeof(x));
	if (history_show(h, &q, branch_cb, &x) != 0)
		fail_msg("%s", history_error(h));
	assert_int_equal(x.n, 3);
	assert_int_equal(x.whole, 0);
	storegen_free(&g);
	history_close(h);
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
}

/* What the store holds is read as what it may be, not as what the
 * writer put there: a NULL where a number should be, and a number column
 * holding text (SQLite's typing lets a row hold it; on PostgreSQL the
 * column's type is changed), read as absent (-1), never as 0 or garbage;
 * a target of another type reads as its bytes' text or as absent (""),
 * never as the server's escaped form of them */
static void
test_hostile_cells(void **state)
{
	char err[STORE_ERRLEN];
	struct store *w = fill();
	struct history *h;
	struct absent x = { 0 };
	struct storegen g;
	char addr[ADDR_STRLEN];
	struct history_query q = { NULL, -1, INT64_MIN, NULL };

	(void)state;
	/* NOT NULL holds on both */
	assert_int_equal(store_exec(w, "UPDATE scale_results SET scale_sent = NULL"), -1);
	assert_int_equal(store_exec(w, "UPDATE scale_results SET sa_wscale = NULL"), 0);
	if (store_is_uri(db)) {
		if (store_exec(w, "ALTER TABLE scale_results ALTER COLUMN"
		    " scale_quoted TYPE text; UPDATE scale_results SET scale_quoted = '7x';"
		    " ALTER TABLE scale_results ALTER COLUMN hop_index TYPE numeric;"
		    " UPDATE scale_results SET hop_index = 2.5;"
		    " ALTER TABLE targets ALTER COLUMN spec TYPE bytea USING spec::bytea") != 0)
			fail_msg("%s", store_error(w));
	} else {
		assert_int_equal(store_exec(w, "UPDATE scale_results SET scale_quoted = '7x',"
		    " hop_index = 2.5; UPDATE targets SET spec = CAST(spec AS BLOB)"), 0);
	}
	assert_non_null(h = history_open(w, err, sizeof(err)));
	storegen_make(&g, 4, T0 + 4, false);
	q.host = addr_format(&g.res.dst, addr, sizeof(addr));
	if (history_show(h, &q, absent_cb, &x) != 0)
		fail_msg("%s", history_error(h));
	assert_int_equal(x.n, 3);
	assert_int_equal(x.wscale, 3);
	assert_int_equal(x.quoted, 3);
	assert_int_equal(x.hop, 3);
	assert_int_equal(x.sent, 0);
	assert_false(x.target_odd);
	storegen_free(&g);
	history_close(h);
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
}

struct rep {
	int n, baseline;
	unsigned problems;
};

static int
report_cb(void *arg, const struct report_row *r)
{
	struct rep *x = arg;

	x->n++;
	x->baseline += r->baseline;
	x->problems += verdict_is_problem(r->verdict);
	return 0;
}

/* report: one row per result in the window, each path's last result
 * before it as its baseline */
static void
test_report(void **state)
{
	char err[STORE_ERRLEN];
	struct store *w = fill();
	struct rep x = { 0 };
	int64_t paths, problems;

	(void)state;
	paths = store_query_int(w, "SELECT count(DISTINCT path_id) FROM path_results"
	    " WHERE time_ns < 1700000020000000000");
	problems = store_query_int(w, "SELECT count(DISTINCT path_result_id) FROM scale_results"
	    " WHERE problem <> 0 AND time_ns >= 1700000020000000000");
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
	if (report_query(db, (int64_t)(T0 + 20) * 1000000000, INT64_MAX, report_cb, &x, err,
	    sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(x.baseline, paths);
	assert_int_equal(x.n - x.baseline, N - 20);
	assert_true(problems > 0);
	assert_true(x.problems >= (unsigned)problems);
}

struct rep_flows {
	int n, several, branched;
	struct report_row r;		/* the last of several flows, else the
					   last rewritten */
};

static int
report_flows_cb(void *arg, const struct report_row *r)
{
	struct rep_flows *x = arg;

	x->n++;
	x->branched += r->branch.hop_index > 0;
	if (r->flows > 0 || (x->several == 0 && r->verdict == VERDICT_REWRITTEN &&
	    r->time_ns == (int64_t)(T0 + 901) * 1000000000 + 901123456)) {
		x->several += r->flows > 0;
		x->r = *r;
	}
	return 0;
}

/* report: a result probed over several flows carries, for the scale that
 * gave its verdict, the flows, on how many the problem, and the branch
 * (the same through either engine's reader); the results of one flow
 * none of it, and a branch edited into what is not addresses reads as
 * none */
static void
test_report_flows(void **state)
{
	struct flow_branch br[RESULT_MAX_SCALES] = { { 0 } };
	char err[STORE_ERRLEN], p[FLOW_BRANCH_TEXT], c[FLOW_BRANCH_TEXT];
	struct store *w = fill();
	struct storegen g;
	struct rep_flows x = { 0 };
	struct store_run run = { { T0 + 900, 0 }, "v1", "scale 7", "test", false, 0,
	    CLOCK_SYNC_NONE };
	int64_t id;

	(void)state;
	assert_int_equal(flow_branch_from_cells(3, "198.18.31.2", "198.18.32.2,fd00::32",
	    &br[1]), 0);
	assert_int_equal(store_run_begin(w, &run, &id), 0);
	storegen_make(&g, 901, T0 + 901, false);	/* 7 and 14 rewritten */
	g.res.flows = 8;
	g.res.flows_affected[1] = 3;
	g.res.flows_affected[2] = 8;
	g.res.flow_branch = br;
	assert_int_equal(store_add(w, id, &g.res), 0);
	assert_int_equal(store_flush(w, true), 0);
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
	if (report_query(db, INT64_MIN, INT64_MAX, report_flows_cb, &x, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(x.n, N + 1);
	assert_int_equal(x.several, 1);
	assert_int_equal(x.branched, 1);
	assert_int_equal(x.r.verdict, VERDICT_REWRITTEN);
	assert_int_equal(x.r.scale_sent, 7);
	assert_int_equal(x.r.flows, 8);
	assert_int_equal(x.r.flows_affected, 3);
	assert_int_equal(x.r.branch.hop_index, 3);
	flow_branch_side_format(x.r.branch.problem, x.r.branch.nproblem, p, sizeof(p));
	flow_branch_side_format(x.r.branch.clean, x.r.branch.nclean, c, sizeof(c));
	assert_string_equal(p, "198.18.31.2");
	assert_string_equal(c, "198.18.32.2,fd00::32");
	/* hostile: a side that is not addresses, a share above the flows */
	assert_non_null(w = store_open(db, STORE_WRITE, NULL, err, sizeof(err)));
	assert_int_equal(store_exec(w, "UPDATE scale_results SET branch_problem = 'x,y',"
	    " flows_affected = 9 WHERE branch_hop IS NOT NULL"), 0);
	assert_int_equal(store_close(w, err, sizeof(err)), 0);
	memset(&x, 0, sizeof(x));
	if (report_query(db, INT64_MIN, INT64_MAX, report_flows_cb, &x, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(x.branched, 0);
	assert_int_equal(x.several, 0);
	assert_int_equal(x.r.scale_sent, 7);
	assert_int_equal(x.r.flows, 0);		/* 9 of 8: read as none */
	storegen_free(&g);
}

static void
alert_cb(void *arg, const struct store_alert *a)
{
	assert_string_equal(a->kind, "path");
	(*(int *)arg) += (int)a->port;
}

/* the daemon's rows: a cycle, its target states, open alerts put,
 * replaced and cleared */
static void
test_states_alerts(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st = fill();
	struct store_state s = { "g1", "host1.example", 7, "measured", NULL, 3, 5, 0 };
	struct store_alert a = { "v1", "path", "198.19.0.1", 443, NULL, "rewritten", "7:rewritten",
	    2, "198.18.0.9", NULL, 0, NULL, 10, 11 };
	int sum = 0;
	int64_t run;
	struct store_run r = { { T0, 0 }, "v1", "", "test", false, 0, CLOCK_SYNC_NONE };

	(void)state;
	assert_int_equal(store_run_begin(st, &r, &run), 0);
	assert_int_equal(store_run_cycle(st, run, "g1", 7), 0);
	assert_int_equal(store_state_add(st, run, &s), 0);
	assert_int_equal(store_state_add(st, run, &s), 0);	/* the second is ignored */
	assert_int_equal(store_alert_put(st, &a, false), 0);
	a.port = 80;
	assert_int_equal(store_alert_put(st, &a, false), 0);
	a.state = "stripped";
	assert_int_equal(store_alert_put(st, &a, false), 0);	/* replaced */
	assert_int_equal(store_flush(st, true), 0);
	assert_int_equal(store_state_has(st, "g1", "host1.example", 7), 1);
	assert_int_equal(store_state_has(st, "g1", "host1.example", 8), 0);
	assert_int_equal(store_last_cycle(st, "g1"), 7);
	assert_int_equal(store_last_cycle(st, "g2"), -1);
	assert_int_equal(store_alert_each(st, "v1", alert_cb, &sum), 2);
	assert_int_equal(sum, 443 + 80);
	a.port = 443;
	assert_int_equal(store_alert_put(st, &a, true), 0);
	assert_int_equal(store_flush(st, true), 0);
	sum = 0;
	assert_int_equal(store_alert_each(st, NULL, alert_cb, &sum), 1);
	assert_int_equal(sum, 80);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
}

/* a PostgreSQL connection that the server closes mid-batch: the batch's
 * rows are lost and counted, the store says it is failing, and the next
 * batch connects again and is stored (SQLite's failing writes are
 * test_store's, through a VFS) */
static void
test_pg_link_lost(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st;
	struct store_run run = { { T0, 0 }, "v2", "", "test", false, 0, CLOCK_SYNC_NONE };
	struct storegen g;
	int64_t id, before;

	(void)state;
	if (!store_is_uri(db))
		skip();
	st = fill();
	before = store_query_int(st, "SELECT count(*) FROM path_results");
	assert_int_equal(store_run_begin(st, &run, &id), 0);
	storegen_make(&g, 100, T0 + 100, false);
	assert_int_equal(store_add(st, id, &g.res), 0);
	/* the server ends this session (as a restart would) */
	assert_int_equal(store_exec(st, "SELECT pg_terminate_backend(pg_backend_pid())"), -1);
	assert_int_equal(store_add(st, id, &g.res), -1);
	assert_true(store_failing(st));
	assert_null(strchr(store_error(st), '\n'));
	assert_true(store_get_stats(st)->dropped >= 1);
	/* the next batch: connected again, its rows stored */
	assert_int_equal(store_run_begin(st, &run, &id), 0);
	assert_int_equal(store_add(st, id, &g.res), 0);
	assert_int_equal(store_flush(st, true), 0);
	assert_false(store_failing(st));
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), before + 1);
	storegen_free(&g);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
}

/* --- retention: a table of histories (store_prune_sql.h's rules) ------- */

/* One path's history, one result per step (time = step, in s), its verdict
 * for the one scale sent a letter: o ok, r rewritten, c closed; a second
 * history (vantage "b") may run beside it.  Every result is traced, so
 * each carries evidence until it is old. */
static const struct prune_case {
	const char *name;
	const char *a, *b;	/* histories of vantage a and b ("" none) */
	int cutoff;		/* results before this step are old */
	const char *kept_a, *kept_b;	/* steps kept, as "0,4" */
	const char *ev_a;	/* steps of vantage a that keep their evidence */
} prune_cases[] = {
	{ "one state: its first and last", "ooooo", "", 5, "0,4", "", "" },
	{ "every change and the step before it", "oorrroo", "", 7, "0,1,2,4,5,6", "", "2,4" },
	{ "new results untouched", "ooooorrr", "", 3, "0,3,4,5,6,7", "", "3,4,5,6,7" },
	{ "a state that goes on past the cutoff", "rrrrrr", "", 4, "0,4,5", "", "0,4,5" },
	{ "vantages apart", "oooo", "rrrr", 4, "0,3", "0,3", "" },
	{ "evidence of the first and last problem only", "rorrcr", "", 6,
	  "0,1,2,3,4,5", "", "0,5" },
	{ "nothing old, nothing goes", "orco", "", 0, "0,1,2,3", "", "0,1,2,3" },
};

static enum verdict
verdict_of(char c)
{
	return c == 'r' ? VERDICT_REWRITTEN : c == 'c' ? VERDICT_CLOSED : VERDICT_OK;
}

static void
write_history(struct store *st, const char *hist, const char *vantage, int64_t t0)
{
	for (int k = 0; hist[k] != '\0'; k++) {
		struct store_run run = { .start = { t0 + k, 0 }, .vantage = vantage,
		    .settings = "s", .program = "test_store" };
		struct storegen g;
		int64_t run_id;

		storegen_make(&g, 1, t0 + k, true);	/* 1: traced, with evidence */
		g.res.nscales = 1;
		g.res.verdicts[0].verdict = verdict_of(hist[k]);
		assert_int_equal(store_run_begin(st, &run, &run_id), 0);
		assert_int_equal(store_add(st, run_id, &g.res), 0);
		storegen_free(&g);
	}
}

/* The steps of vantage v still stored (with evidence when ev) as "0,4". */
static void
steps(struct store *st, const char *vantage, bool ev, int64_t t0, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < 16; k++) {
		char sql[512];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM path_results pr JOIN runs r ON "
		    "r.id = pr.run_id %s WHERE r.vantage = '%s' AND pr.time_ns / 1000000000 = %lld",
		    ev ? "JOIN evidence e ON e.path_result_id = pr.id" : "", vantage,
		    (long long)(t0 + k));
		if (store_query_int(st, sql) > 0)
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", k);
	}
}

/* The table, each case a new store of either engine: what a dry run
 * counts, what stays, no run without results and no orphan after. */
static void
test_prune(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(prune_cases) / sizeof(prune_cases[0]); i++) {
		const struct prune_case *c = &prune_cases[i];
		const int64_t t0 = T0;
		char err[STORE_ERRLEN], got[128];
		struct store_prune p;
		struct store *st;
		int64_t n, before;
		int rc;

		new_store();
		if ((st = store_open(db, STORE_WRITE, NULL, err, sizeof(err))) == NULL)
			fail_msg("%s", err);
		write_history(st, c->a, "a", t0);
		write_history(st, c->b, "b", t0);
		assert_int_equal(store_flush(st, true), 0);
		before = store_query_int(st, "SELECT count(*) FROM path_results");
		store_prune_init(&p, (t0 + c->cutoff) * 1000000000, 1, true);
		while ((rc = store_prune_step(st, &p)) > 0)
			;
		if (rc != 0)
			fail_msg("%s: dry run: %s", c->name, store_error(st));
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"), before);
		n = store_prune(st, (t0 + c->cutoff) * 1000000000);
		if (n < 0)
			fail_msg("%s: %s", c->name, store_error(st));
		if ((int64_t)p.results != n)
			fail_msg("%s: a dry run counted %llu, the prune removed %lld", c->name,
			    (unsigned long long)p.results, (long long)n);
		steps(st, "a", false, t0, got, sizeof(got));
		if (strcmp(got, c->kept_a) != 0)
			fail_msg("%s: vantage a kept %s, expected %s", c->name, got, c->kept_a);
		steps(st, "b", false, t0, got, sizeof(got));
		if (strcmp(got, c->kept_b) != 0)
			fail_msg("%s: vantage b kept %s, expected %s", c->name, got, c->kept_b);
		steps(st, "a", true, t0, got, sizeof(got));
		if (strcmp(got, c->ev_a) != 0)
			fail_msg("%s: evidence kept for %s, expected %s", c->name, got, c->ev_a);
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM path_results"),
		    before - n);
		/* no run without results, no orphan */
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM runs WHERE NOT EXISTS "
		    "(SELECT 1 FROM path_results WHERE run_id = runs.id)"), 0);
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results WHERE "
		    "path_result_id NOT IN (SELECT id FROM path_results)"), 0);
		assert_int_equal(store_close(st, err, sizeof(err)), 0);
	}
}

/* --- retention of one vantage: another's history is not its to prune -- */

/* Per vantage (a and b, each its own group, one path, the same for both):
 * cycles 0..5 every 10 s from T0, each a result (traced: evidence) and a
 * measured state, all ok; and at T0 + 1 a cycle whose target did not
 * resolve (a state, no result).  The cutoff is T0 + 45: cycles 0..4 and
 * the unresolved one are old. */
#define PV_CYCLES	6
#define PV_CUTOFF_S	(T0 + 45)

/* counts of one vantage: results, runs, target states, evidence */
enum { PV_RESULTS, PV_RUNS, PV_STATES, PV_EVIDENCE, PV_N };

static const struct prune_vantage_case {
	const char *name;
	const char *only;		/* store_prune.vantage; NULL: every one */
	int64_t a[PV_N], b[PV_N];	/* after the prune */
} pv_cases[] = {
	/* written: 6 results, 7 runs, 7 states, 6 evidence records each */
	{ "a pruned, b untouched", "a", { 2, 2, 2, 1 }, { 6, 7, 7, 6 } },
	{ "b pruned, a untouched", "b", { 6, 7, 7, 6 }, { 2, 2, 2, 1 } },
	{ "every vantage pruned", NULL, { 2, 2, 2, 1 }, { 2, 2, 2, 1 } },
	{ "a vantage with no rows: nothing goes", "c", { 6, 7, 7, 6 }, { 6, 7, 7, 6 } },
};

static void
pv_write(struct store *st, const char *vantage)
{
	char group[8], target[64];
	struct storegen g;
	int64_t run;

	snprintf(group, sizeof(group), "g%s", vantage);
	for (int k = 0; k <= PV_CYCLES; k++) {
		/* the last: the old cycle whose target did not resolve */
		bool unresolved = k == PV_CYCLES;
		int64_t t = unresolved ? T0 + 1 : T0 + 10 * k;
		struct store_run r = { { t, 0 }, vantage, "s", "test", false, 0,
		    CLOCK_SYNC_NONE };

		storegen_make(&g, 1, t, true);	/* 1: traced, with evidence */
		g.res.nscales = 1;
		g.res.verdicts[0].verdict = VERDICT_OK;
		snprintf(target, sizeof(target), "%s", unresolved ? "nowhere.example" :
		    g.res.target);
		{
			struct store_state s = { group, target, k, unresolved ? "unresolved" :
			    "measured", NULL, unresolved ? 0 : 1, t * 1000000000, 0 };

			assert_int_equal(store_run_begin(st, &r, &run), 0);
			assert_int_equal(store_run_cycle(st, run, group, k), 0);
			if (!unresolved)
				assert_int_equal(store_add(st, run, &g.res), 0);
			assert_int_equal(store_state_add(st, run, &s), 0);
		}
		storegen_free(&g);
	}
}

static void
pv_count(struct store *st, const char *vantage, int64_t n[PV_N])
{
	/* each joined to its run, whose vantage is the last word */
	static const char *const sql[PV_N] = {
		"SELECT count(*) FROM path_results pr JOIN runs r ON r.id = pr.run_id",
		"SELECT count(*) FROM runs r",
		"SELECT count(*) FROM target_states t JOIN runs r ON r.id = t.run_id",
		("SELECT count(*) FROM evidence e JOIN path_results pr "
		 "ON pr.id = e.path_result_id JOIN runs r ON r.id = pr.run_id"),
	};

	for (int i = 0; i < PV_N; i++) {
		char q[256];

		snprintf(q, sizeof(q), "%s WHERE r.vantage = '%s'", sql[i], vantage);
		n[i] = store_query_int(st, q);
	}
}

/* The table, each case a new store of either engine holding a and b: a
 * dry run and a prune of one vantage (the daemon's retention) or of every
 * one (scaleprobe db prune without --vantage), the rows of each vantage
 * counted before and after. */
static void
test_prune_vantage(void **state)
{
	static const char *const what[PV_N] = { "results", "runs", "states", "evidence" };

	(void)state;
	for (size_t i = 0; i < sizeof(pv_cases) / sizeof(pv_cases[0]); i++) {
		const struct prune_vantage_case *c = &pv_cases[i];
		char err[STORE_ERRLEN];
		struct store_prune dry, p;
		struct store *st;
		int64_t a[PV_N], b[PV_N], left;
		int rc;

		new_store();
		if ((st = store_open(db, STORE_WRITE, NULL, err, sizeof(err))) == NULL)
			fail_msg("%s", err);
		pv_write(st, "a");
		pv_write(st, "b");
		assert_int_equal(store_flush(st, true), 0);
		pv_count(st, "a", a);
		pv_count(st, "b", b);
		for (int k = 0; k < PV_N; k++)
			if (a[k] != b[k] || a[k] != (k == PV_RESULTS || k == PV_EVIDENCE ?
			    PV_CYCLES : PV_CYCLES + 1))
				fail_msg("%s: written: %s a %lld b %lld", c->name, what[k],
				    (long long)a[k], (long long)b[k]);
		store_prune_init(&dry, PV_CUTOFF_S * 1000000000ll, 1, true);
		dry.vantage = c->only;
		while ((rc = store_prune_step(st, &dry)) > 0)
			;
		if (rc != 0)
			fail_msg("%s: dry run: %s", c->name, store_error(st));
		store_prune_init(&p, PV_CUTOFF_S * 1000000000ll, 1, false);
		p.vantage = c->only;
		while ((rc = store_prune_step(st, &p)) > 0)
			;
		if (rc != 0)
			fail_msg("%s: %s", c->name, store_error(st));
		pv_count(st, "a", a);
		pv_count(st, "b", b);
		for (int k = 0; k < PV_N; k++)
			if (a[k] != c->a[k] || b[k] != c->b[k])
				fail_msg("%s: %s after: a %lld (expected %lld), b %lld (expected "
				    "%lld)", c->name, what[k], (long long)a[k], (long long)c->a[k],
				    (long long)b[k], (long long)c->b[k]);
		/* the dry run counted what went; no state, scale or hop orphaned */
		left = c->a[PV_RESULTS] + c->b[PV_RESULTS];
		if (dry.results != p.results || (int64_t)p.results != 2 * PV_CYCLES - left ||
		    dry.runs != p.runs)
			fail_msg("%s: the dry run counted %llu results and %llu runs, the prune "
			    "removed %llu and %llu", c->name, (unsigned long long)dry.results,
			    (unsigned long long)dry.runs, (unsigned long long)p.results,
			    (unsigned long long)p.runs);
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM target_states WHERE "
		    "run_id IS NOT NULL AND run_id NOT IN (SELECT id FROM runs)"), 0);
		assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results WHERE "
		    "path_result_id NOT IN (SELECT id FROM path_results)"), 0);
		assert_int_equal(store_close(st, err, sizeof(err)), 0);
	}
}

struct faults {
	int n;
	char all[16384];
};

static void
fault_cb(void *arg, const char *line)
{
	struct faults *f = arg;
	size_t used = strlen(f->all);

	f->n++;
	snprintf(f->all + used, sizeof(f->all) - used, "%s\n", line);
}

/* db check: a store as written is clean; an index dropped, and a run
 * deleted under its results with the references unkept (SQLite's
 * foreign_keys off, PostgreSQL's triggers off for the session), are each
 * named; a URI's password is never in a message */
static void
test_check(void **state)
{
	char err[STORE_ERRLEN], uri[600];
	struct faults f = { 0, "" };
	struct store *st = fill();

	(void)state;
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	if (store_check(db, false, fault_cb, &f, err, sizeof(err)) != 0)
		fail_msg("a clean store: %d faults, %s: %s", f.n, f.all, err);
	assert_non_null(st = store_open(db, STORE_WRITE, NULL, err, sizeof(err)));
	assert_int_equal(store_exec(st, "DROP INDEX path_results_target"), 0);
	assert_int_equal(store_exec(st, store_is_uri(db) ?
	    "SET session_replication_role = replica; DELETE FROM runs;"
	    " SET session_replication_role = origin" :
	    "PRAGMA foreign_keys = OFF; DELETE FROM runs; PRAGMA foreign_keys = ON"), 0);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	for (int quick = 0; quick < 2; quick++) {
		memset(&f, 0, sizeof(f));
		if (store_check(db, quick, fault_cb, &f, err, sizeof(err)) < 1)
			fail_msg("a broken store: no fault (%s)", err);
		if (strstr(f.all, "path_results_target") == NULL ||
		    strstr(f.all, "missing") == NULL)
			fail_msg("the index dropped not named: %s", f.all);
		if (strstr(f.all, "foreign key: path_results row") == NULL ||
		    strstr(f.all, "missing row of runs") == NULL)
			fail_msg("the results without their run not named: %s", f.all);
	}
	if (!store_is_uri(db))
		return;
	/* the URI with a password: cut from the message */
	snprintf(uri, sizeof(uri), "postgresql://u:hunter2@/nodb?host=/nonexistent-dir");
	assert_int_equal(store_check(uri, true, NULL, NULL, err, sizeof(err)), -1);
	assert_null(strstr(err, "hunter2"));
	assert_non_null(strstr(err, "postgresql://u@/nodb"));
}

/* a store of a newer schema is refused at open, and left as it is */
static void
test_newer_refused(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st = fill();

	(void)state;
	assert_int_equal(store_exec(st, store_is_uri(db) ?
	    "UPDATE scaleprobe_schema SET version = 99" : "PRAGMA user_version = 99"), 0);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	assert_null(store_open(db, STORE_WRITE, NULL, err, sizeof(err)));
	assert_true(store_open_refused());
	assert_non_null(strstr(err, "newer"));
	assert_null(strchr(err, '\n'));
	assert_null(store_open(db, STORE_READ, NULL, err, sizeof(err)));
}

/* a PostgreSQL store of the first version this engine wrote (5: no flows
 * columns, no uploads, no clocks, no branches, no uploaded runs' stores,
 * no index of target states by run) is refused by a reader, which names
 * the writer that upgrades it, and brought to the current version by a
 * writer's open */
static void
test_pg_migrates(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st;

	(void)state;
	if (!store_is_uri(db))
		skip();
	st = fill();
	/* what version 5 had: none of what the migrations since add */
	assert_int_equal(store_exec(st, "ALTER TABLE scale_results DROP COLUMN flows,"
	    " DROP COLUMN flows_affected, DROP COLUMN branch_hop, DROP COLUMN branch_problem,"
	    " DROP COLUMN branch_clean; DROP TABLE vantage_results;"
	    " ALTER TABLE runs DROP COLUMN clock; DROP TABLE uploads;"
	    " ALTER TABLE runs DROP COLUMN store, DROP COLUMN store_run;"
	    " DROP INDEX target_states_run;"
	    " UPDATE scaleprobe_schema SET version = 5"), 0);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	assert_null(store_open(db, STORE_READ, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "older"));
	assert_null(strchr(err, '\n'));
	assert_non_null(st = store_open(db, STORE_WRITE, NULL, err, sizeof(err)));
	assert_int_equal(store_query_int(st, "SELECT version FROM scaleprobe_schema"),
	    STORE_SCHEMA_VERSION);
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM scale_results"
	    " WHERE flows IS NULL AND flows_affected IS NULL AND branch_hop IS NULL"
	    " AND branch_problem IS NULL AND branch_clean IS NULL"),
	    store_query_int(st, "SELECT count(*) FROM scale_results"));
	assert_int_equal(store_query_int(st, "SELECT count(*) FROM pg_indexes"
	    " WHERE tablename = 'target_states' AND indexname = 'target_states_run'"), 1);
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
	assert_non_null(st = store_open(db, STORE_READ, NULL, err, sizeof(err)));
	assert_int_equal(store_close(st, err, sizeof(err)), 0);
}

/* messages name a URI without its password */
static void
test_where_safe(void **state)
{
	static const char *const t[][2] = {
		{ "postgresql://u:secret@h:5/db", "postgresql://u@h:5/db" },
		{ "postgres://u:s@cret@h/db?sslmode=require", "postgres://u@h/db?sslmode=require" },
		{ "postgresql:///db?host=/tmp&password=secret&user=u",
		  "postgresql:///db?host=/tmp&password=***&user=u" },
		{ "postgresql://h/db?password=secret", "postgresql://h/db?password=***" },
		{ "/var/lib/scaleprobe/results.db", "/var/lib/scaleprobe/results.db" },
	};
	char out[256], err[STORE_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		store_where_safe(t[i][0], out, sizeof(out));
		assert_string_equal(out, t[i][1]);
	}
	assert_true(store_is_uri("postgres://x"));
	assert_false(store_is_uri("postgresql:/x"));
	/* a server that is not there: one line, the URI without its password */
	assert_null(store_open("postgresql://u:secretpw@/nodb?host=/nonexistent-dir",
	    STORE_READ, NULL, err, sizeof(err)));
	assert_null(strstr(err, "secretpw"));
	assert_non_null(strstr(err, "postgresql://u@/nodb"));
	assert_null(strchr(err, '\n'));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_safe),
		cmocka_unit_test(test_newer_refused),
		cmocka_unit_test(test_pg_migrates),
		cmocka_unit_test(test_write_counts),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_export_findings_evidence),
		cmocka_unit_test(test_hostile_cells),
		cmocka_unit_test(test_branch_round_trip),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_flows),
		cmocka_unit_test(test_pg_link_lost),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_prune_vantage),
		cmocka_unit_test(test_check),
		/* last: it leaves a store of results, states and alerts for
		 * tests/e2e/store-engines' readers */
		cmocka_unit_test(test_states_alerts),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
