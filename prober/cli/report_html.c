/*
 * report_html.c -- the report as one self-contained HTML file: inline CSS,
 * inline SVG charts (paths per verdict per day, stacked), tables, advice;
 * nothing fetched, no script.  One colour per verdict (report.c's palette)
 * in every chart, legend and badge.
 *
 * The charts are made to be checked: every bar segment is a <rect> with
 * data-verdict, data-day and data-count, its height count x the chart's
 * data-unit pixels; the plot area of the first chart has a background of
 * its own colour (PLOT_MAIN) so a screenshot finds it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flow_branch.h"
#include "log.h"
#include "report.h"
#include "silent_hops.h"
#include "textsafe.h"

#define PLOT_MAIN	"#f7f5ee"	/* the first chart's plot area */
#define PLOT_OTHER	"#f3f3f3"	/* the per-vantage charts' */

/* s HTML-escaped, its controls escaped first (textsafe.h): a page saved
 * from a store is also read with cat and less */
static void
esc(FILE *f, const char *raw)
{
	char *buf;
	const char *s;
	size_t n;

	if (raw == NULL)
		return;
	n = strlen(raw);
	buf = xmalloc(TEXTSAFE_SIZE(n));
	s = textsafe(buf, TEXTSAFE_SIZE(n), raw, n, 0);
	for (; *s != '\0'; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	free(buf);
}

static void
badge(FILE *f, enum verdict v)
{
	fprintf(f, "<span class=\"badge v-%s\">%s</span>", report_verdict_label(v),
	    report_verdict_label(v));
}

static const char css[] =
	"*{box-sizing:border-box}"
	"body{margin:0;background:#fff;color:#1d232a;font:15px/1.45 system-ui,-apple-system,"
	"'Segoe UI',Roboto,'DejaVu Sans',sans-serif}"
	"main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}"
	"h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 10px}"
	"h3{font-size:15px;margin:18px 0 6px}"
	".sub{color:#5b6570;margin:0 0 18px}"
	".cards{display:flex;flex-wrap:wrap;gap:12px;margin:0 0 8px}"
	".card{border:1px solid #dde1e5;border-radius:8px;padding:10px 16px;min-width:130px}"
	".card b{display:block;font-size:22px}.card span{color:#5b6570;font-size:13px}"
	".legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:6px 0 8px;font-size:13px}"
	".legend i{display:inline-block;width:12px;height:12px;border-radius:2px;"
	"margin-right:5px;vertical-align:-1px}"
	"svg{display:block;width:100%;height:auto}"
	"svg text{font:12px system-ui,'DejaVu Sans',sans-serif;fill:#5b6570}"
	"table{border-collapse:collapse;width:100%;font-size:14px;margin:4px 0 8px}"
	"th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e7eaed;vertical-align:top}"
	"th{font-weight:600;color:#3b4650;background:#fafbfc}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	".badge{display:inline-block;padding:0 7px;border-radius:9px;color:#fff;font-size:12px;"
	"font-weight:600;line-height:18px}"
	".advice{border:1px solid #dde1e5;border-radius:8px;padding:10px 14px;margin:10px 0}"
	".advice p{margin:6px 0}code{font:13px ui-monospace,'DejaVu Sans Mono',monospace;"
	"background:#f2f4f6;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}"
	".none{color:#5b6570}";

static void
palette_css(FILE *f)
{
	for (int i = 0; i < REPORT_NVERDICTS; i++) {
		enum verdict v = report_verdict_order[i];

		fprintf(f, ".v-%s{background:%s}", report_verdict_label(v), report_verdict_colour(v));
	}
	/* a light badge needs dark text */
	fprintf(f, ".v-stripped,.v-inconclusive,.v-none{color:#1d232a}");
}

static unsigned
day_total(const struct report_day *d)
{
	unsigned t = 0;

	for (int i = 0; i < REPORT_NVERDICTS; i++)
		t += d->count[i];
	return t;
}

/* A step for the y axis: 1, 2 or 5 times a power of ten, about 5 ticks. */
static unsigned
tick_step(unsigned max)
{
	unsigned step = 1;

	for (;;) {
		if (max / step <= 5)
			return step;
		if (max / (step * 2) <= 5)
			return step * 2;
		if (max / (step * 5) <= 5)
			return step * 5;
		step *= 10;
	}
}

/* Stacked bars, one per day, in verdict order from the bottom, on the
 * days first..last (every chart of the report on the same axis; a day
 * without results is a gap, not left out). */
static void
chart(FILE *f, const struct report_section *s, bool main_chart, const char *title,
    int64_t first, int64_t last)
{
	size_t nslots = s->ndays > 0 ? (size_t)(last - first + 1) : 0;
	const int W = 1000, H = main_chart ? 300 : 200, L = 48, R = 12, T = 12, B = 30;
	const int pw = W - L - R, ph = H - T - B;
	unsigned max = 1, step;
	double slot, bw, unit;

	for (size_t k = 0; k < s->ndays; k++)
		if (day_total(&s->days[k]) > max)
			max = day_total(&s->days[k]);
	step = tick_step(max);
	max = (max + step - 1) / step * step;
	unit = (double)ph / max;
	slot = nslots > 0 ? (double)pw / nslots : pw;
	bw = slot * 0.7 > 64 ? 64 : slot * 0.7;
	fprintf(f, "<svg class=\"chart%s\" viewBox=\"0 0 %d %d\" data-unit=\"%.6f\" "
	    "shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"", main_chart ? " main" : "",
	    W, H, unit);
	esc(f, title);
	fprintf(f, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	fprintf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
	    L, T, pw, ph, main_chart ? PLOT_MAIN : PLOT_OTHER);
	for (unsigned y = 0; y <= max; y += step) {
		double py = T + ph - y * unit;

		if (y > 0 && y < max)
			fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#ffffff\"/>\n",
			    L, L + pw, py, py);
		fprintf(f, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%u</text>\n", L - 6, py + 4, y);
	}
	for (size_t k = 0, di = 0; k < nslots; k++) {
		static const struct report_day none;
		const struct report_day *d = &none;
		double x = L + slot * k + (slot - bw) / 2, y = T + ph;
		size_t every = nslots / 14 + 1;
		char name[11];

		if (di < s->ndays && s->days[di].day == first + (int64_t)k)
			d = &s->days[di++];
		report_day_name(first + (int64_t)k, name);
		for (int i = 0; i < REPORT_NVERDICTS; i++) {
			enum verdict v = report_verdict_order[i];
			double h = d->count[v] * unit;

			if (d->count[v] == 0)
				continue;
			y -= h;
			fprintf(f, "<rect data-verdict=\"%s\" data-day=\"%s\" data-count=\"%u\" "
			    "x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
			    "<title>%s: %u %s</title></rect>\n", report_verdict_label(v), name, d->count[v],
			    x, y, bw, h, report_verdict_colour(v), name, d->count[v],
			    report_verdict_label(v));
		}
		if (k % every == 0)
			fprintf(f, "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			    x + bw / 2, H - 10, name + 5);
	}
	fprintf(f, "</svg>\n");
}

static void
legend(FILE *f, const struct report_section *s)
{
	fprintf(f, "<div class=\"legend\">");
	for (int i = 0; i < REPORT_NVERDICTS; i++) {
		enum verdict v = report_verdict_order[i];
		bool used = false;

		for (size_t k = 0; k < s->ndays && !used; k++)
			used = s->days[k].count[v] != 0;
		if (used)
			fprintf(f, "<span><i class=\"v-%s\"></i>%s</span>", report_verdict_label(v),
			    report_verdict_label(v));
	}
	fprintf(f, "</div>\n");
}

static void
path_cell(FILE *f, const struct report_row *r)
{
	char p[80];

	snprintf(p, sizeof(p), r->v6 ? "[%s]:%u" : "%s:%u", r->address, r->port);
	fputs("<td><code>", f);
	esc(f, p);
	fputs("</code></td>", f);
}

/* "between A (hop 1) and B (hop 4); hops 2-3 did not answer": where
 * the box is when the interval holds silent TTLs, none of them named as
 * the box (clean NULL: the prober) */
static void
interval(FILE *f, const char *clean, int clean_index, const char *hop, int hop_index,
    uint32_t silent)
{
	char s[96];

	fputs("between <code>", f);
	esc(f, clean != NULL ? clean : "the prober");
	fprintf(f, "</code> (hop %d) and <code>", clean != NULL ? clean_index : 0);
	esc(f, hop);
	fprintf(f, "</code> (hop %d); %s did not answer", hop_index,
	    silent_hops_name(silent, s, sizeof(s)));
}

/* -1 when the list could not be read */
static int
changes(FILE *f, const struct report *rep, const char *title, const struct report_changes *l,
    size_t n)
{
	char when[24];
	const struct report_change *c;
	struct report_iter it;
	bool failed;

	fprintf(f, "<h3>%s: %zu</h3>\n", title, n);
	if (n == 0)
		return 0;
	fprintf(f, "<table><tr><th>when</th><th>path</th><th>vantage</th><th>from</th><th>to</th>"
	    "<th>box</th></tr>\n");
	if (report_iter_begin(&it, l) != 0)
		return -1;
	while ((c = report_iter_next(&it)) != NULL) {
		report_local_time(rep, c->to.time_ns, when);
		fprintf(f, "<tr><td>%s</td>", when);
		path_cell(f, &c->to);
		fputs("<td>", f);
		esc(f, c->to.vantage);
		fputs("</td><td>", f);
		badge(f, c->from);
		fputs("</td><td>", f);
		badge(f, c->to.verdict);
		fputs("</td><td>", f);
		if (report_is_problem(c->to.verdict) && c->to.hop_address != NULL &&
		    c->to.hop_silent != 0) {
			interval(f, c->to.clean_address, c->to.clean_index, c->to.hop_address,
			    c->to.hop_index, c->to.hop_silent);
		} else if (report_is_problem(c->to.verdict) && c->to.hop_address != NULL) {
			esc(f, c->to.hop_address);
			fprintf(f, " (hop %d)", c->to.hop_index);
		}
		fputs("</td></tr>\n", f);
	}
	failed = it.failed;
	report_iter_end(&it);
	fputs("</table>\n", f);
	return failed ? -1 : 0;
}

/* -1 when a list of changes could not be read */
static int
section_tables(FILE *f, const struct report *rep, const struct report_section *s)
{
	bool any = false;
	int rc = 0;

	rc |= changes(f, rep, "Newly broken", &s->broken, s->nbroken);
	rc |= changes(f, rep, "Newly fixed", &s->fixed, s->nfixed);
	fprintf(f, "<h3>Hops named as the place of damage</h3>\n");
	if (s->nhops == 0) {
		fprintf(f, "<p class=\"none\">none</p>\n");
	} else {
		fprintf(f, "<table><tr><th>box</th><th class=\"n\">hop</th><th>last clean hop</th>"
		    "<th class=\"n\">paths it damages</th></tr>\n");
		for (size_t i = 0; i < s->nhops; i++) {
			const struct report_hop *h = &s->hops[i];

			if (h->silent != 0) {
				/* no box to name: the interval, across the row */
				fputs("<tr><td colspan=\"3\">", f);
				interval(f, h->clean_address, h->clean_index, h->address,
				    h->hop_index, h->silent);
				fprintf(f, "</td><td class=\"n\">%u</td></tr>\n", h->paths);
				continue;
			}
			fputs("<tr><td><code>", f);
			esc(f, h->address);
			fprintf(f, "</code></td><td class=\"n\">%d</td><td><code>", h->hop_index);
			esc(f, h->clean_address != NULL ? h->clean_address : "the prober");
			fprintf(f, "</code> (hop %d)</td><td class=\"n\">%u</td></tr>\n",
			    h->clean_address != NULL ? h->clean_index : 0, h->paths);
		}
		fputs("</table>\n", f);
	}
	fprintf(f, "<h3>Side findings</h3>\n<table><tr><th>finding</th><th class=\"n\">paths</th></tr>\n");
	for (unsigned b = 0; b < REPORT_NFINDINGS; b++)
		if (s->findings[b] != 0 && report_finding_label(b) != NULL) {
			fprintf(f, "<tr><td>%s</td><td class=\"n\">%u</td></tr>\n",
			    report_finding_label(b), s->findings[b]);
			any = true;
		}
	if (!any)
		fputs("<tr><td class=\"none\">none</td><td></td></tr>\n", f);
	fputs("</table>\n", f);
	return rc;
}

/* A problem probed over several flows (--flows): its share and where the
 * flows part, a paragraph of its card; nothing for one flow. */
static void
flows_html(FILE *f, const struct report_row *r)
{
	char p[FLOW_BRANCH_TEXT], c[FLOW_BRANCH_TEXT];

	if (r->flows < 2)
		return;
	fprintf(f, "<p class=\"flows\"><b>flows:</b> a problem on "
	    "<span class=\"share\">%d of %d</span>", r->flows_affected, r->flows);
	if (r->flows_affected > 0 && r->flows_affected < r->flows)
		fputs(" (load-balanced: connections break or not by their source port)", f);
	if (r->branch.hop_index > 0) {
		flow_branch_side_format(r->branch.problem, r->branch.nproblem, p, sizeof(p));
		flow_branch_side_format(r->branch.clean, r->branch.nclean, c, sizeof(c));
		fprintf(f, "<br><b>branch:</b> at hop <span class=\"branch-hop\">%d</span> "
		    "the flows with the problem went via <code class=\"branch-problem\">",
		    r->branch.hop_index);
		esc(f, p);
		fputs("</code>, those without via <code class=\"branch-clean\">", f);
		esc(f, c);
		fputs("</code>", f);
	}
	fputs("</p>\n", f);
}

static void
advice_html(FILE *f, const struct report *rep)
{
	const struct report_section *s = &rep->all;
	char when[24];

	fprintf(f, "<h2>Problems and what to do</h2>\n");
	if (s->nproblems == 0)
		fprintf(f, "<p class=\"none\">No path's last result is a problem.</p>\n");
	for (size_t i = 0; i < s->nproblems && i < REPORT_SHOWN; i++) {
		const struct report_problem *p = &s->problems[i];
		const struct report_row *r = &p->row;
		char name[80];

		snprintf(name, sizeof(name), r->v6 ? "[%s]:%u" : "%s:%u", r->address, r->port);
		report_local_time(rep, r->time_ns, when);
		fputs("<div class=\"advice\"><b><code>", f);
		esc(f, name);
		fputs("</code></b> ", f);
		badge(f, r->verdict);
		fputs(" <span class=\"none\">vantage ", f);
		esc(f, r->vantage);
		fprintf(f, ", %s", when);
		if (r->scale_sent >= 0)
			fprintf(f, ", scale %d sent", r->scale_sent);
		if (r->verdict == VERDICT_REWRITTEN && r->scale_sent >= 0 && r->scale_applied >= 0)
			fprintf(f, ", %d applied", r->scale_applied);
		fputs("</span>\n", f);
		flows_html(f, r);
		for (int side = ADVICE_CLIENT; side <= ADVICE_SERVER; side++) {
			struct advice adv, *a = &adv;

			report_problem_advice(p, (enum advice_side)side, a);
			fprintf(f, "<p><b>%s side:</b> ", advice_side_name((enum advice_side)side));
			esc(f, a->text);
			if (a->command[0] != '\0') {
				fputs("<br>run: <code>", f);
				esc(f, a->command);
				fputs("</code>", f);
			}
			fputs("</p>\n", f);
		}
		fputs("</div>\n", f);
	}
	if (s->nproblems > REPORT_SHOWN)
		fprintf(f, "<p class=\"none\">and %zu more paths with a problem: "
		    "<code>scaleprobe report --format json</code> has the advice for each, "
		    "<code>scaleprobe export</code> lists them.</p>\n", s->nproblems - REPORT_SHOWN);
}

/* One vantage's cell of a path in the path x vantage table: its last
 * verdict and the hop it saw the damage at. */
static void
side_td(FILE *f, const struct report_row *r)
{
	fputs("<td>", f);
	if (r == NULL) {
		fputs("<span class=\"none\">not probed</span></td>", f);
		return;
	}
	badge(f, r->verdict);
	if (report_is_problem(r->verdict) && r->hop_address != NULL) {
		fprintf(f, " hop %d <code>", r->hop_index);
		esc(f, r->hop_address);
		fputs(r->hop_silent != 0 ? "</code> (inexact)" : "</code>", f);
	}
	fputs("</td>", f);
}

/* Several vantages: the paths broken from some and fine from others (the
 * strongest evidence of where a box sits), then the path x vantage table. */
static void
side_html(FILE *f, const struct report *rep)
{
	bool split;

	fprintf(f, "<h2>Paths per vantage</h2>\n");
	for (size_t i = 0, to; i < rep->nside; i = to) {
		const char *sep = "";

		to = report_side_next(rep, i, &split);
		if (!split)
			continue;
		/* styled here: a report of one vantage keeps its bytes */
		fputs("<p class=\"split\" style=\"border-left:4px solid #c0392b;padding:6px 12px;"
		    "background:#fdf3f2\"><code>", f);
		esc(f, rep->side[i].address);
		fprintf(f, ":%u</code> is broken from ", rep->side[i].port);
		for (size_t k = i; k < to; k++)
			if (report_is_problem(rep->side[k].verdict)) {
				fputs(sep, f);
				fputs("<b>", f);
				esc(f, rep->side[k].vantage);
				fputs("</b>", f);
				sep = " and ";
			}
		fputs(", fine from ", f);
		sep = "";
		for (size_t k = i; k < to; k++)
			if (rep->side[k].verdict == VERDICT_OK ||
			    rep->side[k].verdict == VERDICT_UNSUPPORTED) {
				fputs(sep, f);
				fputs("<b>", f);
				esc(f, rep->side[k].vantage);
				fputs("</b>", f);
				sep = " and ";
			}
		fputs(": the box sits on the route of the broken vantages, not at the server</p>\n",
		    f);
	}
	fputs("<table class=\"side\"><tr><th>path</th>", f);
	for (size_t c = 0; c < rep->nvantages; c++) {
		fputs("<th>", f);
		esc(f, rep->vantages[c].vantage);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0, to; i < rep->nside; i = to) {
		to = report_side_next(rep, i, &split);
		fprintf(f, "<tr%s>", split ? " class=\"split-row\"" : "");
		path_cell(f, &rep->side[i]);
		for (size_t c = 0; c < rep->nvantages; c++) {
			const struct report_row *r = NULL;

			for (size_t k = i; k < to && r == NULL; k++)
				if (strcmp(rep->side[k].vantage, rep->vantages[c].vantage) == 0)
					r = &rep->side[k];
			side_td(f, r);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

int
report_html(const struct report *rep, FILE *f)
{
	char a[24], b[24];
	unsigned problems = 0;
	int64_t first, last;
	int rc = 0;

	for (size_t i = 0; i < rep->all.nproblems; i++)
		problems++;
	if (rep->since_ns != INT64_MIN)
		report_local_time(rep, rep->since_ns, a);
	if (rep->until_ns != INT64_MAX)
		report_local_time(rep, rep->until_ns, b);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	    "<title>scaleprobe report</title>\n<style>%s", css);
	palette_css(f);
	fprintf(f, "</style></head><body><main>\n<h1>scaleprobe report</h1>\n<p class=\"sub\">%s to %s"
	    " (local time)", rep->since_ns != INT64_MIN ? a : "the first result",
	    rep->until_ns != INT64_MAX ? b : "the last");
	if (rep->nvantages > 1) {
		fprintf(f, "; vantages: ");
		for (size_t i = 0; i < rep->nvantages; i++) {
			fputs(i > 0 ? " &middot; " : "", f);
			esc(f, rep->vantages[i].vantage);
		}
	}
	fprintf(f, "</p>\n<div class=\"cards\">"
	    "<div class=\"card\"><b>%u</b><span>paths</span></div>"
	    "<div class=\"card\"><b>%u</b><span>results</span></div>"
	    "<div class=\"card\"><b>%u</b><span>paths with a problem now</span></div>"
	    "<div class=\"card\"><b>%zu</b><span>newly broken</span></div>"
	    "<div class=\"card\"><b>%zu</b><span>newly fixed</span></div></div>\n",
	    rep->all.paths, rep->all.results, problems, rep->all.nbroken, rep->all.nfixed);
	fprintf(f, "<h2>Paths per verdict per day</h2>\n");
	legend(f, &rep->all);
	first = rep->all.ndays > 0 ? rep->all.days[0].day : 0;
	last = rep->all.ndays > 0 ? rep->all.days[rep->all.ndays - 1].day : 0;
	chart(f, &rep->all, true, "paths per verdict per day, every vantage", first, last);
	for (size_t i = 0; i < rep->nvantages; i++) {
		fputs("<h3>vantage ", f);
		esc(f, rep->vantages[i].vantage);
		fputs("</h3>\n", f);
		chart(f, &rep->vantages[i], false, rep->vantages[i].vantage, first, last);
	}
	/* below the charts: the main one keeps its place in the first screen */
	if (rep->nside > 0)
		side_html(f, rep);
	fprintf(f, "<h2>Changes, boxes and findings</h2>\n");
	rc |= section_tables(f, rep, &rep->all);
	advice_html(f, rep);
	for (size_t i = 0; i < rep->nvantages; i++) {
		fputs("<h2>Vantage ", f);
		esc(f, rep->vantages[i].vantage);
		fputs("</h2>\n", f);
		rc |= section_tables(f, rep, &rep->vantages[i]);
	}
	fprintf(f, "</main></body></html>\n");
	return rc == 0 && fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
