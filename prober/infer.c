/*
 * infer.c -- the verdict table of DESIGN.md.  Pure: structs in, structs out.
 */
#include <stdio.h>
#include <string.h>

#include "infer.h"

const char *
reply_kind_name(enum reply_kind k)
{
	switch (k) {
	case REPLY_NONE:		return "none";
	case REPLY_SYNACK:		return "syn-ack";
	case REPLY_RST:			return "rst";
	case REPLY_ICMP_UNREACH:	return "icmp-unreach";
	}
	return "none";
}

const char *
verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_NONE:		return NULL;
	case VERDICT_OK:		return "ok";
	case VERDICT_UNSUPPORTED:	return "unsupported";
	case VERDICT_REWRITTEN:		return "rewritten";
	case VERDICT_STRIPPED:		return "stripped";
	case VERDICT_SYN_DROPPED:	return "syn-dropped";
	case VERDICT_CLOSED:		return "closed";
	case VERDICT_FILTERED:		return "filtered";
	case VERDICT_UNREACHABLE:	return "unreachable";
	case VERDICT_INCONCLUSIVE:	return "inconclusive";
	}
	return NULL;
}

static void
set(struct scale_verdict *out, enum verdict v, const char *reason)
{
	out->verdict = v;
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
}

void
infer_scale(const struct variant_obs *c, const struct variant_obs *r,
    uint64_t capture_drops, struct scale_verdict *out)
{
	memset(out, 0, sizeof(*out));

	if (r->mixed || c->mixed) {
		set(out, VERDICT_INCONCLUSIVE,
		    "retries of one SYN drew different kinds of reply");
		return;
	}
	if (c->reply == REPLY_SYNACK &&
	    (r->reply == REPLY_NONE || r->reply == REPLY_RST)) {
		set(out, VERDICT_SYN_DROPPED, r->reply == REPLY_RST ?
		    "the SYN with window scale was reset while the control SYN was answered" :
		    "the SYN with window scale went unanswered while the control SYN was answered");
		return;
	}
	if (r->reply == REPLY_RST && c->reply == REPLY_RST) {
		set(out, VERDICT_CLOSED, "both SYNs were answered with a reset: the port is closed");
		return;
	}
	if (r->reply == REPLY_NONE && c->reply == REPLY_NONE) {
		if (capture_drops > 0)
			set(out, VERDICT_INCONCLUSIVE,
			    "no reply, but the capture dropped packets meanwhile");
		else
			set(out, VERDICT_FILTERED, "neither SYN drew any reply after every retry");
		return;
	}
	if (r->reply == REPLY_ICMP_UNREACH && c->reply == REPLY_ICMP_UNREACH) {
		set(out, VERDICT_UNREACHABLE, "both SYNs drew ICMP destination unreachable");
		return;
	}
	if (r->reply == REPLY_SYNACK && r->sa.wscale >= 0) {
		set(out, VERDICT_OK,
		    "the SYN-ACK carries window scale; no quote or window test contradicts it");
		return;
	}
	if (r->reply == REPLY_SYNACK) {
		set(out, VERDICT_INCONCLUSIVE,
		    "the SYN-ACK has no window scale and no full router quote tells stripped from unsupported");
		return;
	}
	set(out, VERDICT_INCONCLUSIVE, "the replies fit no rule");
}

void
infer_path(struct path_result *res)
{
	for (int i = 0; i < res->nscales; i++)
		infer_scale(&res->control, &res->scales[i], res->capture_drops,
		    &res->verdicts[i]);
}

int
infer_is_problem(enum verdict v)
{
	return v == VERDICT_REWRITTEN || v == VERDICT_STRIPPED ||
	    v == VERDICT_SYN_DROPPED;
}

int
infer_is_measured(enum verdict v)
{
	return v == VERDICT_OK || v == VERDICT_UNSUPPORTED || infer_is_problem(v);
}
