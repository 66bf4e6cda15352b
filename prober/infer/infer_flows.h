/*
 * infer_flows.h -- one verdict per scale from a path's flows
 * (prober/design-notes.md "Flows per path"): each flow is judged on its
 * own (infer_path), kept as a flow_answer, and the path's verdict for a
 * scale is the worst any flow saw, with how many flows saw a problem.
 * Pure.
 */
#ifndef SCALEPROBE_INFER_FLOWS_H
#define SCALEPROBE_INFER_FLOWS_H

#include "result.h"

/* The flows of one path judged so far. */
struct flows_acc {
	int n;
	struct flow_answer answers[RESULT_MAX_FLOWS];
	struct scale_verdict worst[RESULT_MAX_SCALES];	/* the worst so far */
	int affected[RESULT_MAX_SCALES];
	int clean[RESULT_MAX_SCALES];	/* flows that answered without a problem */
};

/* Adds the judged result of one flow (res->flow's; sport its first port). */
void infer_flows_add(struct flows_acc *acc, const struct path_result *res,
    uint16_t sport);

/* Makes res (the last flow's judged result, already added) the path's:
 * each scale's verdict the worst any flow saw -- a problem over an answer,
 * an answer over a flow that could not conclude -- with flows_affected and,
 * where some flows saw the problem and others answered without it, a
 * reason that says so; the
 * answers of every flow in flow_answers (pointing into acc). */
void infer_flows_merge(struct path_result *res, const struct flows_acc *acc);

#endif
