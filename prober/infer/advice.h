/*
 * advice.h -- what to do about a path's verdict, for each side of it: the
 * hosts here that open connections across it (the client side) and the
 * site whose servers sit behind it (the server side).  Pure: the route to
 * the destination (gateway, device) is handed in, looked up by the caller.
 *
 * The Linux per-route workaround for a box that rewrites the shift down:
 * a route's "window" metric (RTAX_WINDOW) becomes the socket's window
 * clamp at connect (tcp_connect_init), and tcp_select_initial_window
 * derives the offered shift from min(clamp, buffer), so "window 65535 <<
 * S" makes the stack offer exactly S -- a shift the box leaves alone --
 * and never advertise more than that window on this route.
 */
#ifndef SCALEPROBE_ADVICE_H
#define SCALEPROBE_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define ADVICE_TEXTLEN	1024
#define ADVICE_CMDLEN	256

enum advice_side {
	ADVICE_CLIENT,		/* hosts here connecting across the path */
	ADVICE_SERVER,		/* the site behind the box */
};

/* What advice needs to know of a path's latest result. */
struct advice_in {
	enum verdict verdict;
	bool raised;			/* a rewritten scale was applied larger */
	int scale_sent;			/* of the damaged scale */
	int scale_applied;		/* what the server applied; -1 unknown */
	int ok_scale;			/* largest scale sent that came through; -1 */
	const char *address;		/* the destination */
	bool v6;
	unsigned port;
	const char *gw, *dev;		/* the route to it here; NULL unknown */
	const char *hop_address;	/* the box (first hop that shows the
					   change); NULL unknown */
	int hop_index;
	const char *clean_address;	/* the last clean hop; NULL: the prober */
	int clean_index;
	uint32_t silent;		/* TTLs between them that never answered
					   (silent_hops.h): the box is then one of
					   the interval's hops, not hop_address;
					   0: the hop is exact */
};

struct advice {
	char text[ADVICE_TEXTLEN];	/* one paragraph, plain sentences */
	char command[ADVICE_CMDLEN];	/* the command to run here, or "" */
	char fallback[ADVICE_CMDLEN];	/* the global fallback, or "" */
};

/* Fills out for in's verdict and side; 0, or -1 when the verdict needs no
 * advice (ok, unsupported, not a path problem).  in's strings may be
 * anything (a store's, netlink's): every address is read by inet_pton (the
 * destination's and the gateway's in in->v6's family) and printed as
 * inet_ntop writes its bytes back, one that is not an address is named
 * "(an address the store holds is not valid)" in the text, and a command
 * that would carry it or a device name advice_dev_ok refuses is left out,
 * a sentence in the text saying why. */
int advice_for(const struct advice_in *in, enum advice_side side, struct advice *out);

/* The shift a per-route window makes Linux offer on a path that rewrites
 * down: the largest scale sent that came through, else the one the box
 * writes; -1 when neither is known. */
int advice_route_shift(const struct advice_in *in);

/* Whether a device's name may go into a command as it is: 1..IFNAMSIZ-1
 * letters, digits, '_', '.' and '-', not beginning with '-' (an option to
 * ip), not "." or "..".  Linux allows more (anything but '/', ':' and
 * white space), a terminal's escape included. */
bool advice_dev_ok(const char *s);

/* The side's name as printed ("client", "server"). */
const char *advice_side_name(enum advice_side side);

#endif
