/*
 * labpath.c -- the lab as a model in memory (labpath.h): packets walk the
 * routers one by one, meet the lab's own mbox surgery and NAT where the
 * lab puts them, and come back as quotes or as the server's answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lab/mbox_mangle.h"
#include "../lab/mbox_rules.h"
#include "labpath.h"
#include "pktbuild.h"
#include "quote.h"
#include "wire.h"
#include "wire_csum.h"
#include "wire_icmp.h"
#include "wire_ip.h"
#include "wire_tcp.h"
#include "wire_tcpopt.h"

#define LP_TSVAL	0x0badcafeu
#define LP_DPORT	80

size_t
lp_syn(uint8_t *buf, size_t cap, const struct addr *src, const struct addr *dst,
    int scale, uint8_t ttl, uint16_t sport, uint32_t isn)
{
	uint8_t opts[20] = {
		0x02, 0x04, 0x05, 0xb4,			/* MSS 1460 */
		0x04, 0x02,				/* SACK-permitted */
		0x08, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0,	/* timestamps */
		0x01, 0x01, 0x01, 0x01,			/* NOP, or NOP + WS */
	};
	struct pkt_tcp t = {
		.src = src, .dst = dst, .sport = sport, .dport = LP_DPORT,
		.seq = isn, .flags = 0x02, .window = 64240, .ttl = ttl,
		.opts = opts, .optlen = sizeof(opts),
	};

	wire_put32(opts + 8, LP_TSVAL);
	if (scale >= 0) {
		opts[17] = 0x03;
		opts[18] = 0x03;
		opts[19] = (uint8_t)scale;
	}
	return pkt_build_tcp(buf, cap, &t);
}

bool
lp_mbox(const char *action, uint8_t *pkt, size_t *len)
{
	struct mbox_rules rs;
	struct addr dst;
	char text[128], a[ADDR_STRLEN];
	const uint8_t *d;
	enum mbox_verdict v;

	/* the rule names the destination: the packet's, or for an ICMP
	 * error the quoted packet's */
	memset(&dst, 0, sizeof(dst));
	dst.family = (uint8_t)(pkt[0] >> 4);
	if (dst.family == ADDR_V4)
		d = pkt[9] == 1 ? pkt + 20 + 8 + 16 : pkt + 16;
	else
		d = pkt[6] == 58 ? pkt + 40 + 8 + 24 : pkt + 24;
	memcpy(dst.bytes, d, addr_len(&dst));
	snprintf(text, sizeof(text), "%s %s\n", addr_format(&dst, a, sizeof(a)), action);
	memset(&rs, 0, sizeof(rs));
	if (mbox_rules_parse(&rs, "labpath", text, strlen(text)) != 0) {
		fprintf(stderr, "labpath: bad mbox rule: %s", text);
		abort();
	}
	v = mbox_mangle(&rs, pkt, len, NULL);
	mbox_rules_free(&rs);
	return v == MBOX_DROP;
}

void
lp_fix_csums(uint8_t *pkt, size_t len)
{
	uint8_t *th;
	size_t tl;

	if (pkt[0] >> 4 == 4) {
		size_t hl = (size_t)(pkt[0] & 0x0f) * 4;

		wire_put16(pkt + 10, 0);
		wire_put16(pkt + 10, wire_csum(pkt, hl));
		th = pkt + hl;
		tl = len - hl;
		wire_put16(th + 16, 0);
		wire_put16(th + 16, wire_tcp_csum4(pkt + 12, pkt + 16, th, tl));
		return;
	}
	th = pkt + 40;
	tl = len - 40;
	wire_put16(th + 16, 0);
	wire_put16(th + 16, wire_tcp_csum6(pkt + 8, pkt + 24, th, tl));
}

/* TTL / hop limit, and the IPv4 header checksum a router fixes with it. */
static void
lp_set_ttl(uint8_t *pkt, uint8_t ttl)
{
	if (pkt[0] >> 4 == 6) {
		pkt[7] = ttl;
		return;
	}
	pkt[8] = ttl;
	wire_put16(pkt + 10, 0);
	wire_put16(pkt + 10, wire_csum(pkt, (size_t)(pkt[0] & 0x0f) * 4));
}

