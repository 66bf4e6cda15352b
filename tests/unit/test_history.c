/*
 * test_history.c -- show and export read back: the fold of a
 * host's rows into changes of state (a table of histories); a store
 * filled through store_add read by history_show in the fold's order and
 * through its indexes (the plan); export's groups (first and last seen,
 * times seen per vantage, address, port, scale and verdict); the CSV and
 * JSON of a row byte for byte, with a vantage holding a comma, a quote
 * and a newline; a row's evidence as pcapng; and a hand-edited store
 * (text in integer columns, NULLs where the schema forbids them) read
 * without harm.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "export_pcap.h"
#include "export_render.h"
#include "flow_branch.h"
#include "history.h"
#include "show_fold.h"
#include "show_render.h"
#include "store.h"
#include "storegen.h"

#define T0 1764000000LL		/* 2025-11-24T16:00:00Z */
#define DAY 86400LL
#define NS 1000000000LL

/* --- the fold, pure ------------------------------------------------------ */

static const struct fold_case {
	const char *name;
	const char *verdicts[8];	/* one series, in time order; NULL ends */
	int nrows;
	const char *want;		/* "change:verdict:results ..." */
} fold_cases[] = {
	{ "one state", { "ok", "ok", "ok" }, 3, "first-seen:ok:3" },
	{ "broken, fixed, broken again",
	  { "rewritten", "rewritten", "ok", "rewritten" }, 4,
	  "first-seen:rewritten:2 fixed:ok:1 broken-again:rewritten:1" },
	{ "broken later", { "ok", "stripped", "stripped" }, 3,
	  "first-seen:ok:1 broken:stripped:2" },
	{ "another problem is a change", { "rewritten", "syn-dropped" }, 2,
	  "first-seen:rewritten:1 changed:syn-dropped:1" },
	{ "unmeasured is not a fix of a problem... it is", { "rewritten", "filtered" }, 2,
	  "first-seen:rewritten:1 fixed:filtered:1" },
	{ "null verdicts", { "ok", NULL, "ok" }, 3,
	  "first-seen:ok:1 changed:null:1 changed:ok:1" },
	{ "broken again twice", { "ok", "rewritten", "ok", "rewritten", "ok", "rewritten" }, 6,
	  "first-seen:ok:1 broken:rewritten:1 fixed:ok:1 broken-again:rewritten:1 "
	  "fixed:ok:1 broken-again:rewritten:1" },
};

static void
fold_text(const struct show_series *s, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nev; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s:%s:%lld", i ? " " : "",
		    show_change_token(s->ev[i].change),
		    s->ev[i].verdict ? s->ev[i].verdict : "null", (long long)s->ev[i].results);
}

static void
test_fold(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(fold_cases) / sizeof(fold_cases[0]); c++) {
		const struct fold_case *fc = &fold_cases[c];
		struct show_fold f = { 0 };
		char got[512];

		for (int i = 0; i < fc->nrows; i++) {
			struct history_row r = { .target = "t", .address = "198.18.0.1",
			    .family = "ipv4", .vantage = "v", .port = 80, .scale_sent = 7,
			    .time_ns = (T0 + i * DAY) * NS, .verdict = fc->verdicts[i] };

			show_fold_add(&f, &r);
		}
		assert_false(f.failed);
		assert_int_equal(f.n, 1);
		fold_text(&f.v[0], got, sizeof(got));
		if (strcmp(got, fc->want) != 0)
			fail_msg("%s: got '%s', want '%s'", fc->name, got, fc->want);
		assert_int_equal(f.v[0].results, fc->nrows);
		assert_int_equal(f.v[0].last.time_ns, (T0 + (fc->nrows - 1) * DAY) * NS);
		assert_int_equal(f.v[0].ev[0].time_ns, T0 * NS);
		show_fold_free(&f);
	}
}

