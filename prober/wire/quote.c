/*
 * quote.c -- a router's quote of a trace SYN compared field by field with
 * the SYN we crafted (quote.h): NAT, ISN rewriting, and what happened to
 * window scale, MSS, SACK-permitted, timestamps and everything else.
 * Pure; both buffers are parsed with the wire_* parsers, never cast.
 */
#include <stdbool.h>
#include <string.h>

#include "quote.h"
#include "wire_ip.h"
#include "wire_tcp.h"
#include "wire_tcpopt.h"

#define QUOTE_PROTO_TCP	6

/* One side of the comparison, parsed. */
struct quote_side {
	const uint8_t	*l3;		/* the IP header */
	const uint8_t	*l4;		/* the TCP header */
	size_t		 l4_len;	/* TCP bytes present */
	struct wire_ip	 ip;
	struct wire_tcp	 th;
	struct tcpopts	 o;
	bool		 complete;	/* header and options there, well formed */
};

/* Non-NOP options in wire order, as indices into tcpopts.opt[]. */
struct quote_optlist {
	size_t	n;
	uint8_t	idx[WIRE_TCPOPT_MAX];
};

/* Parse one side; -1 unless it is a TCP datagram with >= 8 TCP bytes. */
static int
quote_parse(const uint8_t *buf, size_t len, struct quote_side *s)
{
	enum wire_result r;
	size_t have;

	memset(s, 0, sizeof(*s));
	if (buf == NULL || len == 0)
		return -1;
	r = wire_ip_parse(buf, len, &s->ip);
	if ((r != WIRE_OK && r != WIRE_TRUNCATED) || !s->ip.l4_known ||
	    s->ip.proto != QUOTE_PROTO_TCP || s->ip.frag || s->ip.l4_len < 8)
		return -1;
	s->l3 = buf;
	s->l4 = buf + s->ip.l4_off;
	s->l4_len = s->ip.l4_len;
	r = wire_tcp_parse(s->l4, s->l4_len, &s->th);
	if (r == WIRE_MALFORMED)
		return -1;
	if (r != WIRE_OK)
		return 0;
	have = s->th.hdr_len - WIRE_TCP_MIN;
	if (wire_tcpopt_parse(s->l4 + WIRE_TCP_MIN, have, have, &s->o) == WIRE_OK)
		s->complete = true;
	return 0;
}

/* Addresses and ports, the fields a NAT rewrites. */
static bool
quote_nat(const struct quote_side *s, const struct quote_side *q)
{
	return memcmp(s->ip.src, q->ip.src, sizeof(s->ip.src)) != 0 ||
	    memcmp(s->ip.dst, q->ip.dst, sizeof(s->ip.dst)) != 0 ||
	    s->th.sport != q->th.sport || s->th.dport != q->th.dport;
}

/* IP header fields no router has a reason to touch: IHL and the ID and
 * fragment word (v4); flow label and the extension-header chain (v6).
 * TTL / hop limit, TOS / traffic class and the v4 checksum are masked;
 * lengths are compared with the TCP header (quote_lengths). */
static bool
quote_ip_changed(const struct quote_side *s, const struct quote_side *q)
{
	if (s->ip.version == 4)
		return s->ip.hdr_len != q->ip.hdr_len ||
		    s->ip.ip_id != q->ip.ip_id ||
		    wire_get16(s->l3 + 6) != wire_get16(q->l3 + 6);
	if (s->ip.flow != q->ip.flow || s->ip.n_ext != q->ip.n_ext)
		return true;
	for (unsigned i = 0; i < s->ip.n_ext; i++) {
		const struct wire_ip6_ext *a = &s->ip.ext[i], *b = &q->ip.ext[i];

		/* l4_known: each header of the chain is wholly present */
		if (a->type != b->type || a->len != b->len ||
		    memcmp(s->l3 + a->off, q->l3 + b->off, a->len) != 0)
			return true;
	}
	return false;
}

/* The segment's payload length as the IP header claims it: a SYN carries
 * none, and a header shortened by a stripper shortens the datagram too. */
static long
quote_payload_claim(const struct quote_side *s)
{
	return (long)s->ip.tot_len - (long)s->ip.l4_off - (long)s->th.hdr_len;
}

/* The fixed TCP header of two complete headers, checksum aside. */
static bool
quote_tcp_changed(const struct quote_side *s, const struct quote_side *q)
{
	return s->th.ack != q->th.ack ||
	    (s->l4[12] & 0x0f) != (q->l4[12] & 0x0f) || s->l4[13] != q->l4[13] ||
	    s->th.window != q->th.window || s->th.urg != q->th.urg;
}

/* A checksum that differs while every byte it covers is the same. */
static bool
quote_csum_alone(const struct quote_side *s, const struct quote_side *q)
{
	size_t n = s->th.hdr_len;

	if (s->th.csum == q->th.csum || n != q->th.hdr_len ||
	    quote_payload_claim(s) != quote_payload_claim(q))
		return false;
	return memcmp(s->l4, q->l4, 16) == 0 &&
	    memcmp(s->l4 + 18, q->l4 + 18, n - 18) == 0;
}

static void
quote_optlist(const struct tcpopts *o, struct quote_optlist *l)
{
	l->n = 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->opt[i].kind == WIRE_TCPOPT_EOL)
			break;
		if (o->opt[i].kind != WIRE_TCPOPT_NOP)
			l->idx[l->n++] = (uint8_t)i;
	}
}

