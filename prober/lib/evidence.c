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
	if (ev->used + len > ev->cap) {
		uint32_t cap = ev->cap ? ev->cap : 512;
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
	free(*evp);
	*evp = NULL;
}
