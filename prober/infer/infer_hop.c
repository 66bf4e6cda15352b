/*
 * infer_hop.c -- the trace as infer.c reads it (infer_hop.h): the hop
 * rules of prober/design-notes.md "Hops".  Hop k answers TTL k; the prober is hop 0, the destination D.
 * Only full quotes say anything about options, so 8-byte and silent hops
 * never count as clean: they widen the segment (last_clean, index].
 */
#include <stdio.h>
#include <string.h>

#include "infer_hop.h"
#include "quote.h"

static bool
ran(const struct trace_obs *t)
{
	return t != NULL && t->ran;
}

static int
nttl(const struct trace_obs *t)
{
	if (!ran(t))
		return 0;
	return t->nttl < RESULT_MAX_HOPS ? (t->nttl > 0 ? t->nttl : 0) : RESULT_MAX_HOPS;
}

/* The last router TTL worth reading in t: below D, within what was sent. */
static int
top(const struct trace_obs *t, const struct infer_q *q)
{
	int n = nttl(t);

	return n < q->dest - 1 ? n : q->dest - 1;
}

/* A full quote of the scale variant: its WS option compared. */
static bool
variant_full(const struct hop_quote *h)
{
	return quote_is_full(h) && (h->ws == WS_INTACT || h->ws == WS_CHANGED ||
	    h->ws == WS_REMOVED || h->ws == WS_NOPPED);
}

static int
dest_of(const struct trace_obs *t)
{
	return ran(t) && t->dest_ttl > 0 && t->dest_ttl <= RESULT_MAX_HOPS + 1 ?
	    t->dest_ttl : 0;
}

void
infer_hop_scan(const struct infer_input *in, struct infer_q *q)
{
	const struct trace_obs *t = in->qr;
	int n;

	memset(q, 0, sizeof(*q));
	/* D: a variant a box drops never gets there, and one a box resets
	 * "gets there" early; the farther of the two is the destination */
	q->dest = dest_of(in->qr) > dest_of(in->qc) ? dest_of(in->qr) : dest_of(in->qc);
	if (q->dest == 0)
		q->dest = (nttl(in->qr) > nttl(in->qc) ? nttl(in->qr) : nttl(in->qc)) + 1;

	n = top(t, q);
	for (int k = 1; k <= n; k++) {
		const struct hop_quote *h = &t->hop[k];

		if (!variant_full(h))
			continue;
		q->last = k;
		q->last_ws = h->ws;
		q->last_value = h->ws_value;
		if (h->ws != WS_INTACT && q->first == 0) {
			q->first = k;
			q->first_ws = h->ws;
			q->first_value = h->ws_value;
		} else if (h->ws == WS_INTACT && q->first != 0 && q->back == 0) {
			q->back = k;
		}
	}
	for (int k = 1; k < q->dest && q->ts_hop == 0; k++) {
		if (k <= top(in->qr, q) && quote_is_full(&in->qr->hop[k]) &&
		    in->qr->hop[k].ts_stripped)
			q->ts_hop = k;
		else if (k <= top(in->qc, q) && quote_is_full(&in->qc->hop[k]) &&
		    in->qc->hop[k].ts_stripped)
			q->ts_hop = k;
	}
}

struct addr
infer_hop_addr(const struct infer_input *in, const struct infer_q *q, int k)
{
	struct addr none;

	memset(&none, 0, sizeof(none));
	if (k == 0)
		return in->prober;
	if (k >= q->dest)
		return in->dst;
	if (k < 0 || k > RESULT_MAX_HOPS)
		return none;
	if (k <= nttl(in->qr) && in->qr->hop[k].quote != QUOTE_NONE)
		return in->qr->hop[k].from;
	if (k <= nttl(in->qc) && in->qc->hop[k].quote != QUOTE_NONE)
		return in->qc->hop[k].from;
	return none;
}

void
infer_hop_locate(const struct infer_input *in, const struct infer_q *q,
    int index, const struct addr *index_addr, struct hop_loc *h)
{
	int n = top(in->qr, q);

	memset(h, 0, sizeof(*h));
	h->present = true;
	h->index = index;
	h->address = *index_addr;
	h->last_clean_index = 0;
	h->last_clean_address = in->prober;
	for (int k = (index - 1 < n ? index - 1 : n); k >= 1; k--) {
		const struct hop_quote *hq = &in->qr->hop[k];

		if (variant_full(hq) && hq->ws == WS_INTACT) {
			h->last_clean_index = k;
			h->last_clean_address = hq->from;
			break;
		}
	}
	h->silent = infer_hop_silent(in, q, h->last_clean_index, index);
}

uint32_t
infer_hop_silent(const struct infer_input *in, const struct infer_q *q, int clean,
    int index)
{
	int n = nttl(in->qr);
	uint32_t set = 0;

	/* without the variant's trace nothing was asked, so nothing was
	 * silent: the interval stands as the hops name it */
	if (!ran(in->qr))
		return 0;
	for (int k = clean + 1; k < index && k < q->dest && k <= RESULT_MAX_HOPS; k++)
		if (k < 1 || k > n || in->qr->hop[k].quote == QUOTE_NONE)
			set |= 1u << k;
	return set;
}

