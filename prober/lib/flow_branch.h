/*
 * flow_branch.h -- one side of a scale's branch (struct flow_branch: the
 * routers where the flows that saw a problem and those that did not part)
 * as the store keeps it and reads it back: its addresses joined by commas.
 * Pure.
 */
#ifndef SCALEPROBE_FLOW_BRANCH_H
#define SCALEPROBE_FLOW_BRANCH_H

#include <stddef.h>

#include "addr.h"
#include "json.h"
#include "result.h"

/* The longest side, with its NUL. */
#define FLOW_BRANCH_TEXT (FLOW_BRANCH_ADDRS * ADDR_STRLEN)

/* Scale i's branch of res, NULL when it has none (one flow, or the
 * traces do not show where the flows part). */
const struct flow_branch *flow_branch_of(const struct path_result *res, int i);

/* n addresses (at most FLOW_BRANCH_ADDRS) as "a,b" into buf. */
void flow_branch_side_format(const struct addr *a, int n, char *buf, size_t len);

/* "a,b" (from the store: hostile) into a[FLOW_BRANCH_ADDRS]: the count,
 * 1..FLOW_BRANCH_ADDRS, or -1 for anything else (NULL, empty, too many,
 * not an address, spaces). */
int flow_branch_side_parse(const char *text, struct addr *a);

/* A branch from the store's three cells (hop 1..RESULT_MAX_HOPS, each side
 * one to four addresses): 0, or -1 with *b zeroed (hop_index 0: none). */
int flow_branch_from_cells(int hop, const char *problem, const char *clean,
    struct flow_branch *b);

/* "branch": {"hop_index": N, "problem": [...], "clean": [...]} as the
 * next member of the object j is in; nothing for b NULL or without one. */
void flow_branch_json(struct json *j, const struct flow_branch *b);

#endif
