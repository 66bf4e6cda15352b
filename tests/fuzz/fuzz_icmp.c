/*
 * fuzz_icmp.c -- libFuzzer harness for wire_icmp_parse.  The first byte's
 * low bit picks ICMPv4 or ICMPv6; the rest is the message.  Checks that
 * the quote, its L4 and the RFC 4884 extension stay inside the message.
 */
#include <stdint.h>
#include <stdlib.h>

#include "wire_icmp.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_icmp	ic;
	enum wire_result	r;
	size_t			n;

	if (size < 1)
		return 0;
	n = size - 1;
	r = wire_icmp_parse(data + 1, n, data[0] & 1 ? 6 : 4, &ic);
	if (r > WIRE_UNSUPPORTED)
		abort();
	if (r != WIRE_OK)
		return 0;
	if (ic.kind == WIRE_ICMP_NOT_ERROR || ic.quote_off != 8 ||
	    ic.quote_off + ic.quote_len > n ||
	    ic.quote_l4_len > ic.quote_len ||
	    ic.ip.l4_off + ic.quote_l4_len > ic.quote_len)
		abort();
	if (ic.ext_len != 0 && ic.ext_off + ic.ext_len != n)
		abort();
	if (ic.has_tcp && (ic.quote_l4_len < 8 ||
	    ic.tcp.have > ic.quote_l4_len))
		abort();
	if (ic.tcp_complete && (!ic.has_tcp || ic.tcp.have != ic.tcp.hdr_len))
		abort();
	/* a length holds only at 128 bytes or more, with an extension after */
	if (ic.rfc4884 && (ic.rfc4884_len < 128 || ic.quote_len != ic.rfc4884_len ||
	    ic.ext_len < 4 || (data[1 + ic.ext_off] >> 4) != 2))
		abort();
	if (!ic.rfc4884 && (ic.ext_len != 0 || ic.quote_len != n - 8))
		abort();
	if (ic.quote == WIRE_QUOTE_FULL && ic.has_tcp && !ic.tcp_complete)
		abort();
	return 0;
}
