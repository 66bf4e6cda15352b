/*
 * test_report.c -- the report's numbers from rows made by hand (a path
 * broken, fixed and broken again; one first seen broken; a baseline before
 * the window; two vantages; days cut at local midnight), and its three
 * renderings: the text's tables, the JSON's fields, the HTML's bars (each
 * sized count x unit) and its escaping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"
#include "vantage_filter.h"

#define DAY0	((int64_t)20790 * 86400)	/* 2026-12-03T00:00:00Z */
#define NS(d, h)	(((int64_t)(DAY0 + (d) * 86400 + (h) * 3600)) * 1000000000)

static struct report_row
row(const char *vantage, const char *addr, unsigned port, int64_t t, enum verdict v)
{
	struct report_row r;
	static int64_t id;

	memset(&r, 0, sizeof(r));
	r.id = ++id;
	r.vantage = vantage;
	r.address = addr;
	r.port = port;
	r.v6 = strchr(addr, ':') != NULL;
	r.time_ns = t;
	r.verdict = v;
	r.scale_sent = r.scale_applied = r.ok_scale = -1;
	r.hop_index = r.clean_index = -1;
	r.mss = -1;
	if (v == VERDICT_REWRITTEN || v == VERDICT_STRIPPED || v == VERDICT_SYN_DROPPED) {
		r.scale_sent = 7;
		r.scale_applied = v == VERDICT_REWRITTEN ? 0 : -1;
		r.ok_scale = v == VERDICT_REWRITTEN ? 0 : -1;
		r.hop_address = strcmp(addr, "198.18.100.16") == 0 ? "198.18.4.2" : "198.18.3.2";
		r.hop_index = strcmp(addr, "198.18.100.16") == 0 ? 4 : 3;
		r.clean_address = "198.18.2.2";
		r.clean_index = 2;
	}
	if (v == VERDICT_OK)
		r.ok_scale = 14;
	return r;
}

