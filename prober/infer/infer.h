/*
 * infer.h -- observations in, verdicts out: the verdict table and the hop
 * rules of prober/design-notes.md ("Verdicts", "Hops"), as one pure
 * function per scale factor.  R is the reply to the SYN with window scale
 * s, C the reply to the control SYN, Q the trace's router quotes of both,
 * T the window test (absent: not run).
 */
#ifndef SCALEPROBE_INFER_H
#define SCALEPROBE_INFER_H

#include <stdint.h>

#include "result.h"

/*
 * What one scale factor's verdict is drawn from.  Build it with a
 * designated initializer: the fields a caller does not set (the window
 * test, say) are then zero, i.e. absent.
 */
struct infer_input {
	const struct variant_obs *c;	/* the control SYN's reply */
	const struct variant_obs *r;	/* the reply to the SYN with scale s */
	const struct trace_obs *qc;	/* the control's trace; NULL: none ran */
	const struct trace_obs *qr;	/* the scale variant's trace; NULL: none */
	uint64_t capture_drops;		/* pcap drops while the path was in flight:
					   silence is no evidence then */
	struct addr prober;		/* hop 0 */
	struct addr dst;		/* hop D */
	const struct window_obs *t;	/* the window test; NULL: none ran */
	uint64_t send_failures;		/* packets the kernel would not send while
					   the path was in flight: silence is no
					   evidence then either */
	const char *capture_error;	/* the capture failed while the path was
					   in flight ("eth0: why"); NULL: it did not */
};

/*
 * The verdict for one scale factor: verdict, a one-sentence reason naming
 * the hops involved, scale_quoted (the shift in the last full quote before
 * the destination; -1 the option absent there, -2 no full quote), hop
 * (index, address and the last clean hop, present for rewritten, stripped
 * and syn-dropped when a trace locates it) and side findings (MSS clamped,
 * SACK / timestamps stripped, NAT, ISN rewritten, other options changed,
 * each at the first hop of either trace that shows it).
 */
void infer_scale(const struct infer_input *in, struct scale_verdict *out);

/* Fills res->verdicts[] for every scale of the path, from res->control,
 * res->scales[i], res->trace[0] and res->trace[1 + i] (NULL: no trace),
 * res->src as the prober and res->dst. */
void infer_path(struct path_result *res);

/* True for the verdicts that name a path problem (rewritten, stripped,
 * syn-dropped); infer_measured for the ones that measured the path
 * (ok, unsupported and the problems).  Exit statuses follow from these. */
int infer_is_problem(enum verdict v);
int infer_is_measured(enum verdict v);

#endif
