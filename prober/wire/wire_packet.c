/*
 * wire_packet.c -- a captured packet from its IP header down: dispatch to
 * the TCP or ICMP parser, verify the L4 checksum when the datagram is
 * whole, and fold the layers' results into one.
 */
#include <string.h>

#include "wire_packet.h"
#include "wire_csum.h"

#define WIRE_PROTO_ICMP		1
#define WIRE_PROTO_TCP		6
#define WIRE_PROTO_ICMPV6	58

static void
wire_packet_tcp(struct wire_packet *pkt, const uint8_t *l4, size_t n)
{
	size_t	have;

	pkt->l4 = WIRE_L4_TCP;
	pkt->l4_result = wire_tcp_parse(l4, n, &pkt->tcp);
	pkt->opts_result = pkt->l4_result == WIRE_MALFORMED ?
	    WIRE_MALFORMED : WIRE_TRUNCATED;
	if (pkt->l4_result == WIRE_MALFORMED || n < WIRE_TCP_MIN)
		return;
	have = (n < pkt->tcp.hdr_len ? n : pkt->tcp.hdr_len) - WIRE_TCP_MIN;
	pkt->opts_result = wire_tcpopt_parse(l4 + WIRE_TCP_MIN, have,
	    pkt->tcp.opt_len, &pkt->opts);
}

/* Verify the TCP or ICMP(v6) checksum over the whole L4 of the datagram. */
static enum wire_csum_state
wire_packet_csum(const struct wire_packet *pkt, const uint8_t *l4, size_t n)
{
	const struct wire_ip	*ip = &pkt->ip;
	uint32_t		 sum;
	uint8_t			 i;
	uint16_t		 c;

	if (pkt->ip_result != WIRE_OK || ip->frag)
		return WIRE_CSUM_UNCHECKED;
	/* the pseudo-header would need the routing header's last address */
	for (i = 0; i < ip->n_ext; i++)
		if (ip->ext[i].type == WIRE_IP6_ROUTING)
			return WIRE_CSUM_UNCHECKED;
	if (pkt->l4 == WIRE_L4_TCP)
		c = ip->version == 4 ? wire_tcp_csum4(ip->src, ip->dst, l4, n) :
		    wire_tcp_csum6(ip->src, ip->dst, l4, n);
	else if (ip->version == 4)
		c = wire_csum(l4, n);
	else {
		sum = wire_csum_pseudo6(ip->src, ip->dst, WIRE_PROTO_ICMPV6,
		    (uint32_t)n);
		c = wire_csum_fold(wire_csum_add(sum, l4, n));
	}
	return c == 0 ? WIRE_CSUM_OK : WIRE_CSUM_BAD;
}

enum wire_result
wire_packet_parse(const uint8_t *buf, size_t len, struct wire_packet *pkt)
{
	const uint8_t	*l4;
	size_t		 n;
	uint8_t		 icmp_proto;

	memset(pkt, 0, sizeof(*pkt));
	pkt->ip_result = wire_ip_parse(buf, len, &pkt->ip);
	pkt->l4_result = WIRE_TRUNCATED;
	pkt->opts_result = WIRE_TRUNCATED;
	if (pkt->ip_result != WIRE_OK && pkt->ip_result != WIRE_TRUNCATED)
		return pkt->ip_result;
	if (!pkt->ip.l4_known)
		return WIRE_TRUNCATED;

	l4 = buf + pkt->ip.l4_off;
	n = pkt->ip.l4_len;
	icmp_proto = pkt->ip.version == 4 ? WIRE_PROTO_ICMP : WIRE_PROTO_ICMPV6;
	if (pkt->ip.frag_off != 0) {
		pkt->l4 = WIRE_L4_OTHER;
		pkt->l4_result = WIRE_OK;
	} else if (pkt->ip.proto == WIRE_PROTO_TCP) {
		wire_packet_tcp(pkt, l4, n);
	} else if (pkt->ip.proto == icmp_proto) {
		pkt->l4 = WIRE_L4_ICMP;
		pkt->l4_result = wire_icmp_parse(l4, n, pkt->ip.version,
		    &pkt->icmp);
	} else {
		pkt->l4 = WIRE_L4_OTHER;
		pkt->l4_result = WIRE_OK;
	}
	if (pkt->l4 == WIRE_L4_TCP || pkt->l4 == WIRE_L4_ICMP)
		pkt->l4_csum = wire_packet_csum(pkt, l4, n);

	if (pkt->ip_result == WIRE_TRUNCATED)
		return WIRE_TRUNCATED;
	/* the datagram is whole: a header claiming more contradicts it */
	if (pkt->l4_result == WIRE_TRUNCATED)
		pkt->l4_result = WIRE_MALFORMED;
	return pkt->l4_result;
}
