/*
 * fuzz_quote.c -- libFuzzer harness for quote_compare.  Input:
 *   byte 0   bits 0-1: the quote label (none, 8-byte, full; 3 counts as full);
 *            bit 2 clear: the SYN sent is scaleprobe's own (bit 3: IPv6),
 *            byte 1 its window scale (0xff: the control SYN), the rest the
 *            quote -- so most inputs compare against a real SYN;
 *            bit 2 set: bytes 1-2 the sent length, then the sent bytes,
 *            then the quote -- hostile on both sides.
 * Each side is copied to a buffer of its exact size, so a read past either
 * is caught.  Checks the claims hang together and that the caller's from
 * and rtt_us survive.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* scaleprobe's SYNs (send.h): MSS 1460, SACK-permitted, timestamps, NOP,
 * WS 7; IPv4 198.18.1.1 -> 198.18.100.11, IPv6 fd00:5ca1:1::1 ->
 * fd00:5ca1:100::11, port 40008 -> 80.  Checksums are not checked here. */
static const uint8_t syn4[60] = {
	0x45, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x03, 0x06, 0x00, 0x00,
	198, 18, 1, 1, 198, 18, 100, 11,
	0x9c, 0x48, 0x00, 0x50, 0x5c, 0xa1, 0xe9, 0x02, 0, 0, 0, 0,
	0xa0, 0x02, 0xfa, 0xf0, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0x0b, 0xad, 0xca, 0xfe,
	0, 0, 0, 0, 0x01, 0x03, 0x03, 0x07,
};
static const uint8_t syn6[80] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x28, 0x06, 0x03,
	0xfd, 0x00, 0x5c, 0xa1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0xfd, 0x00, 0x5c, 0xa1, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11,
	0x9c, 0x48, 0x00, 0x50, 0x5c, 0xa1, 0xe9, 0x02, 0, 0, 0, 0,
	0xa0, 0x02, 0xfa, 0xf0, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0x0b, 0xad, 0xca, 0xfe,
	0, 0, 0, 0, 0x01, 0x03, 0x03, 0x07,
};

static uint8_t *
copy(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n ? n : 1);

	if (b == NULL)
		abort();
	if (n)
		memcpy(b, p, n);
	return b;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hop_quote q, again;
	enum quote_kind kind;
	uint8_t *sent, *quote;
	size_t sent_len, quote_len, off;

	if (size < 2)
		return 0;
	kind = (enum quote_kind)((data[0] & 3) == 3 ? QUOTE_FULL : data[0] & 3);
	if ((data[0] & 4) == 0) {
		const uint8_t *syn = data[0] & 8 ? syn6 : syn4;

		sent_len = data[0] & 8 ? sizeof(syn6) : sizeof(syn4);
		sent = copy(syn, sent_len);
		if (data[1] == 0xff)
			memset(sent + sent_len - 4, 0x01, 4);
		else
			sent[sent_len - 1] = data[1];
		off = 2;
	} else {
		if (size < 3)
			return 0;
		sent_len = (size_t)(data[1] << 8 | data[2]);
		if (sent_len > size - 3)
			sent_len = size - 3;
		sent = copy(data + 3, sent_len);
		off = 3 + sent_len;
	}
	quote_len = size - off;
	quote = copy(data + off, quote_len);

	memset(&q, 0xa5, sizeof(q));
	q.rtt_us = 77;
	quote_compare(sent, sent_len, quote, quote_len, kind, &q);
	if (q.quote != kind || q.rtt_us != 77)
		abort();
	if (q.ws_value < -1 || q.ws_value > 255 || q.mss < -1 || q.mss > 65535 ||
	    q.mss_sent < -1 || q.mss_sent > 65535)
		abort();
	if (q.ws == WS_UNKNOWN) {
		if (q.ws_value != -1 || q.mss != -1 || q.sack_stripped || q.ts_stripped)
			abort();
	} else if (kind != QUOTE_FULL) {
		abort();	/* options judged from a quote not labelled whole */
	}
	if ((q.ws == WS_INTACT || q.ws == WS_CHANGED || q.ws == WS_ADDED) != (q.ws_value >= 0))
		abort();
	if (quote_is_full(&q) != (q.ws != WS_UNKNOWN))
		abort();
	/* a pure function: the same bytes, the same answer */
	memcpy(&again, &q, sizeof(again));
	quote_compare(sent, sent_len, quote, quote_len, kind, &again);
	if (memcmp(&again, &q, sizeof(q)) != 0)
		abort();
	free(sent);
	free(quote);
	return 0;
}
