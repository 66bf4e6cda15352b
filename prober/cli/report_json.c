/*
 * report_json.c -- the report as one JSON object: the same sections as
 * the text, times in RFC 3339 UTC, days as UTC dates, and every problem's
 * advice per side (report_json's fields are scaleprobe(1)'s), written out
 * piece by piece.  Pure.
 */
#include <stdint.h>
#include <string.h>

#include "flow_branch.h"
#include "json.h"
#include "report.h"
#include "silent_hops.h"

static void
jtime(struct json *j, const char *key, int64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000) };

	json_ktime(j, key, &ts);
}

static void
jpath(struct json *j, const struct report_row *r)
{
	json_kstring(j, "vantage", r->vantage);
	json_kstring(j, "address", r->address);
	json_kint(j, "port", r->port);
	json_kstring(j, "family", r->v6 ? "ipv6" : "ipv4");
	jtime(j, "time", r->time_ns);
}

static void
jhop(struct json *j, const char *addr, int idx, const char *clean, int cidx, uint32_t silent)
{
	json_key(j, "hop");
	if (addr == NULL) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kstring(j, "address", addr);
	json_kint(j, "index", idx);
	json_kstring(j, "last_clean_address", clean);
	json_kint(j, "last_clean_index", clean != NULL ? cidx : 0);
	if (silent != 0) {	/* as probe --json prints it */
		json_kbool(j, "exact", false);
		silent_hops_json(j, "silent_hops", silent);
	}
	json_object_end(j);
}

static int jflush(struct json *j, FILE *f);

/* -1 when the list could not be read or written; each change leaves as
 * it is made */
static int
jchanges(struct json *j, FILE *f, const char *key, const struct report_changes *l)
{
	const struct report_change *c;
	struct report_iter it;
	int rc = 0;

	json_key(j, key);
	json_array_begin(j);
	if (report_iter_begin(&it, l) != 0)
		return -1;
	while ((c = report_iter_next(&it)) != NULL) {
		json_object_begin(j);
		jpath(j, &c->to);
		json_kstring(j, "from", report_verdict_label(c->from));
		json_kstring(j, "to", report_verdict_label(c->to.verdict));
		jhop(j, c->to.hop_address, c->to.hop_index, c->to.clean_address,
		    c->to.clean_index, c->to.hop_silent);
		json_object_end(j);
		rc |= jflush(j, f);
	}
	if (it.failed)
		rc = -1;
	report_iter_end(&it);
	json_array_end(j);
	return rc;
}