static uint8_t
lp_ttl(const uint8_t *pkt)
{
	return pkt[0] >> 4 == 6 ? pkt[7] : pkt[8];
}

void
lp_snat(uint8_t *pkt, size_t len, const struct addr *to, uint16_t port)
{
	if (pkt[0] >> 4 == 4) {
		memcpy(pkt + 12, to->bytes, 4);
		wire_put16(pkt + (size_t)(pkt[0] & 0x0f) * 4, port);
	} else {
		memcpy(pkt + 8, to->bytes, 16);
		wire_put16(pkt + 40, port);
	}
	lp_fix_csums(pkt, len);
}

/* An ICMP error quoting arrived, parsed back the way reply.c does, its
 * quote compared with sent. */
static bool
lp_error_quote(const uint8_t *sent, size_t sent_len, const uint8_t *arrived,
    size_t arrived_len, const struct addr *from, const struct addr *to,
    uint8_t type, uint8_t code, enum lp_quote how, size_t cut,
    struct hop_quote *out)
{
	uint8_t q[LP_PKT_MAX], err[LP_PKT_MAX], *sent_copy, *quote_copy;
	size_t qlen = arrived_len, elen, hl = from->family == ADDR_V4 ? 20 : 40;
	struct wire_ip ip;
	struct wire_icmp ic;
	enum wire_result r;
	enum quote_kind kind;

	if (arrived_len > sizeof(q) - 200)
		return false;
	memcpy(q, arrived, arrived_len);
	lp_set_ttl(q, 1);
	size_t orig = qlen;

	if (how == LP_QUOTE_RFC4884) {
		/* the original datagram padded to 128 bytes, then an extension
		 * structure (version 2) with one MPLS label stack object */
		static const uint8_t ext[] = {
			0x20, 0x00, 0x00, 0x00, 0x00, 0x08, 0x01, 0x01,
			0x00, 0x01, 0x41, 0x01,
		};

		if (qlen < 128)
			memset(q + qlen, 0, 128 - qlen);
		orig = qlen > 128 ? qlen : 128;
		memcpy(q + orig, ext, sizeof(ext));
		qlen = orig + sizeof(ext);
	}
	elen = pkt_build_icmp(err, sizeof(err), from, to, type, code, q, qlen,
	    how == LP_QUOTE_CUT ? cut : 0);
	if (elen == 0)
		return false;
	if (how == LP_QUOTE_RFC4884) {
		uint8_t *ic4 = err + hl;

		if (from->family == ADDR_V4)
			ic4[5] = (uint8_t)(orig / 4);
		else
			ic4[4] = (uint8_t)(orig / 8);
		wire_put16(ic4 + 2, 0);
		if (from->family == ADDR_V4)
			wire_put16(ic4 + 2, wire_csum(ic4, elen - hl));
		else
			wire_put16(ic4 + 2, wire_csum_fold(wire_csum_add(wire_csum_pseudo6(
			    from->bytes, to->bytes, 58, (uint32_t)(elen - hl)), ic4, elen - hl)));
	}
	if (how == LP_QUOTE_8BYTE)
		(void)lp_mbox("quote-8byte", err, &elen);

	r = wire_ip_parse(err, elen, &ip);
	if (r != WIRE_OK || !ip.l4_known)
		return false;
	if (wire_icmp_parse(err + ip.l4_off, ip.l4_len, ip.version, &ic) != WIRE_OK ||
	    ic.kind == WIRE_ICMP_NOT_ERROR || !ic.has_tcp)
		return false;
	kind = ic.quote == WIRE_QUOTE_FULL ? QUOTE_FULL : QUOTE_8BYTE;
	if (how == LP_QUOTE_RFC4884 && !ic.rfc4884)
		return false;	/* the length must hold with its extension */

	/* exact-size copies: the sanitizer build sees any read past them */
	sent_copy = malloc(sent_len);
	quote_copy = malloc(ic.quote_len ? ic.quote_len : 1);
	if (sent_copy == NULL || quote_copy == NULL)
		abort();
	memcpy(sent_copy, sent, sent_len);
	memcpy(quote_copy, err + ip.l4_off + ic.quote_off, ic.quote_len);
	memset(out, 0, sizeof(*out));
	out->from = *from;
	quote_compare(sent_copy, sent_len, quote_copy, ic.quote_len, kind, out);
	out->rfc4884 = ic.rfc4884_len != 0;
	free(sent_copy);
	free(quote_copy);
	return true;
}

