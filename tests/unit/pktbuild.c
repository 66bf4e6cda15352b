/*
 * pktbuild.c -- packets for unit tests (pktbuild.h).
 */
#include <string.h>

#include "pktbuild.h"
#include "wire.h"
#include "wire_csum.h"

const uint8_t pkt_linux_synack_opts[20] = {
	0x02, 0x04, 0x05, 0xb4,			/* MSS 1460 */
	0x04, 0x02,				/* SACK-permitted */
	0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 2,	/* timestamps */
	0x01,					/* NOP */
	0x03, 0x03, 0x07,			/* window scale 7 */
};

static size_t
ip_header(uint8_t *buf, const struct addr *src, const struct addr *dst,
    uint8_t proto, uint8_t ttl, size_t l4len)
{
	if (src->family == ADDR_V4) {
		memset(buf, 0, 20);
		buf[0] = 0x45;
		wire_put16(buf + 2, (uint16_t)(20 + l4len));
		buf[6] = 0x40;			/* DF */
		buf[8] = ttl;
		buf[9] = proto;
		memcpy(buf + 12, src->bytes, 4);
		memcpy(buf + 16, dst->bytes, 4);
		wire_put16(buf + 10, wire_csum(buf, 20));
		return 20;
	}
	memset(buf, 0, 40);
	buf[0] = 0x60;
	wire_put16(buf + 4, (uint16_t)l4len);
	buf[6] = proto;
	buf[7] = ttl;
	memcpy(buf + 8, src->bytes, 16);
	memcpy(buf + 24, dst->bytes, 16);
	return 40;
}

size_t
pkt_build_tcp(uint8_t *buf, size_t cap, const struct pkt_tcp *t)
{
	size_t hl = t->src->family == ADDR_V4 ? 20 : 40;
	size_t tl = 20 + t->optlen;
	uint8_t *th = buf + hl;

	if (hl + tl > cap || t->optlen % 4 != 0 || t->optlen > 40)
		return 0;
	ip_header(buf, t->src, t->dst, 6, t->ttl ? t->ttl : 64, tl);
	memset(th, 0, 20);
	wire_put16(th, t->sport);
	wire_put16(th + 2, t->dport);
	wire_put32(th + 4, t->seq);
	wire_put32(th + 8, t->ack);
	th[12] = (uint8_t)((tl / 4) << 4);
	th[13] = t->flags;
	wire_put16(th + 14, t->window);
	if (t->optlen)
		memcpy(th + 20, t->opts, t->optlen);
	if (t->src->family == ADDR_V4)
		wire_put16(th + 16, wire_tcp_csum4(t->src->bytes, t->dst->bytes, th, tl));
	else
		wire_put16(th + 16, wire_tcp_csum6(t->src->bytes, t->dst->bytes, th, tl));
	return hl + tl;
}

size_t
pkt_build_icmp(uint8_t *buf, size_t cap, const struct addr *from,
    const struct addr *to, uint8_t type, uint8_t code, const uint8_t *q,
    size_t qlen, size_t quote_len)
{
	size_t hl = from->family == ADDR_V4 ? 20 : 40;
	size_t ql = quote_len && quote_len < qlen ? quote_len : qlen;
	size_t l4 = 8 + ql;
	uint8_t *ic = buf + hl;

	if (hl + l4 > cap)
		return 0;
	ip_header(buf, from, to, from->family == ADDR_V4 ? 1 : 58, 64, l4);
	memset(ic, 0, 8);
	ic[0] = type;
	ic[1] = code;
	memcpy(ic + 8, q, ql);
	if (from->family == ADDR_V4)
		wire_put16(ic + 2, wire_csum(ic, l4));
	else
		wire_put16(ic + 2, wire_csum_fold(wire_csum_add(
		    wire_csum_pseudo6(from->bytes, to->bytes, 58, (uint32_t)l4), ic, l4)));
	return hl + l4;
}