/* a new series per address, port, vantage and scale sent */
static void
test_fold_series(void **state)
{
	static const struct { const char *addr; int port; const char *vantage; int scale; }
	    keys[] = {
		{ "a", 80, "v1", 0 }, { "a", 80, "v1", 0 }, { "a", 80, "v1", 7 },
		{ "a", 80, "v2", 7 }, { "a", 443, "v2", 7 }, { "b", 443, "v2", 7 },
		{ "b", 443, "v2", 7 },
	};
	struct show_fold f = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct history_row r = { .target = "t", .address = keys[i].addr, .family = "ipv4",
		    .vantage = keys[i].vantage, .port = keys[i].port, .scale_sent = keys[i].scale,
		    .verdict = "ok", .time_ns = (int64_t)i };

		show_fold_add(&f, &r);
	}
	assert_int_equal(f.n, 5);
	assert_int_equal(f.v[0].results, 2);
	assert_int_equal(f.v[4].results, 2);
	show_fold_free(&f);
}

/* --- rendering, pure ----------------------------------------------------- */

static const char weird_vantage[] = "lab \"west\",\nrack 2";

static struct history_row
export_row(void)
{
	struct history_row r = { .path_result_id = 1, .scale_idx = 1, .target = "ws0-in.lab",
	    .address = "198.18.100.11", .family = "ipv4", .vantage = weird_vantage, .port = 80,
	    .scale_sent = 7, .reply = "syn-ack", .verdict = "rewritten", .sa_wscale = 7,
	    .scale_quoted = 0, .scale_effective = 0, .hop_index = 3,
	    .last_clean_index = 2, .hop_address = "198.18.3.2",
	    .last_clean_address = "198.18.2.2", .time_ns = (T0 + 2 * DAY) * NS + 5000000,
	    .first_ns = T0 * NS, .count = 3 };

	return r;
}

/* A row with every optional field absent. */
static struct history_row
bare_row(void)
{
	return (struct history_row){ .target = "x", .address = "fd00::1", .family = "ipv6",
	    .vantage = "", .port = -1, .scale_sent = 14, .verdict = "stripped",
	    .sa_wscale = -1, .scale_quoted = -1, .scale_effective = -1, .hop_index = -1,
	    .last_clean_index = -1, .time_ns = T0 * NS, .first_ns = T0 * NS, .count = 1 };
}

/* The same box behind two routers that never answered. */
static struct history_row
mute_row(void)
{
	struct history_row r = export_row();

	r.target = "ws0-mute.lab";
	r.hop_index = 4;
	r.hop_address = "198.18.4.2";
	r.last_clean_index = 1;
	r.last_clean_address = "198.18.1.2";
	r.hop_silent = (1u << 2) | (1u << 3);
	/* probed over 8 flows, 3 of them through the box, which they reached
	 * via 198.18.3.2 at hop 3 where the others went via two routers */
	r.flows = 8;
	r.flows_affected = 3;
	assert_int_equal(flow_branch_from_cells(3, "198.18.3.2", "198.18.33.2,fd00::33",
	    &r.branch), 0);
	return r;
}

static void
test_csv_row(void **state)
{
	struct csv c = { 0 };
	struct history_row r = export_row();
	static const char want[] =
	    "target,address,port,family,verdict,scale_sent,scale_quoted,scale_effective,"
	    "hop_index,hop_address,last_clean_index,last_clean_address,first_seen,last_seen,"
	    "times_seen,vantage,hop_exact,silent_hops,flows,flows_affected,branch_hop,"
	    "branch_problem,branch_clean\r\n"
	    "ws0-in.lab,198.18.100.11,80,ipv4,rewritten,7,0,0,3,198.18.3.2,2,198.18.2.2,"
	    "2025-11-24T16:00:00.000Z,2025-11-26T16:00:00.005Z,3,\"lab \"\"west\"\",\nrack 2\","
	    "true,,,,,,\r\n"
	    "x,fd00::1,,ipv6,stripped,14,,,,,,,2025-11-24T16:00:00.000Z,"
	    "2025-11-24T16:00:00.000Z,1,,,,,,,,\r\n"
	    "ws0-mute.lab,198.18.100.11,80,ipv4,rewritten,7,0,0,4,198.18.4.2,1,198.18.1.2,"
	    "2025-11-24T16:00:00.000Z,2025-11-26T16:00:00.005Z,3,\"lab \"\"west\"\",\nrack 2\","
	    "false,2 3,8,3,3,198.18.3.2,\"198.18.33.2,fd00::33\"\r\n";

	(void)state;
	export_csv_header(&c);
	export_csv_row(&c, &r);
	r = bare_row();
	export_csv_row(&c, &r);
	/* hops 2-3 never answered: the hop is not exact, and which */
	r = mute_row();
	export_csv_row(&c, &r);
	assert_false(c.failed);
	assert_int_equal(c.len, strlen(want));
	assert_memory_equal(c.p, want, c.len);
	csv_free(&c);
}

