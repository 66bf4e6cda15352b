/*
 * fuzz_tcpopt.c -- libFuzzer harness for wire_tcpopt_parse.  The first
 * byte picks the option area's length (mod 41); the rest are its bytes,
 * as many as there are (fewer is a cut header).  Checks that no entry
 * reaches past the bytes unless flagged, and that the fold stays in bounds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "wire_tcpopt.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcpopts		o;
	enum wire_result	r;
	uint8_t			kinds[WIRE_TCPOPT_MAX];
	size_t			area, have, i, k;
	unsigned		bad = 0;

	if (size < 1)
		return 0;
	area = data[0] % (WIRE_TCPOPT_AREA_MAX + 1);
	have = size - 1 < area ? size - 1 : area;
	r = wire_tcpopt_parse(data + 1, have, area, &o);
	/* never unsupported: every byte pattern is an option list */
	if (r != WIRE_OK && r != WIRE_TRUNCATED && r != WIRE_MALFORMED)
		abort();
	if (o.n > WIRE_TCPOPT_MAX || o.n_sack > WIRE_TCPOPT_SACK_MAX)
		abort();
	for (i = 0; i < o.n; i++) {
		const struct wire_tcpopt *e = &o.opt[i];

		if (e->off >= have)
			abort();
		if (e->flags & (WIRE_TCPOPT_F_BADLEN | WIRE_TCPOPT_F_BROKEN))
			bad++;
		if (!(e->flags & (WIRE_TCPOPT_F_CUT | WIRE_TCPOPT_F_BROKEN)) &&
		    e->off + e->len > have)
			abort();
		/* entries tile the area: each starts where the last ended */
		if (i > 0 && e->off != o.opt[i - 1].off + o.opt[i - 1].len)
			abort();
	}
	if (bad != o.n_bad || (r == WIRE_OK && bad != 0))
		abort();
	k = wire_tcpopt_kinds(&o, kinds, sizeof(kinds));
	if (k > o.n)
		abort();
	for (i = 1; i < k; i++)
		if (kinds[i] == WIRE_TCPOPT_NOP &&
		    kinds[i - 1] == WIRE_TCPOPT_NOP)
			abort();
	return 0;
}
