/*
 * show_render.c -- a fold as text and as NDJSON (show_render.h).
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "flow_branch.h"
#include "show_render.h"
#include "silent_hops.h"
#include "textsafe.h"
#include "when.h"

void
show_local_time(int64_t t_ns, char *buf, size_t len)
{
	time_t t = (time_t)(t_ns / 1000000000);
	struct tm tm;

	if (t_ns < 0 && t_ns % 1000000000 != 0)
		t--;
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
		snprintf(buf, len, "-");
}

void
show_printable(const char *s, char *buf, size_t len)
{
	textsafe_str(s != NULL ? s : "-", buf, len);
}

/* "7", or "-" for absent */
static const char *
num(int v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", v);
	return buf;
}

static void
text_hop(FILE *f, const struct history_row *r)
{
	char a[256], b[256], s[96];

	if (r->hop_index < 0) {
		fprintf(f, "      hop: not located\n");
		return;
	}
	show_printable(r->hop_address, a, sizeof(a));
	show_printable(r->last_clean_address, b, sizeof(b));
	fprintf(f, "      changed between hop %d (%s, last clean) and hop %d (%s)",
	    r->last_clean_index >= 0 ? r->last_clean_index : 0, b, r->hop_index, a);
	/* a silent TTL inside may be the box: hop %d is not it for sure */
	if (r->hop_silent != 0)
		fprintf(f, "; %s did not answer, so the box is not located exactly",
		    silent_hops_name(r->hop_silent, s, sizeof(s)));
	fputc('\n', f);
}

static void
text_series(FILE *f, const struct show_series *s)
{
	const struct history_row *r = &s->last;
	const struct show_event *cur = &s->ev[s->nev - 1];
	char v[64], t0[64], t1[64], n1[16], n2[16], n3[16], reason[512], x[256], y[256];

	show_printable(r->verdict, v, sizeof(v));
	show_local_time(cur->time_ns, t0, sizeof(t0));
	show_local_time(r->time_ns, t1, sizeof(t1));
	fprintf(f, "    scale %d: %s since %s (latest %s; %" PRId64 " result%s in all)\n",
	    r->scale_sent, v, t0, t1, s->results, s->results == 1 ? "" : "s");
	fprintf(f, "      sent %d, quoted %s, applied %s (window test), SYN-ACK's own %s\n",
	    r->scale_sent, num(r->scale_quoted, n1, sizeof(n1)),
	    num(r->scale_effective, n2, sizeof(n2)), num(r->sa_wscale, n3, sizeof(n3)));
	/* what the daemon found when someone asked, not on its schedule */
	if (s->od_results > 0) {
		show_printable(s->od_verdict, v, sizeof(v));
		show_local_time(s->od_ns, t1, sizeof(t1));
		fprintf(f, "      on demand: %s at %s, asked by uid %u (%" PRId64 " result%s "
		    "on demand)\n", v, t1, (unsigned)s->od_uid, s->od_results,
		    s->od_results == 1 ? "" : "s");
	}
	if (r->flows > 1 && r->flows_affected >= 0)
		fprintf(f, "      flows: a problem on %d of %d (the latest result)\n",
		    r->flows_affected, r->flows);
	if (r->branch.hop_index > 0) {
		char p[FLOW_BRANCH_TEXT], c[FLOW_BRANCH_TEXT];

		flow_branch_side_format(r->branch.problem, r->branch.nproblem, p, sizeof(p));
		flow_branch_side_format(r->branch.clean, r->branch.nclean, c, sizeof(c));
		fprintf(f, "      branch: at hop %d the flows with the problem went via %s, "
		    "those without via %s\n", r->branch.hop_index, p, c);
	}
	if (show_is_problem(r->verdict))
		text_hop(f, r);
	for (size_t i = 0; i < s->nfi; i++) {
		show_printable(s->fi[i].kind, x, sizeof(x));
		show_printable(s->fi[i].detail, y, sizeof(y));
		fprintf(f, "      side finding: %s %s", x, s->fi[i].detail != NULL ? y : "");
		if (s->fi[i].hop_index >= 0) {
			show_printable(s->fi[i].hop_address, x, sizeof(x));
			fprintf(f, " at hop %d (%s)", s->fi[i].hop_index, x);
		}
		fputc('\n', f);
	}
	if (r->reason != NULL) {
		show_printable(r->reason, reason, sizeof(reason));
		fprintf(f, "      why: %s\n", reason);
	}
	for (size_t i = 0; i < s->nev; i++) {
		const struct show_event *e = &s->ev[i];

		show_local_time(e->time_ns, t0, sizeof(t0));
		show_printable(e->verdict, v, sizeof(v));
		fprintf(f, "      %s  %s: %s", t0, show_change_name(e->change), v);
		if (e->results > 1) {
			show_local_time(e->last_ns, t1, sizeof(t1));
			fprintf(f, " (%" PRId64 " results, last %s)", e->results, t1);
		}
		fputc('\n', f);
	}
}

