/*
 * output.c -- results as text and as NDJSON.  Pure formatting: the caller
 * owns the stream.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "flow_branch.h"
#include "infer.h"
#include "output.h"
#include "silent_hops.h"
#include "textsafe.h"

static const char *
family_name(const struct addr *a)
{
	return a->family == ADDR_V4 ? "ipv4" : "ipv6";
}

static void
json_synack(struct json *j, const struct synack_obs *sa)
{
	json_object_begin(j);
	json_kbool(j, "present", sa->present);
	if (sa->present && sa->wscale >= 0)
		json_kint(j, "wscale", sa->wscale);
	else
		json_knull(j, "wscale");
	if (sa->present && sa->mss >= 0)
		json_kint(j, "mss", sa->mss);
	else
		json_knull(j, "mss");
	if (sa->present) {
		json_kbool(j, "sack", sa->sack);
		json_kbool(j, "ts", sa->ts);
	} else {
		json_knull(j, "sack");
		json_knull(j, "ts");
	}
	json_object_end(j);
}

static void
json_verdict(struct json *j, const struct scale_verdict *v)
{
	const char *name = verdict_name(v->verdict);

	if (name != NULL) {
		json_kstring(j, "verdict", name);
		json_kstring(j, "reason", v->reason);
	} else {
		json_knull(j, "verdict");
		json_knull(j, "reason");
	}
}

static void
json_addr(struct json *j, const char *key, const struct addr *a)
{
	char buf[ADDR_STRLEN];

	if (a->family == 0)
		json_knull(j, key);
	else
		json_kstring(j, key, addr_format(a, buf, sizeof(buf)));
}

static void
json_hop(struct json *j, const struct hop_loc *h)
{
	json_key(j, "hop");
	if (!h->present) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kint(j, "index", h->index);
	json_addr(j, "address", &h->address);
	json_kint(j, "last_clean_index", h->last_clean_index);
	json_addr(j, "last_clean_address", &h->last_clean_address);
	/* only when the interval holds TTLs that never answered: an exact
	 * hop prints as it always did */
	if (h->silent != 0) {
		json_kbool(j, "exact", false);
		silent_hops_json(j, "silent_hops", h->silent);
	}
	json_object_end(j);
}

static void
json_findings(struct json *j, const struct scale_verdict *v)
{
	json_key(j, "side_findings");
	json_array_begin(j);
	for (int i = 0; i < v->nfindings && i < RESULT_MAX_FINDINGS; i++) {
		const struct side_finding *f = &v->findings[i];

		json_object_begin(j);
		json_kstring(j, "kind", result_finding_name(f->kind));
		if (f->detail[0] != '\0')
			json_kstring(j, "detail", f->detail);
		else
			json_knull(j, "detail");
		if (f->hop_index >= 0) {
			json_kint(j, "hop_index", f->hop_index);
			json_addr(j, "hop_address", &f->hop_address);
		} else {
			json_knull(j, "hop_index");
			json_knull(j, "hop_address");
		}
		json_object_end(j);
	}
	json_array_end(j);
}

/* The path's hops as a traceroute shows them (result_hops). */
static void
json_hops(struct json *j, const struct path_result *res)
{
	const struct hop_quote *hop[RESULT_MAX_HOPS + 1];
	int last = result_hops(res, hop);

	json_key(j, "hops");
	if (last < 0) {
		json_null(j);
		return;
	}
	json_array_begin(j);
	for (int k = 1; k <= last; k++) {
		const struct hop_quote *best = hop[k];

		json_object_begin(j);
		json_kint(j, "ttl", k);
		if (best != NULL) {
			json_addr(j, "address", &best->from);
			json_kstring(j, "quote", result_quote_name(best->quote));
			json_kbool(j, "rfc4884", best->rfc4884);
			json_key(j, "rtt_ms");
			json_double(j, best->rtt_us / 1000.0);
		} else {
			json_knull(j, "address");
			json_kstring(j, "quote", "none");
			json_knull(j, "rfc4884");
			json_knull(j, "rtt_ms");
		}
		json_object_end(j);
	}
	json_array_end(j);
}