static int
by_path_time(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c;

	if ((c = strcmp(x->vantage, y->vantage)) != 0)
		return c;
	if ((c = strcmp(x->address, y->address)) != 0)
		return c;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The story, window [day 0, day 6):
 *   east  198.18.100.11:80  ok (baseline, day -1), rewritten d0, ok d2, rewritten d5
 *   east  198.18.100.15:80  stripped d0 (first seen broken: no change), stripped d2
 *   east  198.18.100.1:80   ok d0, ok d0 later (one per day), ok d2, ok d5; mss clamp
 *   east  [fd00::16]:80     syn-dropped d0 (no hop), closed d2, syn-dropped d5: no change
 *   west  198.18.100.16:80  syn-dropped d3 (hop 4)
 *   west  198.18.100.11:80  rewritten d3 23:30 UTC (day 4 at UTC+1)
 */
static struct report_row rows_v[32];
static struct report_rows rows;

static void
make_rows(void)
{
	size_t n = 0;

	rows_v[n] = row("east", "198.18.100.11", 80, NS(-1, 10), VERDICT_OK);
	rows_v[n++].baseline = true;
	rows_v[n++] = row("east", "198.18.100.11", 80, NS(0, 10), VERDICT_REWRITTEN);
	rows_v[n++] = row("east", "198.18.100.11", 80, NS(2, 10), VERDICT_OK);
	rows_v[n++] = row("east", "198.18.100.11", 80, NS(5, 9), VERDICT_REWRITTEN);
	rows_v[n++] = row("east", "198.18.100.15", 80, NS(0, 10), VERDICT_STRIPPED);
	rows_v[n++] = row("east", "198.18.100.15", 80, NS(2, 10), VERDICT_STRIPPED);
	rows_v[n++] = row("east", "198.18.100.1", 80, NS(0, 10), VERDICT_CLOSED);
	rows_v[n++] = row("east", "198.18.100.1", 80, NS(0, 11), VERDICT_OK);
	rows_v[n++] = row("east", "198.18.100.1", 80, NS(2, 10), VERDICT_OK);
	rows_v[n] = row("east", "198.18.100.1", 80, NS(5, 9), VERDICT_OK);
	rows_v[n++].findings = 1u << FINDING_MSS_CLAMPED;
	rows_v[n] = row("east", "fd00::16", 80, NS(0, 10), VERDICT_SYN_DROPPED);
	rows_v[n].hop_address = NULL;
	rows_v[n++].hop_index = -1;
	rows_v[n++] = row("east", "fd00::16", 80, NS(2, 10), VERDICT_CLOSED);
	rows_v[n] = row("east", "fd00::16", 80, NS(5, 9), VERDICT_SYN_DROPPED);
	rows_v[n].hop_address = NULL;
	rows_v[n++].hop_index = -1;
	rows_v[n++] = row("we<st>", "198.18.100.16", 80, NS(3, 14), VERDICT_SYN_DROPPED);
	rows_v[n] = row("we<st>", "198.18.100.11", 80, NS(3, 23) + 1800000000000LL,
	    VERDICT_REWRITTEN);
	rows_v[n].scale_sent = 0;
	rows_v[n].scale_applied = 14;
	rows_v[n++].findings = REPORT_RAISED_BIT;
	qsort(rows_v, n, sizeof(rows_v[0]), by_path_time);
	rows.v = rows_v;
	rows.n = n;
}

static long
utc_plus_1(int64_t t)
{
	(void)t;
	return 3600;
}

/* Change i of a list, in the order reading gives them. */
static struct report_change
change_at(const struct report_changes *l, size_t i)
{
	struct report_change out;
	const struct report_change *c;
	struct report_iter it;
	size_t k = 0;

	memset(&out, 0, sizeof(out));
	assert_int_equal(report_iter_begin(&it, l), 0);
	while ((c = report_iter_next(&it)) != NULL && k++ < i)
		;
	assert_non_null(c);
	out = *c;
	assert_false(it.failed);
	report_iter_end(&it);
	return out;
}

static const struct report_day *
day(const struct report_section *s, int d)
{
	for (size_t i = 0; i < s->ndays; i++)
		if (s->days[i].day == DAY0 / 86400 + d)
			return &s->days[i];
	return NULL;
}

static void
test_numbers(void **state)
{
	struct report rep;
	const struct report_day *d;

	(void)state;
	make_rows();
	assert_int_equal(report_build(&rows, NS(0, 0), NS(6, 0), NULL, &rep), 0);
	/* paths and results: the baseline is neither */
	assert_int_equal(rep.all.paths, 6);
	assert_int_equal(rep.all.results, 14);
	assert_int_equal(rep.all.ndays, 4);	/* days 0, 2, 3, 5 */
	assert_non_null(d = day(&rep.all, 0));
	/* day 0: .11 rewritten, .15 stripped, .1 ok (its last of the day), ::16 syn-dropped */
	assert_int_equal(d->count[VERDICT_REWRITTEN], 1);
	assert_int_equal(d->count[VERDICT_STRIPPED], 1);
	assert_int_equal(d->count[VERDICT_OK], 1);
	assert_int_equal(d->count[VERDICT_CLOSED], 0);
	assert_int_equal(d->count[VERDICT_SYN_DROPPED], 1);
	assert_non_null(d = day(&rep.all, 2));
	assert_int_equal(d->count[VERDICT_OK], 2);
	assert_int_equal(d->count[VERDICT_CLOSED], 1);
	assert_int_equal(d->count[VERDICT_STRIPPED], 1);
	assert_non_null(d = day(&rep.all, 3));
	assert_int_equal(d->count[VERDICT_SYN_DROPPED], 1);
	assert_int_equal(d->count[VERDICT_REWRITTEN], 1);
	/* .11 east: baseline ok -> rewritten d0 (broken), ok d2 (fixed),
	 * rewritten d5 (broken); ::16's closed in between changes nothing,
	 * .15 and west's were never seen healthy */
	assert_int_equal(rep.all.nbroken, 2);
	assert_int_equal(rep.all.nfixed, 1);
	assert_int_equal(change_at(&rep.all.broken, 0).to.time_ns, NS(0, 10));
	assert_int_equal(change_at(&rep.all.broken, 0).from, VERDICT_OK);
	assert_true(change_at(&rep.all.broken, 0).from_baseline);
	assert_int_equal(change_at(&rep.all.broken, 1).to.time_ns, NS(5, 9));
	assert_int_equal(change_at(&rep.all.fixed, 0).to.time_ns, NS(2, 10));
	/* last results: .11 east rewritten (3.2), .15 stripped (3.2),
	 * ::16 syn-dropped (not located), west .16 (4.2), west .11 (3.2) */
	assert_int_equal(rep.all.nproblems, 5);
	assert_int_equal(rep.all.nhops, 2);
	assert_string_equal(rep.all.hops[0].address, "198.18.3.2");
	assert_int_equal(rep.all.hops[0].paths, 3);
	assert_string_equal(rep.all.hops[1].address, "198.18.4.2");
	assert_int_equal(rep.all.hops[1].paths, 1);
	assert_int_equal(rep.all.findings[FINDING_MSS_CLAMPED], 1);
	assert_int_equal(rep.all.findings[16], 1);
	/* two vantages: a section each, adding up */
	assert_int_equal(rep.nvantages, 2);
	assert_string_equal(rep.vantages[0].vantage, "east");
	assert_int_equal(rep.vantages[0].paths, 4);
	assert_int_equal(rep.vantages[1].paths, 2);
	assert_int_equal(rep.vantages[0].nbroken + rep.vantages[1].nbroken, rep.all.nbroken);
	assert_int_equal(rep.vantages[1].ndays, 1);
	report_free(&rep);

	/* at UTC+1 west's 23:30 UTC result belongs to day 4 */
	assert_int_equal(report_build(&rows, NS(0, 0), NS(6, 0), utc_plus_1, &rep), 0);
	assert_int_equal(rep.all.ndays, 5);
	assert_int_equal(day(&rep.all, 4)->count[VERDICT_REWRITTEN], 1);
	assert_int_equal(day(&rep.all, 3)->count[VERDICT_REWRITTEN], 0);
	report_free(&rep);
}

/* Every rendering of the same report, into memory. */
static char *
render(int (*fn)(const struct report *, FILE *), const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(rep, f), 0);
	fclose(f);
	return buf;
}