/* The daemon's open alert on the path, above its scales. */
static void
text_alert(FILE *f, const struct show_alert *a)
{
	char s[64], sc[256], h[256], t[64];

	if (a == NULL)
		return;
	show_printable(a->state, s, sizeof(s));
	show_printable(a->scales, sc, sizeof(sc));
	show_local_time(a->raised_ns, t, sizeof(t));
	fprintf(f, "  OPEN ALERT: %s (scales %s)", s, sc);
	if (a->hop_index > 0) {
		show_printable(a->hop_address, h, sizeof(h));
		fprintf(f, " at hop %d (%s)", a->hop_index, h);
	}
	if (a->incident != NULL) {
		show_printable(a->incident, h, sizeof(h));
		fprintf(f, ", one path of the incident at %s", h);
	}
	fprintf(f, ", raised %s\n", t);
}

static bool
same_path(const struct history_row *a, const struct history_row *b)
{
	return strcmp(a->address, b->address) == 0 && a->port == b->port;
}

/* A path probed from several vantages: one line with each vantage's
 * latest verdict (a problem of any scale sent before the others) and the
 * hop it saw the damage at, so that a box on one vantage's route stands
 * out; series from is the path's first. */
static void
text_side(FILE *f, const struct show_fold *fold, size_t from)
{
	char v[256], h[256];
	size_t end, nv = 0;

	for (end = from; end < fold->n && same_path(&fold->v[end].last, &fold->v[from].last);
	    end++)
		if (end == from || strcmp(fold->v[end].last.vantage,
		    fold->v[end - 1].last.vantage) != 0)
			nv++;
	if (nv < 2)
		return;
	fputs("  side by side:", f);
	for (size_t i = from, k; i < end; i = k) {
		const struct history_row *w = &fold->v[i].last;

		for (k = i; k < end && strcmp(fold->v[k].last.vantage, w->vantage) == 0; k++)
			if (!show_is_problem(w->verdict) && show_is_problem(fold->v[k].last.verdict))
				w = &fold->v[k].last;
		show_printable(w->vantage, v, sizeof(v));
		fprintf(f, "%s %s %s", i > from ? "," : "", v,
		    w->verdict != NULL ? w->verdict : "not inferred");
		if (show_is_problem(w->verdict) && w->hop_index >= 0) {
			show_printable(w->hop_address, h, sizeof(h));
			fprintf(f, " (hop %d %s)", w->hop_index, h);
		}
	}
	fputc('\n', f);
}

void
show_render_text(FILE *f, const struct show_fold *fold)
{
	char a[256], t[256], v[512], fam[32];

	for (size_t i = 0; i < fold->n; i++) {
		const struct history_row *r = &fold->v[i].last;
		const struct history_row *p = i > 0 ? &fold->v[i - 1].last : NULL;

		if (p == NULL || strcmp(p->address, r->address) != 0 || p->port != r->port) {
			show_printable(r->address, a, sizeof(a));
			show_printable(r->target, t, sizeof(t));
			show_printable(r->family, fam, sizeof(fam));
			fprintf(f, "%s%s port %d (%s), as %s\n", i > 0 ? "\n" : "", a, r->port,
			    fam, t);
			text_side(f, fold, i);
		}
		if (p == NULL || strcmp(p->address, r->address) != 0 || p->port != r->port ||
		    strcmp(p->vantage, r->vantage) != 0) {
			show_printable(r->vantage, v, sizeof(v));
			fprintf(f, "  from vantage %s\n", v);
			text_alert(f, show_fold_alert_of(fold, r));
		}
		text_series(f, &fold->v[i]);
	}
}

