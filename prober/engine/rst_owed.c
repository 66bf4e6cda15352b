/*
 * rst_owed.c -- at most one RST per flow we probed (rst_owed.h): the
 * decision, and the fixed-size memo of the flows of finished paths.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rst_owed.h"
#include "siphash.h"

#define RST_MEMO_MIN 64
/* 16 MiB at most, touched only as paths finish */
#define RST_MEMO_MAX ((size_t)1 << 20)

uint64_t
rst_flow_bit(int tag, bool second)
{
	if (tag < 0 || tag > (int)COOKIE_TAG_MASK)
		return 0;
	return second ? (uint64_t)1 << RST_FLOW_SECOND : (uint64_t)1 << tag;
}

enum rst_decision
rst_decide(const struct rst_flow *f)
{
	uint64_t bit = rst_flow_bit(f->tag, f->second);

	if (!f->ours || bit == 0 || (f->second && f->tag != COOKIE_TAG_WINDOW))
		return RST_FOREIGN;
	/* a record gone is a flow that may have had its RST: never a second */
	if (!f->recorded || (f->paid & bit) != 0)
		return RST_REPLAY;
	return RST_SEND;
}

void
rst_memo_init(struct rst_memo *m, size_t n)
{
	size_t cap = RST_MEMO_MIN;

	memset(m, 0, sizeof(*m));
	if (n > RST_MEMO_MAX)
		n = RST_MEMO_MAX;
	while (cap < n)
		cap <<= 1;
	m->t = xcalloc(cap, sizeof(*m->t));
	m->mask = cap - 1;
}

void
rst_memo_free(struct rst_memo *m)
{
	free(m->t);
	memset(m, 0, sizeof(*m));
}

size_t
rst_memo_bytes(const struct rst_memo *m)
{
	return m->t != NULL ? (m->mask + 1) * sizeof(*m->t) : 0;
}

void
rst_memo_put(struct rst_memo *m, uint64_t key, uint64_t paid)
{
	struct rst_memo_entry *x;

	if (m->t == NULL || key == 0)
		return;
	x = &m->t[key & m->mask];
	x->key = key;
	x->paid = paid;
}

bool
rst_memo_get(const struct rst_memo *m, uint64_t key, uint64_t *paid)
{
	const struct rst_memo_entry *x;

	if (m->t == NULL || key == 0)
		return false;
	x = &m->t[key & m->mask];
	if (x->key != key)
		return false;
	*paid = x->paid;
	return true;
}

uint64_t
rst_memo_key(const struct cookie_key *key, const struct addr *src,
    const struct addr *dst, uint16_t port, int v)
{
	uint8_t msg[1 + 16 + 16 + 2 + 1];
	size_t n = addr_len(src), o = 0;
	uint64_t h;

	msg[o++] = src->family;
	memcpy(msg + o, src->bytes, n);
	o += n;
	memcpy(msg + o, dst->bytes, addr_len(dst));
	o += addr_len(dst);
	msg[o++] = (uint8_t)(port >> 8);
	msg[o++] = (uint8_t)port;
	msg[o++] = (uint8_t)v;
	h = siphash24(key->bytes, msg, o);
	return h != 0 ? h : 1;
}
