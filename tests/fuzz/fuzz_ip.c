/*
 * fuzz_ip.c -- libFuzzer harness for wire_ip_parse: any bytes, no crash,
 * and every offset and length it reports lies inside the input.
 */
#include <stdint.h>
#include <stdlib.h>

#include "wire_ip.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_ip		ip;
	enum wire_result	r;
	unsigned		i;

	r = wire_ip_parse(data, size, &ip);
	if (r > WIRE_UNSUPPORTED || ip.n_ext > WIRE_IP6_MAX_EXT)
		abort();
	if (ip.l4_known) {
		if (ip.l4_off < ip.hdr_len || ip.l4_off + ip.l4_len > size ||
		    ip.l4_off + ip.l4_len > ip.tot_len)
			abort();
		/* a complete chain: every extension header inside it */
		for (i = 0; i < ip.n_ext; i++)
			if (ip.ext[i].off + ip.ext[i].len > ip.l4_off)
				abort();
	}
	if (r == WIRE_OK && (!ip.l4_known || ip.tot_len > size))
		abort();
	if (r == WIRE_OK && ip.l4_off + ip.l4_len != ip.tot_len)
		abort();
	return 0;
}
