/*
 * mbox_mangle.c -- the emulator's packet surgery: one packet, one verdict.
 *
 * Owns finding the layers (IPv4 with options, IPv6 with hop-by-hop and
 * destination-options headers), walking SYN options, the SYN actions
 * (ws-set, ws-cap, ws-nop, ws-strip, drop-ws, mss-clamp, ts-strip), the quote
 * actions on ICMP / ICMPv6 time-exceeded (quote-8byte, quote-silent), and the
 * length and checksum fix-ups they need.  Every read is bounds checked
 * against the IP length; anything that does not parse is accepted unchanged.
 */
#include "mbox_mangle.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#define MBOX_TCP_HDR	20
#define MBOX_OPT_MAX	40	/* TCP options fit in 40 bytes */
#define MBOX_V6_EXT_MAX	8	/* extension headers walked before giving up */

#define MBOX_TCP_SYN	0x02
#define MBOX_TCP_ACK	0x10

#define MBOX_OPT_EOL	0
#define MBOX_OPT_NOP	1
#define MBOX_OPT_MSS	2
#define MBOX_OPT_WS	3
#define MBOX_OPT_TS	8

/* Where the layers of a packet are. */
struct mbox_ip {
	int		family;		/* 4 or 6 */
	size_t		len;		/* IP length (header + payload) */
	size_t		l4off;		/* offset of the transport header */
	uint8_t		proto;		/* transport protocol */
	size_t		srcoff;		/* offsets of the addresses */
	size_t		dstoff;
};

/* One TCP option's place among the options. */
struct mbox_opt {
	uint8_t		kind;
	uint8_t		len;
	uint8_t		off;		/* from the start of the options */
	uint8_t		cut;		/* ws-strip removes it */
};