static void
json_scale(struct json *j, const struct variant_obs *o, const struct scale_verdict *v,
    const struct window_obs *w, int flows, int affected, const struct flow_branch *b)
{
	json_object_begin(j);
	json_kint(j, "scale_sent", o->scale);
	json_kstring(j, "reply", reply_kind_name(o->reply));
	if (o->reply == REPLY_ICMP_UNREACH) {
		json_key(j, "icmp");
		json_object_begin(j);
		json_kint(j, "type", o->icmp_type);
		json_kint(j, "code", o->icmp_code);
		json_object_end(j);
	} else
		json_knull(j, "icmp");
	json_key(j, "syn_ack");
	json_synack(j, &o->sa);
	if (v->scale_quoted >= 0)
		json_kint(j, "scale_quoted", v->scale_quoted);
	else
		json_knull(j, "scale_quoted");
	/* the window test's, when it ran and could tell */
	if (w->ran && !w->inconclusive && w->scale_effective >= 0)
		json_kint(j, "scale_effective", w->scale_effective);
	else
		json_knull(j, "scale_effective");
	if (w->ran && !w->inconclusive && w->scale_effective_min >= 0)
		json_kint(j, "scale_effective_min", w->scale_effective_min);
	else
		json_knull(j, "scale_effective_min");
	if (w->ran && w->flight_bytes >= 0)
		json_kint(j, "flight_bytes", w->flight_bytes);
	else
		json_knull(j, "flight_bytes");
	json_verdict(j, v);
	/* probed over several flows (--flows): on how many it was a problem */
	if (flows > 1) {
		json_kint(j, "flows_affected", affected);
		flow_branch_json(j, b);
	}
	json_hop(j, &v->hop);
	json_findings(j, v);
	json_object_end(j);
}

/* Each flow's answers (--flows N, N > 1): its port, and per scale the
 * handshake, the shift the window test saw applied and its own verdict. */
