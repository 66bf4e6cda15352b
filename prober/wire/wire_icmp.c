/*
 * wire_icmp.c -- ICMPv4 / ICMPv6 errors and the datagram they quote,
 * bounded by the RFC 4884 length when it holds, labelled by how much of
 * the quoted TCP header came back.
 */
#include <string.h>

#include "wire_icmp.h"

#define WIRE_PROTO_TCP	6
#define RFC4884_MIN	128	/* original datagram before an extension */
#define RFC4884_EXT_HDR	4	/* version and reserved, checksum */
#define RFC4884_EXT_VERSION 2

/* The kind of an error type, and whether RFC 4884 gives it a length. */
static enum wire_icmp_kind
wire_icmp_kind(uint8_t version, uint8_t type, bool *has_len)
{
	*has_len = false;
	if (version == 4) {
		switch (type) {
		case WIRE_ICMP4_UNREACH:
			*has_len = true;
			return WIRE_ICMP_UNREACH;
		case WIRE_ICMP4_TIMXCEED:
			*has_len = true;
			return WIRE_ICMP_TIME_EXCEEDED;
		case WIRE_ICMP4_PARAMPROB:
			*has_len = true;
			return WIRE_ICMP_PARAM_PROBLEM;
		}
		return WIRE_ICMP_NOT_ERROR;
	}
	switch (type) {
	case WIRE_ICMP6_UNREACH:
		*has_len = true;
		return WIRE_ICMP_UNREACH;
	case WIRE_ICMP6_PKT_TOO_BIG:
		return WIRE_ICMP_PKT_TOO_BIG;
	case WIRE_ICMP6_TIMXCEED:
		*has_len = true;
		return WIRE_ICMP_TIME_EXCEEDED;
	case WIRE_ICMP6_PARAMPROB:
		return WIRE_ICMP_PARAM_PROBLEM;
	}
	return WIRE_ICMP_NOT_ERROR;
}

/* The type-specific second word: MTU, pointer, RFC 4884 length. */
static void
wire_icmp_word2(struct wire_icmp *ic, const uint8_t *buf, bool has_len)
{
	if (ic->version == 4) {
		if (has_len)
			ic->rfc4884_len = (uint16_t)(buf[5] * 4u);
		if (ic->kind == WIRE_ICMP_PARAM_PROBLEM)
			ic->pointer = buf[4];
		if (ic->kind == WIRE_ICMP_UNREACH &&
		    ic->code == WIRE_ICMP4_UNREACH_NEEDFRAG)
			ic->mtu = wire_get16(buf + 6);
		return;
	}
	if (has_len)
		ic->rfc4884_len = (uint16_t)(buf[4] * 8u);
	if (ic->kind == WIRE_ICMP_PARAM_PROBLEM)
		ic->pointer = wire_get32(buf + 4);
	if (ic->kind == WIRE_ICMP_PKT_TOO_BIG)
		ic->mtu = wire_get32(buf + 4);
}

/* The quoted L4 bytes l4 (n of them): TCP header, options, label. */
static void
wire_icmp_quote_l4(struct wire_icmp *ic, const uint8_t *l4, size_t n)
{
	enum wire_result	r;
	size_t			have;

	ic->quote_l4_len = (uint32_t)n;
	if (ic->ip.frag_off != 0)
		return;		/* the middle of a datagram: no header */
	if (ic->ip.proto != WIRE_PROTO_TCP) {
		if (ic->ip_result == WIRE_OK)
			ic->quote = WIRE_QUOTE_FULL;
		else if (n >= 8)
			ic->quote = WIRE_QUOTE_8BYTE;
		return;
	}
	if (n < 8)
		return;
	ic->has_tcp = true;
	ic->quote = WIRE_QUOTE_8BYTE;
	r = wire_tcp_parse(l4, n, &ic->tcp);
	ic->opts_result = WIRE_TRUNCATED;
	if (r == WIRE_MALFORMED) {
		ic->opts_result = WIRE_MALFORMED;
		return;
	}
	if (n < WIRE_TCP_MIN)
		return;
	have = (n < ic->tcp.hdr_len ? n : ic->tcp.hdr_len) - WIRE_TCP_MIN;
	ic->opts_result = wire_tcpopt_parse(l4 + WIRE_TCP_MIN, have,
	    ic->tcp.opt_len, &ic->opts);
	if (r == WIRE_OK) {
		ic->tcp_complete = true;
		ic->quote = WIRE_QUOTE_FULL;
	}
}

/* Whether the RFC 4884 length L (bytes) holds in the message buf of len
 * bytes: at least 128 bytes of original datagram, within the message,
 * and an extension header of version 2 right after.  A shorter length
 * before a whole quote is a router's mistake, not a cut. */
static bool
rfc4884_holds(const uint8_t *buf, size_t len, size_t L)
{
	if (L < RFC4884_MIN || len < WIRE_ICMP_HDR + RFC4884_EXT_HDR ||
	    L > len - WIRE_ICMP_HDR - RFC4884_EXT_HDR)
		return false;
	return (buf[WIRE_ICMP_HDR + L] >> 4) == RFC4884_EXT_VERSION;
}

enum wire_result
wire_icmp_parse(const uint8_t *buf, size_t len, uint8_t version,
    struct wire_icmp *ic)
{
	const uint8_t	*q;
	size_t		 qlen;
	bool		 has_len;

	memset(ic, 0, sizeof(*ic));
	ic->version = version;
	ic->ip_result = WIRE_TRUNCATED;
	ic->opts_result = WIRE_TRUNCATED;
	if (version != 4 && version != 6)
		return WIRE_UNSUPPORTED;
	if (len < WIRE_ICMP_HDR)
		return WIRE_TRUNCATED;
	ic->type = buf[0];
	ic->code = buf[1];
	ic->csum = wire_get16(buf + 2);
	ic->kind = wire_icmp_kind(version, ic->type, &has_len);
	if (ic->kind == WIRE_ICMP_NOT_ERROR)
		return WIRE_UNSUPPORTED;
	wire_icmp_word2(ic, buf, has_len);

	ic->quote_off = WIRE_ICMP_HDR;
	qlen = len - WIRE_ICMP_HDR;
	if (rfc4884_holds(buf, len, ic->rfc4884_len)) {
		/* RFC 4884 5.1: the quote is exactly this long, padding in */
		ic->rfc4884 = true;
		qlen = ic->rfc4884_len;
		ic->ext_off = (uint32_t)(WIRE_ICMP_HDR + qlen);
		ic->ext_len = (uint32_t)(len - ic->ext_off);
	}
	ic->quote_len = (uint32_t)qlen;
	q = buf + WIRE_ICMP_HDR;

	ic->ip_result = wire_ip_parse(q, qlen, &ic->ip);
	if (qlen == 0 || ic->ip.version != version)
		return WIRE_MALFORMED;
	switch (ic->ip_result) {
	case WIRE_OK:
	case WIRE_TRUNCATED:
		break;
	default:
		return ic->ip_result;
	}
	if (!ic->ip.l4_known)
		return WIRE_MALFORMED;	/* cut inside the IP header chain */
	wire_icmp_quote_l4(ic, q + ic->ip.l4_off, ic->ip.l4_len);
	return WIRE_OK;
}