/* Drop every entry of kind from l. */
static void
quote_optlist_drop(const struct tcpopts *o, struct quote_optlist *l, uint8_t kind)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++)
		if (o->opt[l->idx[i]].kind != kind)
			l->idx[k++] = l->idx[i];
	l->n = k;
}

/* The sent WS option's bytes are NOPs in the quote, the area unchanged
 * in length: xt_TCPOPTSTRIP's way of removing an option. */
static bool
quote_ws_nopped(const struct quote_side *s, const struct quote_side *q)
{
	const uint8_t *qa = q->l4 + WIRE_TCP_MIN;

	if (s->o.area_len != q->o.area_len)
		return false;
	for (size_t i = 0; i < s->o.n; i++) {
		const struct wire_tcpopt *e = &s->o.opt[i];

		if (e->kind != WIRE_TCPOPT_WSCALE)
			continue;
		/* the sent option lies inside its area, and the areas are
		 * of one length and both wholly present */
		for (unsigned b = 0; b < e->len; b++)
			if (qa[e->off + b] != WIRE_TCPOPT_NOP)
				return false;
		return true;
	}
	return false;
}

/* The window-scale option of the quote against the one sent (or none). */
static void
quote_ws(const struct quote_side *s, const struct quote_side *q,
    struct hop_quote *out)
{
	out->ws_value = q->o.has_wscale ? q->o.wscale : -1;
	if (!s->o.has_wscale)
		out->ws = q->o.has_wscale ? WS_ADDED : WS_NOT_SENT;
	else if (q->o.has_wscale)
		out->ws = q->o.wscale == s->o.wscale ? WS_INTACT : WS_CHANGED;
	else
		out->ws = quote_ws_nopped(s, q) ? WS_NOPPED : WS_REMOVED;
}

/* Options other than the ones reported on their own: after taking out
 * what was stripped (and a WS a box added to the control), both lists
 * must name the same kinds in the same order with the same bytes; MSS
 * and WS values are judged by their own fields. */
static bool
quote_opts_changed(const struct quote_side *s, const struct quote_side *q,
    const struct hop_quote *out)
{
	struct quote_optlist ls, lq;
	const uint8_t *sa = s->l4 + WIRE_TCP_MIN, *qa = q->l4 + WIRE_TCP_MIN;

	quote_optlist(&s->o, &ls);
	quote_optlist(&q->o, &lq);
	if (out->sack_stripped)
		quote_optlist_drop(&s->o, &ls, WIRE_TCPOPT_SACK_PERM);
	if (out->ts_stripped)
		quote_optlist_drop(&s->o, &ls, WIRE_TCPOPT_TS);
	if (out->ws == WS_REMOVED || out->ws == WS_NOPPED)
		quote_optlist_drop(&s->o, &ls, WIRE_TCPOPT_WSCALE);
	if (out->ws == WS_ADDED)
		quote_optlist_drop(&q->o, &lq, WIRE_TCPOPT_WSCALE);
	if (ls.n != lq.n)
		return true;
	for (size_t i = 0; i < ls.n; i++) {
		const struct wire_tcpopt *a = &s->o.opt[ls.idx[i]];
		const struct wire_tcpopt *b = &q->o.opt[lq.idx[i]];

		if (a->kind != b->kind || a->len != b->len)
			return true;
		if (a->kind == WIRE_TCPOPT_MSS || a->kind == WIRE_TCPOPT_WSCALE)
			continue;
		/* a complete, well-formed list: every entry lies inside */
		if (memcmp(sa + a->off, qa + b->off, a->len) != 0)
			return true;
	}
	/* an MSS raised is no clamp, and none is not a value */
	return s->o.has_mss && q->o.has_mss && q->o.mss > s->o.mss;
}

/* Options and the rest of a complete header. */
static void
quote_full(const struct quote_side *s, const struct quote_side *q,
    struct hop_quote *out)
{
	quote_ws(s, q, out);
	out->mss = q->o.has_mss ? q->o.mss : -1;
	out->sack_stripped = s->o.sack_perm && !q->o.sack_perm;
	out->ts_stripped = s->o.has_ts && !q->o.has_ts;
	if (quote_opts_changed(s, q, out) || quote_tcp_changed(s, q) ||
	    quote_payload_claim(s) != quote_payload_claim(q) ||
	    (!out->nat && quote_csum_alone(s, q)))
		out->other_changed = true;
}

void
quote_compare(const uint8_t *sent, size_t sent_len, const uint8_t *quote,
    size_t quote_len, enum quote_kind kind, struct hop_quote *out)
{
	struct quote_side s, q;
	struct addr from = out->from;
	uint32_t rtt_us = out->rtt_us;

	memset(out, 0, sizeof(*out));
	out->from = from;
	out->rtt_us = rtt_us;
	out->quote = kind;
	out->ws = WS_UNKNOWN;
	out->ws_value = -1;
	out->mss = -1;
	out->mss_sent = -1;
	if (quote_parse(sent, sent_len, &s) != 0 || !s.complete)
		return;
	out->mss_sent = s.o.has_mss ? s.o.mss : -1;
	if (kind == QUOTE_NONE || quote_parse(quote, quote_len, &q) != 0 ||
	    q.ip.version != s.ip.version)
		return;
	out->nat = quote_nat(&s, &q);
	out->isn_rewritten = s.th.seq != q.th.seq;
	out->other_changed = quote_ip_changed(&s, &q);
	if (kind == QUOTE_FULL && q.complete)
		quote_full(&s, &q, out);
}

int
quote_is_full(const struct hop_quote *q)
{
	return q->quote == QUOTE_FULL && q->ws != WS_UNKNOWN;
}