static struct report
advised(void)
{
	struct report rep;

	make_rows();
	assert_int_equal(report_build(&rows, NS(0, 0), NS(6, 0), NULL, &rep), 0);
	for (size_t i = 0; i < rep.all.nproblems; i++) {
		snprintf(rep.all.problems[i].gw, sizeof(rep.all.problems[i].gw), "198.18.1.2");
		snprintf(rep.all.problems[i].dev, sizeof(rep.all.problems[i].dev), "east");
	}
	return rep;
}

static void
test_text(void **state)
{
	struct report rep = advised();
	char *t = render(report_text, &rep);

	(void)state;
	assert_non_null(strstr(t, "2026-12-03 00:00Z to 2026-12-09 00:00Z"));
	assert_non_null(strstr(t, "2 vantages, a section each below:\n  east\n  we<st>\n\n"
	    "== paths side by side (each vantage's last result)\n"));
	assert_non_null(strstr(t, "\n\n== every vantage\n"));
	/* the day table: only the verdicts seen, each path once a day */
	assert_non_null(strstr(t, "  day           ok rewritten stripped syn-dropped closed  paths\n"
	    "  2026-12-03     1         1        1           1      0      4\n"));
	assert_non_null(strstr(t, "Newly broken: 2\n  2026-12-03 10:00Z  198.18.100.11:80"));
	assert_non_null(strstr(t, "ok -> rewritten  (vantage east)  at 198.18.3.2 (hop 3)"));
	assert_non_null(strstr(t, "Newly fixed: 1\n  2026-12-05 10:00Z  198.18.100.11:80"));
	assert_non_null(strstr(t, "  198.18.3.2                   hop 3  after 198.18.2.2 (hop 2): 3 paths"));
	assert_non_null(strstr(t, "  raised-shift     1\n"));
	assert_non_null(strstr(t, "Problems and what to do (5 paths)"));
	assert_non_null(strstr(t, "run: ip route replace 198.18.100.11/32 via 198.18.1.2 dev east "
	    "window 65535\n"));
	assert_non_null(strstr(t, "== vantage we<st>\n2 paths, 2 results"));
	/* the advice wrapped for a terminal: no line of it over 88 columns */
	for (char *l = strstr(t, "Problems and what to do"), *e; l != NULL && *l != '\0'; l = e + 1) {
		if ((e = strchr(l, '\n')) == NULL)
			break;
		if (strncmp(l, "    ", 4) == 0 && e - l > 88)
			fail_msg("a line of %d columns: %.*s", (int)(e - l), (int)(e - l), l);
	}
	free(t);
	report_free(&rep);
}

