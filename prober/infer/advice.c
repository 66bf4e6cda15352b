/*
 * advice.c -- what to do about a verdict, per side of the path: the
 * per-route window for the hosts behind a box that rewrites the shift
 * down, the global fallback and its cost, and the box to report (its
 * address, the last clean hop, the evidence to send).  Pure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"

/* 64 KB per round trip: the most a connection without window scaling
 * moves, at 100 ms (5.2 Mbit/s) and 20 ms (26 Mbit/s). */
#define CAP_COST "windows capped at 64 KB, so at most 64 KB per round trip " \
	"(5.2 Mbit/s at 100 ms, 26 Mbit/s at 20 ms)"

const char *
advice_side_name(enum advice_side side)
{
	return side == ADVICE_SERVER ? "server" : "client";
}

int
advice_route_shift(const struct advice_in *in)
{
	if (in->ok_scale >= 0)
		return in->ok_scale;
	if (in->scale_applied >= 0 && in->scale_applied <= 14)
		return in->scale_applied;
	return -1;
}

/* Appends to a fixed buffer, truncating. */
static void app(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
app(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* "the box at 198.18.5.2 (hop 5, after 198.18.4.2, hop 4)"; "The ..."
 * to begin a sentence */
static void
box_name(const struct advice_in *in, bool cap, char *buf, size_t len)
{
	buf[0] = '\0';
	if (in->hop_address == NULL) {
		app(buf, len, "%s box on the path (not located: probe with --trace always)",
		    cap ? "A" : "a");
		return;
	}
	app(buf, len, "%s box at %s (hop %d, after ", cap ? "The" : "the", in->hop_address,
	    in->hop_index);
	if (in->clean_address != NULL)
		app(buf, len, "%s, hop %d)", in->clean_address, in->clean_index);
	else
		app(buf, len, "this host, hop 0)");
}

/* Who must hear of the box, with what. */
static void
report_box(const struct advice_in *in, char *buf, size_t len)
{
	if (in->hop_address == NULL) {
		app(buf, len, " Report it to the path's owner with the evidence from "
		    "scaleprobe export --pcap DIR.");
		return;
	}
	app(buf, len, " Report the box to its owner: address %s (hop %d), last clean hop %s "
	    "(hop %d), and the evidence from scaleprobe export --hop %s --pcap DIR.",
	    in->hop_address, in->hop_index,
	    in->clean_address != NULL ? in->clean_address : "this host",
	    in->clean_address != NULL ? in->clean_index : 0, in->hop_address);
}

static void
shift_change(const struct advice_in *in, char *buf, size_t len)
{
	if (in->scale_sent >= 0 && in->scale_applied >= 0)
		snprintf(buf, len, "from %d to %d", in->scale_sent, in->scale_applied);
	else if (in->scale_sent >= 0)
		snprintf(buf, len, "from %d to another value", in->scale_sent);
	else
		snprintf(buf, len, "to another value");
}

static void
route_command(const struct advice_in *in, unsigned long window, char *buf, size_t len)
{
	buf[0] = '\0';
	app(buf, len, "ip %sroute replace %s/%d", in->v6 ? "-6 " : "", in->address,
	    in->v6 ? 128 : 32);
	if (in->dev == NULL)
		app(buf, len, " via GW dev DEV");
	else if (in->gw != NULL)
		app(buf, len, " via %s dev %s", in->gw, in->dev);
	else
		app(buf, len, " dev %s", in->dev);
	app(buf, len, " window %lu", window);
}

static void
down_client(const struct advice_in *in, struct advice *out)
{
	char box[160], chg[48];
	int k = advice_route_shift(in);
	unsigned long w;

	if (k < 0)
		k = 0;		/* unknown: no shift at all is the safe one */
	w = 65535ul << k;
	box_name(in, false, box, sizeof(box));
	shift_change(in, chg, sizeof(chg));
	route_command(in, w, out->command, sizeof(out->command));
	snprintf(out->fallback, sizeof(out->fallback), "sysctl -w net.ipv4.tcp_window_scaling=0");
	app(out->text, sizeof(out->text),
	    "Connections from here to %s stall: %s rewrites the window scale they offer %s, "
	    "so the server reads every window this host advertises as smaller than it is "
	    "and sends a trickle. Fix it for this destination only: a route whose window "
	    "metric makes Linux offer shift %d, which the box leaves as it is (windows on "
	    "this route are then at most %lu bytes): %s", in->address, box, chg, k, w,
	    out->command);
	if (in->dev == NULL)
		app(out->text, sizeof(out->text),
		    " (GW and DEV: what 'ip %sroute get %s' shows on the host)",
		    in->v6 ? "-6 " : "", in->address);
	app(out->text, sizeof(out->text),
	    ". Global fallback, for every destination: %s (cost: for every connection, %s), or "
	    "net.ipv4.tcp_rmem's maximum and net.core.rmem_max at most %lu bytes (cost: every "
	    "connection's receive window at most %lu bytes).", out->fallback, CAP_COST, w, w);
}

static void
down_server(const struct advice_in *in, struct advice *out)
{
	char box[160], chg[48];

	box_name(in, false, box, sizeof(box));
	shift_change(in, chg, sizeof(chg));
	snprintf(out->fallback, sizeof(out->fallback), "sysctl -w net.ipv4.tcp_window_scaling=0");
	if (in->hop_address != NULL)
		snprintf(out->command, sizeof(out->command),
		    "scaleprobe export --hop %s --pcap DIR", in->hop_address);
	app(out->text, sizeof(out->text),
	    "Clients of %s port %u across %s see their window scale rewritten %s: the "
	    "servers read their windows as smaller than they are and downloads crawl. The box "
	    "must be fixed or bypassed; or turn window scaling off on the servers: %s (cost: "
	    "for every connection, %s).", in->address, in->port, box, chg, out->fallback, CAP_COST);
	report_box(in, out->text, sizeof(out->text));
}

static void
raised(const struct advice_in *in, enum advice_side side, struct advice *out)
{
	char box[160], chg[48];

	box_name(in, true, box, sizeof(box));
	shift_change(in, chg, sizeof(chg));
	if (in->hop_address != NULL)
		snprintf(out->command, sizeof(out->command),
		    "scaleprobe export --hop %s --pcap DIR", in->hop_address);
	app(out->text, sizeof(out->text),
	    "%s raises the window scale %s %s: the server believes the client's windows are "
	    "larger than they are and overruns them (drops, retransmissions, stalls). Only "
	    "the box's owner can fix it.", box,
	    side == ADVICE_CLIENT ? "this host offers" : "clients offer", chg);
	report_box(in, out->text, sizeof(out->text));
}

static void
stripped(const struct advice_in *in, enum advice_side side, struct advice *out)
{
	char box[160];

	box_name(in, true, box, sizeof(box));
	app(out->text, sizeof(out->text),
	    "%s removes the window-scale option: connections work without window scaling, "
	    "so no fix is needed for correctness. The cost: %s.", box, CAP_COST);
	if (side == ADVICE_SERVER) {
		if (in->hop_address != NULL)
			snprintf(out->command, sizeof(out->command),
			    "scaleprobe export --hop %s --pcap DIR", in->hop_address);
		app(out->text, sizeof(out->text),
		    " Where throughput matters, have the box fixed.");
		report_box(in, out->text, sizeof(out->text));
	}
}

static void
syn_dropped(const struct advice_in *in, enum advice_side side, struct advice *out)
{
	char box[160];

	box_name(in, true, box, sizeof(box));
	if (in->hop_address != NULL)
		snprintf(out->command, sizeof(out->command),
		    "scaleprobe export --hop %s --pcap DIR", in->hop_address);
	app(out->text, sizeof(out->text),
	    "%s drops SYNs that offer window scaling: connections from %s that offer the "
	    "option (every current system does) fail. Only the box's owner can fix it.", box,
	    side == ADVICE_CLIENT ? "this host" : "clients");
	report_box(in, out->text, sizeof(out->text));
}

int
advice_for(const struct advice_in *in, enum advice_side side, struct advice *out)
{
	memset(out, 0, sizeof(*out));
	switch (in->verdict) {
	case VERDICT_REWRITTEN:
		if (in->raised)
			raised(in, side, out);
		else if (side == ADVICE_CLIENT)
			down_client(in, out);
		else
			down_server(in, out);
		return 0;
	case VERDICT_STRIPPED:
		stripped(in, side, out);
		return 0;
	case VERDICT_SYN_DROPPED:
		syn_dropped(in, side, out);
		return 0;
	default:
		return -1;
	}
}
