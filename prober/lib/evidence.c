/*
 * evidence.c -- the bounded store of one path's raw packets (evidence.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"

const struct evidence_item *
evidence_find(const struct path_evidence *ev, int variant, int ttl, enum evidence_kind kind)
{
	if (ev == NULL)
		return NULL;
	for (int i = 0; i < ev->n; i++)
		if (ev->item[i].variant == variant && ev->item[i].ttl == ttl &&
		    ev->item[i].kind == kind)
			return &ev->item[i];
	return NULL;
}

int
evidence_add(struct path_evidence **evp, int variant, int ttl, enum evidence_kind kind,
    const char *fields, const uint8_t *pkt, size_t len)
{
	struct path_evidence *ev = *evp;
	struct evidence_item *it;

	if (len > EVIDENCE_MAX_PACKET)
		len = EVIDENCE_MAX_PACKET;
	if (ev == NULL) {
		if ((ev = calloc(1, sizeof(*ev))) == NULL)
			return -1;
		*evp = ev;
	}
	if (evidence_find(ev, variant, ttl, kind) != NULL)
		return 1;
	if (ev->n == EVIDENCE_MAX_ITEMS || ev->used + len > EVIDENCE_MAX_BYTES) {
		ev->truncated = true;
		return -1;
	}
	if (ev->n == ev->nalloc) {
		int na = ev->nalloc ? 2 * ev->nalloc : 4;
		struct evidence_item *items;

		if (na > EVIDENCE_MAX_ITEMS)
			na = EVIDENCE_MAX_ITEMS;
		if ((items = realloc(ev->item, (size_t)na * sizeof(*items))) == NULL) {
			ev->truncated = true;
			return -1;
		}
		ev->item = items;
		ev->nalloc = na;
	}
	if (ev->used + len > ev->cap) {
		uint32_t cap = ev->cap ? ev->cap : 128;
		uint8_t *b;

		while (cap < ev->used + len)
			cap *= 2;
		if (cap > EVIDENCE_MAX_BYTES)
			cap = EVIDENCE_MAX_BYTES;
		if ((b = realloc(ev->bytes, cap)) == NULL) {
			ev->truncated = true;
			return -1;
		}
		ev->bytes = b;
		ev->cap = cap;
	}
	it = &ev->item[ev->n++];
	it->variant = variant;
	it->ttl = ttl;
	it->kind = kind;
	snprintf(it->fields, sizeof(it->fields), "%s", fields != NULL ? fields : "");
	it->off = ev->used;
	it->len = (uint32_t)len;
	if (len > 0)
		memcpy(ev->bytes + ev->used, pkt, len);
	ev->used += (uint32_t)len;
	return 0;
}

const char *
evidence_kind_name(enum evidence_kind k)
{
	switch (k) {
	case EVIDENCE_SYN:	return "syn";
	case EVIDENCE_QUOTE:	return "quote";
	case EVIDENCE_REPLY:	return "reply";
	}
	return "reply";
}

void
evidence_free(struct path_evidence **evp)
{
	if (*evp == NULL)
		return;
	free((*evp)->bytes);
	free((*evp)->item);
	free(*evp);
	*evp = NULL;
}

size_t
evidence_pack(const struct path_evidence *ev, uint8_t *buf, size_t len)
{
	size_t n = 0;

	for (int i = 0; ev != NULL && i < ev->n; i++) {
		const struct evidence_item *it = &ev->item[i];
		size_t f = strlen(it->fields);

		if (n + EVIDENCE_RECORD_HEAD + f + it->len > len)
			break;
		buf[n++] = (uint8_t)it->kind;
		buf[n++] = (uint8_t)(it->variant + 1);
		buf[n++] = (uint8_t)it->ttl;
		buf[n++] = (uint8_t)f;
		buf[n++] = (uint8_t)(it->len >> 8);
		buf[n++] = (uint8_t)it->len;
		memcpy(buf + n, it->fields, f);
		n += f;
		if (it->len > 0)	/* bytes is NULL while every packet is empty */
			memcpy(buf + n, ev->bytes + it->off, it->len);
		n += it->len;
	}
	return n;
}

int
evidence_unpack(const uint8_t *b, size_t len, struct path_evidence **evp, const char **why)
{
	size_t n = 0;
	int rc;

	*evp = NULL;
	while (n < len) {
		char fields[EVIDENCE_FIELDS];
		size_t f, l;

		if (len - n < EVIDENCE_RECORD_HEAD) {
			*why = "a record's head is cut short";
			goto bad;
		}
		f = b[n + 3];
		l = (size_t)b[n + 4] << 8 | b[n + 5];
		if (b[n] > EVIDENCE_REPLY) {
			*why = "unknown record kind";
			goto bad;
		}
		if (f >= sizeof(fields)) {
			*why = "a record's fields are too long";
			goto bad;
		}
		if (len - n - EVIDENCE_RECORD_HEAD < f + l) {
			*why = "a record runs past the end";
			goto bad;
		}
		if (l > EVIDENCE_MAX_PACKET) {
			*why = "a packet longer than any kept";
			goto bad;
		}
		memcpy(fields, b + n + EVIDENCE_RECORD_HEAD, f);
		fields[f] = '\0';
		for (size_t i = 0; i < f; i++)
			if (fields[i] < 0x20 || fields[i] > 0x7e) {
				*why = "a record's fields are not printable ASCII";
				goto bad;
			}
		rc = evidence_add(evp, (int)b[n + 1] - 1, b[n + 2], (enum evidence_kind)b[n],
		    fields, b + n + EVIDENCE_RECORD_HEAD + f, l);
		if (rc != 0) {
			*why = rc > 0 ? "two records of one packet" :
			    "more records or bytes than one result holds";
			goto bad;
		}
		n += EVIDENCE_RECORD_HEAD + f + l;
	}
	return 0;
bad:
	evidence_free(evp);
	return -1;
}

size_t
evidence_bytes(const struct path_evidence *ev)
{
	if (ev == NULL)
		return 0;
	return sizeof(*ev) + (size_t)ev->nalloc * sizeof(*ev->item) + ev->cap;
}
