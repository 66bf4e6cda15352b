/*
 * result_names.c -- what output and the store must print and keep alike:
 * the names of replies, verdicts, quotes and side findings, and the path's hops as a
 * traceroute shows them (one line per TTL from the traces of every
 * variant).  Pure.
 */
#include <string.h>

#include "result.h"

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

bool
verdict_is_problem(enum verdict v)
{
	return v == VERDICT_REWRITTEN || v == VERDICT_STRIPPED || v == VERDICT_SYN_DROPPED;
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

enum verdict
verdict_from_name(const char *name)
{
	if (name == NULL)
		return VERDICT_NONE;
	for (int v = VERDICT_OK; v <= VERDICT_INCONCLUSIVE; v++)
		if (strcmp(name, verdict_name((enum verdict)v)) == 0)
			return (enum verdict)v;
	return VERDICT_NONE;
}

const char *
result_quote_name(enum quote_kind q)
{
	switch (q) {
	case QUOTE_NONE:	return "none";
	case QUOTE_8BYTE:	return "8-byte";
	case QUOTE_FULL:	return "full";
	}
	return "none";
}

const char *
result_finding_name(enum finding_kind k)
{
	switch (k) {
	case FINDING_MSS_CLAMPED:	return "mss-clamped";
	case FINDING_SACK_STRIPPED:	return "sack-stripped";
	case FINDING_TS_STRIPPED:	return "ts-stripped";
	case FINDING_NAT:		return "nat";
	case FINDING_ISN_REWRITTEN:	return "isn-rewritten";
	case FINDING_OPTIONS_CHANGED:	return "options-changed";
	case FINDING_SYN_PROXY:		return "syn-proxy";
	}
	return "options-changed";
}

int
result_hops(const struct path_result *res, const struct hop_quote *best[RESULT_MAX_HOPS + 1])
{
	const struct trace_obs *ctl = res->trace[0];
	int last;

	if (ctl == NULL || !ctl->ran)
		return -1;
	if (ctl->dest_ttl > 0) {
		last = ctl->dest_ttl - 1;
	} else {
		/* no destination answered: up to the last hop anyone heard */
		last = 0;
		for (int v = 0; v <= res->nscales; v++)
			for (int k = 1; res->trace[v] != NULL && k <= res->trace[v]->nttl; k++)
				if (res->trace[v]->hop[k].quote != QUOTE_NONE && k > last)
					last = k;
	}
	if (last > RESULT_MAX_HOPS)
		last = RESULT_MAX_HOPS;
	for (int k = 1; k <= last; k++) {
		best[k] = NULL;
		for (int v = 0; v <= res->nscales; v++) {
			const struct trace_obs *t = res->trace[v];
			if (t == NULL || k > t->nttl || t->hop[k].quote == QUOTE_NONE)
				continue;
			if (best[k] == NULL || t->hop[k].quote > best[k]->quote)
				best[k] = &t->hop[k];
		}
	}
	return last;
}
