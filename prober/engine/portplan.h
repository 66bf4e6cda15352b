/*
 * portplan.h -- which source port carries which probe of a path: the flow
 * (one of the path's F flows, each its own branch of a load-balanced path),
 * the variant (control or a scale) and the connection (the first, or the
 * window test's second).  Pure arithmetic on offsets from the first port of
 * the guard's block; prober/design-notes.md "Flows per path: the port plan".
 *
 *   offset = conn * F * V + flow * V + variant
 *
 * so F = 1 with V = 32 slots is the layout before flows, port for port:
 * variant v at port_lo + v, its second connection at port_lo + 32 + v.
 * A plan spans 2 * F * V ports, claimed as whole blocks of PORTPLAN_BLOCK.
 */
#ifndef SCALEPROBE_PORTPLAN_H
#define SCALEPROBE_PORTPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire_send.h"

#define PORTPLAN_BLOCK		64	/* the guard's unit (GUARD_BLOCK_PORTS) */
#define PORTPLAN_MAX_FLOWS	64	/* flows per path: past MDA's 99 % for 8 next hops */
#define PORTPLAN_MAX_VARIANTS	SEND_MAX_VARIANTS	/* the control and 31 scales */

enum portplan_conn {
	PORTPLAN_FIRST = 0,	/* the handshake, its trace, the window test */
	PORTPLAN_SECOND = 1	/* the window test's second connection */
};

struct portplan {
	uint16_t	lo;		/* first port of the claimed blocks */
	int		flows;		/* F: 1..PORTPLAN_MAX_FLOWS */
	int		variants;	/* V: variant slots, 1..PORTPLAN_MAX_VARIANTS */
};

/* Blocks of PORTPLAN_BLOCK ports a plan of flows x variants needs; 0 when
 * either is out of range. */
unsigned portplan_blocks(int flows, int variants);

/* Processes that can each hold such a plan side by side above a local
 * port range ending at range_hi (ip_local_port_range's second number):
 * whole blocks from the first one past range_hi to port 65535. */
unsigned portplan_room(unsigned range_hi, int flows, int variants);

/* A plan from the first port of the claimed blocks.  0, or -1 with a
 * one-line reason in err (counts out of range, lo not on a block, the
 * plan past port 65535). */
int portplan_init(struct portplan *pp, uint16_t lo, int flows, int variants,
    char *err, size_t errlen);

/* The source port of flow f, variant v, connection c (all in range). */
uint16_t portplan_port(const struct portplan *pp, int flow, int variant,
    enum portplan_conn conn);

/* Which probe a port of a reply belongs to: false for any port outside the
 * plan (below lo or past its 2 * F * V ports). */
bool portplan_decode(const struct portplan *pp, uint16_t port, int *flow,
    int *variant, enum portplan_conn *conn);

#endif