static void
test_json(void **state)
{
	struct report rep = advised();
	char *t = render(report_json, &rep);

	(void)state;
	assert_non_null(strstr(t, "\"since\":\"2026-12-03T00:00:00.000Z\",\"until\":\"2026-12-09T00:00:00.000Z\""));
	assert_non_null(strstr(t, "{\"day\":\"2026-12-03\",\"paths\":{\"ok\":1,\"unsupported\":0,"
	    "\"rewritten\":1,\"stripped\":1,\"syn-dropped\":1,\"closed\":0,"));
	assert_non_null(strstr(t, "\"newly_broken\":[{\"vantage\":\"east\",\"address\":\"198.18.100.11\","
	    "\"port\":80,\"family\":\"ipv4\",\"time\":\"2026-12-03T10:00:00.000Z\",\"from\":\"ok\","
	    "\"to\":\"rewritten\""));
	assert_non_null(strstr(t, "\"hops\":[{\"address\":\"198.18.3.2\",\"index\":3,"
	    "\"last_clean_address\":\"198.18.2.2\",\"last_clean_index\":2,\"paths\":3}"));
	assert_non_null(strstr(t, "\"advice\":{\"client\":{\"text\":\"Connections from here to 198.18.100.11"));
	assert_non_null(strstr(t, "\"command\":\"ip route replace 198.18.100.11/32 via 198.18.1.2 dev east window 65535\""));
	assert_non_null(strstr(t, "\"raised\":true,\"scale_sent\":0,\"scale_applied\":14"));
	assert_non_null(strstr(t, "\"vantages\":[{\"vantage\":\"east\",\"paths\":4"));
	assert_non_null(strstr(t, "\"side_findings\":{\"mss-clamped\":1,"));
	assert_int_equal(t[strlen(t) - 1], '\n');
	assert_null(strchr(t, '\n') + 1 == t + strlen(t) ? NULL : "one line");
	free(t);
	report_free(&rep);
}

/* Each bar's height is its count times the chart's unit; one colour per
 * verdict, the same in the bars, the legend and the badges. */
static void
test_html(void **state)
{
	struct report rep = advised();
	char *t = render(report_html, &rep), *p;
	unsigned bars = 0, sum = 0;
	double unit;

	(void)state;
	assert_non_null(p = strstr(t, "<svg class=\"chart main\""));
	assert_non_null(p = strstr(p, "data-unit=\""));
	unit = strtod(p + 11, NULL);
	assert_true(unit > 1);
	for (p = t; (p = strstr(p, "<rect data-verdict=\"")) != NULL; p++) {
		char v[20], d[11], colour[8];
		unsigned count;
		double h;
		const char *q = strstr(p, "height=\""), *fill = strstr(p, "fill=\"");

		assert_int_equal(sscanf(p, "<rect data-verdict=\"%19[^\"]\" data-day=\"%10[^\"]\" "
		    "data-count=\"%u\"", v, d, &count), 3);
		assert_non_null(q);
		h = strtod(q + 8, NULL);
		if (p < strstr(t, "<svg class=\"chart\"")) {	/* the main chart */
			assert_true(h > count * unit - 0.01 && h < count * unit + 0.01);
			sum += count;
		}
		assert_int_equal(sscanf(fill, "fill=\"%7[^\"]\"", colour), 1);
		for (int i = 0; i < REPORT_NVERDICTS; i++)
			if (strcmp(report_verdict_label(report_verdict_order[i]), v) == 0)
				assert_string_equal(colour, report_verdict_colour(report_verdict_order[i]));
		bars++;
	}
	/* every path once a day: 4 + 4 + 2 + 3 results stand for their days */
	assert_int_equal(sum, 13);
	assert_true(bars > 10);
	/* the palette once, as CSS, for legends and badges */
	assert_non_null(strstr(t, ".v-rewritten{background:#d62728}"));
	assert_non_null(strstr(t, "<span class=\"badge v-rewritten\">rewritten</span>"));
	/* nothing fetched, no script; the vantage escaped */
	assert_null(strstr(t, "<script"));
	assert_null(strstr(t, "src="));
	assert_null(strstr(t, "href="));
	assert_null(strstr(t, "url("));
	assert_null(strstr(t, "@import"));
	assert_null(strstr(t, "we<st>"));
	assert_non_null(strstr(t, "we&lt;st&gt;"));
	free(t);
	report_free(&rep);
}

