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

/* A router a scale's traces heard at one TTL, and which flows heard it
 * (bit f: answers[f]). */
#define FLOWS_SEEN_MAX 32
struct flows_seen {
	int ttl;
	struct addr addr;
	uint64_t flows;
};

/* The flows of one path judged so far. */
struct flows_acc {
	int n;
	struct flow_answer answers[RESULT_MAX_FLOWS];
	struct scale_verdict worst[RESULT_MAX_SCALES];	/* the worst so far */
	int affected[RESULT_MAX_SCALES];
	int clean[RESULT_MAX_SCALES];	/* flows that answered without a problem */
	/* per scale, the routers its traces heard (until FLOWS_SEEN_MAX) and
	 * the flows whose trace of it ran; the branch found at merge */
	struct flows_seen seen[RESULT_MAX_SCALES][FLOWS_SEEN_MAX];
	int nseen[RESULT_MAX_SCALES];
	uint64_t traced[RESULT_MAX_SCALES];
	struct flow_branch branch[RESULT_MAX_SCALES];
};

/* Adds the judged result of one flow (res->flow's; sport its first port). */
void infer_flows_add(struct flows_acc *acc, const struct path_result *res,
    uint16_t sport);

/* Makes res (the last flow's judged result, already added) the path's:
 * each scale's verdict the worst any flow saw -- a problem over an answer,
 * an answer over a flow that could not conclude -- with flows_affected and,
 * where some flows saw the problem and others answered without it, a
 * reason that says so and names the branch where the traces show it
 * (struct flow_branch: the first TTL where the two sides' routers part;
 * never past the problem's hop); the answers of every flow in
 * flow_answers and the branches in flow_branch (pointing into acc). */
void infer_flows_merge(struct path_result *res, struct flows_acc *acc);

/*
 * --flows auto (prober/design-notes.md "Adaptive flows"): MDA's rule for
 * when another flow is unlikely to find a new answer.  With k answers
 * seen, k + 1 equally likely branches would all land on the k seen in n
 * flows with probability at most (k + 1) (k / (k + 1))^n (the union
 * bound): the stopping point n_k is the least n making that at most
 * FLOWS_AUTO_RISK -- 6 flows rule out a 2nd answer, 11 a 3rd, 16 a 4th.
 */
#define FLOWS_AUTO_RISK 0.05

/* n_k for k >= 1 answers seen (1 for k < 1). */
int infer_flows_stop(int k);

/* The flows path acc needs in all, at most cap: acc->n (no more) while
 * its flows show no problem and each flow's scales agree -- a clean path
 * costs one flow -- else the stopping point of the most answers any one
 * scale saw (an answer: a measured verdict, ok, unsupported or a
 * problem).  1 for a path with no flow yet. */
int infer_flows_want(const struct flows_acc *acc, int cap);

#endif
