/*
 * pcapng.c -- section, interface and enhanced packet blocks (pcapng.h).
 * Written in host byte order, as the format allows: the byte-order magic
 * of the section header tells readers which.
 */
#include <string.h>

#include "pcapng.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define OPT_END 0
#define OPT_COMMENT 1
#define SHB_USERAPPL 4
#define IF_TSRESOL 9

static size_t
pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void
put(struct pcapng_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (b->overflow || n > b->cap - b->len) {
		b->overflow = true;
		return;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void
put32(struct pcapng_buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void
put16(struct pcapng_buf *b, uint16_t v)
{
	put(b, &v, 2);
}

static void
put_pad(struct pcapng_buf *b, size_t n)
{
	static const uint8_t zero[4];

	put(b, zero, pad4(n) - n);
}

/* An option: code, length, value padded to 4. */
static void
put_opt(struct pcapng_buf *b, uint16_t code, const void *v, size_t n)
{
	put16(b, code);
	put16(b, (uint16_t)n);
	put(b, v, n);
	put_pad(b, n);
}

static size_t
opt_len(size_t n)
{
	return 4 + pad4(n);
}

int
pcapng_begin(struct pcapng_buf *b, const char *application)
{
	size_t an = application != NULL ? strlen(application) : 0;
	size_t shb, idb;
	uint8_t tsresol = 9;	/* 10^-9: nanoseconds */

	if (an > 0xFFFF)
		an = 0xFFFF;
	shb = 28 + (an > 0 ? opt_len(an) + 4 : 0);
	put32(b, BT_SHB);
	put32(b, (uint32_t)shb);
	put32(b, BYTE_ORDER_MAGIC);
	put16(b, 1);		/* version 1.0 */
	put16(b, 0);
	put32(b, 0xFFFFFFFFu);	/* section length: not given */
	put32(b, 0xFFFFFFFFu);
	if (an > 0) {
		put_opt(b, SHB_USERAPPL, application, an);
		put_opt(b, OPT_END, NULL, 0);
	}
	put32(b, (uint32_t)shb);

	idb = 20 + opt_len(1) + 4;
	put32(b, BT_IDB);
	put32(b, (uint32_t)idb);
	put16(b, PCAPNG_LINKTYPE_RAW);
	put16(b, 0);
	put32(b, 0);		/* snaplen: no limit */
	put_opt(b, IF_TSRESOL, &tsresol, 1);
	put_opt(b, OPT_END, NULL, 0);
	put32(b, (uint32_t)idb);
	return b->overflow ? -1 : 0;
}

int
pcapng_packet(struct pcapng_buf *b, uint64_t ts_ns, const uint8_t *pkt, size_t len,
    const char *comment)
{
	size_t cn = comment != NULL ? strlen(comment) : 0;
	size_t total;

	if (len > 0x3FFFFFFF || cn > 0xFFFF) {
		b->overflow = true;
		return -1;
	}
	total = 32 + pad4(len) + (cn > 0 ? opt_len(cn) + 4 : 0);
	put32(b, BT_EPB);
	put32(b, (uint32_t)total);
	put32(b, 0);		/* interface 0 */
	put32(b, (uint32_t)(ts_ns >> 32));
	put32(b, (uint32_t)ts_ns);
	put32(b, (uint32_t)len);
	put32(b, (uint32_t)len);
	put(b, pkt, len);
	put_pad(b, len);
	if (cn > 0) {
		put_opt(b, OPT_COMMENT, comment, cn);
		put_opt(b, OPT_END, NULL, 0);
	}
	put32(b, (uint32_t)total);
	return b->overflow ? -1 : 0;
}