static size_t
count(const char *t, const char *what)
{
	size_t n = 0;

	for (const char *p = t; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* Many problems: text and HTML advise the first REPORT_SHOWN, the ones
 * that break connections first, and say how many more; JSON has all. */
static void
test_many_problems(void **state)
{
	static struct report_row many[REPORT_SHOWN + 10];
	static char addr[REPORT_SHOWN + 10][20];
	struct report_rows rs = { many, REPORT_SHOWN + 10, 0, NULL, 0, 0 };
	struct report rep;
	char *t;

	(void)state;
	for (int i = 0; i < REPORT_SHOWN + 10; i++) {
		snprintf(addr[i], sizeof(addr[i]), "198.18.%d.%d", 100 + i / 200, i % 200);
		many[i] = row("east", addr[i], 80, NS(0, 1), i == REPORT_SHOWN + 5 ?
		    VERDICT_SYN_DROPPED : VERDICT_STRIPPED);
	}
	qsort(many, REPORT_SHOWN + 10, sizeof(many[0]), by_path_time);
	assert_int_equal(report_build(&rs, INT64_MIN, INT64_MAX, NULL, &rep), 0);
	assert_int_equal(rep.all.nproblems, REPORT_SHOWN + 10);
	assert_int_equal(rep.all.problems[0].row.verdict, VERDICT_SYN_DROPPED);
	t = render(report_text, &rep);
	assert_non_null(strstr(t, "and 10 more paths with a problem"));
	assert_int_equal(count(t, "    client side:"), REPORT_SHOWN);
	assert_non_null(strstr(t, "syn-dropped (vantage east"));
	free(t);
	t = render(report_html, &rep);
	assert_int_equal(count(t, "<div class=\"advice\">"), REPORT_SHOWN);
	assert_non_null(strstr(t, "and 10 more paths with a problem"));
	free(t);
	t = render(report_json, &rep);
	assert_int_equal(count(t, "\"advice\":{\"client\""), REPORT_SHOWN + 10);
	free(t);
	report_free(&rep);
}

/* What a store holds is only text: its escape sequences, bells and C1
 * controls never reach the terminal, a newline never breaks a line. */
static void
test_terminal(void **state)
{
	static struct report_row r[2];
	struct report_rows rs = { r, 2, 0, NULL, 0, 0 };
	struct report rep;
	char *t;

	(void)state;
	r[0] = row("v\x1b[31m\a\nx", "198.18.100.11", 80, NS(0, 1), VERDICT_OK);
	r[0].baseline = true;
	r[1] = row("v\x1b[31m\a\nx", "198.18.100.11", 80, NS(1, 1), VERDICT_REWRITTEN);
	r[1].hop_address = "198.18.3.2\xc2\x9b" "2J";
	assert_int_equal(report_build(&rs, NS(0, 12), INT64_MAX, NULL, &rep), 0);
	t = render(report_text, &rep);
	assert_null(strchr(t, 0x1b));
	assert_null(strchr(t, 0x07));
	assert_null(strstr(t, "\xc2\x9b"));
	assert_non_null(strstr(t, "(vantage v\\x1b[31m\\x07\\nx, "));
	assert_non_null(strstr(t, "at 198.18.3.2\\u009b2J (hop 3)"));
	free(t);
	report_free(&rep);
}

/* A vantage seen only before --since (its rows all baseline) gets no
 * section of its own: with one vantage left in the window, none. */
static void
test_vantage_only_before(void **state)
{
	static struct report_row r[4];
	struct report_rows rs = { r, 4, 0, NULL, 0, 0 };
	struct report rep;

	(void)state;
	r[0] = row("east", "198.18.100.11", 80, NS(-2, 1), VERDICT_OK);
	r[0].baseline = true;
	r[1] = row("east", "198.18.100.11", 80, NS(1, 1), VERDICT_REWRITTEN);
	r[2] = row("gone", "198.18.100.11", 80, NS(-3, 1), VERDICT_OK);
	r[2].baseline = true;
	r[3] = row("west", "198.18.100.11", 80, NS(2, 1), VERDICT_OK);
	assert_int_equal(report_build(&rs, NS(0, 0), INT64_MAX, NULL, &rep), 0);
	assert_int_equal(rep.nvantages, 2);
	assert_string_equal(rep.vantages[0].vantage, "east");
	assert_string_equal(rep.vantages[1].vantage, "west");
	assert_int_equal(rep.vantages[0].results, 1);
	assert_int_equal(rep.vantages[1].results, 1);
	report_free(&rep);
	rs.n = 3;		/* east and gone: only east in the window */
	assert_int_equal(report_build(&rs, NS(0, 0), INT64_MAX, NULL, &rep), 0);
	assert_int_equal(rep.nvantages, 0);
	assert_int_equal(rep.all.results, 1);
	report_free(&rep);
}

/* Several vantages: each path's last result per vantage side by side, by
 * address, port, vantage; split only when a problem from one vantage
 * meets a healthy result from another (closed measured nothing); one
 * vantage: nothing side by side. */
static void
test_side_by_side(void **state)
{
	static struct report_row r[8];
	struct report_rows rs = { r, 8, 0, NULL, 0, 0 };
	struct report rep;
	size_t to;
	bool split;

	(void)state;
	/* in report_query's order: vantage, address, port, time */
	r[0] = row("A", "198.18.100.1", 80, NS(1, 1), VERDICT_OK);
	r[1] = row("A", "198.18.100.11", 80, NS(1, 1), VERDICT_OK);
	r[2] = row("A", "198.18.100.11", 80, NS(1, 2), VERDICT_REWRITTEN);
	r[3] = row("B", "198.18.100.1", 80, NS(1, 1), VERDICT_CLOSED);
	r[4] = row("B", "198.18.100.11", 80, NS(1, 1), VERDICT_REWRITTEN);
	r[5] = row("B", "198.18.100.11", 80, NS(1, 2), VERDICT_OK);
	r[6] = row("C", "198.18.100.1", 80, NS(1, 1), VERDICT_REWRITTEN);
	r[7] = row("C", "198.18.100.11", 80, NS(1, 1), VERDICT_UNSUPPORTED);
	assert_int_equal(report_build(&rs, INT64_MIN, INT64_MAX, NULL, &rep), 0);
	assert_int_equal(rep.nside, 6);
	/* 198.18.100.1: ok, closed, rewritten: A's ok against C's problem */
	to = report_side_next(&rep, 0, &split);
	assert_int_equal(to, 3);
	assert_true(split);
	assert_string_equal(rep.side[0].vantage, "A");
	assert_string_equal(rep.side[1].vantage, "B");
	assert_int_equal(rep.side[1].verdict, VERDICT_CLOSED);
	assert_int_equal(rep.side[2].verdict, VERDICT_REWRITTEN);
	assert_string_equal(rep.side[2].hop_address, "198.18.3.2");
	/* 198.18.100.11: each vantage's last result: rewritten, ok, unsupported */
	to = report_side_next(&rep, 3, &split);
	assert_int_equal(to, 6);
	assert_true(split);
	assert_int_equal(rep.side[3].verdict, VERDICT_REWRITTEN);
	assert_int_equal(rep.side[4].verdict, VERDICT_OK);
	report_free(&rep);
	/* B without C: 198.18.100.1 closed and ok, not split */
	rs.n = 6;
	assert_int_equal(report_build(&rs, INT64_MIN, INT64_MAX, NULL, &rep), 0);
	to = report_side_next(&rep, 0, &split);
	assert_int_equal(to, 2);
	assert_false(split);
	report_free(&rep);
	/* A alone: nothing side by side */
	rs.n = 3;
	assert_int_equal(report_build(&rs, INT64_MIN, INT64_MAX, NULL, &rep), 0);
	assert_int_equal(rep.nside, 0);
	assert_null(rep.side);
	report_free(&rep);
}

/* --vantage: repeated and comma lists add up; an empty name refused. */
static void
test_vantage_filter(void **state)
{
	struct vantage_filter vf;

	(void)state;
	memset(&vf, 0, sizeof(vf));
	assert_true(vantage_filter_match(&vf, "any"));
	assert_null(vantage_filter_one(&vf));
	assert_int_equal(vantage_filter_add(&vf, "A"), 0);
	assert_string_equal(vantage_filter_one(&vf), "A");
	assert_int_equal(vantage_filter_add(&vf, "B,C"), 0);
	assert_int_equal(vf.n, 3);
	assert_null(vantage_filter_one(&vf));
	assert_true(vantage_filter_match(&vf, "C"));
	assert_false(vantage_filter_match(&vf, "AB"));
	assert_false(vantage_filter_match(&vf, NULL));
	assert_int_equal(vantage_filter_add(&vf, "D,"), -1);
	assert_int_equal(vantage_filter_add(&vf, ""), -1);
	assert_int_equal(vantage_filter_add(&vf, ",E"), -1);
	vantage_filter_free(&vf);
	assert_int_equal(vf.n, 0);
	for (int i = 0; i < VANTAGE_FILTER_MAX; i++)
		assert_int_equal(vantage_filter_add(&vf, "x"), 0);
	assert_int_equal(vantage_filter_add(&vf, "y"), -1);
	vantage_filter_free(&vf);
}

/* report_add keeps what it needs of a row: each row handed over in
 * buffers overwritten right after (as report_query's are) makes the same
 * report, byte for byte in every rendering, as the rows held whole. */
static void
test_streamed(void **state)
{
	struct report whole, streamed;
	char vantage[64], address[64], hop[64], clean[64];
	int (*fmts[])(const struct report *, FILE *) = { report_text, report_json, report_html };

	(void)state;
	make_rows();
	assert_int_equal(report_build(&rows, NS(0, 0), NS(6, 0), NULL, &whole), 0);
	assert_int_equal(report_begin(&streamed, NS(0, 0), NS(6, 0), NULL), 0);
	for (size_t i = 0; i < rows.n; i++) {
		struct report_row r = rows.v[i];

		snprintf(vantage, sizeof(vantage), "%s", r.vantage);
		snprintf(address, sizeof(address), "%s", r.address);
		r.vantage = vantage;
		r.address = address;
		if (r.hop_address != NULL)
			r.hop_address = strcpy(hop, r.hop_address);
		if (r.clean_address != NULL)
			r.clean_address = strcpy(clean, r.clean_address);
		assert_int_equal(report_add(&streamed, &r), 0);
		memset(vantage, 'X', sizeof(vantage) - 1);
		memset(address, 'X', sizeof(address) - 1);
		memset(hop, 'X', sizeof(hop) - 1);
		memset(clean, 'X', sizeof(clean) - 1);
		vantage[63] = address[63] = hop[63] = clean[63] = '\0';
	}
	assert_int_equal(report_end(&streamed), 0);
	for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		char *a = render(fmts[k], &whole), *b = render(fmts[k], &streamed);

		assert_string_equal(a, b);
		assert_null(strstr(b, "XXXX"));
		free(a);
		free(b);
	}
	report_free(&whole);
	report_free(&streamed);
}

/* What the report holds follows the paths and days, not the results:
 * 200,000 results of 20 paths over 10 days fold into 10 days, 20 paths
 * and the changes there are (a path flapping every 1,000th result), and
 * the days still count each path once. */
static void
test_bounded(void **state)
{
	struct report rep;
	char addr[20][20];
	unsigned changes = 0;

	(void)state;
	for (int p = 0; p < 20; p++)
		snprintf(addr[p], sizeof(addr[p]), "198.18.100.%d", p + 1);
	assert_int_equal(report_begin(&rep, INT64_MIN, INT64_MAX, NULL), 0);
	for (int p = 0; p < 20; p++)
		for (int i = 0; i < 10000; i++) {
			/* path 0 flaps: rewritten for its results 1000..1999, 3000..3999, ... */
			enum verdict v = p == 0 && (i / 1000) % 2 == 1 ? VERDICT_REWRITTEN :
			    i % 3 == 0 ? VERDICT_CLOSED : VERDICT_OK;
			struct report_row r = row("east", addr[p], 80,
			    NS(i / 1000, 0) + (int64_t)(i % 1000) * 1000000000LL, v);

			assert_int_equal(report_add(&rep, &r), 0);
		}
	assert_int_equal(report_end(&rep), 0);
	/* path 0: ok -> rewritten at 1000, 3000, ..., 9000; back at 2000, ... 8000 */
	changes = (unsigned)(rep.all.nbroken + rep.all.nfixed);
	assert_int_equal(rep.all.results, 200000);
	assert_int_equal(rep.all.paths, 20);
	assert_int_equal(rep.all.ndays, 10);
	assert_int_equal(rep.all.nbroken, 5);
	assert_int_equal(rep.all.nfixed, 4);
	assert_int_equal(changes, 9);
	assert_int_equal(rep.all.nproblems, 1);		/* path 0 ends rewritten */
	assert_int_equal(rep.all.nhops, 1);
	assert_int_equal(rep.all.hops[0].paths, 1);
	for (size_t d = 0; d < rep.all.ndays; d++) {
		unsigned n = 0;

		for (int v = 0; v < REPORT_NVERDICTS; v++)
			n += rep.all.days[d].count[v];
		assert_int_equal(n, 20);
	}
	assert_int_equal(rep.all.days[1].count[VERDICT_REWRITTEN], 1);
	assert_int_equal(rep.all.days[2].count[VERDICT_REWRITTEN], 0);
	assert_int_equal(rep.nvantages, 0);
	report_free(&rep);
}

/* More changes than a run holds: the full runs go to a temporary file
 * and reading merges them, every change once, in time order (then id),
 * whichever path and run it came from; the text lists them all. */
static void
test_spilled(void **state)
{
	enum { PATHS = 7, RESULTS = 3001 };	/* 7 x 1500 of each: runs of 4096 */
	struct report rep;
	char addr[PATHS][20];
	const struct report_change *c;
	struct report_iter it;
	int64_t last_t = INT64_MIN, last_id = 0;
	size_t n = 0, per_path[PATHS] = { 0 };
	char *t;

	(void)state;
	for (int p = 0; p < PATHS; p++)
		snprintf(addr[p], sizeof(addr[p]), "198.18.100.%d", p + 1);
	assert_int_equal(report_begin(&rep, INT64_MIN, INT64_MAX, NULL), 0);
	/* each path flaps every result, its times interleaved with the others' */
	for (int p = 0; p < PATHS; p++)
		for (int i = 0; i < RESULTS; i++) {
			struct report_row r = row("east", addr[p], 80,
			    NS(0, 0) + ((int64_t)i * PATHS + (PATHS - 1 - p)) * 1000000000LL,
			    i % 2 ? VERDICT_REWRITTEN : VERDICT_OK);

			assert_int_equal(report_add(&rep, &r), 0);
		}
	assert_int_equal(report_end(&rep), 0);
	assert_int_equal(rep.all.nbroken, PATHS * (RESULTS / 2));
	assert_int_equal(rep.all.nfixed, PATHS * (RESULTS / 2));
	assert_true(rep.all.broken.nruns >= 2);
	assert_non_null(rep.all.broken.spill);
	assert_int_equal(report_iter_begin(&it, &rep.all.broken), 0);
	while ((c = report_iter_next(&it)) != NULL) {
		assert_true(c->to.time_ns > last_t ||
		    (c->to.time_ns == last_t && c->to.id > last_id));
		last_t = c->to.time_ns;
		last_id = c->to.id;
		assert_int_equal(c->from, VERDICT_OK);
		assert_int_equal(c->to.verdict, VERDICT_REWRITTEN);
		assert_int_equal(strncmp(c->to.address, "198.18.100.", 11), 0);
		per_path[atoi(c->to.address + 11) - 1]++;
		n++;
	}
	assert_false(it.failed);
	report_iter_end(&it);
	assert_int_equal(n, rep.all.nbroken);
	for (int p = 0; p < PATHS; p++)
		assert_int_equal(per_path[p], RESULTS / 2);
	/* the text's lines, one at a time (a search of the whole text per
	 * match would take ASan seconds) */
	t = render(report_text, &rep);
	n = 0;
	for (char *line = t, *nl; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		n += strstr(line, " ok -> rewritten") != NULL;
		n += strstr(line, " rewritten -> ok") != NULL;
	}
	assert_int_equal(n, 2 * PATHS * (RESULTS / 2));
	free(t);
	report_free(&rep);
}

/* The colours: one per verdict, all different. */
static void
test_palette(void **state)
{
	(void)state;
	for (int i = 0; i < REPORT_NVERDICTS; i++)
		for (int k = i + 1; k < REPORT_NVERDICTS; k++)
			assert_string_not_equal(report_verdict_colour(report_verdict_order[i]),
			    report_verdict_colour(report_verdict_order[k]));
	char d[11];
	report_day_name(0, d);
	assert_string_equal(d, "1970-01-01");
	report_day_name(DAY0 / 86400, d);
	assert_string_equal(d, "2026-12-03");
	report_day_name(-1, d);
	assert_string_equal(d, "1969-12-31");
}

/* Every human-readable time names its zone: the local offset, or Z. */
static long
plus_one(int64_t t)
{
	(void)t;
	return 3600;
}

static long
minus_nine_thirty(int64_t t)
{
	(void)t;
	return -(9 * 3600 + 30 * 60);
}

static void
test_local_time_zone(void **state)
{
	struct report rep;
	char b[24];

	(void)state;
	memset(&rep, 0, sizeof(rep));
	rep.utcoff = NULL;
	report_local_time(&rep, NS(0, 9), b);
	assert_string_equal(b, "2026-12-03 09:00Z");
	rep.utcoff = plus_one;
	report_local_time(&rep, NS(0, 9), b);
	assert_string_equal(b, "2026-12-03 10:00 +0100");
	rep.utcoff = minus_nine_thirty;
	report_local_time(&rep, NS(0, 9), b);
	assert_string_equal(b, "2026-12-02 23:30 -0930");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_vantage_only_before),
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_vantage_filter),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_many_problems),
		cmocka_unit_test(test_terminal),
		cmocka_unit_test(test_streamed),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_spilled),
		cmocka_unit_test(test_palette),
		cmocka_unit_test(test_local_time_zone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
