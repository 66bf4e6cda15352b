/*
 * infer_hop.h -- reading the trace for infer.c: where the window-scale
 * option last looked intact, where it first looked different, where the
 * option-carrying SYN stopped being answered, the side findings, and the
 * hop names that reasons print.  prober/design-notes.md "Hops".  Pure.
 */
#ifndef SCALEPROBE_INFER_HOP_H
#define SCALEPROBE_INFER_HOP_H

#include <stddef.h>

#include "infer.h"
#include "result.h"

/* What the scale variant's trace says about its window-scale option.
 * Only router hops count: TTLs 1..dest-1. */
struct infer_q {
	int dest;		/* D: the destination's TTL; an estimate
				   (highest TTL sent + 1) when none answered */
	int last;		/* TTL of the last full quote; 0: none */
	enum ws_seen last_ws;
	int last_value;
	int first;		/* smallest TTL whose full quote shows the
				   option not intact; 0: none */
	enum ws_seen first_ws;
	int first_value;
	int back;		/* a TTL after first quoting it intact again
				   (the quotes disagree); 0: none */
	int ts_hop;		/* first TTL of either trace quoting the
				   timestamps stripped; 0: none */
};

void infer_hop_scan(const struct infer_input *in, struct infer_q *q);

/* out->hop for a change first seen at TTL index: its address (the
 * destination's when index is D), the last clean hop before it and the
 * silent TTLs between them (infer_hop_silent). */
void infer_hop_locate(const struct infer_input *in, const struct infer_q *q,
    int index, const struct addr *index_addr, struct hop_loc *h);

/* The TTLs strictly between clean and index (and below D) that the scale
 * variant's own trace never heard, as bits (silent_hops.h): the box may
 * sit at any of them, so the hop is not exact.  0 when every one
 * answered, or when the variant was not traced. */
uint32_t infer_hop_silent(const struct infer_input *in, const struct infer_q *q, int clean,
    int index);

/* Where the option-carrying SYN stops being answered while the control's
 * still is: the TTL (and its address in *addr), or 0 when the traces
 * cannot say (one of them did not run). */
int infer_hop_dropped(const struct infer_input *in, struct addr *addr);

/* The address of TTL k as the traces saw it (family 0: nobody answered). */
struct addr infer_hop_addr(const struct infer_input *in, const struct infer_q *q,
    int k);

/* Side findings of both traces into out->findings, each at its first hop. */
void infer_hop_findings(const struct infer_input *in, const struct infer_q *q,
    struct scale_verdict *out);

/* "hop 3 (198.18.3.2)", "the prober (…)", "the destination (…)". */
const char *infer_hop_name(const struct infer_q *q, int k, const struct addr *a,
    char *buf, size_t len);

#endif
