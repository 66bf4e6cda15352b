/*
 * report_text.c -- the report for a terminal: times in local time, the day
 * table, changes, boxes, findings, and the advice wrapped for 88 columns.
 * Also the day and time names every rendering shares.  Pure: writes to
 * the FILE handed in.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flow_branch.h"
#include "report.h"
#include "silent_hops.h"
#include "textsafe.h"

/* H. Hinnant's civil_from_days */
void
report_day_name(int64_t days, char buf[11])
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1;
	int64_t m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = yoe + era * 400 + (m <= 2);

	if (y < 0 || y > 9999) {
		snprintf(buf, 11, "-");
		return;
	}
	snprintf(buf, 11, "%04d-%02d-%02d", (int)y, (int)m, (int)d);
}

void
report_local_time(const struct report *rep, int64_t ns, char buf[24])
{
	int64_t t = ns / 1000000000;
	int64_t s = t + (rep->utcoff != NULL ? rep->utcoff(t) : 0);
	int64_t day = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
	int64_t sod = s - day * 86400;
	char d[11];

	report_day_name(day, d);
	/* the zone named: the offset of local time, or Z when there is none */
	if (rep->utcoff == NULL) {
		snprintf(buf, 24, "%s %02d:%02dZ", d, (int)(sod / 3600), (int)(sod / 60 % 60));
	} else {
		int64_t off = s - t, a = off < 0 ? -off : off;

		snprintf(buf, 24, "%s %02d:%02d %c%02d%02d", d, (int)(sod / 3600),
		    (int)(sod / 60 % 60), off < 0 ? '-' : '+', (int)(a / 3600 % 100),
		    (int)(a / 60 % 60));
	}
}

/* s for a terminal: a store is only text, and a control character in a
 * vantage's name or an address must not break a line, ring or move the
 * cursor (textsafe.h) */
static const char *
safe(const char *s, char *buf, size_t len)
{
	return textsafe_str(s, buf, len);
}

static void
path_name(const struct report_row *r, char *buf, size_t len)
{
	char a[128];

	snprintf(buf, len, r->v6 ? "[%s]:%u" : "%s:%u", safe(r->address, a, sizeof(a)), r->port);
}

static bool
verdict_used(const struct report_section *s, enum verdict v)
{
	for (size_t i = 0; i < s->ndays; i++)
		if (s->days[i].count[v] != 0)
			return true;
	return false;
}

static void
text_days(const struct report_section *s, FILE *f)
{
	char d[11];

	fprintf(f, "Paths per verdict per day (each path once, its last result of the day)\n");
	if (s->ndays == 0) {
		fprintf(f, "  no results\n");
		return;
	}
	fprintf(f, "  %-10s", "day");
	for (int i = 0; i < REPORT_NVERDICTS; i++)
		if (verdict_used(s, report_verdict_order[i]))
			fprintf(f, " %*s", (int)strlen(report_verdict_label(report_verdict_order[i])) < 5 ?
			    5 : (int)strlen(report_verdict_label(report_verdict_order[i])),
			    report_verdict_label(report_verdict_order[i]));
	fprintf(f, " %6s\n", "paths");
	for (size_t k = 0; k < s->ndays; k++) {
		unsigned total = 0;

		report_day_name(s->days[k].day, d);
		fprintf(f, "  %-10s", d);
		for (int i = 0; i < REPORT_NVERDICTS; i++) {
			enum verdict v = report_verdict_order[i];
			int w = (int)strlen(report_verdict_label(v));

			total += s->days[k].count[v];
			if (verdict_used(s, v))
				fprintf(f, " %*u", w < 5 ? 5 : w, s->days[k].count[v]);
		}
		fprintf(f, " %6u\n", total);
	}
}

/* "between A (hop 1) and B (hop 4); hops 2-3 did not answer": where
 * the box is when the interval holds silent TTLs, none of them named as
 * the box (clean NULL: the prober) */
static void
interval(FILE *f, const char *clean, int clean_index, const char *hop, int hop_index,
    uint32_t silent)
{
	char a[128], b[128], s[96];

	fprintf(f, "between %s (hop %d) and %s (hop %d); %s did not answer",
	    clean != NULL ? safe(clean, a, sizeof(a)) : "the prober",
	    clean != NULL ? clean_index : 0, safe(hop, b, sizeof(b)), hop_index,
	    silent_hops_name(silent, s, sizeof(s)));
}

/* -1 when the list could not be read */
static int
text_changes(const struct report *rep, const char *title, const struct report_changes *l,
    size_t n, bool vantage, FILE *f)
{
	char when[24], p[64], v[256];
	const struct report_change *c;
	struct report_iter it;
	bool failed;

	fprintf(f, "%s: %zu\n", title, n);
	if (report_iter_begin(&it, l) != 0)
		return -1;
	while ((c = report_iter_next(&it)) != NULL) {
		report_local_time(rep, c->to.time_ns, when);
		path_name(&c->to, p, sizeof(p));
		fprintf(f, "  %s  %-28s %s -> %s", when, p, report_verdict_label(c->from),
		    report_verdict_label(c->to.verdict));
		if (vantage)
			fprintf(f, "  (vantage %s)", safe(c->to.vantage, v, sizeof(v)));
		if (report_is_problem(c->to.verdict) && c->to.hop_address != NULL) {
			if (c->to.hop_silent != 0) {
				fputs("  ", f);
				interval(f, c->to.clean_address, c->to.clean_index,
				    c->to.hop_address, c->to.hop_index, c->to.hop_silent);
			} else {
				fprintf(f, "  at %s (hop %d)", safe(c->to.hop_address, v,
				    sizeof(v)), c->to.hop_index);
			}
		}
		fputc('\n', f);
	}
	failed = it.failed;
	report_iter_end(&it);
	return failed ? -1 : 0;
}

