/*
 * fuzz_evidence.c -- libFuzzer harness for evidence_unpack, the reader of
 * the packed packets a store keeps per result (a file anyone may have
 * edited).  Checks that whatever it accepts stays in its bounds and packs
 * back to the very same bytes; and that export --pcap's file of it
 * (export_pcap.c) holds no more packets than it has, within its room.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "export_pcap.h"

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
	{
		static uint8_t room[EXPORT_PCAP_MAX];
		struct pcapng_buf b = { room, 0, sizeof(room), false };
		/* the row's numbers from the input too: any variant, any hop */
		struct history_row r = { .scale_idx = data[0] % 4 - 1, .hop_index = data[size - 1] % 8,
		    .last_clean_index = data[size / 2] % 8, .scale_sent = 7, .reply = "syn-ack",
		    .time_ns = 1 };
		int npk = 0;

		if (export_pcap_build(&r, data, size, &b, &npk, &why) == 0 &&
		    (npk < 1 || npk > ev->n || b.len > sizeof(room) || b.overflow))
			abort();
	}
	evidence_free(&ev);
	return 0;
}
