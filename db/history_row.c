/*
 * history_row.c -- one row of show's or export's query read into struct
 * history_row through an engine's cell readers (history_row.h): the
 * same absences (-1, NULL, "") whatever the engine.
 */
#include <limits.h>
#include <string.h>

#include "flow_branch.h"
#include "history_row.h"
#include "result.h"
#include "silent_hops.h"

static int
num(const struct history_cells *c, const void *src, int col, int lo, int hi)
{
	return (int)c->num(src, col, lo, hi, -1);
}

static const char *
text_or_empty(const struct history_cells *c, const void *src, int col)
{
	const char *t = c->text(src, col);

	return t != NULL ? t : "";
}

void
history_row_read(const struct history_cells *c, const void *src, struct history_row *row)
{
	int64_t uid = c->num(src, 20, 0, UINT32_MAX, -1);

	memset(row, 0, sizeof(*row));
	row->path_result_id = c->num(src, 0, INT64_MIN, INT64_MAX, -1);
	row->scale_idx = num(c, src, 1, 0, INT_MAX);
	row->time_ns = c->num(src, 2, INT64_MIN, INT64_MAX, 0);
	row->target = text_or_empty(c, src, 3);
	row->address = text_or_empty(c, src, 4);
	row->family = text_or_empty(c, src, 5);
	row->vantage = text_or_empty(c, src, 6);
	row->port = num(c, src, 7, 0, 65535);
	row->scale_sent = num(c, src, 8, 0, 255);
	row->reply = c->text(src, 9);
	row->verdict = c->text(src, 10);
	row->reason = c->text(src, 11);
	row->sa_wscale = num(c, src, 12, 0, 255);
	row->scale_quoted = num(c, src, 13, 0, 255);
	row->scale_effective = num(c, src, 14, 0, 255);
	row->hop_index = num(c, src, 15, 0, 255);
	row->last_clean_index = num(c, src, 16, 0, 255);
	row->hop_address = c->text(src, 17);
	row->last_clean_address = c->text(src, 18);
	row->hop_silent = silent_hops_from_i64(c->num(src, 19, INT64_MIN, INT64_MAX, 0));
	row->on_demand = uid >= 0;
	row->on_demand_uid = row->on_demand ? (uint32_t)uid : 0;
	/* NULL for a path probed on one flow: -1 both */
	row->flows = num(c, src, 21, 2, RESULT_MAX_FLOWS);
	row->flows_affected = row->flows > 0 ? num(c, src, 22, 0, row->flows) : -1;
	/* the branch: whole or none, each side addresses only */
	(void)flow_branch_from_cells(num(c, src, 23, 1, RESULT_MAX_HOPS), c->text(src, 24),
	    c->text(src, 25), &row->branch);
}
