/*
 * wire_ip.c -- IPv4 and IPv6 header parsing, including the IPv6
 * extension-header chain (hop-by-hop, routing, fragment, destination
 * options, AH) down to the final L4 protocol.  Used on captured packets
 * and, through wire_icmp, on the packets that ICMP errors quote.
 */
#include <string.h>

#include "wire_ip.h"
#include "wire_csum.h"

#define WIRE_IP4_MIN	20
#define WIRE_IP6_HDR	40
#define WIRE_IP6_FRAGHDR 8

/* Bytes of L4 present: bounded by the buffer and by the claimed length. */
static uint32_t
wire_ip_l4_len(const struct wire_ip *ip, size_t len)
{
	size_t	end = len < ip->tot_len ? len : ip->tot_len;

	return end > ip->l4_off ? (uint32_t)(end - ip->l4_off) : 0;
}

static enum wire_result
wire_ip_parse4(const uint8_t *buf, size_t len, struct wire_ip *ip)
{
	uint16_t	frag;
	unsigned	ihl;

	if (len < WIRE_IP4_MIN)
		return WIRE_TRUNCATED;
	ihl = (buf[0] & 0x0f) * 4u;
	ip->hdr_len = (uint16_t)ihl;
	ip->tos = buf[1];
	ip->tot_len = wire_get16(buf + 2);
	ip->ip_id = wire_get16(buf + 4);
	frag = wire_get16(buf + 6);
	ip->df = (frag & 0x4000) != 0;
	ip->more_frags = (frag & 0x2000) != 0;
	ip->frag_off = (uint16_t)((frag & 0x1fff) * 8u);
	ip->frag = ip->more_frags || ip->frag_off != 0;
	ip->frag_id = ip->ip_id;
	ip->ttl = buf[8];
	ip->csum = wire_get16(buf + 10);
	memcpy(ip->src, buf + 12, 4);
	memcpy(ip->dst, buf + 16, 4);

	if (ihl < WIRE_IP4_MIN)
		return WIRE_MALFORMED;
	if (len < ihl)
		return WIRE_TRUNCATED;
	ip->csum_ok = wire_csum(buf, ihl) == 0;
	if (ip->tot_len < ihl)
		return WIRE_MALFORMED;

	ip->proto = buf[9];
	ip->l4_off = ihl;
	ip->l4_known = true;
	ip->l4_len = wire_ip_l4_len(ip, len);
	return len < ip->tot_len ? WIRE_TRUNCATED : WIRE_OK;
}

/*
 * Walk the extension headers from off, where next names the first one.
 * end is where the datagram ends per the payload length, len where the
 * bytes end.  Stops at the first Next Header that is not an extension
 * header, or at a non-first fragment (its payload is no header).
 */
static enum wire_result
wire_ip_walk6(const uint8_t *buf, size_t len, size_t end, struct wire_ip *ip,
    uint8_t next, size_t off)
{
	struct wire_ip6_ext	*e;
	size_t			 hlen;
	uint16_t		 frag;

	for (;;) {
		switch (next) {
		case WIRE_IP6_HOPOPTS:
			/* RFC 8200 4.1: only right after the IPv6 header */
			if (ip->n_ext != 0)
				return WIRE_MALFORMED;
			break;
		case WIRE_IP6_ROUTING:
		case WIRE_IP6_FRAGMENT:
		case WIRE_IP6_AH:
		case WIRE_IP6_DSTOPTS:
			break;
		default:
			ip->proto = next;
			ip->l4_off = (uint32_t)off;
			ip->l4_known = true;
			return WIRE_OK;
		}
		if (ip->n_ext == WIRE_IP6_MAX_EXT)
			return WIRE_UNSUPPORTED;
		/* the first two bytes give the next header and the length */
		if (off + 2 > end)
			return WIRE_MALFORMED;
		if (off + 2 > len)
			return WIRE_TRUNCATED;
		if (next == WIRE_IP6_FRAGMENT)
			hlen = WIRE_IP6_FRAGHDR;	/* its length byte is reserved */
		else if (next == WIRE_IP6_AH)
			hlen = (buf[off + 1] + 2u) * 4;	/* RFC 4302: 32-bit words */
		else
			hlen = (buf[off + 1] + 1u) * 8;
		e = &ip->ext[ip->n_ext++];
		e->type = next;
		e->next = buf[off];
		e->len = (uint16_t)hlen;
		e->off = (uint32_t)off;
		if (off + hlen > end)
			return WIRE_MALFORMED;
		if (off + hlen > len)
			return WIRE_TRUNCATED;
		if (next == WIRE_IP6_FRAGMENT) {
			frag = wire_get16(buf + off + 2);
			ip->frag_off = frag & 0xfff8;
			ip->more_frags = (frag & 1) != 0;
			ip->frag = true;
			ip->frag_id = wire_get32(buf + off + 4);
			if (ip->frag_off != 0) {
				/* the rest is the middle of a datagram */
				ip->proto = e->next;
				ip->l4_off = (uint32_t)(off + hlen);
				ip->l4_known = true;
				return WIRE_OK;
			}
		}
		next = e->next;
		off += hlen;
	}
}

static enum wire_result
wire_ip_parse6(const uint8_t *buf, size_t len, struct wire_ip *ip)
{
	enum wire_result	r;
	uint16_t		plen;

	if (len < WIRE_IP6_HDR)
		return WIRE_TRUNCATED;
	ip->hdr_len = WIRE_IP6_HDR;
	ip->tos = (uint8_t)(wire_get16(buf) >> 4);
	ip->flow = wire_get32(buf) & 0xfffff;
	plen = wire_get16(buf + 4);
	ip->ttl = buf[7];
	ip->csum_ok = true;
	memcpy(ip->src, buf + 8, 16);
	memcpy(ip->dst, buf + 24, 16);
	ip->tot_len = WIRE_IP6_HDR + (uint32_t)plen;

	/* RFC 2675: payload length 0 and a jumbo option; not for probes */
	if (plen == 0 && buf[6] == WIRE_IP6_HOPOPTS)
		return WIRE_UNSUPPORTED;
	r = wire_ip_walk6(buf, len, ip->tot_len, ip, buf[6], WIRE_IP6_HDR);
	if (ip->l4_known)
		ip->l4_len = wire_ip_l4_len(ip, len);
	if (r == WIRE_OK && len < ip->tot_len)
		r = WIRE_TRUNCATED;
	return r;
}

enum wire_result
wire_ip_parse(const uint8_t *buf, size_t len, struct wire_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (len == 0)
		return WIRE_TRUNCATED;
	ip->version = buf[0] >> 4;
	switch (ip->version) {
	case 4:
		return wire_ip_parse4(buf, len, ip);
	case 6:
		return wire_ip_parse6(buf, len, ip);
	default:
		return WIRE_UNSUPPORTED;
	}
}
