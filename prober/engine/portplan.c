/*
 * portplan.c -- the source port of each (flow, variant, connection) of a
 * path and back (portplan.h).  Pure.
 */
#include <stdio.h>

#include "portplan.h"

static bool
counts_ok(int flows, int variants)
{
	return flows >= 1 && flows <= PORTPLAN_MAX_FLOWS &&
	    variants >= 1 && variants <= PORTPLAN_MAX_VARIANTS;
}

static unsigned
span(int flows, int variants)
{
	return 2u * (unsigned)flows * (unsigned)variants;
}

unsigned
portplan_blocks(int flows, int variants)
{
	if (!counts_ok(flows, variants))
		return 0;
	return (span(flows, variants) + PORTPLAN_BLOCK - 1) / PORTPLAN_BLOCK;
}

unsigned
portplan_room(unsigned range_hi, int flows, int variants)
{
	unsigned need = portplan_blocks(flows, variants);
	unsigned first, total = 65536 / PORTPLAN_BLOCK;

	if (need == 0 || range_hi >= 65535)
		return 0;
	first = (range_hi + 1 + PORTPLAN_BLOCK - 1) / PORTPLAN_BLOCK;
	return (total - first) / need;
}

int
portplan_init(struct portplan *pp, uint16_t lo, int flows, int variants,
    char *err, size_t errlen)
{
	if (!counts_ok(flows, variants)) {
		snprintf(err, errlen, "port plan: %d flows x %d variants: flows 1..%d, "
		    "variants 1..%d", flows, variants, PORTPLAN_MAX_FLOWS,
		    PORTPLAN_MAX_VARIANTS);
		return -1;
	}
	if (lo % PORTPLAN_BLOCK != 0) {
		snprintf(err, errlen, "port plan: first port %u is not on a block of %d",
		    lo, PORTPLAN_BLOCK);
		return -1;
	}
	if ((unsigned)lo + portplan_blocks(flows, variants) * PORTPLAN_BLOCK > 65536) {
		snprintf(err, errlen, "port plan: %u ports from %u go past port 65535",
		    span(flows, variants), lo);
		return -1;
	}
	pp->lo = lo;
	pp->flows = flows;
	pp->variants = variants;
	return 0;
}

uint16_t
portplan_port(const struct portplan *pp, int flow, int variant, enum portplan_conn conn)
{
	unsigned fv = (unsigned)pp->flows * (unsigned)pp->variants;

	return (uint16_t)(pp->lo + (unsigned)conn * fv +
	    (unsigned)flow * (unsigned)pp->variants + (unsigned)variant);
}

bool
portplan_decode(const struct portplan *pp, uint16_t port, int *flow, int *variant,
    enum portplan_conn *conn)
{
	unsigned fv = (unsigned)pp->flows * (unsigned)pp->variants, off;

	if (port < pp->lo)
		return false;
	off = (unsigned)(port - pp->lo);
	if (off >= 2 * fv)
		return false;
	*conn = off >= fv ? PORTPLAN_SECOND : PORTPLAN_FIRST;
	off %= fv;
	*flow = (int)(off / (unsigned)pp->variants);
	*variant = (int)(off % (unsigned)pp->variants);
	return true;
}
