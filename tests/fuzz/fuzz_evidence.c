/*
 * fuzz_evidence.c -- libFuzzer harness for evidence_unpack, the reader of
 * the packed packets a store keeps per result (a file anyone may have
 * edited).  Checks that whatever it accepts stays in its bounds and packs
 * back to the very same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t back[EVIDENCE_PACKED_MAX];
	struct path_evidence *ev = NULL;
	const char *why = NULL;
	size_t n;

	if (evidence_unpack(data, size, &ev, &why) != 0) {
		if (ev != NULL || why == NULL)
			abort();
		return 0;
	}
	if (ev == NULL) {
		if (size != 0)
			abort();
		return 0;
	}
	if (ev->n > EVIDENCE_MAX_ITEMS || ev->used > EVIDENCE_MAX_BYTES || ev->truncated)
		abort();
	for (int i = 0; i < ev->n; i++)
		if (ev->item[i].off + ev->item[i].len > ev->used ||
		    strlen(ev->item[i].fields) >= EVIDENCE_FIELDS)
			abort();
	n = evidence_pack(ev, back, sizeof(back));
	if (n != size || memcmp(back, data, n) != 0)
		abort();
	evidence_free(&ev);
	return 0;
}
