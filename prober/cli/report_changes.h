/*
 * report_changes.h -- what report.c asks of report_changes.c, the changes
 * lists kept in bounded memory (the reading side, report_iter, is in
 * report.h for the renderers).
 */
#ifndef SCALEPROBE_REPORT_CHANGES_H
#define SCALEPROBE_REPORT_CHANGES_H

#include "report.h"

/* qsort's order of changes: by time, then by row id. */
int report_change_by_time(const void *a, const void *b);
/* A change from from (from_baseline: the state is the window's baseline)
 * to to appended to l, a full run spilled first; 0, or -1 (out of memory
 * or of temporary space). */
int report_changes_add(struct report_changes *l, enum verdict from, bool from_baseline,
    const struct report_row *to);
void report_changes_free(struct report_changes *l);

#endif