bool
lp_router_quote(const uint8_t *sent, size_t sent_len, const uint8_t *arrived,
    size_t arrived_len, const struct addr *from, const struct addr *to,
    enum lp_quote how, size_t cut, struct hop_quote *out)
{
	return lp_error_quote(sent, sent_len, arrived, arrived_len, from, to,
	    from->family == ADDR_V4 ? 11 : 3, 0, how, cut, out);
}

struct addr
lp_hop_addr(int family, int k)
{
	struct addr a;
	char text[48];

	if (family == ADDR_V4)
		snprintf(text, sizeof(text), k == 0 ? "198.18.1.1" : "198.18.%d.2", k);
	else
		snprintf(text, sizeof(text), k == 0 ? "fd00:5ca1:1::1" : "fd00:5ca1:%d::2", k);
	if (addr_parse(text, &a) != 0)
		abort();
	return a;
}

/* The NAT's own address: masquerade uses its link's .1, the leaking SNAT
 * of the lab .100 (README "NAT: two kinds"). */
static struct addr
lp_nat_addr(const struct lp_path *p)
{
	struct addr a;
	char text[48];

	if (p->family == ADDR_V4)
		snprintf(text, sizeof(text), "198.18.%d.%d", p->nat + 1,
		    p->nat_leaked ? 100 : 1);
	else
		snprintf(text, sizeof(text), "fd00:5ca1:%d::%s", p->nat + 1,
		    p->nat_leaked ? "100" : "1");
	if (addr_parse(text, &a) != 0)
		abort();
	return a;
}

/* What the server answers to the SYN as it arrived. */
static enum lp_answer
lp_server(const struct lp_path *p, const uint8_t *pkt, size_t len,
    struct synack_obs *sa)
{
	struct wire_ip ip;
	struct wire_tcp th;
	struct tcpopts o;

	if (p->filtered)
		return LP_SILENT;
	if (p->closed)
		return LP_RST;
	memset(&o, 0, sizeof(o));
	if (wire_ip_parse(pkt, len, &ip) != WIRE_OK ||
	    wire_tcp_parse(pkt + ip.l4_off, ip.l4_len, &th) != WIRE_OK ||
	    wire_tcpopt_parse(pkt + ip.l4_off + 20, th.opt_len, th.opt_len, &o) != WIRE_OK)
		abort();	/* the lab never sends a server anything else */
	memset(sa, 0, sizeof(*sa));
	sa->present = true;
	sa->mss = 1460;
	sa->sack = o.sack_perm;
	sa->ts = o.has_ts;
	sa->window = 65160;
	switch (p->server) {
	case LP_SRV:
		sa->wscale = o.has_wscale ? 7 : -1;
		break;
	case LP_SRV_NOWS:
		sa->wscale = -1;
		break;
	case LP_SRV_COOKIE:
		/* a syncookie keeps the shift only in the timestamp */
		sa->wscale = o.has_wscale && o.has_ts ? 7 : -1;
		break;
	}
	return LP_SYNACK;
}

enum lp_answer
lp_send(const struct lp_path *p, int scale, int ttl, struct hop_quote *hq,
    struct synack_obs *sa)
{
	struct addr prober = lp_hop_addr(p->family, 0);
	uint16_t sport = (uint16_t)(40000 + scale + 1);
	uint32_t isn = 0x5ca1e000u + (uint32_t)(scale + 1) * 0x100u + (uint32_t)ttl;
	uint8_t sent[LP_PKT_MAX], pkt[LP_PKT_MAX];
	size_t sent_len, len;

