/*
 * export_render.h -- the rows of `scaleprobe export` (history_export's
 * groups) as CSV (RFC 4180, csv.h) and as the objects of a JSON array
 * that prober/cli/export.schema.json describes.  One list of columns for
 * both, in this order.  Pure.
 */
#ifndef SCALEPROBE_EXPORT_RENDER_H
#define SCALEPROBE_EXPORT_RENDER_H

#include "csv.h"
#include "history.h"
#include "json.h"

void export_csv_header(struct csv *c);
void export_csv_row(struct csv *c, const struct history_row *r);
/* One object (an element of the array the caller opened). */
void export_json_row(struct json *j, const struct history_row *r);

/* t_ns as "2026-12-01T10:00:00.000Z" (JSON_TIME_LEN), "" when out of range. */
void export_time(int64_t t_ns, char buf[JSON_TIME_LEN]);

#endif