int
infer_hop_dropped(const struct infer_input *in, struct addr *addr)
{
	const struct trace_obs *c = in->qc, *r = in->qr;
	int dc = dest_of(c), last, k;

	if (!ran(c) || !ran(r))
		return 0;
	/* routers the control reached: below its destination */
	last = dc > 0 ? dc - 1 : nttl(c);
	if (last > nttl(r))
		last = nttl(r);
	if (last > nttl(c))
		last = nttl(c);
	/* the variant is silent from k on ... */
	for (k = last + 1; k > 1 && r->hop[k - 1].quote == QUOTE_NONE; k--)
		;
	/* ... and the first hop from there that still answered the control
	 * is the first one known to have lost it (silent routers widen) */
	for (; k <= last; k++) {
		if (c->hop[k].quote != QUOTE_NONE) {
			*addr = c->hop[k].from;
			return k;
		}
	}
	if (dc > 0) {
		*addr = in->dst;
		return dc;
	}
	return 0;
}

static void
add_finding(struct scale_verdict *out, enum finding_kind kind, int k,
    const struct addr *a, const char *detail)
{
	struct side_finding *f;

	if (out->nfindings >= RESULT_MAX_FINDINGS)
		return;
	f = &out->findings[out->nfindings++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->hop_index = k;
	f->hop_address = *a;
	snprintf(f->detail, sizeof(f->detail), "%s", detail);
}

/* Does hop h show finding kind?  MSS clamps come with their value. */
static bool
shows(const struct hop_quote *h, enum finding_kind kind, int *mss)
{
	switch (kind) {
	case FINDING_MSS_CLAMPED:
		*mss = h->mss;
		return quote_is_full(h) && h->mss >= 0 && h->mss_sent >= 0 &&
		    h->mss < h->mss_sent;
	case FINDING_SACK_STRIPPED:
		return quote_is_full(h) && h->sack_stripped;
	case FINDING_TS_STRIPPED:
		return quote_is_full(h) && h->ts_stripped;
	case FINDING_NAT:
		return h->quote != QUOTE_NONE && h->nat;
	case FINDING_ISN_REWRITTEN:
		return h->quote != QUOTE_NONE && h->isn_rewritten;
	case FINDING_OPTIONS_CHANGED:
		return h->quote != QUOTE_NONE &&
		    (h->other_changed || h->ws == WS_ADDED);
	case FINDING_SYN_PROXY:
		return false;	/* the window test's, not a quote's */
	}
	return false;
}

/* The window test's handshake was answered by a SYN proxy: where it sits
 * is told by its SYN-ACK's TTL (initial 64, 128 or 255), its address by a
 * trace that reached that far.  The detail is the evidence. */
static void
syn_proxy_finding(const struct infer_input *in, const struct infer_q *q,
    struct scale_verdict *out)
{
	const struct window_obs *t = in->t;
	struct addr a;
	char detail[48];
	unsigned init;
	int k = -1;

	if (t == NULL || !t->syn_proxy)
		return;
	memset(&a, 0, sizeof(a));
	if (t->synack_ttl > 0) {
		init = t->synack_ttl <= 64 ? 64 : t->synack_ttl <= 128 ? 128 : 255;
		k = (int)(init - t->synack_ttl) + 1;
		if (k > RESULT_MAX_HOPS)
			k = -1;
		else if (k < q->dest)
			a = infer_hop_addr(in, q, k);
	}
	if (t->data_ttl > 0 && t->data_ttl != t->synack_ttl)
		snprintf(detail, sizeof(detail), "syn-ack window %u, ttl %u, data ttl %u",
		    t->synack_window, t->synack_ttl, t->data_ttl);
	else
		snprintf(detail, sizeof(detail), "syn-ack window %u, then opened",
		    t->synack_window);
	add_finding(out, FINDING_SYN_PROXY, k, &a, detail);
}

void
infer_hop_findings(const struct infer_input *in, const struct infer_q *q,
    struct scale_verdict *out)
{
	static const enum finding_kind kinds[] = {
		FINDING_MSS_CLAMPED, FINDING_SACK_STRIPPED, FINDING_TS_STRIPPED,
		FINDING_NAT, FINDING_ISN_REWRITTEN, FINDING_OPTIONS_CHANGED,
	};
	const struct trace_obs *traces[2] = { in->qr, in->qc };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		for (int k = 1; k < q->dest; k++) {
			const struct hop_quote *h = NULL;
			char detail[16] = "";
			int mss = -1;

			for (int t = 0; t < 2 && h == NULL; t++)
				if (k <= top(traces[t], q) &&
				    shows(&traces[t]->hop[k], kinds[i], &mss))
					h = &traces[t]->hop[k];
			if (h == NULL)
				continue;
			if (kinds[i] == FINDING_MSS_CLAMPED)
				snprintf(detail, sizeof(detail), "%d", mss);
			add_finding(out, kinds[i], k, &h->from, detail);
			break;
		}
	}
	syn_proxy_finding(in, q, out);
}

const char *
infer_hop_name(const struct infer_q *q, int k, const struct addr *a, char *buf,
    size_t len)
{
	char ab[ADDR_STRLEN];
	const char *as = a->family != 0 ? addr_format(a, ab, sizeof(ab)) : NULL;

	if (k == 0)
		snprintf(buf, len, "the prober (%s)", as != NULL ? as : "?");
	else if (k >= q->dest)
		snprintf(buf, len, "the destination (%s)", as != NULL ? as : "?");
	else if (as != NULL)
		snprintf(buf, len, "hop %d (%s)", k, as);
	else
		snprintf(buf, len, "hop %d", k);
	return buf;
}
