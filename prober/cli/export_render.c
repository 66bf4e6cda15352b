/*
 * export_render.c -- export's columns as CSV and JSON (export_render.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "export_render.h"
#include "flow_branch.h"
#include "silent_hops.h"
#include "when.h"

/* The columns, in order; export.schema.json and scaleprobe.1 name them. */
static const char *const columns[] = {
	"target", "address", "port", "family", "verdict", "scale_sent", "scale_quoted",
	"scale_effective", "hop_index", "hop_address", "last_clean_index",
	"last_clean_address", "first_seen", "last_seen", "times_seen", "vantage",
	"hop_exact", "silent_hops", "flows", "flows_affected",
	/* CSV only; JSON has them as one object, "branch" */
	"branch_hop", "branch_problem", "branch_clean",
};

void
export_time(int64_t t_ns, char buf[JSON_TIME_LEN])
{
	struct timespec ts = when_ns_timespec(t_ns);

	if (json_format_time(buf, JSON_TIME_LEN, &ts) != 0)
		buf[0] = '\0';
}

void
export_csv_header(struct csv *c)
{
	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		csv_field(c, columns[i]);
	csv_end_row(c);
}

/* An integer field, empty when absent: a number, never neutralised (the
 * text columns are: csv.h). */
static void
csv_int(struct csv *c, int64_t v)
{
	char buf[24];

	if (v < 0) {
		csv_field(c, NULL);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	csv_number(c, buf);
}

void
export_csv_row(struct csv *c, const struct history_row *r)
{
	char t[JSON_TIME_LEN], s[96], b[FLOW_BRANCH_TEXT];

	csv_field(c, r->target);
	csv_field(c, r->address);
	csv_int(c, r->port);
	csv_field(c, r->family);
	csv_field(c, r->verdict);
	csv_int(c, r->scale_sent);
	csv_int(c, r->scale_quoted);
	csv_int(c, r->scale_effective);
	csv_int(c, r->hop_index);
	csv_field(c, r->hop_address);
	csv_int(c, r->last_clean_index);
	csv_field(c, r->last_clean_address);
	export_time(r->first_ns, t);
	csv_field(c, t);
	export_time(r->time_ns, t);
	csv_field(c, t);
	csv_int(c, r->count);
	csv_field(c, r->vantage);
	/* empty without a hop; "false" and the TTLs that did not answer when
	 * the box may be any hop of the interval */
	csv_field(c, r->hop_index < 0 ? NULL : r->hop_silent != 0 ? "false" : "true");
	csv_field(c, r->hop_index < 0 || r->hop_silent == 0 ? NULL :
	    silent_hops_list(r->hop_silent, s, sizeof(s)));
	/* probed over several flows: how many, and on how many a problem;
	 * empty for one flow */
	csv_int(c, r->flows > 1 ? r->flows : -1);
	csv_int(c, r->flows > 1 ? r->flows_affected : -1);
	/* where its flows part: the TTL and each side's routers, "a,b";
	 * empty without a branch */
	csv_int(c, r->branch.hop_index > 0 ? r->branch.hop_index : -1);
	flow_branch_side_format(r->branch.problem, r->branch.nproblem, b, sizeof(b));
	csv_field(c, r->branch.hop_index > 0 ? b : NULL);
	flow_branch_side_format(r->branch.clean, r->branch.nclean, b, sizeof(b));
	csv_field(c, r->branch.hop_index > 0 ? b : NULL);
	csv_end_row(c);
}

static void
ktime(struct json *j, const char *key, int64_t t_ns)
{
	char t[JSON_TIME_LEN];

	export_time(t_ns, t);
	json_kstring(j, key, t[0] != '\0' ? t : NULL);
}

void
export_json_row(struct json *j, const struct history_row *r)
{
	json_object_begin(j);
	json_kstring(j, columns[0], r->target);
	json_kstring(j, columns[1], r->address);
	json_kint_or_null(j, columns[2], r->port);
	json_kstring(j, columns[3], r->family);
	json_kstring(j, columns[4], r->verdict);
	json_kint_or_null(j, columns[5], r->scale_sent);
	json_kint_or_null(j, columns[6], r->scale_quoted);
	json_kint_or_null(j, columns[7], r->scale_effective);
	json_kint_or_null(j, columns[8], r->hop_index);
	json_kstring(j, columns[9], r->hop_address);
	json_kint_or_null(j, columns[10], r->last_clean_index);
	json_kstring(j, columns[11], r->last_clean_address);
	ktime(j, columns[12], r->first_ns);
	ktime(j, columns[13], r->time_ns);
	json_kint(j, columns[14], r->count);
	json_kstring(j, columns[15], r->vantage);
	if (r->hop_index < 0) {
		json_knull(j, columns[16]);
		json_knull(j, columns[17]);
	} else {
		json_kbool(j, columns[16], r->hop_silent == 0);
		silent_hops_json(j, columns[17], r->hop_silent);
	}
	/* as probe --json: only for a path of several flows */
	if (r->flows > 1 && r->flows_affected >= 0) {
		json_kint(j, columns[18], r->flows);
		json_kint(j, columns[19], r->flows_affected);
	}
	flow_branch_json(j, &r->branch);
	json_object_end(j);
}