static uint16_t
mbox_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
mbox_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* One's complement sum of n bytes as big-endian words, odd byte padded. */
static uint32_t
mbox_sum(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2) {
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (n & 1) {
		sum += (uint32_t)p[n - 1] << 8;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return sum;
}

static uint16_t
mbox_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Finds the layers of the packet; -1 when it is not an unfragmented IPv4 or
 * IPv6 packet whose headers fit.  Bytes past the IP length are ignored.
 */
static int
mbox_ip_parse(const uint8_t *p, size_t n, struct mbox_ip *ip)
{
	size_t off, hl;
	uint8_t nh;
	int i;

	memset(ip, 0, sizeof(*ip));
	if (n < 1)
		return -1;
	if (p[0] >> 4 == 4) {
		hl = (size_t)(p[0] & 0x0f) * 4;
		if (n < 20 || hl < 20 || hl > n)
			return -1;
		ip->len = mbox_get16(p + 2);
		if (ip->len < hl || ip->len > n)
			return -1;
		if (mbox_get16(p + 6) & 0x3fff)	/* MF or an offset */
			return -1;
		ip->family = 4;
		ip->proto = p[9];
		ip->l4off = hl;
		ip->srcoff = 12;
		ip->dstoff = 16;
		return 0;
	}
	if (p[0] >> 4 != 6 || n < 40)
		return -1;
	ip->len = 40 + (size_t)mbox_get16(p + 4);
	if (ip->len > n)
		return -1;
	ip->family = 6;
	ip->srcoff = 8;
	ip->dstoff = 24;
	nh = p[6];
	off = 40;
	/*
	 * Only headers that leave the destination and the payload where they
	 * are: a routing header changes the pseudo-header's destination, a
	 * fragment header hides the transport header.
	 */
	for (i = 0; i < MBOX_V6_EXT_MAX && (nh == 0 || nh == 60); i++) {
		if (off + 2 > ip->len)
			return -1;
		hl = ((size_t)p[off + 1] + 1) * 8;
		if (off + hl > ip->len)
			return -1;
		nh = p[off];
		off += hl;
	}
	if (nh == 0 || nh == 60)
		return -1;
	ip->proto = nh;
	ip->l4off = off;
	return 0;
}

/* Sets the IP length to n; mbox_mangle refreshes the IPv4 header checksum. */
static void
mbox_ip_set_len(uint8_t *p, struct mbox_ip *ip, size_t n)
{
	ip->len = n;
	if (ip->family == 6) {
		mbox_put16(p + 4, (uint16_t)(n - 40));
		return;
	}
	mbox_put16(p + 2, (uint16_t)n);
}

/*
 * Recomputes the transport checksum at offset csoff of the transport header:
 * TCP and ICMPv6 over their pseudo-header, ICMPv4 over the message alone.
 */
static void
mbox_l4_cksum(uint8_t *p, const struct mbox_ip *ip, size_t csoff)
{
	size_t l4len = ip->len - ip->l4off;
	uint8_t *l4 = p + ip->l4off;
	uint8_t ph[8];
	uint32_t sum = 0;

	mbox_put16(l4 + csoff, 0);
	if (!(ip->family == 4 && ip->proto == IPPROTO_ICMP)) {
		size_t alen = ip->family == 4 ? 4 : 16;

		sum = mbox_sum(sum, p + ip->srcoff, alen);
		sum = mbox_sum(sum, p + ip->dstoff, alen);
		memset(ph, 0, sizeof(ph));
		if (ip->family == 4) {
			ph[1] = ip->proto;
			mbox_put16(ph + 2, (uint16_t)l4len);
			sum = mbox_sum(sum, ph, 4);
		} else {
			ph[2] = (uint8_t)(l4len >> 8);
			ph[3] = (uint8_t)l4len;
			ph[7] = ip->proto;
			sum = mbox_sum(sum, ph, 8);
		}
	}
	sum = mbox_sum(sum, l4, l4len);
	mbox_put16(l4 + csoff, mbox_fold(sum));
}

static const char *
mbox_addr_str(const uint8_t *p, int family, char *buf, size_t size)
{
	if (inet_ntop(family == 4 ? AF_INET : AF_INET6, p, buf,
	    (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
	return buf;
}

/*
 * Lists the options of a TCP header whose options are optlen bytes at o.
 * Stops after EOL; *nopt options.  -1 when an option overruns, is shorter
 * than 2, or is a MSS, WS or timestamps option of the wrong length.
 */
static int
mbox_syn_opts(const uint8_t *o, size_t optlen, struct mbox_opt *opt,
    size_t *nopt)
{
	size_t i = 0, n = 0;

	while (i < optlen && n < MBOX_OPT_MAX) {
		uint8_t kind = o[i], len = 1;

		if (kind != MBOX_OPT_EOL && kind != MBOX_OPT_NOP) {
			if (i + 2 > optlen)
				return -1;
			len = o[i + 1];
			if (len < 2 || i + len > optlen)
				return -1;
			if ((kind == MBOX_OPT_MSS && len != 4) ||
			    (kind == MBOX_OPT_WS && len != 3) ||
			    (kind == MBOX_OPT_TS && len != 10))
				return -1;
		}
		opt[n].kind = kind;
		opt[n].len = len;
		opt[n].off = (uint8_t)i;
		opt[n].cut = 0;
		n++;
		i += len;
		if (kind == MBOX_OPT_EOL)
			break;
	}
	*nopt = n;
	return 0;
}

/*
 * Cuts every WS option, and a NOP beside each (the one before first: Linux
 * sends NOP,WS), out of the options; NOPs pad the rest to a multiple of 4.
 * Moves the payload up and fixes the data offset and the IP length.
 */
static void
mbox_syn_strip(uint8_t *p, struct mbox_ip *ip, struct mbox_opt *opt,
    size_t nopt)
{
	uint8_t *tcp = p + ip->l4off, *o = tcp + MBOX_TCP_HDR;
	size_t hl = (size_t)(tcp[12] >> 4) * 4, optlen = hl - MBOX_TCP_HDR;
	uint8_t out[MBOX_OPT_MAX];
	size_t i, n = 0, end;

	for (i = 0; i < nopt; i++) {
		if (opt[i].kind != MBOX_OPT_WS)
			continue;
		opt[i].cut = 1;
		if (i > 0 && opt[i - 1].kind == MBOX_OPT_NOP && !opt[i - 1].cut)
			opt[i - 1].cut = 1;
		else if (i + 1 < nopt && opt[i + 1].kind == MBOX_OPT_NOP)
			opt[i + 1].cut = 1;
	}
	for (i = 0; i < nopt; i++)
		if (!opt[i].cut) {
			memcpy(out + n, o + opt[i].off, opt[i].len);
			n += opt[i].len;
		}
	/* whatever follows EOL is padding: keep it as it was */
	end = nopt > 0 ? (size_t)opt[nopt - 1].off + opt[nopt - 1].len : 0;
	memcpy(out + n, o + end, optlen - end);
	n += optlen - end;
	while (n % 4)
		out[n++] = MBOX_OPT_NOP;
	memcpy(o, out, n);
	if (n < optlen) {
		memmove(o + n, o + optlen, ip->len - (ip->l4off + hl));
		tcp[12] = (uint8_t)(((MBOX_TCP_HDR + n) / 4) << 4 |
		    (tcp[12] & 0x0f));
		mbox_ip_set_len(p, ip, ip->len - (optlen - n));
	}
}

/* The SYN actions.  Returns the verdict; res says what changed. */
static enum mbox_verdict
mbox_syn(const struct mbox_rules *rs, uint8_t *p, struct mbox_ip *ip,
    struct mbox_result *res)
{
	uint8_t *tcp = p + ip->l4off, *o = tcp + MBOX_TCP_HDR;
	size_t l4len = ip->len - ip->l4off, hl, nopt, i, oldlen = ip->len;
	struct mbox_opt opt[MBOX_OPT_MAX];
	const struct mbox_rule *r;
	char what[80] = "", src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	enum mbox_verdict v = MBOX_ACCEPT;
	unsigned int val;

	if (l4len < MBOX_TCP_HDR)
		return MBOX_ACCEPT;
	hl = (size_t)(tcp[12] >> 4) * 4;
	if (hl < MBOX_TCP_HDR || hl > l4len)
		return MBOX_ACCEPT;
	if ((tcp[13] & (MBOX_TCP_SYN | MBOX_TCP_ACK)) != MBOX_TCP_SYN)
		return MBOX_ACCEPT;
	r = mbox_rules_find(rs, ip->family, p + ip->dstoff);
	if (r == NULL || r->syn == MBOX_SYN_NONE)
		return MBOX_ACCEPT;
	res->rule = r;
	if (mbox_syn_opts(o, hl - MBOX_TCP_HDR, opt, &nopt) != 0)
		return MBOX_ACCEPT;
	for (i = 0; i < nopt; i++) {
		uint8_t *b = o + opt[i].off;

		switch (r->syn) {
		case MBOX_SYN_WS_SET:
		case MBOX_SYN_WS_CAP:
			if (opt[i].kind != MBOX_OPT_WS)
				break;
			val = r->syn == MBOX_SYN_WS_SET || b[2] > r->syn_arg ?
			    r->syn_arg : b[2];
			if (val != b[2]) {
				snprintf(what, sizeof(what), "wscale %u -> %u",
				    b[2], val);
				b[2] = (uint8_t)val;
				res->changed = 1;
			}
			break;
		case MBOX_SYN_WS_NOP:
			if (opt[i].kind != MBOX_OPT_WS)
				break;
			snprintf(what, sizeof(what), "wscale %u -> NOPs", b[2]);
			memset(b, MBOX_OPT_NOP, 3);
			res->changed = 1;
			break;
		case MBOX_SYN_WS_STRIP:
		case MBOX_SYN_DROP_WS:
			if (opt[i].kind != MBOX_OPT_WS)
				break;
			snprintf(what, sizeof(what), r->syn == MBOX_SYN_DROP_WS ?
			    "dropped, wscale %u" : "wscale %u removed", b[2]);
			if (r->syn == MBOX_SYN_DROP_WS)
				v = MBOX_DROP;
			else
				res->changed = 1;
			break;
		case MBOX_SYN_MSS_CLAMP:
			if (opt[i].kind != MBOX_OPT_MSS ||
			    mbox_get16(b + 2) <= r->syn_arg)
				break;
			snprintf(what, sizeof(what), "mss %u -> %u",
			    mbox_get16(b + 2), r->syn_arg);
			mbox_put16(b + 2, (uint16_t)r->syn_arg);
			res->changed = 1;
			break;
		case MBOX_SYN_TS_STRIP:
			if (opt[i].kind != MBOX_OPT_TS)
				break;
			snprintf(what, sizeof(what), "timestamps -> NOPs");
			memset(b, MBOX_OPT_NOP, 10);
			res->changed = 1;
			break;
		case MBOX_SYN_NONE:
		case MBOX_SYN_PASS:
			break;
		}
	}
	if (v == MBOX_DROP) {
		res->changed = 0;
	} else if (res->changed) {
		if (r->syn == MBOX_SYN_WS_STRIP)
			mbox_syn_strip(p, ip, opt, nopt);
		mbox_l4_cksum(p, ip, 16);
	} else {
		return MBOX_ACCEPT;
	}
	snprintf(res->note, sizeof(res->note), "SYN %s.%u > %s.%u %s: %s",
	    mbox_addr_str(p + ip->srcoff, ip->family, src, sizeof(src)),
	    mbox_get16(tcp), mbox_addr_str(p + ip->dstoff, ip->family, dst,
	    sizeof(dst)), mbox_get16(tcp + 2), mbox_rules_syn_name(r->syn),
	    what);
	if (ip->len != oldlen) {
		size_t n = strlen(res->note);

		snprintf(res->note + n, sizeof(res->note) - n,
		    " (%zu -> %zu bytes)", oldlen, ip->len);
	}
	return v;
}

/* The quote actions on time-exceeded messages. */
static enum mbox_verdict
mbox_quote(const struct mbox_rules *rs, uint8_t *p, struct mbox_ip *ip,
    struct mbox_result *res)
{
	uint8_t *icmp = p + ip->l4off;
	size_t l4len = ip->len - ip->l4off, q, qhl, want, oldlen = ip->len;
	size_t lenoff = ip->family == 4 ? 5 : 4;	/* RFC 4884 length */
	const struct mbox_rule *r;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], qd[INET6_ADDRSTRLEN];
	const uint8_t *qdst;

	if (l4len < 8 || icmp[0] != (ip->family == 4 ? 11 : 3))
		return MBOX_ACCEPT;
	q = ip->l4off + 8;
	if (ip->family == 4) {
		if (ip->len < q + 20 || p[q] >> 4 != 4)
			return MBOX_ACCEPT;
		qhl = (size_t)(p[q] & 0x0f) * 4;
		if (qhl < 20 || q + qhl > ip->len)
			return MBOX_ACCEPT;
		qdst = p + q + 16;
	} else {
		if (ip->len < q + 40 || p[q] >> 4 != 6)
			return MBOX_ACCEPT;
		qhl = 40;
		qdst = p + q + 24;
	}
	r = mbox_rules_find(rs, ip->family, qdst);
	if (r == NULL || r->quote == MBOX_QUOTE_NONE)
		return MBOX_ACCEPT;
	res->rule = r;
	mbox_addr_str(p + ip->srcoff, ip->family, src, sizeof(src));
	mbox_addr_str(p + ip->dstoff, ip->family, dst, sizeof(dst));
	mbox_addr_str(qdst, ip->family, qd, sizeof(qd));
	switch (r->quote) {
	case MBOX_QUOTE_SILENT:
		snprintf(res->note, sizeof(res->note),
		    "time-exceeded %s > %s quoting %s quote-silent: dropped",
		    src, dst, qd);
		return MBOX_DROP;
	case MBOX_QUOTE_8BYTE:
		want = q + qhl + 8;
		if (ip->len > want) {
			mbox_ip_set_len(p, ip, want);
			res->changed = 1;
		}
		if (icmp[lenoff] != 0) {
			icmp[lenoff] = 0;
			res->changed = 1;
		}
		if (!res->changed)
			return MBOX_ACCEPT;
		mbox_l4_cksum(p, ip, 2);
		snprintf(res->note, sizeof(res->note),
		    "time-exceeded %s > %s quoting %s quote-8byte: "
		    "%zu -> %zu bytes", src, dst, qd, oldlen, ip->len);
		return MBOX_ACCEPT;
	case MBOX_QUOTE_NONE:
	case MBOX_QUOTE_FULL:
		break;
	}
	return MBOX_ACCEPT;
}

enum mbox_verdict
mbox_mangle(const struct mbox_rules *rs, uint8_t *pkt, size_t *len,
    struct mbox_result *res)
{
	struct mbox_result local;
	struct mbox_ip ip;
	enum mbox_verdict v = MBOX_ACCEPT;

	if (res == NULL)
		res = &local;
	memset(res, 0, sizeof(*res));
	if (mbox_ip_parse(pkt, *len, &ip) != 0)
		return MBOX_ACCEPT;
	if (ip.proto == IPPROTO_TCP)
		v = mbox_syn(rs, pkt, &ip, res);
	else if ((ip.family == 4 && ip.proto == IPPROTO_ICMP) ||
	    (ip.family == 6 && ip.proto == IPPROTO_ICMPV6))
		v = mbox_quote(rs, pkt, &ip, res);
	if (res->changed) {
		*len = ip.len;	/* bytes past the IP length go too */
		if (ip.family == 4) {	/* even when only the payload changed */
			mbox_put16(pkt + 10, 0);
			mbox_put16(pkt + 10, mbox_fold(mbox_sum(0, pkt, ip.l4off)));
		}
	}
	res->verdict = v;
	return v;
}
