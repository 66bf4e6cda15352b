/*
 * show_render.h -- what `scaleprobe show` prints of a fold (show_fold.h):
 * for people, a block per path with local times (TZ honoured) and every
 * string from the store made printable; for programs, one JSON object per
 * path and vantage (NDJSON), times RFC 3339 UTC.
 */
#ifndef SCALEPROBE_SHOW_RENDER_H
#define SCALEPROBE_SHOW_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "show_fold.h"

/* The readable story of every series. */
void show_render_text(FILE *f, const struct show_fold *fold);

/* One object for the path and vantage of series from (and the series of
 * the same path and vantage after it) into j; returns the next series'
 * index. */
size_t show_render_json(struct json *j, const struct show_fold *fold, size_t from);

/* t (ns since the epoch) in local time, "2026-12-01 10:00:00 +0100". */
void show_local_time(int64_t t_ns, char *buf, size_t len);

/* s (NULL: "-") with control characters, backslashes and invalid UTF-8
 * escaped (textsafe.h: \n, \x01, \u009b, \\), so that a hand-edited store
 * cannot move the terminal's cursor. */
void show_printable(const char *s, char *buf, size_t len);

#endif
