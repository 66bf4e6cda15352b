/*
 * output.h -- path results as people read them (a table, one line per
 * scale factor) and as programs read them (NDJSON, prober/design-notes.md
 * "Output": every field present, null where nothing was measured).
 */
#ifndef SCALEPROBE_OUTPUT_H
#define SCALEPROBE_OUTPUT_H

#include <stdio.h>

#include "json.h"
#include "result.h"

/* Appends one path's JSON object (no newline) to j. */
void output_json(struct json *j, const struct path_result *res, const char *vantage);

/* Writes the readable block of one path. */
void output_text(FILE *f, const struct path_result *res);

/* How a result counts toward probe's exit status (cli.h): a path problem
 * on some scale, else some scale not measured, else clean. */
enum output_class {
	OUTPUT_CLEAN,
	OUTPUT_PROBLEM,
	OUTPUT_UNMEASURED,
};
enum output_class output_class(const struct path_result *res);

#endif