static void
json_ns(struct json *j, const char *key, int64_t t_ns)
{
	struct timespec ts = when_ns_timespec(t_ns);

	json_ktime(j, key, &ts);
}

static void
json_series(struct json *j, const struct show_series *s)
{
	const struct history_row *r = &s->last;

	json_object_begin(j);
	json_kint(j, "scale_sent", r->scale_sent);
	json_kstring(j, "verdict", r->verdict);
	json_kstring(j, "reason", r->reason);
	json_kstring(j, "reply", r->reply);
	json_ns(j, "time", r->time_ns);
	json_key(j, "on_demand");
	if (s->od_results > 0) {
		json_object_begin(j);
		json_ns(j, "time", s->od_ns);
		json_kint(j, "uid", s->od_uid);
		json_kstring(j, "verdict", s->od_verdict);
		json_object_end(j);
	} else
		json_null(j);
	json_kint_or_null(j, "syn_ack_wscale", r->sa_wscale);
	json_kint_or_null(j, "scale_quoted", r->scale_quoted);
	json_kint_or_null(j, "scale_effective", r->scale_effective);
	/* as probe --json prints them: only for a path of several flows */
	if (r->flows > 1 && r->flows_affected >= 0) {
		json_kint(j, "flows", r->flows);
		json_kint(j, "flows_affected", r->flows_affected);
	}
	flow_branch_json(j, &r->branch);
	json_key(j, "hop");
	if (r->hop_index < 0)
		json_null(j);
	else {
		json_object_begin(j);
		json_kint(j, "index", r->hop_index);
		json_kstring(j, "address", r->hop_address);
		json_kint_or_null(j, "last_clean_index", r->last_clean_index);
		json_kstring(j, "last_clean_address", r->last_clean_address);
		if (r->hop_silent != 0) {	/* as probe --json prints it */
			json_kbool(j, "exact", false);
			silent_hops_json(j, "silent_hops", r->hop_silent);
		}
		json_object_end(j);
	}
	json_key(j, "side_findings");
	json_array_begin(j);
	for (size_t i = 0; i < s->nfi; i++) {
		json_object_begin(j);
		json_kstring(j, "kind", s->fi[i].kind);
		json_kstring(j, "detail", s->fi[i].detail);
		json_kint_or_null(j, "hop_index", s->fi[i].hop_index);
		json_kstring(j, "hop_address", s->fi[i].hop_address);
		json_object_end(j);
	}
	json_array_end(j);
	json_kint(j, "results", s->results);
	json_key(j, "history");
	json_array_begin(j);
	for (size_t i = 0; i < s->nev; i++) {
		const struct show_event *e = &s->ev[i];

		json_object_begin(j);
		json_kstring(j, "change", show_change_token(e->change));
		json_kstring(j, "verdict", e->verdict);
		json_ns(j, "since", e->time_ns);
		json_ns(j, "last_seen", e->last_ns);
		json_kint(j, "results", e->results);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

size_t
show_render_json(struct json *j, const struct show_fold *fold, size_t from)
{
	const struct history_row *r = &fold->v[from].last;
	const struct show_alert *a;
	size_t i = from;

	json_object_begin(j);
	json_kstring(j, "target", r->target);
	json_kstring(j, "address", r->address);
	json_kint_or_null(j, "port", r->port);
	json_kstring(j, "family", r->family);
	json_kstring(j, "vantage", r->vantage);
	json_key(j, "open_alert");
	if ((a = show_fold_alert_of(fold, r)) == NULL)
		json_null(j);
	else {
		json_object_begin(j);
		json_kstring(j, "state", a->state);
		json_kstring(j, "scales", a->scales);
		json_kint_or_null(j, "hop", a->hop_index > 0 ? a->hop_index : -1);
		json_kstring(j, "hop_address", a->hop_address);
		json_kstring(j, "incident", a->incident);
		json_ns(j, "since", a->raised_ns);
		json_object_end(j);
	}
	json_key(j, "scales");
	json_array_begin(j);
	for (; i < fold->n; i++) {
		const struct history_row *q = &fold->v[i].last;

		if (strcmp(q->address, r->address) != 0 || q->port != r->port ||
		    strcmp(q->vantage, r->vantage) != 0)
			break;
		json_series(j, &fold->v[i]);
	}
	json_array_end(j);
	json_object_end(j);
	return i;
}
