/*
 * wire_tcp.c -- the fixed TCP header, whole or as far as an ICMP quote
 * carries it.
 */
#include <string.h>

#include "wire_tcp.h"

enum wire_result
wire_tcp_parse(const uint8_t *buf, size_t len, struct wire_tcp *th)
{
	memset(th, 0, sizeof(*th));
	th->have = (uint8_t)(len < WIRE_TCP_MAX ? len : WIRE_TCP_MAX);
	/* fill each field the bytes cover; quotes stop anywhere */
	if (len >= 4) {
		th->sport = wire_get16(buf);
		th->dport = wire_get16(buf + 2);
	}
	if (len >= 8)
		th->seq = wire_get32(buf + 4);
	if (len >= 12)
		th->ack = wire_get32(buf + 8);
	if (len >= 14) {
		th->hdr_len = (uint8_t)((buf[12] >> 4) * 4);
		th->flags = (uint16_t)((buf[12] & 0x0f) << 8 | buf[13]);
	}
	if (len >= 16)
		th->window = wire_get16(buf + 14);
	if (len >= 18)
		th->csum = wire_get16(buf + 16);
	if (len < WIRE_TCP_MIN)
		return WIRE_TRUNCATED;
	th->urg = wire_get16(buf + 18);
	if (th->hdr_len < WIRE_TCP_MIN) {
		th->have = WIRE_TCP_MIN;
		return WIRE_MALFORMED;
	}
	th->opt_len = (uint8_t)(th->hdr_len - WIRE_TCP_MIN);
	if (len < th->hdr_len)
		return WIRE_TRUNCATED;
	th->have = th->hdr_len;
	th->payload_len = (uint32_t)(len - th->hdr_len);
	return WIRE_OK;
}
