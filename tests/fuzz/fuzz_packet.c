/*
 * fuzz_packet.c -- libFuzzer harness for wire_packet_parse, the capture
 * path's entry point.  Beyond "no crash": lengths inside the input, the
 * same answer twice, and a whole datagram cut by one byte is truncated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire_packet.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct wire_packet	pkt, again;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum wire_result	r;

	r = wire_packet_parse(data, size, &pkt);
	if (r > WIRE_UNSUPPORTED)
		abort();
	if (wire_packet_parse(data, size, &again) != r ||
	    memcmp(&pkt, &again, sizeof(pkt)) != 0)
		abort();
	if (pkt.l4 != WIRE_L4_NONE &&
	    pkt.ip.l4_off + pkt.ip.l4_len > size)
		abort();
	if (pkt.l4 == WIRE_L4_TCP && pkt.tcp.have > pkt.ip.l4_len)
		abort();
	if (pkt.l4 == WIRE_L4_ICMP && pkt.l4_result == WIRE_OK &&
	    pkt.icmp.quote_off + pkt.icmp.quote_len > pkt.ip.l4_len)
		abort();
	if (pkt.l4_csum != WIRE_CSUM_UNCHECKED && pkt.ip_result != WIRE_OK)
		abort();
	if (r == WIRE_OK && pkt.l4 == WIRE_L4_TCP &&
	    pkt.ip.l4_off + pkt.tcp.hdr_len > size)
		abort();
	/* a whole datagram with no padding, one byte short, is truncated */
	if (r != WIRE_TRUNCATED && pkt.ip_result == WIRE_OK && size > 0 &&
	    pkt.ip.tot_len == size &&
	    wire_packet_parse(data, size - 1, &again) != WIRE_TRUNCATED)
		abort();
	return 0;
}
