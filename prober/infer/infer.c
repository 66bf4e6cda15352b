/*
 * infer.c -- the verdict table (prober/design-notes.md "Verdicts"): the
 * handshake replies (R, C), the router quotes (Q) and the window test (T)
 * of one scale factor in, verdict and a one-sentence reason out.  Where on the path, and the side findings, come from
 * infer_hop.c.  Pure: structs in, structs out.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "infer_hop.h"
#include "silent_hops.h"

/* Everything one verdict's sentence needs. */
struct infer_ctx {
	const struct infer_input *in;
	struct infer_q q;
	struct scale_verdict *out;
	int s;				/* the shift sent */
};

static void
verdict(struct infer_ctx *x, enum verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
verdict(struct infer_ctx *x, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	x->out->verdict = v;
	va_start(ap, fmt);
	vsnprintf(x->out->reason, sizeof(x->out->reason), fmt, ap);
	va_end(ap);
}

/* "hop 3 (198.18.3.2)" for TTL k of the trace, into one of two buffers. */
static const char *
name(struct infer_ctx *x, int k, char *buf, size_t len)
{
	struct addr a = infer_hop_addr(x->in, &x->q, k);

	return infer_hop_name(&x->q, k, &a, buf, len);
}

/* What a full quote showed instead of the shift sent. */
static const char *
seen(enum ws_seen ws, int value, char *buf, size_t len)
{
	switch (ws) {
	case WS_CHANGED:
		snprintf(buf, len, "window scale %d", value);
		break;
	case WS_REMOVED:
		snprintf(buf, len, "no window scale");
		break;
	case WS_NOPPED:
		snprintf(buf, len, "window scale overwritten with NOPs");
		break;
	default:
		snprintf(buf, len, "window scale intact");
		break;
	}
	return buf;
}

/* hop for a change the quotes first show at TTL q.first. */
static void
locate_first(struct infer_ctx *x)
{
	struct addr a = infer_hop_addr(x->in, &x->q, x->q.first);

	infer_hop_locate(x->in, &x->q, x->q.first, &a, &x->out->hop);
}

/* "; hops 2-3 did not answer" appended to buf when the interval holds
 * silent TTLs: the box may be any of them, not the hop that first
 * showed the change (prober/design-notes.md "Hops") */
static const char *
silent_note(const struct hop_loc *h, char *buf, size_t len)
{
	char names[96];
	size_t n = strlen(buf);

	if (h->silent != 0 && n + 1 < len)
		snprintf(buf + n, len - n, "; %s did not answer",
		    silent_hops_name(h->silent, names, sizeof(names)));
	return buf;
}

/* "between hop 2 (…), which still quoted 7, and hop 3 (…)", and the
 * silent TTLs between them */
static const char *
segment(struct infer_ctx *x, char *buf, size_t len)
{
	char a[80], b[80];
	const struct hop_loc *h = &x->out->hop;

	infer_hop_name(&x->q, h->last_clean_index, &h->last_clean_address, a, sizeof(a));
	infer_hop_name(&x->q, h->index, &h->address, b, sizeof(b));
	if (h->last_clean_index == 0)
		snprintf(buf, len, "between %s, which sent %d, and %s", a, x->s, b);
	else
		snprintf(buf, len, "between %s, which still quoted %d, and %s", a, x->s, b);
	return silent_note(h, buf, len);
}

static void
rewritten(struct infer_ctx *x, const char *tail)
{
	char seg[256];

	locate_first(x);
	verdict(x, VERDICT_REWRITTEN, "window scale %d was rewritten to %d %s%s",
	    x->s, x->q.last_value, segment(x, seg, sizeof(seg)), tail);
}

static void
syn_dropped(struct infer_ctx *x)
{
	const struct variant_obs *r = x->in->r;
	const char *what = r->reply == REPLY_RST ? "was reset" :
	    r->reply == REPLY_ICMP_UNREACH ? "drew ICMP unreachable" : "went unanswered";
	char a[80], b[80], note[112] = "";
	struct addr at;
	int k = infer_hop_dropped(x->in, &at);

	if (k == 0) {
		verdict(x, VERDICT_SYN_DROPPED,
		    "the SYN with window scale %d %s while the control SYN was answered",
		    x->s, what);
		return;
	}
	infer_hop_locate(x->in, &x->q, k, &at, &x->out->hop);
	infer_hop_name(&x->q, k, &at, b, sizeof(b));
	infer_hop_name(&x->q, x->out->hop.last_clean_index,
	    &x->out->hop.last_clean_address, a, sizeof(a));
	verdict(x, VERDICT_SYN_DROPPED,
	    "the SYN with window scale %d %s from %s on, where the control SYN still "
	    "got through; %s %s it intact%s", x->s, what, b, a,
	    x->out->hop.last_clean_index == 0 ? "sent" : "last quoted",
	    silent_note(&x->out->hop, note, sizeof(note)));
}

/* What the window test (T) says of the shift the server applied, for a
 * server that agreed to scale: nothing (not run, or could not tell), the
 * shift sent (14 for anything above: RFC 7323), or another: *value the
 * shift, *bound set when it is only a lower bound. */
enum t_view { T_NONE, T_AGREES, T_DIFFERS };

static enum t_view
t_view(const struct infer_input *in, int want, int *value, bool *bound)
{
	const struct window_obs *t = in->t;
	int sent = want > 14 ? 14 : want;

	if (t == NULL || !t->ran || !t->synack || t->inconclusive)
		return T_NONE;
	if (t->scale_effective >= 0) {
		*value = t->scale_effective;
		*bound = false;
		return t->scale_effective == sent ? T_AGREES : T_DIFFERS;
	}
	if (t->scale_effective_min < 0)
		return T_NONE;
	*value = t->scale_effective_min;
	*bound = true;
	/* a short answer only bounds the shift from below: it contradicts
	 * the shift sent only when the bound lies above it */
	return t->scale_effective_min > sent ? T_DIFFERS : T_AGREES;
}

/* D for a change only the window test saw: the trace's destination, or
 * the distance the SYN-ACK's TTL tells (initial 64, 128 or 255). */
static int
dest_estimate(const struct infer_ctx *x)
{
	unsigned ttl = x->in->r->sa.ttl, init;

	if ((x->in->qc != NULL && x->in->qc->dest_ttl > 0) ||
	    (x->in->qr != NULL && x->in->qr->dest_ttl > 0))
		return x->q.dest;
	if (ttl == 0)
		return 0;
	init = ttl <= 64 ? 64 : ttl <= 128 ? 128 : 255;
	return (int)(init - ttl) + 1;
}

/* The window test saw a shift the quotes did not: the change lies after
 * the last hop that quoted the option intact, at the destination's end. */
static void
rewritten_by_t(struct infer_ctx *x, int value, bool bound)
{
	const struct window_obs *t = x->in->t;
	int d = dest_estimate(x);
	char seg[256], applied[32];

	snprintf(applied, sizeof(applied), bound ? "at least %d" : "%d", value);
	if (d > 0) {
		infer_hop_locate(x->in, &x->q, d, &x->in->dst, &x->out->hop);
		verdict(x, VERDICT_REWRITTEN, "the server applied window scale %s, not %d "
		    "(%lld byte%s in flight for a window field of %u): rewritten %s",
		    applied, x->s, (long long)t->flight_bytes, t->flight_bytes == 1 ? "" : "s",
		    t->w, segment(x, seg, sizeof(seg)));
		return;
	}
	verdict(x, VERDICT_REWRITTEN, "the server applied window scale %s, not %d "
	    "(%lld byte%s in flight for a window field of %u)", applied, x->s,
	    (long long)t->flight_bytes, t->flight_bytes == 1 ? "" : "s", t->w);
}

/* R is a SYN-ACK: the quotes and the window test decide. */
static void
synack(struct infer_ctx *x)
{
	const struct infer_q *q = &x->q;
	bool ws = x->in->r->sa.wscale >= 0;
	char a[80], b[256], w[48];
	enum ws_seen how;

	if (q->first != 0 && q->back != 0) {
		verdict(x, VERDICT_INCONCLUSIVE,
		    "%s quoted %s, but the later %s quoted %d intact again: the quotes disagree",
		    name(x, q->first, a, sizeof(a)),
		    seen(q->first_ws, q->first_value, w, sizeof(w)),
		    name(x, q->back, b, sizeof(b)), x->s);
		return;
	}
	int tv_value = -1;
	bool tv_bound = false;
	enum t_view tv = ws ? t_view(x->in, x->s, &tv_value, &tv_bound) : T_NONE;

	if (q->last != 0 && q->last_ws == WS_CHANGED) {
		int quoted = q->last_value > 14 ? 14 : q->last_value;

		/* the quotes and the window test must tell one story */
		if (tv != T_NONE && (tv_bound ? tv_value > quoted : tv_value != quoted)) {
			verdict(x, VERDICT_INCONCLUSIVE, "%s quoted window scale %d but the "
			    "server applied %s%d: the quotes and the window test disagree",
			    name(x, q->last, a, sizeof(a)), q->last_value,
			    tv_bound ? "at least " : "", tv_value);
			return;
		}
		/* the server received another shift; without WS in its
		 * answer it does not scale, but the box is there all the same */
		rewritten(x, ws ? (tv != T_NONE ? "; the window test agrees" : "") :
		    "; the server answered without window scale");
		return;
	}
	if (q->last != 0 && (q->last_ws == WS_REMOVED || q->last_ws == WS_NOPPED)) {
		if (ws) {
			verdict(x, VERDICT_INCONCLUSIVE,
			    "the SYN-ACK carries window scale, yet %s quoted %s",
			    name(x, q->last, a, sizeof(a)),
			    seen(q->last_ws, q->last_value, w, sizeof(w)));
			return;
		}
		/* a value rewritten first and the option gone later: say
		 * what became of it in the end */
		how = q->first_ws == WS_CHANGED ? q->last_ws : q->first_ws;
		locate_first(x);
		verdict(x, VERDICT_STRIPPED, "window scale %d was %s %s; the SYN-ACK has none",
		    x->s, how == WS_NOPPED ? "overwritten with NOPs" : "removed",
		    segment(x, b, sizeof(b)));
		return;
	}
	if (ws && tv == T_DIFFERS) {
		rewritten_by_t(x, tv_value, tv_bound);
		return;
	}
	if (ws) {
		if (q->last != 0 && tv == T_AGREES)
			verdict(x, VERDICT_OK, "the SYN-ACK carries window scale, %s, the "
			    "last hop to quote the SYN in full, still had %d, and the server "
			    "applied %s%d", name(x, q->last, a, sizeof(a)), x->s,
			    tv_bound ? "at least " : "", tv_value);
		else if (tv == T_AGREES)
			verdict(x, VERDICT_OK, "the SYN-ACK carries window scale and the server "
			    "applied %s%d", tv_bound ? "at least " : "", tv_value);
		else if (q->last != 0)
			verdict(x, VERDICT_OK, "the SYN-ACK carries window scale and %s, the "
			    "last hop to quote the SYN in full, still had %d",
			    name(x, q->last, a, sizeof(a)), x->s);
		else
			verdict(x, VERDICT_OK, "the SYN-ACK carries window scale; no router "
			    "quote or window test contradicts it");
		return;
	}
	if (q->last == 0) {
		verdict(x, VERDICT_INCONCLUSIVE, "the SYN-ACK has no window scale, and no "
		    "router quoted the SYN in full to tell stripped from unsupported");
		return;
	}
	/* a SYN-ACK with timestamps is no cookie answer without them */
	if (q->ts_hop != 0 && !x->in->r->sa.ts) {
		verdict(x, VERDICT_UNSUPPORTED, "no window scale in the SYN-ACK though %s "
		    "quoted %d; %s stripped timestamps, and Linux syncookies without "
		    "timestamps drop window scale", name(x, q->last, a, sizeof(a)), x->s,
		    name(x, q->ts_hop, b, sizeof(b)));
		return;
	}
	verdict(x, VERDICT_UNSUPPORTED, "the SYN-ACK has no window scale though %s still "
	    "quoted %d: the server does not scale, or something after hop %d, unverified, "
	    "removed it", name(x, q->last, a, sizeof(a)), x->s, q->last);
}

void
infer_scale(const struct infer_input *in, struct scale_verdict *out)
{
	const struct variant_obs *c = in->c, *r = in->r;
	struct infer_ctx x = { .in = in, .out = out, .s = r->scale };

	memset(out, 0, sizeof(*out));
	infer_hop_scan(in, &x.q);
	out->scale_quoted = x.q.last == 0 ? -2 :
	    x.q.last_ws == WS_INTACT || x.q.last_ws == WS_CHANGED ? x.q.last_value : -1;
	infer_hop_findings(in, &x.q, out);

	if (in->capture_error != NULL && in->capture_error[0] != '\0') {
		/* what came may be whole, but silence proves nothing now */
		verdict(&x, VERDICT_INCONCLUSIVE, "the capture failed while the path "
		    "was probed (%s): replies may have been missed", in->capture_error);
		return;
	}
	if (r->mixed || c->mixed) {
		verdict(&x, VERDICT_INCONCLUSIVE,
		    "retries of one SYN drew different kinds of reply");
		return;
	}
	if (c->reply == REPLY_SYNACK && r->reply != REPLY_SYNACK) {
		if (r->reply == REPLY_NONE && in->capture_drops > 0)
			verdict(&x, VERDICT_INCONCLUSIVE, "the SYN with window scale went "
			    "unanswered, but the capture dropped packets meanwhile");
		else if (r->reply == REPLY_NONE && in->send_failures > 0)
			verdict(&x, VERDICT_INCONCLUSIVE, "the SYN with window scale went "
			    "unanswered, but packets could not be sent meanwhile");
		else
			syn_dropped(&x);
		return;
	}
	if (r->reply == REPLY_RST && c->reply == REPLY_RST) {
		verdict(&x, VERDICT_CLOSED, "both SYNs were answered with a reset: the port is closed");
		return;
	}
	if (r->reply == REPLY_NONE && c->reply == REPLY_NONE) {
		if (in->capture_drops > 0)
			verdict(&x, VERDICT_INCONCLUSIVE,
			    "no reply, but the capture dropped packets meanwhile");
		else if (in->send_failures > 0)
			verdict(&x, VERDICT_INCONCLUSIVE,
			    "no reply, but packets could not be sent meanwhile");
		else
			verdict(&x, VERDICT_FILTERED, "neither SYN drew any reply after every retry");
		return;
	}
	if (r->reply == REPLY_ICMP_UNREACH && c->reply == REPLY_ICMP_UNREACH) {
		verdict(&x, VERDICT_UNREACHABLE, "both SYNs drew ICMP destination unreachable");
		return;
	}
	if (r->reply == REPLY_SYNACK) {
		synack(&x);
		return;
	}
	verdict(&x, VERDICT_INCONCLUSIVE, "the SYN with window scale drew %s, the control "
	    "SYN %s: no rule fits", reply_kind_name(r->reply), reply_kind_name(c->reply));
}

void
infer_path(struct path_result *res)
{
	for (int i = 0; i < res->nscales && i < RESULT_MAX_SCALES; i++) {
		struct infer_input in = {
			.c = &res->control,
			.r = &res->scales[i],
			.qc = res->trace[0],
			.qr = res->trace[1 + i],
			.capture_drops = res->capture_drops,
			.prober = res->src,
			.dst = res->dst,
			.t = res->window[i].ran ? &res->window[i] : NULL,
			.capture_error = res->capture_error[0] ? res->capture_error : NULL,
			.send_failures = res->send_failures,
		};

		infer_scale(&in, &res->verdicts[i]);
	}
}

int
infer_is_problem(enum verdict v)
{
	return verdict_is_problem(v);
}

int
infer_is_measured(enum verdict v)
{
	return v == VERDICT_OK || v == VERDICT_UNSUPPORTED || infer_is_problem(v);
}