static void
json_flows(struct json *j, const struct path_result *res)
{
	if (res->flows <= 1 || res->flow_answers == NULL)
		return;
	json_kint(j, "flows", res->flows);
	json_key(j, "flow_answers");
	json_array_begin(j);
	for (int f = 0; f < res->flows; f++) {
		const struct flow_answer *fa = &res->flow_answers[f];

		json_object_begin(j);
		json_kint(j, "sport", fa->sport);
		json_key(j, "scales");
		json_array_begin(j);
		for (int i = 0; i < res->nscales; i++) {
			const char *v = verdict_name(fa->verdict[i]);

			json_object_begin(j);
			json_kint(j, "scale_sent", res->scales[i].scale);
			json_kstring(j, "reply", reply_kind_name(fa->reply[i]));
			if (fa->sa_wscale[i] >= 0)
				json_kint(j, "wscale", fa->sa_wscale[i]);
			else
				json_knull(j, "wscale");
			if (fa->applied[i] >= 0)
				json_kint(j, "scale_effective", fa->applied[i]);
			else
				json_knull(j, "scale_effective");
			if (v != NULL)
				json_kstring(j, "verdict", v);
			else
				json_knull(j, "verdict");
			/* the hop of this flow's branch, where its trace located one */
			if (fa->hop_index[i] >= 0) {
				json_kint(j, "hop_index", fa->hop_index[i]);
				json_addr(j, "hop_address", &fa->hop_address[i]);
			} else {
				json_knull(j, "hop_index");
				json_knull(j, "hop_address");
			}
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

void
output_json(struct json *j, const struct path_result *res, const char *vantage)
{
	char buf[ADDR_STRLEN];

	json_object_begin(j);
	json_kstring(j, "target", res->target);
	json_kstring(j, "address", addr_format(&res->dst, buf, sizeof(buf)));
	json_kint(j, "port", res->port);
	json_kstring(j, "family", family_name(&res->dst));
	json_kstring(j, "vantage", vantage);
	json_ktime(j, "time", &res->time);

	json_key(j, "control");
	json_object_begin(j);
	json_kstring(j, "reply", reply_kind_name(res->control.reply));
	json_key(j, "syn_ack");
	if (res->control.sa.present)
		json_synack(j, &res->control.sa);
	else
		json_null(j);
	json_object_end(j);

	json_key(j, "scales");
	json_array_begin(j);
	for (int i = 0; i < res->nscales; i++)
		json_scale(j, &res->scales[i], &res->verdicts[i], &res->window[i],
		    res->flows, res->flows_affected[i],
		    res->flow_branch != NULL ? &res->flow_branch[i] : NULL);
	json_array_end(j);
	json_flows(j, res);

	json_hops(j, res);
	json_kuint(j, "capture_drops", res->capture_drops);
	json_kuint(j, "send_failures", res->send_failures);
	if (res->capture_error[0] != '\0')
		json_kstring(j, "capture_error", res->capture_error);
	else
		json_knull(j, "capture_error");
	json_object_end(j);
}

static void
text_reply(char *buf, size_t len, const struct variant_obs *o)
{
	if (o->reply == REPLY_ICMP_UNREACH)
		snprintf(buf, len, "icmp %u/%u", o->icmp_type, o->icmp_code);
	else
		snprintf(buf, len, "%s", reply_kind_name(o->reply));
}

static void
text_opts(char *buf, size_t len, const struct synack_obs *sa)
{
	char ws[12] = "-", mss[12] = "-";

	if (!sa->present) {
		snprintf(buf, len, "%-6s %-5s %-4s %-3s", "", "", "", "");
		return;
	}
	if (sa->wscale >= 0)
		snprintf(ws, sizeof(ws), "%d", sa->wscale);
	if (sa->mss >= 0)
		snprintf(mss, sizeof(mss), "%d", sa->mss);
	snprintf(buf, len, "%-6s %-5s %-4s %-3s", ws, mss, sa->sack ? "yes" : "no",
	    sa->ts ? "yes" : "no");
}

static void
text_ws(char *buf, size_t len, const struct hop_quote *q)
{
	switch (q->ws) {
	case WS_INTACT:		snprintf(buf, len, "%d, as sent", q->ws_value); break;
	case WS_CHANGED:	snprintf(buf, len, "%d  <- changed", q->ws_value); break;
	case WS_REMOVED:	snprintf(buf, len, "removed  <- changed"); break;
	case WS_NOPPED:		snprintf(buf, len, "NOPed  <- changed"); break;
	case WS_NOT_SENT:	snprintf(buf, len, "none sent"); break;
	case WS_ADDED:		snprintf(buf, len, "%d, added", q->ws_value); break;
	default:		snprintf(buf, len, "-"); break;
	}
}

/* The segment (last clean hop, hop.index] of scale i, hop by hop, as the
 * trace of that scale's SYN saw it. */
static void
text_segment(FILE *f, const struct path_result *res, int i)
{
	const struct scale_verdict *v = &res->verdicts[i];
	const struct trace_obs *t = res->trace[1 + i];
	char addr[ADDR_STRLEN], ws[32];
	int from, to;

	if (!v->hop.present)
		return;
	fprintf(f, "  scale %d: hop %d (%s)", res->scales[i].scale, v->hop.index,
	    addr_format(&v->hop.address, addr, sizeof(addr)));
	fprintf(f, ", last clean hop %d (%s)\n", v->hop.last_clean_index,
	    addr_format(&v->hop.last_clean_address, addr, sizeof(addr)));
	/* of several flows, the trace at hand is the last one's, which may
	 * have taken another branch than the flow the hop is of: each flow's
	 * hop instead (text_flows) */
	if (t == NULL || !t->ran || res->flows > 1)
		return;
	from = v->hop.last_clean_index > 0 ? v->hop.last_clean_index : 1;
	to = v->hop.index < t->nttl ? v->hop.index : t->nttl;
	for (int k = from; k <= to; k++) {
		const struct hop_quote *q = &t->hop[k];

		if (t->dest_ttl > 0 && k >= t->dest_ttl)
			break;
		text_ws(ws, sizeof(ws), q);
		fprintf(f, "    %2d  %-24s %-8s window scale %s\n", k,
		    q->quote == QUOTE_NONE ? "*" : addr_format(&q->from, addr, sizeof(addr)),
		    result_quote_name(q->quote), ws);
	}
}

/* Several flows: per scale, each flow's verdict and hop, flows that agree
 * counted together ("rewritten at hop 3 (A) x3, ok x5"), and the branch
 * where the traces show it. */
static void
text_flows(FILE *f, const struct path_result *res, int i)
{
	const struct flow_branch *b = res->flow_branch != NULL ? &res->flow_branch[i] : NULL;
	bool done[RESULT_MAX_FLOWS] = { false };
	char addr[ADDR_STRLEN];

	if (res->flows <= 1 || res->flow_answers == NULL)
		return;
	fprintf(f, "  scale %d flows:", res->scales[i].scale);
	for (int a = 0, first = 1; a < res->flows && a < RESULT_MAX_FLOWS; a++) {
		const struct flow_answer *fa = &res->flow_answers[a];
		const char *v = verdict_name(fa->verdict[i]);
		int n = 0;

		if (done[a])
			continue;
		for (int c = a; c < res->flows && c < RESULT_MAX_FLOWS; c++) {
			const struct flow_answer *fc = &res->flow_answers[c];

			if (!done[c] && fc->verdict[i] == fa->verdict[i] &&
			    fc->hop_index[i] == fa->hop_index[i] &&
			    (fa->hop_index[i] < 0 ||
			     addr_equal(&fc->hop_address[i], &fa->hop_address[i]))) {
				done[c] = true;
				n++;
			}
		}
		fprintf(f, "%s %s", first ? "" : ",", v ? v : "-");
		if (fa->hop_index[i] >= 0)
			fprintf(f, " at hop %d (%s)", fa->hop_index[i],
			    addr_format(&fa->hop_address[i], addr, sizeof(addr)));
		fprintf(f, " x%d", n);
		first = 0;
	}
	fputc('\n', f);
	if (b == NULL || b->hop_index <= 0)
		return;
	fprintf(f, "    branch at hop %d: via", b->hop_index);
	for (int k = 0; k < b->nproblem && k < FLOW_BRANCH_ADDRS; k++)
		fprintf(f, "%s %s", k ? "," : "", addr_format(&b->problem[k], addr, sizeof(addr)));
	fprintf(f, " %s; via", verdict_name(res->verdicts[i].verdict));
	for (int k = 0; k < b->nclean && k < FLOW_BRANCH_ADDRS; k++)
		fprintf(f, "%s %s", k ? "," : "", addr_format(&b->clean[k], addr, sizeof(addr)));
	fprintf(f, " not\n");
}

/* A SYN proxy answered: the options in the table are its own, said once. */
static void
text_syn_proxy(FILE *f, const struct path_result *res)
{
	for (int i = 0; i < res->nscales; i++)
		for (int k = 0; k < res->verdicts[i].nfindings && k < RESULT_MAX_FINDINGS; k++) {
			const struct side_finding *sf = &res->verdicts[i].findings[k];
			char shown[TEXTSAFE_SIZE(sizeof(sf->detail))];

			if (sf->kind != FINDING_SYN_PROXY)
				continue;
			fprintf(f, "  syn-proxy: a SYN proxy");
			if (sf->hop_index >= 0)
				fprintf(f, " at hop %d", sf->hop_index);
			fprintf(f, " answered the handshake (%s): the SYN-ACK options "
			    "are its own, not the server's\n",
			    textsafe_str(sf->detail, shown, sizeof(shown)));
			return;
		}
}

/* Every string of a result is printed through textsafe: a target's name
 * and a capture's error may hold any byte (a device's name, a resolver's
 * answer), and a reason quotes what was seen. */
void
output_text(FILE *f, const struct path_result *res)
{
	char addr[ADDR_STRLEN], where[ADDR_STRLEN + 10], reply[32], opts[64];
	char shown[TEXTSAFE_SIZE(320)];	/* a target (300 at most), a reason, an error */

	addr_format(&res->dst, addr, sizeof(addr));
	snprintf(where, sizeof(where), res->dst.family == ADDR_V6 ? "[%s]:%u" : "%s:%u",
	    addr, res->port);
	fputs(where, f);
	if (strcmp(res->target, addr) != 0 && strcmp(res->target, where) != 0)
		fprintf(f, " (%s)", textsafe_str(res->target, shown, sizeof(shown)));
	if (res->capture_drops > 0)
		fprintf(f, "  capture dropped %" PRIu64 " packets", res->capture_drops);
	if (res->send_failures > 0)
		fprintf(f, "  %" PRIu64 " packets could not be sent", res->send_failures);
	if (res->capture_error[0] != '\0')
		fprintf(f, "  capture failed (%s)",
		    textsafe_str(res->capture_error, shown, sizeof(shown)));
	fprintf(f, "\n  %-7s %-12s %-6s %-5s %-4s %-3s  %-7s %-7s %s\n", "scale", "reply",
	    "wscale", "mss", "sack", "ts", "quoted", "applied", "verdict");
	text_reply(reply, sizeof(reply), &res->control);
	text_opts(opts, sizeof(opts), &res->control.sa);
	fprintf(f, "  %-7s %-12s %s\n", "control", reply, opts);
	for (int i = 0; i < res->nscales; i++) {
		const struct variant_obs *o = &res->scales[i];
		const char *v = verdict_name(res->verdicts[i].verdict);

		const struct window_obs *w = &res->window[i];
		char quoted[12] = "-", applied[16] = "-";

		text_reply(reply, sizeof(reply), o);
		text_opts(opts, sizeof(opts), &o->sa);
		if (res->verdicts[i].scale_quoted >= 0)
			snprintf(quoted, sizeof(quoted), "%d", res->verdicts[i].scale_quoted);
		if (w->ran && !w->inconclusive && w->scale_effective >= 0)
			snprintf(applied, sizeof(applied), "%d", w->scale_effective);
		else if (w->ran && !w->inconclusive && w->scale_effective_min >= 0)
			snprintf(applied, sizeof(applied), ">=%d", w->scale_effective_min);
		fprintf(f, "  %-7d %-12s %s  %-7s %-7s %s", o->scale, reply, opts,
		    quoted, applied, v ? v : "-");
		if (res->flows > 1)
			fprintf(f, " (%d of %d flows)", res->flows_affected[i], res->flows);
		fputc('\n', f);
	}
	/* each distinct reason once, under the table: scales usually agree */
	for (int i = 0; i < res->nscales; i++) {
		const struct scale_verdict *sv = &res->verdicts[i];
		bool seen = false;

		if (sv->verdict == VERDICT_NONE || sv->verdict == VERDICT_OK)
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = strcmp(res->verdicts[k].reason, sv->reason) == 0;
		if (!seen)
			fprintf(f, "  %s: %s\n", verdict_name(sv->verdict),
			    textsafe_str(sv->reason, shown, sizeof(shown)));
	}
	text_syn_proxy(f, res);
	for (int i = 0; i < res->nscales; i++) {
		text_segment(f, res, i);
		text_flows(f, res, i);
	}
}

enum output_class
output_class(const struct path_result *res)
{
	enum output_class c = OUTPUT_CLEAN;

	for (int i = 0; i < res->nscales; i++) {
		if (infer_is_problem(res->verdicts[i].verdict))
			return OUTPUT_PROBLEM;
		if (!infer_is_measured(res->verdicts[i].verdict))
			c = OUTPUT_UNMEASURED;
	}
	return c;
}
