/*
 * advice.c -- what to do about a verdict, per side of the path: the
 * per-route window for the hosts behind a box that rewrites the shift
 * down, the global fallback and its cost, and the box to report (its
 * address, the last clean hop, the evidence to send).  Pure.
 *
 * Every address comes from a store, which anyone may have edited, and the
 * device's name from netlink: a command printed to be pasted holds only
 * addresses inet_pton read (written back from their bytes) and a device
 * name of the characters ip(8) takes as they are (advice_dev_ok), each a
 * shell word (textsafe_shell); anything else leaves the command out and a
 * sentence says why.
 */
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "advice.h"
#include "silent_hops.h"
#include "textsafe.h"

/* What the text names in place of an address that is not one. */
#define NOT_AN_ADDRESS "(an address the store holds is not valid)"

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

/* s read by inet_pton as an address of family (ADDR_V4, ADDR_V6; 0
 * either) and written back from its bytes into buf; NULL when it is not
 * one. */
static const char *
valid_addr(const char *s, int family, char *buf, size_t len)
{
	struct addr a;

	if (s == NULL || addr_parse(s, &a) != 0 || (family != 0 && a.family != family))
		return NULL;
	return addr_format(&a, buf, len);
}

bool
advice_dev_ok(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n == 0 || n >= IFNAMSIZ || s[0] == '-' || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* An advice_in with every address validated (valid_addr) into the
 * buffers here: one that is not an address is NOT_AN_ADDRESS in the text
 * and marked bad, and so is a device's name advice_dev_ok refuses. */
struct checked {
	struct advice_in in;
	bool bad_dst, bad_hop, bad_gw, bad_dev;
	char dst[ADDR_STRLEN], hop[ADDR_STRLEN], clean[ADDR_STRLEN], gw[ADDR_STRLEN];
};

static void
check_in(const struct advice_in *in, struct checked *c)
{
	memset(c, 0, sizeof(*c));
	c->in = *in;
	if ((c->in.address = valid_addr(in->address, in->v6 ? ADDR_V6 : ADDR_V4, c->dst,
	    sizeof(c->dst))) == NULL) {
		c->in.address = NOT_AN_ADDRESS;
		c->bad_dst = true;
	}
	if (in->hop_address != NULL && (c->in.hop_address = valid_addr(in->hop_address, 0,
	    c->hop, sizeof(c->hop))) == NULL) {
		c->in.hop_address = NOT_AN_ADDRESS;
		c->bad_hop = true;
	}
	if (in->clean_address != NULL && (c->in.clean_address = valid_addr(in->clean_address,
	    0, c->clean, sizeof(c->clean))) == NULL)
		c->in.clean_address = NOT_AN_ADDRESS;
	if (in->gw != NULL && (c->in.gw = valid_addr(in->gw, in->v6 ? ADDR_V6 : ADDR_V4, c->gw,
	    sizeof(c->gw))) == NULL)
		c->bad_gw = true;
	if (in->dev != NULL && !advice_dev_ok(in->dev))
		c->bad_dev = true;
}

/* The interval's ends: "198.18.1.2 (hop 1) and 198.18.4.2 (hop 4)". */
static void
ends(const struct advice_in *in, char *buf, size_t len)
{
	snprintf(buf, len, "%s (hop %d) and %s (hop %d)",
	    in->clean_address != NULL ? in->clean_address : "this host",
	    in->clean_address != NULL ? in->clean_index : 0, in->hop_address, in->hop_index);
}

/* "the box at 198.18.5.2 (hop 5, after 198.18.4.2, hop 4)"; "The ..."
 * to begin a sentence.  With silent hops in the interval no hop is named
 * as the box: "the box somewhere between A (hop 1) and B (hop 4) (hops
 * 2-3 did not answer)". */
static void
box_name(const struct advice_in *in, bool cap, char *buf, size_t len)
{
	char e[2 * ADDR_STRLEN + 64], s[96];

	buf[0] = '\0';
	if (in->hop_address == NULL) {
		app(buf, len, "%s box on the path (not located: probe with --trace always)",
		    cap ? "A" : "a");
		return;
	}
	if (in->silent != 0) {
		ends(in, e, sizeof(e));
		app(buf, len, "%s box somewhere between %s (%s did not answer)", cap ? "The" : "the",
		    e, silent_hops_name(in->silent, s, sizeof(s)));
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
	char e[2 * ADDR_STRLEN + 64], s[96];

	if (in->hop_address == NULL) {
		app(buf, len, " Report it to the path's owner with the evidence from "
		    "scaleprobe export --pcap DIR.");
		return;
	}
	if (in->silent != 0) {
		/* a silent router may be the box: name the stretch, not a hop */
		ends(in, e, sizeof(e));
		app(buf, len, " It is not located exactly: %s did not answer, so it is one of "
		    "hops %d to %d or a link between them. Report it to the owners of the path "
		    "between %s, with the evidence from scaleprobe export --hop %s --pcap DIR.",
		    silent_hops_name(in->silent, s, sizeof(s)),
		    in->clean_address != NULL ? in->clean_index + 1 : 1, in->hop_index, e,
		    strcmp(in->hop_address, NOT_AN_ADDRESS) == 0 ? "ADDRESS" : in->hop_address);
		return;
	}
	app(buf, len, " Report the box to its owner: address %s (hop %d), last clean hop %s "
	    "(hop %d), and the evidence from scaleprobe export --hop %s --pcap DIR.",
	    in->hop_address, in->hop_index,
	    in->clean_address != NULL ? in->clean_address : "this host",
	    in->clean_address != NULL ? in->clean_index : 0,
	    strcmp(in->hop_address, NOT_AN_ADDRESS) == 0 ? "ADDRESS" : in->hop_address);
}

/* "scaleprobe export --hop ADDR --pcap DIR" for a located box; for a box
 * whose stored address is not one, no command and why. */
static void
export_command(const struct checked *c, struct advice *out)
{
	char w[ADDR_STRLEN + 8];

	if (c->in.hop_address == NULL)
		return;
	if (c->bad_hop || textsafe_shell(c->in.hop_address, w, sizeof(w)) == NULL) {
		app(out->text, sizeof(out->text), " No command is printed: the box's address "
		    "in the store is not a valid IPv4 or IPv6 address.");
		return;
	}
	snprintf(out->command, sizeof(out->command), "scaleprobe export --hop %s --pcap DIR", w);
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

/* The route's command into buf, every argument a shell word; NULL, buf
 * empty and the reason in *why when an argument is not valid. */
static const char *
route_command(const struct checked *c, unsigned long window, char *buf, size_t len,
    const char **why)
{
	const struct advice_in *in = &c->in;
	char pfx[ADDR_STRLEN + 8], dst[ADDR_STRLEN + 16], gw[ADDR_STRLEN + 8], dev[IFNAMSIZ + 8];

	buf[0] = '\0';
	*why = NULL;
	if (c->bad_dst)
		*why = in->v6 ? "the destination's address in the store is not a valid IPv6 "
		    "address" : "the destination's address in the store is not a valid IPv4 address";
	else if (c->bad_gw)
		*why = "the gateway of this host's route to it is not a valid address of its family";
	else if (c->bad_dev)
		*why = "the device of this host's route to it has a name ip(8) should not be "
		    "given as it is (at most 15 letters, digits, '_', '.' and '-')";
	if (*why != NULL)
		return NULL;
	snprintf(pfx, sizeof(pfx), "%s/%d", in->address, in->v6 ? 128 : 32);
	if (textsafe_shell(pfx, dst, sizeof(dst)) == NULL ||
	    (in->gw != NULL && textsafe_shell(in->gw, gw, sizeof(gw)) == NULL) ||
	    (in->dev != NULL && textsafe_shell(in->dev, dev, sizeof(dev)) == NULL)) {
		*why = "an argument cannot be written as a shell word";
		return NULL;
	}
	app(buf, len, "ip %sroute replace %s", in->v6 ? "-6 " : "", dst);
	if (in->dev == NULL)
		app(buf, len, " via GW dev DEV");
	else if (in->gw != NULL)
		app(buf, len, " via %s dev %s", gw, dev);
	else
		app(buf, len, " dev %s", dev);
	app(buf, len, " window %lu", window);
	return buf;
}

static void
down_client(const struct checked *c, struct advice *out)
{
	const struct advice_in *in = &c->in;
	char box[256], chg[48];
	int k = advice_route_shift(in);
	unsigned long w;
	const char *why;

	if (k < 0)
		k = 0;		/* unknown: no shift at all is the safe one */
	w = 65535ul << k;
	box_name(in, false, box, sizeof(box));
	shift_change(in, chg, sizeof(chg));
	snprintf(out->fallback, sizeof(out->fallback), "sysctl -w net.ipv4.tcp_window_scaling=0");
	app(out->text, sizeof(out->text),
	    "Connections from here to %s stall: %s rewrites the window scale they offer %s, "
	    "so the server reads every window this host advertises as smaller than it is "
	    "and sends a trickle. Fix it for this destination only: a route whose window "
	    "metric makes Linux offer shift %d, which the box leaves as it is (windows on "
	    "this route are then at most %lu bytes)", in->address, box, chg, k, w);
	if (route_command(c, w, out->command, sizeof(out->command), &why) == NULL)
		app(out->text, sizeof(out->text), ". No command is printed: %s", why);
	else
		app(out->text, sizeof(out->text), ": %s", out->command);
	if (why == NULL && in->dev == NULL)
		app(out->text, sizeof(out->text),
		    " (GW and DEV: what 'ip %sroute get %s' shows on the host)",
		    in->v6 ? "-6 " : "", in->address);
	app(out->text, sizeof(out->text),
	    ". Global fallback, for every destination: %s (cost: for every connection, %s), or "
	    "net.ipv4.tcp_rmem's maximum and net.core.rmem_max at most %lu bytes (cost: every "
	    "connection's receive window at most %lu bytes).", out->fallback, CAP_COST, w, w);
}

static void
down_server(const struct checked *c, struct advice *out)
{
	const struct advice_in *in = &c->in;
	char box[256], chg[48];

	box_name(in, false, box, sizeof(box));
	shift_change(in, chg, sizeof(chg));
	snprintf(out->fallback, sizeof(out->fallback), "sysctl -w net.ipv4.tcp_window_scaling=0");
	app(out->text, sizeof(out->text),
	    "Clients of %s port %u across %s see their window scale rewritten %s: the "
	    "servers read their windows as smaller than they are and downloads crawl. The box "
	    "must be fixed or bypassed; or turn window scaling off on the servers: %s (cost: "
	    "for every connection, %s).", in->address, in->port, box, chg, out->fallback, CAP_COST);
	report_box(in, out->text, sizeof(out->text));
	export_command(c, out);
}

static void
raised(const struct checked *c, enum advice_side side, struct advice *out)
{
	const struct advice_in *in = &c->in;
	char box[256], chg[48];

	box_name(in, true, box, sizeof(box));
	shift_change(in, chg, sizeof(chg));
	app(out->text, sizeof(out->text),
	    "%s raises the window scale %s %s: the server believes the client's windows are "
	    "larger than they are and overruns them (drops, retransmissions, stalls). Only "
	    "the box's owner can fix it.", box,
	    side == ADVICE_CLIENT ? "this host offers" : "clients offer", chg);
	report_box(in, out->text, sizeof(out->text));
	export_command(c, out);
}

static void
stripped(const struct checked *c, enum advice_side side, struct advice *out)
{
	const struct advice_in *in = &c->in;
	char box[256];

	box_name(in, true, box, sizeof(box));
	app(out->text, sizeof(out->text),
	    "%s removes the window-scale option: connections work without window scaling, "
	    "so no fix is needed for correctness. The cost: %s.", box, CAP_COST);
	if (side == ADVICE_SERVER) {
		app(out->text, sizeof(out->text),
		    " Where throughput matters, have the box fixed.");
		report_box(in, out->text, sizeof(out->text));
		export_command(c, out);
	}
}

static void
syn_dropped(const struct checked *c, enum advice_side side, struct advice *out)
{
	const struct advice_in *in = &c->in;
	char box[256];

	box_name(in, true, box, sizeof(box));
	app(out->text, sizeof(out->text),
	    "%s drops SYNs that offer window scaling: connections from %s that offer the "
	    "option (every current system does) fail. Only the box's owner can fix it.", box,
	    side == ADVICE_CLIENT ? "this host" : "clients");
	report_box(in, out->text, sizeof(out->text));
	export_command(c, out);
}

int
advice_for(const struct advice_in *in, enum advice_side side, struct advice *out)
{
	struct checked c;

	memset(out, 0, sizeof(*out));
	check_in(in, &c);
	switch (in->verdict) {
	case VERDICT_REWRITTEN:
		if (in->raised)
			raised(&c, side, out);
		else if (side == ADVICE_CLIENT)
			down_client(&c, out);
		else
			down_server(&c, out);
		return 0;
	case VERDICT_STRIPPED:
		stripped(&c, side, out);
		return 0;
	case VERDICT_SYN_DROPPED:
		syn_dropped(&c, side, out);
		return 0;
	default:
		return -1;
	}
}