static int
text_section(const struct report *rep, const struct report_section *s, bool vantage, FILE *f)
{
	bool any = false;
	int rc = 0;

	fprintf(f, "%u paths, %u results\n\n", s->paths, s->results);
	text_days(s, f);
	fputc('\n', f);
	rc |= text_changes(rep, "Newly broken", &s->broken, s->nbroken, vantage, f);
	rc |= text_changes(rep, "Newly fixed", &s->fixed, s->nfixed, vantage, f);
	fprintf(f, "\nHops named as the place of damage (paths each damages, last results)\n");
	for (size_t i = 0; i < s->nhops; i++) {
		const struct report_hop *h = &s->hops[i];

		char a[128], b[128];

		if (h->silent != 0) {
			fputs("  ", f);
			interval(f, h->clean_address, h->clean_index, h->address, h->hop_index,
			    h->silent);
			fprintf(f, ": %u path%s\n", h->paths, h->paths == 1 ? "" : "s");
			continue;
		}
		fprintf(f, "  %-28s hop %-2d after %s (hop %d): %u path%s\n",
		    safe(h->address, a, sizeof(a)), h->hop_index,
		    h->clean_address != NULL ? safe(h->clean_address, b, sizeof(b)) : "the prober",
		    h->clean_address != NULL ? h->clean_index : 0, h->paths, h->paths == 1 ? "" : "s");
	}
	if (s->nhops == 0)
		fprintf(f, "  none\n");
	fprintf(f, "\nSide findings (paths, last results)\n");
	for (unsigned b = 0; b < REPORT_NFINDINGS; b++)
		if (s->findings[b] != 0 && report_finding_label(b) != NULL) {
			fprintf(f, "  %-16s %u\n", report_finding_label(b), s->findings[b]);
			any = true;
		}
	if (!any)
		fprintf(f, "  none\n");
	return rc;
}

/* text as lines of at most WRAP columns, the first after lead, the others
 * indented by indent (a word longer than a line stands alone) */
#define WRAP 88
static void
wrap(FILE *f, const char *lead, int indent, const char *raw)
{
	char buf[4 * ADVICE_TEXTLEN];
	const char *text = safe(raw, buf, sizeof(buf));	/* it names the store's addresses */
	int col = fprintf(f, "%s", lead);
	bool fresh = false;		/* at the start of a continued line */

	while (*text != '\0') {
		const char *end = strchr(text, ' ');
		int len = end != NULL ? (int)(end - text) : (int)strlen(text);

		if (!fresh && col + 1 + len > WRAP) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			fresh = true;
		}
		if (!fresh) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, (size_t)len, f);
		col += len;
		fresh = false;
		text += len;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

/* A problem probed over several flows (--flows): on how many, and where
 * they part; nothing for one flow, so such a report reads as before. */
static void
text_flows(FILE *f, const struct report_row *r)
{
	char p[FLOW_BRANCH_TEXT], c[FLOW_BRANCH_TEXT];

	if (r->flows < 2)
		return;
	fprintf(f, "    flows: a problem on %d of %d%s\n", r->flows_affected, r->flows,
	    r->flows_affected > 0 && r->flows_affected < r->flows ?
	    " (load-balanced: connections break or not by their source port)" : "");
	if (r->branch.hop_index <= 0)
		return;
	flow_branch_side_format(r->branch.problem, r->branch.nproblem, p, sizeof(p));
	flow_branch_side_format(r->branch.clean, r->branch.nclean, c, sizeof(c));
	fprintf(f, "    branch: at hop %d the flows with the problem went via %s, "
	    "those without via %s\n", r->branch.hop_index, p, c);
}

