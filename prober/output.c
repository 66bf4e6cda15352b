/*
 * output.c -- results as text and as NDJSON.  Pure formatting: the caller
 * owns the stream.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "output.h"

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
json_scale(struct json *j, const struct variant_obs *o, const struct scale_verdict *v)
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
	/* measured by the trace and window-test stages, when they run */
	json_knull(j, "scale_quoted");
	json_knull(j, "scale_effective");
	json_knull(j, "scale_effective_min");
	json_knull(j, "flight_bytes");
	json_verdict(j, v);
	json_knull(j, "hop");
	json_key(j, "side_findings");
	json_array_begin(j);
	json_array_end(j);
	json_object_end(j);
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
		json_scale(j, &res->scales[i], &res->verdicts[i]);
	json_array_end(j);

	json_key(j, "hops");
	json_null(j);
	json_kuint(j, "capture_drops", res->capture_drops);
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

void
output_text(FILE *f, const struct path_result *res)
{
	char addr[ADDR_STRLEN], where[ADDR_STRLEN + 10], reply[32], opts[64];

	addr_format(&res->dst, addr, sizeof(addr));
	snprintf(where, sizeof(where), res->dst.family == ADDR_V6 ? "[%s]:%u" : "%s:%u",
	    addr, res->port);
	fputs(where, f);
	if (strcmp(res->target, addr) != 0 && strcmp(res->target, where) != 0)
		fprintf(f, " (%s)", res->target);
	if (res->capture_drops > 0)
		fprintf(f, "  capture dropped %" PRIu64 " packets", res->capture_drops);
	fprintf(f, "\n  %-7s %-12s %-6s %-5s %-4s %-3s  %s\n", "scale", "reply",
	    "wscale", "mss", "sack", "ts", "verdict");
	text_reply(reply, sizeof(reply), &res->control);
	text_opts(opts, sizeof(opts), &res->control.sa);
	fprintf(f, "  %-7s %-12s %s\n", "control", reply, opts);
	for (int i = 0; i < res->nscales; i++) {
		const struct variant_obs *o = &res->scales[i];
		const char *v = verdict_name(res->verdicts[i].verdict);

		text_reply(reply, sizeof(reply), o);
		text_opts(opts, sizeof(opts), &o->sa);
		fprintf(f, "  %-7d %-12s %s  %s\n", o->scale, reply, opts, v ? v : "-");
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
			fprintf(f, "  %s: %s\n", verdict_name(sv->verdict), sv->reason);
	}
}