static int
jsection(struct json *j, FILE *f, const struct report_section *s)
{
	int rc = 0;

	char d[11];

	json_kuint(j, "paths", s->paths);
	json_kuint(j, "results", s->results);
	json_key(j, "days");
	json_array_begin(j);
	for (size_t k = 0; k < s->ndays; k++) {
		json_object_begin(j);
		report_day_name(s->days[k].day, d);
		json_kstring(j, "day", d);
		json_key(j, "paths");
		json_object_begin(j);
		for (int i = 0; i < REPORT_NVERDICTS; i++)
			json_kuint(j, report_verdict_label(report_verdict_order[i]),
			    s->days[k].count[report_verdict_order[i]]);
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	rc |= jchanges(j, f, "newly_broken", &s->broken);
	rc |= jchanges(j, f, "newly_fixed", &s->fixed);
	json_key(j, "hops");
	json_array_begin(j);
	for (size_t i = 0; i < s->nhops; i++) {
		const struct report_hop *h = &s->hops[i];

		json_object_begin(j);
		json_kstring(j, "address", h->address);
		json_kint(j, "index", h->hop_index);
		json_kstring(j, "last_clean_address", h->clean_address);
		json_kint(j, "last_clean_index", h->clean_address != NULL ? h->clean_index : 0);
		if (h->silent != 0) {
			json_kbool(j, "exact", false);
			silent_hops_json(j, "silent_hops", h->silent);
		}
		json_kuint(j, "paths", h->paths);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "side_findings");
	json_object_begin(j);
	for (unsigned b = 0; b < REPORT_NFINDINGS; b++)
		if (report_finding_label(b) != NULL)
			json_kuint(j, report_finding_label(b), s->findings[b]);
	json_object_end(j);
	return rc;
}

static void
jadvice(struct json *j, const struct advice *a)
{
	json_object_begin(j);
	json_kstring(j, "text", a->text);
	json_kstring(j, "command", a->command[0] != '\0' ? a->command : NULL);
	json_kstring(j, "fallback", a->fallback[0] != '\0' ? a->fallback : NULL);
	json_object_end(j);
}

/* What j holds so far, written to f and dropped: the document leaves in
 * pieces (a problem's advice at a time), never whole in memory. */
static int
jflush(struct json *j, FILE *f)
{
	size_t len;
	const char *text = json_text(j, &len);
	int rc = fwrite(text, 1, len, f) == len ? 0 : -1;

	json_clear_text(j);
	return rc;
}

/* Several vantages: "side_by_side", a path each with its last verdict
 * per vantage and the hop each saw; "split" when it is broken from one
 * vantage and fine from another (the box on the broken ones' route). */
static int
jside(struct json *j, FILE *f, const struct report *rep)
{
	int rc = 0;
	bool split;

	json_key(j, "side_by_side");
	json_array_begin(j);
	for (size_t i = 0, to; i < rep->nside; i = to) {
		const struct report_row *p = &rep->side[i];

		to = report_side_next(rep, i, &split);
		json_object_begin(j);
		json_kstring(j, "address", p->address);
		json_kint(j, "port", p->port);
		json_kstring(j, "family", p->v6 ? "ipv6" : "ipv4");
		json_kbool(j, "split", split);
		json_key(j, "broken_from");
		json_array_begin(j);
		for (size_t k = i; k < to; k++)
			if (report_is_problem(rep->side[k].verdict))
				json_string(j, rep->side[k].vantage);
		json_array_end(j);
		json_key(j, "fine_from");
		json_array_begin(j);
		for (size_t k = i; k < to; k++)
			if (rep->side[k].verdict == VERDICT_OK ||
			    rep->side[k].verdict == VERDICT_UNSUPPORTED)
				json_string(j, rep->side[k].vantage);
		json_array_end(j);
		json_key(j, "vantages");
		json_array_begin(j);
		for (size_t k = i; k < to; k++) {
			const struct report_row *r = &rep->side[k];

			json_object_begin(j);
			json_kstring(j, "vantage", r->vantage);
			json_kstring(j, "verdict", report_verdict_label(r->verdict));
			jtime(j, "time", r->time_ns);
			jhop(j, r->hop_address, r->hop_index, r->clean_address, r->clean_index,
			    r->hop_silent);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
		rc |= jflush(j, f);
	}
	json_array_end(j);
	return rc;
}

int
report_json(const struct report *rep, FILE *f)
{
	struct advice a;
	struct json j;
	int rc = 0;

	json_init(&j);
	json_object_begin(&j);
	if (rep->since_ns != INT64_MIN)
		jtime(&j, "since", rep->since_ns);
	else
		json_knull(&j, "since");
	if (rep->until_ns != INT64_MAX)
		jtime(&j, "until", rep->until_ns);
	else
		json_knull(&j, "until");
	json_key(&j, "verdicts");
	json_array_begin(&j);
	for (int i = 0; i < REPORT_NVERDICTS; i++)
		json_string(&j, report_verdict_label(report_verdict_order[i]));
	json_array_end(&j);
	rc |= jsection(&j, f, &rep->all);
	rc |= jflush(&j, f);
	json_key(&j, "problems");
	json_array_begin(&j);
	for (size_t i = 0; i < rep->all.nproblems; i++) {
		const struct report_problem *p = &rep->all.problems[i];
		const struct report_row *r = &p->row;

		json_object_begin(&j);
		jpath(&j, r);
		json_kstring(&j, "verdict", report_verdict_label(r->verdict));
		json_kbool(&j, "raised", (r->findings & REPORT_RAISED_BIT) != 0 &&
		    r->scale_applied > r->scale_sent);
		if (r->scale_sent >= 0)
			json_kint(&j, "scale_sent", r->scale_sent);
		else
			json_knull(&j, "scale_sent");
		if (r->scale_applied >= 0)
			json_kint(&j, "scale_applied", r->scale_applied);
		else
			json_knull(&j, "scale_applied");
		jhop(&j, r->hop_address, r->hop_index, r->clean_address, r->clean_index,
		    r->hop_silent);
		/* as probe --json and export: only for a path of several flows */
		if (r->flows > 1) {
			json_kint(&j, "flows", r->flows);
			json_kint(&j, "flows_affected", r->flows_affected);
			flow_branch_json(&j, &r->branch);
		}
		json_key(&j, "advice");
		json_object_begin(&j);
		json_key(&j, "client");
		report_problem_advice(p, ADVICE_CLIENT, &a);
		jadvice(&j, &a);
		json_key(&j, "server");
		report_problem_advice(p, ADVICE_SERVER, &a);
		jadvice(&j, &a);
		json_object_end(&j);
		json_object_end(&j);
		rc |= jflush(&j, f);
	}
	json_array_end(&j);
	json_key(&j, "vantages");
	json_array_begin(&j);
	for (size_t i = 0; i < rep->nvantages; i++) {
		json_object_begin(&j);
		json_kstring(&j, "vantage", rep->vantages[i].vantage);
		rc |= jsection(&j, f, &rep->vantages[i]);
		json_object_end(&j);
		rc |= jflush(&j, f);
	}
	json_array_end(&j);
	if (rep->nside > 0)
		rc |= jside(&j, f, rep);
	json_object_end(&j);
	if (!json_ok(&j) || jflush(&j, f) != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		rc = -1;
	json_free(&j);
	return rc;
}