static void
text_advice(const struct report *rep, FILE *f)
{
	const struct report_section *s = &rep->all;
	char when[24], p[64], v[1024];

	fprintf(f, "\nProblems and what to do (%zu path%s)\n", s->nproblems,
	    s->nproblems == 1 ? "" : "s");
	for (size_t i = 0; i < s->nproblems && i < REPORT_SHOWN; i++) {
		const struct report_problem *pr = &s->problems[i];
		const struct report_row *r = &pr->row;

		report_local_time(rep, r->time_ns, when);
		path_name(r, p, sizeof(p));
		fprintf(f, "\n  %s %s (vantage %s, %s)", p, report_verdict_label(r->verdict),
		    safe(r->vantage, v, sizeof(v)), when);
		if (r->scale_sent >= 0)
			fprintf(f, ": scale %d sent", r->scale_sent);
		if (r->verdict == VERDICT_REWRITTEN && r->scale_sent >= 0 && r->scale_applied >= 0)
			fprintf(f, ", %d applied", r->scale_applied);
		fputc('\n', f);
		text_flows(f, r);
		for (int side = ADVICE_CLIENT; side <= ADVICE_SERVER; side++) {
			struct advice adv, *a = &adv;

			char lead[32];

			report_problem_advice(pr, (enum advice_side)side, a);
			snprintf(lead, sizeof(lead), "    %s side:",
			    advice_side_name((enum advice_side)side));
			wrap(f, lead, 6, a->text);
			if (a->command[0] != '\0')
				fprintf(f, "      run: %s\n", safe(a->command, v, sizeof(v)));
		}
	}
	if (s->nproblems > REPORT_SHOWN)
		fprintf(f, "\n  and %zu more paths with a problem: --format json has the advice "
		    "for each, scaleprobe export lists them\n", s->nproblems - REPORT_SHOWN);
}

/* "A rewritten (hop 2 198.18.1.1)": a vantage's last verdict on a path
 * and the hop it saw the damage at */
static void
side_cell(FILE *f, const struct report_row *r)
{
	char v[256], h[128];

	fprintf(f, "%s %s", safe(r->vantage, v, sizeof(v)), report_verdict_label(r->verdict));
	if (report_is_problem(r->verdict) && r->hop_address != NULL)
		fprintf(f, " (hop %d %s%s)", r->hop_index, safe(r->hop_address, h, sizeof(h)),
		    r->hop_silent != 0 ? ", inexact" : "");
}

/* The vantages of one path, split into the broken and the fine ones. */
static void
side_split(FILE *f, const struct report *rep, size_t from, size_t to)
{
	char p[160], v[256];
	bool first = true;

	path_name(&rep->side[from], p, sizeof(p));
	fprintf(f, "  %s: broken from ", p);
	for (size_t i = from; i < to; i++)
		if (report_is_problem(rep->side[i].verdict)) {
			fputs(first ? "" : " and ", f);
			side_cell(f, &rep->side[i]);
			first = false;
		}
	fputs("; fine from ", f);
	first = true;
	for (size_t i = from; i < to; i++)
		if (rep->side[i].verdict == VERDICT_OK ||
		    rep->side[i].verdict == VERDICT_UNSUPPORTED) {
			fprintf(f, "%s%s", first ? "" : " and ",
			    safe(rep->side[i].vantage, v, sizeof(v)));
			first = false;
		}
	fputs(" -- the box sits on the route of the broken vantages, not at the server\n", f);
}

/* Several vantages: the paths measured differently from them first (the
 * strongest evidence of where a box sits), then every path's verdict per
 * vantage side by side. */
static void
text_side(const struct report *rep, FILE *f)
{
	size_t nsplit = 0;
	bool split;
	char p[160];

	fprintf(f, "\n== paths side by side (each vantage's last result)\n");
	for (size_t i = 0, to; i < rep->nside; i = to) {
		to = report_side_next(rep, i, &split);
		if (split) {
			if (nsplit++ == 0)
				fprintf(f, "broken from some vantages, fine from others:\n");
			side_split(f, rep, i, to);
		}
	}
	if (nsplit == 0)
		fprintf(f, "no path is broken from one vantage and fine from another\n");
	fprintf(f, "per path:\n");
	for (size_t i = 0, to; i < rep->nside; i = to) {
		to = report_side_next(rep, i, &split);
		path_name(&rep->side[i], p, sizeof(p));
		fprintf(f, "  %s:", p);
		for (size_t k = i; k < to; k++) {
			fputs(k > i ? ", " : " ", f);
			side_cell(f, &rep->side[k]);
		}
		fputc('\n', f);
	}
}

int
report_text(const struct report *rep, FILE *f)
{
	char a[24], b[24], v[256];
	int rc = 0;

	if (rep->since_ns != INT64_MIN)
		report_local_time(rep, rep->since_ns, a);
	if (rep->until_ns != INT64_MAX)
		report_local_time(rep, rep->until_ns, b);
	fprintf(f, "scaleprobe report, %s to %s (local time)\n",
	    rep->since_ns != INT64_MIN ? a : "the first result",
	    rep->until_ns != INT64_MAX ? b : "the last");
	if (rep->nvantages > 1) {
		fprintf(f, "%zu vantages, a section each below:\n", rep->nvantages);
		for (size_t i = 0; i < rep->nvantages; i++)
			fprintf(f, "  %s\n", safe(rep->vantages[i].vantage, v, sizeof(v)));
		text_side(rep, f);
		fprintf(f, "\n== every vantage\n");
	}
	rc |= text_section(rep, &rep->all, rep->nvantages > 1, f);
	for (size_t i = 0; i < rep->nvantages; i++) {
		fprintf(f, "\n== vantage %s\n", safe(rep->vantages[i].vantage, v, sizeof(v)));
		rc |= text_section(rep, &rep->vantages[i], false, f);
	}
	text_advice(rep, f);
	return rc == 0 && fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