	sent_len = lp_syn(sent, sizeof(sent), &prober, &p->dst, scale, (uint8_t)ttl,
	    sport, isn);
	if (sent_len == 0)
		abort();
	memcpy(pkt, sent, sent_len);
	len = sent_len;
	for (int h = 1; h < p->dist; h++) {
		struct addr at = lp_hop_addr(p->family, h);

		if (p->box == h && !p->box_egress && lp_mbox(p->action, pkt, &len))
			return LP_SILENT;
		if (lp_ttl(pkt) <= 1) {
			uint8_t q[LP_PKT_MAX];
			enum lp_quote how = p->quote8 & (1u << h) ? LP_QUOTE_8BYTE :
			    p->quote4884 & (1u << h) ? LP_QUOTE_RFC4884 : LP_QUOTE_FULL;

			if (p->silent & (1u << h))
				return LP_SILENT;
			memcpy(q, pkt, len);
			/* conntrack translates the quote back on its way */
			if (p->nat != 0 && h > p->nat && !p->nat_leaked)
				lp_snat(q, len, &prober, sport);
			return lp_router_quote(sent, sent_len, q, len, &at, &prober,
			    how, 0, hq) ? LP_HOP : LP_SILENT;
		}
		lp_set_ttl(pkt, (uint8_t)(lp_ttl(pkt) - 1));
		if (p->box == h && p->box_egress && lp_mbox(p->action, pkt, &len))
			return LP_SILENT;
		if (p->reject_at == h) {
			(void)lp_error_quote(sent, sent_len, pkt, len, &at, &prober,
			    p->family == ADDR_V4 ? 3 : 1, p->family == ADDR_V4 ? 13 : 1,
			    LP_QUOTE_FULL, 0, hq);
			return LP_UNREACH;
		}
		if (p->nat == h) {
			struct addr na = lp_nat_addr(p);

			lp_snat(pkt, len, &na, (uint16_t)(sport ^ 0x3c3c));
		}
	}
	return lp_server(p, pkt, len, sa);
}

/* One trace: TTL 1..limit, stopping at the destination. */
static void
lp_trace(const struct lp_path *p, int scale, int limit, struct trace_obs *t)
{
	memset(t, 0, sizeof(*t));
	t->ran = true;
	t->nttl = RESULT_MAX_HOPS;
	for (int k = 1; k <= limit; k++) {
		struct hop_quote hq;
		struct synack_obs sa;

		memset(&hq, 0, sizeof(hq));
		switch (lp_send(p, scale, k, &hq, &sa)) {
		case LP_HOP:
		case LP_UNREACH:	/* the engine takes any error quoting a trace SYN */
			t->hop[k] = hq;
			break;
		case LP_SYNACK:
		case LP_RST:
			t->dest_ttl = k;
			return;
		case LP_SILENT:
			break;
		}
	}
}

static void
lp_variant(const struct lp_path *p, int scale, struct variant_obs *o)
{
	struct hop_quote hq;

	memset(o, 0, sizeof(*o));
	o->scale = scale;
	o->attempts = 1;
	o->sa.wscale = -1;
	o->sa.mss = -1;
	switch (lp_send(p, scale, 64, &hq, &o->sa)) {
	case LP_SYNACK:
		o->reply = REPLY_SYNACK;
		break;
	case LP_RST:
		o->reply = REPLY_RST;
		break;
	case LP_UNREACH:
		o->reply = REPLY_ICMP_UNREACH;
		o->icmp_type = p->family == ADDR_V4 ? 3 : 1;
		o->icmp_code = p->family == ADDR_V4 ? 13 : 1;
		o->icmp_from = lp_hop_addr(p->family, p->reject_at);
		break;
	default:
		o->reply = REPLY_NONE;
		o->attempts = 3;
		break;
	}
}

void
lp_probe(const struct lp_path *p, const int *scales, int n,
    struct path_result *res, struct trace_obs *traces)
{
	int limit;

	memset(res, 0, sizeof(*res));
	res->src = lp_hop_addr(p->family, 0);
	res->dst = p->dst;
	res->port = LP_DPORT;
	res->nscales = n;
	lp_variant(p, -1, &res->control);
	for (int i = 0; i < n; i++)
		lp_variant(p, scales[i], &res->scales[i]);

	lp_trace(p, -1, RESULT_MAX_HOPS, &traces[0]);
	res->trace[0] = &traces[0];
	/* every variant up to the control's destination (trace.h) */
	limit = traces[0].dest_ttl ? traces[0].dest_ttl : RESULT_MAX_HOPS;
	for (int i = 0; i < n; i++) {
		lp_trace(p, scales[i], limit, &traces[1 + i]);
		res->trace[1 + i] = &traces[1 + i];
	}
}