static void
test_json_row(void **state)
{
	struct json j;
	struct history_row r = export_row();
	static const char want[] =
	    "[{\"target\":\"ws0-in.lab\",\"address\":\"198.18.100.11\",\"port\":80,"
	    "\"family\":\"ipv4\",\"verdict\":\"rewritten\",\"scale_sent\":7,\"scale_quoted\":0,"
	    "\"scale_effective\":0,\"hop_index\":3,\"hop_address\":\"198.18.3.2\","
	    "\"last_clean_index\":2,\"last_clean_address\":\"198.18.2.2\","
	    "\"first_seen\":\"2025-11-24T16:00:00.000Z\","
	    "\"last_seen\":\"2025-11-26T16:00:00.005Z\",\"times_seen\":3,"
	    "\"vantage\":\"lab \\\"west\\\",\\nrack 2\",\"hop_exact\":true,\"silent_hops\":[]},"
	    "{\"target\":\"ws0-mute.lab\",\"address\":\"198.18.100.11\",\"port\":80,"
	    "\"family\":\"ipv4\",\"verdict\":\"rewritten\",\"scale_sent\":7,\"scale_quoted\":0,"
	    "\"scale_effective\":0,\"hop_index\":4,\"hop_address\":\"198.18.4.2\","
	    "\"last_clean_index\":1,\"last_clean_address\":\"198.18.1.2\","
	    "\"first_seen\":\"2025-11-24T16:00:00.000Z\","
	    "\"last_seen\":\"2025-11-26T16:00:00.005Z\",\"times_seen\":3,"
	    "\"vantage\":\"lab \\\"west\\\",\\nrack 2\",\"hop_exact\":false,\"silent_hops\":[2,3],"
	    "\"flows\":8,\"flows_affected\":3,\"branch\":{\"hop_index\":3,"
	    "\"problem\":[\"198.18.3.2\"],\"clean\":[\"198.18.33.2\",\"fd00::33\"]}},"
	    "{\"target\":\"x\",\"address\":\"fd00::1\",\"port\":null,\"family\":\"ipv6\","
	    "\"verdict\":\"stripped\",\"scale_sent\":14,\"scale_quoted\":null,"
	    "\"scale_effective\":null,\"hop_index\":null,\"hop_address\":null,"
	    "\"last_clean_index\":null,\"last_clean_address\":null,"
	    "\"first_seen\":\"2025-11-24T16:00:00.000Z\",\"last_seen\":\"2025-11-24T16:00:00.000Z\","
	    "\"times_seen\":1,\"vantage\":\"\",\"hop_exact\":null,\"silent_hops\":null}]";
	const char *got;

	(void)state;
	json_init(&j);
	json_array_begin(&j);
	export_json_row(&j, &r);
	r = mute_row();
	export_json_row(&j, &r);
	r = bare_row();
	export_json_row(&j, &r);
	json_array_end(&j);
	assert_true(json_ok(&j));
	got = json_text(&j, NULL);
	if (strcmp(got, want) != 0)
		fail_msg("got %s", got);
	json_free(&j);
}

