/*
 * infer.h -- observations in, verdicts out: the rules of DESIGN.md's verdict
 * table, as one pure function per scale factor.  R is the reply to the SYN
 * with window scale s, C the reply to the control SYN; Q (router quotes)
 * and T (the window test) join as the trace and window-test issues land.
 */
#ifndef SCALEPROBE_INFER_H
#define SCALEPROBE_INFER_H

#include <stdint.h>

#include "result.h"

/* Verdict for one scale factor from the handshake alone (R and C).
 * capture_drops: pcap drops while the path was in flight (silence is not
 * evidence of filtering when the capture itself lost packets). */
void infer_scale(const struct variant_obs *c, const struct variant_obs *r,
    uint64_t capture_drops, struct scale_verdict *out);

/* Fills res->verdicts[] for every scale of the path. */
void infer_path(struct path_result *res);

/* True for the verdicts that name a path problem (rewritten, stripped,
 * syn-dropped); infer_measured for the ones that measured the path
 * (ok, unsupported and the problems).  Exit statuses follow from these. */
int infer_is_problem(enum verdict v);
int infer_is_measured(enum verdict v);

#endif
