/*
 * fdbudget.c -- scaleprobed's descriptor budget (fdbudget.h): a sum of
 * what each part holds at most, the per-target part bounded by
 * max-inflight because units wait for room in the runner (startq.h).
 */
#include <stdio.h>

#include "fdbudget.h"

void
fdbudget(const struct fdb_config *c, struct fdb_need *n)
{
	size_t named = c->named_units < c->max_inflight ? c->named_units : c->max_inflight;
	size_t ns = c->nameservers > 0 ? c->nameservers : 1;

	n->fixed = FDB_BASE + FDB_RUNNER + FDB_STORE + FDB_SPARE +
	    (c->control ? FDB_CONTROL : 0) + (c->alert_command ? FDB_ALERT : 0);
	n->captures = FDB_CAPTURE * (c->one_interface ? 1 : c->max_interfaces);
	n->resolvers = named * ns;
	n->metrics = c->metrics_conns;
	n->total = n->fixed + n->captures + n->resolvers + n->metrics;
}

int
fdbudget_check(const struct fdb_config *c, const struct fdb_need *n, uint64_t limit,
    char *msg, size_t len)
{
	size_t without = n->total - n->resolvers;
	size_t ns = c->nameservers > 0 ? c->nameservers : 1;

	if (limit >= n->total)
		return 0;
	if (n->resolvers > 0 && limit >= without + ns) {
		/* max-inflight alone brings it under the limit */
		size_t fit = (size_t)(limit - without) / ns;

		snprintf(msg, len, "descriptors: the limit (RLIMIT_NOFILE, LimitNOFILE=) is %llu "
		    "but this configuration needs up to %zu (%zu for %zu targets by name in flight "
		    "at once, %zu each); lower max-inflight to %zu or less, or raise the limit",
		    (unsigned long long)limit, n->total, n->resolvers,
		    n->resolvers / ns, ns, fit);
		return -1;
	}
	snprintf(msg, len, "descriptors: the limit (RLIMIT_NOFILE, LimitNOFILE=) is %llu but "
	    "this configuration needs up to %zu (%zu without targets by name%s); raise the "
	    "limit%s", (unsigned long long)limit, n->total, without,
	    n->metrics > 0 ? ", the metrics connections included" : "",
	    n->resolvers > 0 ? " or lower max-inflight" : "");
	return -1;
}