static void
test_printable(void **state)
{
	char buf[64];

	(void)state;
	show_printable(weird_vantage, buf, sizeof(buf));
	assert_string_equal(buf, "lab \"west\",\\nrack 2");
	show_printable("a\x1b[2Jb\\", buf, sizeof(buf));
	assert_string_equal(buf, "a\\x1b[2Jb\\\\");
	show_printable(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	show_printable("0123456789", buf, 8);
	assert_true(strlen(buf) < 8);
}

/* --- a store ---------------------------------------------------------------- */

static char dir[64], file[128];

static int
setup(void **state)
{
	(void)state;
	if (storegen_scratch(dir, sizeof(dir), "test_history") != 0)
		return -1;
	snprintf(file, sizeof(file), "%s/h.sqlite", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

/* Host 1 (storegen's rewriting box on scales 7 and 14) from vantage v on
 * day d: broken (storegen 1) or fixed (storegen 4's clean result on host
 * 1's address), with evidence. */
static void
add_host1(struct store *st, const char *vantage, int day, bool broken)
{
	struct store_run run = { .start = { (time_t)(T0 + day * DAY), 0 }, .vantage = vantage,
	    .settings = "s", .program = "test_history" };
	struct storegen g, one;
	int64_t run_id;

	assert_int_equal(store_run_begin(st, &run, &run_id), 0);
	storegen_make(&one, 1, T0 + day * DAY, true);
	if (broken)
		g = one;
	else {
		storegen_make(&g, 4, T0 + day * DAY, false);
		g.res.dst = one.res.dst;
		g.res.port = one.res.port;
	}
	snprintf(g.target, sizeof(g.target), "host1.example");
	g.res.target = g.target;
	if (g.res.evidence != NULL)
		g.res.evidence = g.ev;
	assert_int_equal(store_add(st, run_id, &g.res), 0);
	storegen_free(&one);
	if (!broken)
		storegen_free(&g);
}

static struct store *
fill(void)
{
	char err[STORE_ERRLEN];
	struct store *st;

	unlink(file);
	assert_non_null(st = store_open(file, STORE_WRITE, NULL, err, sizeof(err)));
	add_host1(st, "v1", 0, true);
	add_host1(st, "v1", 1, true);
	add_host1(st, "v1", 2, false);
	add_host1(st, "v1", 3, true);
	add_host1(st, weird_vantage, 1, true);
	/* another host, that must not show */
	{
		struct store_run run = { .start = { T0, 0 }, .vantage = "v1", .settings = "s",
		    .program = "t" };
		struct storegen g;
		int64_t run_id;

		assert_int_equal(store_run_begin(st, &run, &run_id), 0);
		storegen_make(&g, 8, T0, false);
		assert_int_equal(store_add(st, run_id, &g.res), 0);
		storegen_free(&g);
	}
	assert_int_equal(store_flush(st, true), 0);
	return st;
}

static int
fold_cb(void *arg, const struct history_row *row)
{
	show_fold_add(arg, row);
	return 0;
}

struct finding_collect {
	struct show_fold *f;
	struct show_series *s;
};

static int
finding_cb(void *arg, const struct history_finding *hf)
{
	struct finding_collect *c = arg;

	show_fold_finding(c->f, c->s, hf);
	return 0;
}

static void
test_show_store(void **state)
{
	char err[STORE_ERRLEN], got[512];
	struct store *w = fill(), *st;
	struct history *h;
	struct show_fold f = { 0 };
	struct history_query q = { "198.19.0.1", -1, INT64_MIN, NULL };

	(void)state;
	/* read while the writer holds the file open, as show does */
	assert_non_null(st = store_open(file, STORE_READ, NULL, err, sizeof(err)));
	assert_non_null(h = history_open(st, err, sizeof(err)));
	assert_int_equal(history_show(h, &q, fold_cb, &f), 0);
	/* two vantages x three scales; "lab ..." sorts before "v1" */
	assert_int_equal(f.n, 6);
	assert_string_equal(f.v[0].last.vantage, weird_vantage);
	assert_string_equal(f.v[3].last.vantage, "v1");
	assert_int_equal(f.v[3].last.scale_sent, 0);
	fold_text(&f.v[3], got, sizeof(got));
	assert_string_equal(got, "first-seen:ok:4");
	assert_int_equal(f.v[4].last.scale_sent, 7);
	fold_text(&f.v[4], got, sizeof(got));
	assert_string_equal(got, "first-seen:rewritten:2 fixed:ok:1 broken-again:rewritten:1");
	assert_int_equal(f.v[4].ev[2].time_ns, (T0 + 3 * DAY) * NS + 1123456);
	assert_int_equal(f.v[4].last.hop_index, 3);
	assert_string_equal(f.v[4].last.hop_address, "198.18.3.2");
	assert_int_equal(f.v[4].last.last_clean_index, 2);
	assert_string_equal(f.v[4].last.last_clean_address, "198.18.2.2");
	assert_int_equal(f.v[4].last.scale_quoted, 0);
	assert_int_equal(f.v[4].last.port, 80);
	/* the latest result's side finding, as storegen wrote it */
	{
		struct finding_collect fc = { &f, &f.v[4] };

		assert_int_equal(history_findings(h, f.v[4].last.path_result_id,
		    f.v[4].last.scale_idx, finding_cb, &fc), 0);
		assert_int_equal(f.v[4].nfi, 1);
		assert_string_equal(f.v[4].fi[0].kind, "mss-clamped");
		assert_string_equal(f.v[4].fi[0].detail, "1200");
		assert_int_equal(f.v[4].fi[0].hop_index, -1);
		assert_null(f.v[4].fi[0].hop_address);
	}
	show_fold_free(&f);

	/* the name as written finds the same; --vantage, --since, --port narrow */
	q.host = "host1.example";
	assert_int_equal(history_show(h, &q, fold_cb, &f), 0);
	assert_int_equal(f.n, 6);
	show_fold_free(&f);
	q.vantage = "v1";
	q.since_ns = (T0 + 2 * DAY) * NS;
	assert_int_equal(history_show(h, &q, fold_cb, &f), 0);
	assert_int_equal(f.n, 3);
	fold_text(&f.v[1], got, sizeof(got));
	assert_string_equal(got, "first-seen:ok:1 broken:rewritten:1");
	show_fold_free(&f);
	q.port = 443;
	assert_int_equal(history_show(h, &q, fold_cb, &f), 0);
	assert_int_equal(f.n, 0);
	q = (struct history_query){ "nowhere.example", -1, INT64_MIN, NULL };
	assert_int_equal(history_show(h, &q, fold_cb, &f), 0);
	assert_int_equal(f.n, 0);
	history_close(h);
	store_close(st, NULL, 0);
	store_close(w, NULL, 0);
}

/* show's query seeks through the indexes, never scans a table */
static void
test_show_plan(void **state)
{
	char err[STORE_ERRLEN], plan[4096];
	struct store *st = fill();
	struct history *h;

	(void)state;
	assert_non_null(h = history_open(st, err, sizeof(err)));
	assert_int_equal(history_show_plan(h, plan, sizeof(plan)), 0);
	if (strstr(plan, "path_results_path (path_id=?") == NULL ||
	    strstr(plan, "path_results_target (target_id=?") == NULL ||
	    strstr(plan, "sqlite_autoindex_paths_1 (address=?)") == NULL ||
	    strstr(plan, "sqlite_autoindex_targets_1 (spec=?)") == NULL ||
	    strstr(plan, "SEARCH s USING PRIMARY KEY (path_result_id=?)") == NULL ||
	    strstr(plan, "SCAN") != NULL)
		fail_msg("show's plan:\n%s", plan);
	/* export of the problems since T: the partial index on problems, never
	 * a scan of every scale result */
	{
		struct history_export_query q = { { "rewritten", "syn-dropped" }, 2,
		    INT64_MIN, NULL };

		assert_int_equal(history_export_plan(h, &q, plan, sizeof(plan)), 0);
		if (strstr(plan, "USING INDEX scale_results_problems (time_ns>?)") == NULL ||
		    strstr(plan, "SCAN s ") != NULL)
			fail_msg("export's plan:\n%s", plan);
	}
	history_close(h);
	store_close(st, NULL, 0);
}

struct collect {
	struct history_row rows[16];
	char vantage[16][64], address[16][64];
	int n;
};

static int
collect_cb(void *arg, const struct history_row *row)
{
	struct collect *c = arg;

	if (c->n == 16)
		return 1;
	/* the row's strings live until the callback returns: the ones the
	 * tests read are copied */
	c->rows[c->n] = *row;
	snprintf(c->vantage[c->n], 64, "%s", row->vantage);
	snprintf(c->address[c->n], 64, "%s", row->address);
	c->rows[c->n].vantage = c->vantage[c->n];
	c->rows[c->n].address = c->address[c->n];
	c->rows[c->n].target = c->rows[c->n].family = "";
	c->rows[c->n].reply = c->rows[c->n].verdict = c->rows[c->n].reason = NULL;
	c->rows[c->n].hop_address = c->rows[c->n].last_clean_address = NULL;
	c->n++;
	return 0;
}

static void
test_export_store(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st = fill();
	struct history *h;
	struct collect c = { .n = 0 };
	struct history_export_query q = { { "rewritten", "stripped", "syn-dropped" }, 3,
	    INT64_MIN, NULL };

	(void)state;
	assert_non_null(h = history_open(st, err, sizeof(err)));
	assert_int_equal(history_export(h, &q, collect_cb, &c), 0);
	/* scales 7 and 14, from "lab ..." (once) and v1 (three times) */
	assert_int_equal(c.n, 4);
	assert_int_equal(c.rows[0].scale_sent, 7);
	assert_string_equal(c.vantage[0], weird_vantage);
	assert_int_equal(c.rows[0].count, 1);
	assert_int_equal(c.rows[1].scale_sent, 7);
	assert_string_equal(c.vantage[1], "v1");
	assert_int_equal(c.rows[1].count, 3);
	assert_int_equal(c.rows[1].first_ns, T0 * NS + 1123456);
	assert_int_equal(c.rows[1].time_ns, (T0 + 3 * DAY) * NS + 1123456);
	assert_int_equal(c.rows[1].hop_index, 3);
	assert_int_equal(c.rows[3].scale_sent, 14);
	/* --since counts from T on; --hop another address: nothing */
	c.n = 0;
	q.since_ns = (T0 + 1 * DAY) * NS;
	assert_int_equal(history_export(h, &q, collect_cb, &c), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.rows[1].count, 2);
	assert_int_equal(c.rows[1].first_ns, (T0 + DAY) * NS + 1123456);
	c.n = 0;
	q.hop = "198.18.2.2";
	assert_int_equal(history_export(h, &q, collect_cb, &c), 0);
	assert_int_equal(c.n, 0);
	/* ok rows are counted as well when asked for */
	q = (struct history_export_query){ { "ok" }, 1, INT64_MIN, NULL };
	c.n = 0;
	assert_int_equal(history_export(h, &q, collect_cb, &c), 0);
	assert_true(c.n >= 3);
	history_close(h);
	store_close(st, NULL, 0);
}

static void
test_export_pcap(void **state)
{
	static uint8_t space[EXPORT_PCAP_MAX];
	struct pcapng_buf b = { space, 0, sizeof(space), false };
	char err[STORE_ERRLEN], name[128];
	struct store *st = fill();
	struct history *h;
	struct collect c = { .n = 0 };
	struct history_export_query q = { { "rewritten" }, 1, INT64_MIN, NULL };
	uint8_t *ev, junk[16] = { 9, 9, 9 };
	size_t evlen;
	const char *why = NULL;
	int n;

	(void)state;
	assert_non_null(h = history_open(st, err, sizeof(err)));
	assert_int_equal(history_export(h, &q, collect_cb, &c), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(history_evidence(h, c.rows[1].path_result_id, &ev, &evlen), 0);
	/* the SYN, five quotes and the SYN-ACK of the scale's variant */
	assert_int_equal(export_pcap_build(&c.rows[1], ev, evlen, &b, &n, &why), 0);
	assert_int_equal(n, 7);
	assert_true(b.len > 7 * 60);
	b.len = 0;
	assert_int_equal(export_pcap_build(&c.rows[1], junk, sizeof(junk), &b, &n, &why), -1);
	assert_non_null(why);
	free(ev);
	export_pcap_name(&c.rows[1], 3, name, sizeof(name));
	assert_string_equal(name, "0003-198.19.0.1-80-s7.pcapng");
	history_close(h);
	store_close(st, NULL, 0);
}

/* What tells an earlier export's files: a name of export_pcap_name's
 * shape (never a path, a hidden file or another's), and an earlier
 * manifest's "file" members read one at a time, whatever else it holds. */
static void
test_pcap_stale(void **state)
{
	static const struct {
		const char *name;
		bool own;
		unsigned row;
	} names[] = {
		{ "0003-198.19.0.1-80-s7.pcapng", true, 3 },
		{ "12345-fd00_5ca1_100__16-443-s14.pcapng", true, 12345 },
		{ "0001-198.18.0.1--1-s-1.pcapng", true, 1 },
		{ "003-198.19.0.1-80-s7.pcapng", false, 0 },		/* 4 digits at least */
		{ "0003-198.19.0.1-80-s7.pcapng.bak", false, 0 },
		{ "0003-../etc-80-s7.pcapng", false, 0 },
		{ "0003-a/b-80-s7.pcapng", false, 0 },
		{ ".0003-198.19.0.1-80-s7.pcapng", false, 0 },
		{ "0003--80-s7.pcapng", false, 0 },
		{ "0003-198.19.0.1-80-7.pcapng", false, 0 },
		{ "0003-198.19.0.1-123456-s7.pcapng", false, 0 },
		{ "notes.txt", false, 0 },
		{ "manifest.json", false, 0 },
		{ "", false, 0 },
	};
	/* nested "file" keys, a "file" inside a string, null files, an
	 * escaped name: only the array's objects' plain strings */
	static const char manifest[] =
	    "[{\"file\":\"0001-a-80-s7.pcapng\",\"packets\":7,\"target\":\"x\\\"file\\\":\\\"0009-b-1-s0.pcapng\","
	    "\"option_diff\":{\"file\":\"0008-c-1-s0.pcapng\"}},\n"
	    " {\"file\": null, \"why\": \"no evidence\"},\n"
	    " {\"packets\":1, \"file\" : \"0003-d-443-s14.pcapng\"},"
	    " {\"file\":\"0004-e\\u0041-1-s0.pcapng\"}]\n";
	struct export_manifest m;
	char name[64];
	unsigned row;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		row = 0;
		assert_int_equal(export_pcap_own_name(names[i].name, &row), names[i].own);
		if (names[i].own)
			assert_int_equal(row, names[i].row);
	}
	assert_non_null(f = fmemopen((void *)manifest, sizeof(manifest) - 1, "r"));
	export_pcap_manifest_begin(&m, f);
	assert_int_equal(export_pcap_manifest_next(&m, name, sizeof(name)), 1);
	assert_string_equal(name, "0001-a-80-s7.pcapng");
	assert_int_equal(export_pcap_manifest_next(&m, name, sizeof(name)), 1);
	assert_string_equal(name, "0003-d-443-s14.pcapng");
	assert_int_equal(export_pcap_manifest_next(&m, name, sizeof(name)), 1);
	assert_string_equal(name, "");		/* escaped: none of ours */
	assert_int_equal(export_pcap_manifest_next(&m, name, sizeof(name)), 0);
	assert_int_equal(export_pcap_manifest_next(&m, name, sizeof(name)), 0);
	fclose(f);
	/* not a manifest: an object, text, a cut array */
	static const char *const bad[] = { "{\"file\":\"0001-a-1-s0.pcapng\"}", "hello",
	    "[{\"file\":\"0001-a-1-s0.pcapng\"}, {\"file\":\"00", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		assert_non_null(f = fmemopen((void *)bad[i], strlen(bad[i]) + 1, "r"));
		export_pcap_manifest_begin(&m, f);
		while ((r = export_pcap_manifest_next(&m, name, sizeof(name))) == 1)
			;
		assert_int_equal(r, -1);
		fclose(f);
	}
}

/* A store edited by hand: nothing read is trusted. */
static void
test_hand_edited(void **state)
{
	char err[STORE_ERRLEN];
	struct store *st = fill();
	struct history *h;
	struct show_fold f = { 0 };
	struct history_query q = { "198.19.0.1", -1, INT64_MIN, NULL };
	struct history_export_query eq = { { "rewritten" }, 1, INT64_MIN, NULL };
	struct collect c = { .n = 0 };
	uint8_t *ev;
	size_t evlen;

	(void)state;
	if (store_exec(st,
	    "PRAGMA foreign_keys = OFF;"
	    "PRAGMA ignore_check_constraints = ON;"
	    "UPDATE scale_results SET scale_quoted = 'zero', hop_index = 99999,"
	    "  hop_address = NULL, scale_sent = -4 WHERE idx = 1;"
	    "UPDATE runs SET vantage = x'00ff41' WHERE vantage = 'v1';"
	    "UPDATE runs SET vantage = 'esc' || char(27) || '[2J' WHERE vantage LIKE 'lab%';"
	    "UPDATE targets SET spec = 'host' || char(7) || char(13) || id;"
	    "UPDATE evidence SET bytes = x'0102';"
	    "UPDATE side_findings SET kind = x'41ff', hop_index = 'x';") != 0)
		fail_msg("%s", store_error(st));
	assert_non_null(h = history_open(st, err, sizeof(err)));
	assert_int_equal(history_show(h, &q, fold_cb, &f), 0);
	assert_int_equal(f.n, 6);
	for (size_t i = 0; i < f.n; i++) {
		assert_true(f.v[i].last.scale_quoted == -1 || f.v[i].last.scale_quoted == 0);
		assert_non_null(f.v[i].last.vantage);
		if (f.v[i].last.scale_sent < 0)
			assert_int_equal(f.v[i].last.hop_index, -1);
	}
	for (size_t i = 0; i < f.n; i++) {
		struct finding_collect fc = { &f, &f.v[i] };

		assert_int_equal(history_findings(h, f.v[i].last.path_result_id,
		    f.v[i].last.scale_idx, finding_cb, &fc), 0);
		for (size_t k = 0; k < f.v[i].nfi; k++)
			assert_int_equal(f.v[i].fi[k].hop_index, -1);
	}
	{
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		struct json j;

		/* what a terminal would act on never reaches it */
		assert_non_null(mem);
		show_render_text(mem, &f);
		fclose(mem);
		assert_true(len > 0);
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)text[i] < 0x20 && text[i] != '\n') || text[i] == 0x7f)
				fail_msg("byte 0x%02x at %zu of the text", text[i], i);
		assert_non_null(strstr(text, "esc\\x1b[2J"));
		free(text);
		json_init(&j);
		for (size_t i = 0; i < f.n; json_reset(&j))
			i = show_render_json(&j, &f, i);
		json_free(&j);
	}
	show_fold_free(&f);
	assert_int_equal(history_export(h, &eq, collect_cb, &c), 0);
	assert_true(c.n > 0);
	assert_int_equal(history_evidence(h, c.rows[0].path_result_id, &ev, &evlen), 0);
	{
		static uint8_t space[EXPORT_PCAP_MAX];
		struct pcapng_buf b = { space, 0, sizeof(space), false };
		const char *why = NULL;
		int n;

		assert_int_equal(export_pcap_build(&c.rows[0], ev, evlen, &b, &n, &why), -1);
		assert_non_null(why);
	}
	free(ev);
	history_close(h);
	store_close(st, NULL, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_series),
		cmocka_unit_test(test_csv_row),
		cmocka_unit_test(test_json_row),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_show_store),
		cmocka_unit_test(test_show_plan),
		cmocka_unit_test(test_export_store),
		cmocka_unit_test(test_export_pcap),
		cmocka_unit_test(test_pcap_stale),
		cmocka_unit_test(test_hand_edited),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
