/*
 * history_row.h -- what both engines' readers share of show's and
 * export's rows: the columns every row query selects and the joins they
 * come through (the same SQL text in SQLite and PostgreSQL), and the
 * reading of one such row into struct history_row through an engine's
 * defensive cell readers, so the rows' absences are the same whatever
 * the engine.
 */
#ifndef SCALEPROBE_HISTORY_ROW_H
#define SCALEPROBE_HISTORY_ROW_H

#include "history.h"

/* The columns every row query selects, in this order (history_row_read). */
#define HISTORY_ROW_COLS \
	"pr.id, s.idx, pr.time_ns, t.spec, p.address, p.family, r.vantage, p.port, " \
	"s.scale_sent, s.reply, s.verdict, s.reason, s.sa_wscale, s.scale_quoted, " \
	"s.scale_effective, s.hop_index, s.last_clean_index, s.hop_address, " \
	"s.last_clean_address, s.hop_silent, r.on_demand_uid, s.flows, s.flows_affected, " \
	"s.branch_hop, s.branch_problem, s.branch_clean"
#define HISTORY_ROW_NCOLS 26

/* show: a host's path results with their scales */
#define HISTORY_SHOW_SELECT \
	"SELECT " HISTORY_ROW_COLS \
	" FROM path_results pr" \
	" JOIN scale_results s ON s.path_result_id = pr.id" \
	" JOIN paths p ON p.id = pr.path_id" \
	" JOIN targets t ON t.id = pr.target_id" \
	" JOIN runs r ON r.id = pr.run_id"

/* export: each scale result with its group's first time, count and rank
 * (latest = 1: the group's newest), the window g defined after WHERE */
#define HISTORY_EXPORT_SELECT \
	" SELECT " HISTORY_ROW_COLS "," \
	"  min(s.time_ns) OVER g, count(*) OVER g," \
	"  row_number() OVER (PARTITION BY r.vantage, s.path_id, s.scale_sent, s.verdict" \
	"   ORDER BY s.time_ns DESC, s.path_result_id DESC) AS latest" \
	" FROM scale_results s" \
	" JOIN path_results pr ON pr.id = s.path_result_id" \
	" JOIN paths p ON p.id = s.path_id" \
	" JOIN targets t ON t.id = pr.target_id" \
	" JOIN runs r ON r.id = pr.run_id"
#define HISTORY_EXPORT_WINDOW \
	" WINDOW g AS (PARTITION BY r.vantage, s.path_id, s.scale_sent, s.verdict)"

/* An engine's cells of the row it stands on: an integer in lo..hi, else
 * dflt (NULL, another type, out of range); text, else NULL. */
struct history_cells {
	int64_t (*num)(const void *src, int col, int64_t lo, int64_t hi, int64_t dflt);
	const char *(*text)(const void *src, int col);
};

/* The row src stands on (HISTORY_ROW_COLS first) into *row. */
void history_row_read(const struct history_cells *c, const void *src, struct history_row *row);

#endif
