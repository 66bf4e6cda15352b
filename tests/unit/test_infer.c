/*
 * test_infer.c -- the verdict table and the hop rules (prober/design-notes.md
 * "Verdicts", "Hops") on observations made by hand: the handshake alone
 * (R, C), then traces spelled hop by hop for every verdict, the
 * contradictions that must stay inconclusive, hop widening, and the side
 * findings.  Paths of the lab model are test_infer_lab.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "labpath.h"
#include "silent_hops.h"

/* --- the handshake alone --------------------------------------------- */

enum { NONE, SA_WS, SA_NOWS, RST, UNREACH };

struct hrow {
	const char *what;
	int r, c;
	bool r_mixed;
	uint64_t drops;
	enum verdict want;
	const char *capture_error;	/* the capture failed meanwhile */
	uint64_t send_fails;		/* packets the kernel refused meanwhile */
};

static const struct hrow hrows[] = {
	{ "clean path, server's own shift 0", SA_WS, SA_NOWS, false, 0, VERDICT_OK, NULL, 0 },
	{ "WS SYN silent, control answered", NONE, SA_NOWS, false, 0, VERDICT_SYN_DROPPED, NULL, 0 },
	{ "WS SYN silent while capture dropped", NONE, SA_NOWS, false, 2, VERDICT_INCONCLUSIVE, NULL, 0 },
	{ "WS SYN reset, control answered", RST, SA_NOWS, false, 0, VERDICT_SYN_DROPPED, NULL, 0 },
	{ "WS SYN reset while capture dropped", RST, SA_NOWS, false, 2, VERDICT_SYN_DROPPED, NULL, 0 },
	{ "WS SYN refused by ICMP, control answered", UNREACH, SA_NOWS, false, 0, VERDICT_SYN_DROPPED, NULL, 0 },
	{ "both reset", RST, RST, false, 0, VERDICT_CLOSED, NULL, 0 },
	{ "both silent", NONE, NONE, false, 0, VERDICT_FILTERED, NULL, 0 },
	{ "both silent while capture dropped", NONE, NONE, false, 3, VERDICT_INCONCLUSIVE, NULL, 0 },
	{ "both unreachable", UNREACH, UNREACH, false, 0, VERDICT_UNREACHABLE, NULL, 0 },
	{ "no WS in SYN-ACK, no trace", SA_NOWS, SA_NOWS, false, 0, VERDICT_INCONCLUSIVE, NULL, 0 },
	{ "mixed replies", SA_WS, SA_NOWS, true, 0, VERDICT_INCONCLUSIVE, NULL, 0 },
	{ "WS SYN answered, control silent", SA_WS, NONE, false, 0, VERDICT_OK, NULL, 0 },
	{ "reset vs silence", RST, NONE, false, 0, VERDICT_INCONCLUSIVE, NULL, 0 },
	{ "unreachable vs reset", UNREACH, RST, false, 0, VERDICT_INCONCLUSIVE, NULL, 0 },
	{ "silence vs unreachable", NONE, UNREACH, false, 0, VERDICT_INCONCLUSIVE, NULL, 0 },
	/* a capture that failed makes silence worthless: never syn-dropped
	 * or filtered, whatever came before */
	{ "WS SYN silent, capture failed", NONE, SA_NOWS, false, 0, VERDICT_INCONCLUSIVE,
	  "east: The interface went down", 0 },
	{ "both silent, capture failed", NONE, NONE, false, 0, VERDICT_INCONCLUSIVE,
	  "east: The interface went down", 0 },
	{ "both answered, capture failed later", SA_WS, SA_NOWS, false, 0, VERDICT_INCONCLUSIVE,
	  "east: The interface went down", 0 },
	/* packets the kernel would not send (a route gone): silence is no
	 * evidence, an answer still is */
	{ "WS SYN silent, sends failed", NONE, SA_NOWS, false, 0, VERDICT_INCONCLUSIVE, NULL, 3 },
	{ "both silent, sends failed", NONE, NONE, false, 0, VERDICT_INCONCLUSIVE, NULL, 3 },
	{ "both answered, sends failed", SA_WS, SA_NOWS, false, 0, VERDICT_OK, NULL, 3 },
};

static void
fill(struct variant_obs *o, int kind, int scale)
{
	memset(o, 0, sizeof(*o));
	o->scale = scale;
	o->sa.wscale = -1;
	o->sa.mss = -1;
	switch (kind) {
	case SA_WS:
	case SA_NOWS:
		o->reply = REPLY_SYNACK;
		o->sa.present = true;
		o->sa.wscale = kind == SA_WS ? 0 : -1;
		o->sa.mss = 1460;
		break;
	case RST:
		o->reply = REPLY_RST;
		break;
	case UNREACH:
		o->reply = REPLY_ICMP_UNREACH;
		o->icmp_type = 3;
		o->icmp_code = 13;
		break;
	default:
		o->reply = REPLY_NONE;
	}
}

static void
test_handshake(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(hrows) / sizeof(hrows[0]); i++) {
		struct variant_obs r, c;
		struct scale_verdict v;
		struct infer_input in = { .c = &c, .r = &r, .capture_drops = hrows[i].drops,
		    .capture_error = hrows[i].capture_error, .send_failures = hrows[i].send_fails };

		fill(&r, hrows[i].r, 7);
		fill(&c, hrows[i].c, -1);
		r.mixed = hrows[i].r_mixed;
		infer_scale(&in, &v);
		if (v.verdict != hrows[i].want)
			fail_msg("%s: got %s, want %s (%s)", hrows[i].what,
			    verdict_name(v.verdict), verdict_name(hrows[i].want), v.reason);
		assert_true(strlen(v.reason) > 10);
		if (hrows[i].capture_error != NULL)
			assert_non_null(strstr(v.reason, hrows[i].capture_error));
		/* no trace: nothing located, nothing quoted, nothing found */
		assert_false(v.hop.present);
		assert_int_equal(v.scale_quoted, -2);
		assert_int_equal(v.nfindings, 0);
	}
}

/* --- traces by hand ---------------------------------------------------- */

/*
 * A trace from a string, one hop per character group, TTL 1 first:
 * "Fn" a full quote with shift n (intact when n is the shift sent), "R"
 * full, option removed, "N" full, option NOPed, "8" an 8-byte quote, "-"
 * silent.  dest: D (0: never reached).  IPv4 lab addresses.
 */
static void
mk_trace(struct trace_obs *t, int sent, const char *spec, int dest)
{
	int k = 0;

	memset(t, 0, sizeof(*t));
	t->ran = true;
	t->nttl = RESULT_MAX_HOPS;
	t->dest_ttl = dest;
	for (const char *p = spec; *p != '\0'; p++) {
		struct hop_quote *h;

		if (*p == ' ')
			continue;
		h = &t->hop[++k];
		h->ws_value = -1;
		h->mss = -1;
		h->mss_sent = 1460;
		if (*p == '-')
			continue;
		h->from = lp_hop_addr(ADDR_V4, k);
		h->quote = *p == '8' ? QUOTE_8BYTE : QUOTE_FULL;
		if (*p == '8')
			continue;
		h->mss = 1460;
		if (*p == 'R' || *p == 'N') {
			h->ws = *p == 'R' ? WS_REMOVED : WS_NOPPED;
		} else if (*p == 'F') {
			h->ws_value = (int)strtol(p + 1, NULL, 10);
			while (p[1] >= '0' && p[1] <= '9')
				p++;
			h->ws = sent < 0 ? WS_ADDED : h->ws_value == sent ? WS_INTACT : WS_CHANGED;
		} else if (*p == 'C') {
			h->ws = WS_NOT_SENT;
		} else {
			fail_msg("mk_trace: %c", *p);
		}
	}
}

struct trow {
	const char *what;
	int r;			/* SA_WS, SA_NOWS, NONE, RST */
	const char *qr, *qc;	/* mk_trace specs */
	int dest;
	enum verdict want;
	int quoted;
	int hop, clean;		/* -1: hop null */
	const char *says;	/* a piece the reason must hold */
};

static const struct trow trows[] = {
	{ "rewritten", SA_WS, "F7 F7 F0 F0 F0", "C C C C C", 6,
	  VERDICT_REWRITTEN, 0, 3, 2, "rewritten to 0 between hop 2 (198.18.2.2), which still quoted 7, and hop 3 (198.18.3.2)" },
	{ "rewritten at hop 1: clean is the prober", SA_WS, "F0 F0 F0 F0 F0", "C C C C C", 6,
	  VERDICT_REWRITTEN, 0, 1, 0, "between the prober (198.18.1.1), which sent 7, and hop 1" },
	{ "rewritten, widened by 8-byte and silent hops", SA_WS, "F7 8 - F0 F0", "C C - C C", 6,
	  VERDICT_REWRITTEN, 0, 4, 1, "hop 1 (198.18.1.2), which still quoted 7, and hop 4 (198.18.4.2)" },
	{ "rewritten twice: the server gets the last", SA_WS, "F7 F5 F5 F0 F0", "C C C C C", 6,
	  VERDICT_REWRITTEN, 0, 2, 1, "rewritten to 0" },
	{ "stripped, NOPed", SA_NOWS, "F7 F7 N N N", "C C C C C", 6,
	  VERDICT_STRIPPED, -1, 3, 2, "overwritten with NOPs between hop 2" },
	{ "stripped, removed after 8-byte hops", SA_NOWS, "8 8 R 8 8", "C C C C C", 6,
	  VERDICT_STRIPPED, -1, 3, 0, "removed between the prober" },
	{ "rewritten, then stripped", SA_NOWS, "F7 F0 R R R", "C C C C C", 6,
	  VERDICT_STRIPPED, -1, 2, 1, "removed" },
	{ "unsupported: the last full quote intact", SA_NOWS, "F7 F7 F7 8 -", "C C C C C", 6,
	  VERDICT_UNSUPPORTED, 7, -1, -1, "something after hop 3" },
	{ "ok, last full quote intact", SA_WS, "F7 F7 F7 F7 F7", "C C C C C", 6,
	  VERDICT_OK, 7, -1, -1, "hop 5 (198.18.5.2)" },
	{ "ok, no full quote", SA_WS, "8 8 - 8 8", "8 8 - 8 8", 6,
	  VERDICT_OK, -2, -1, -1, "window scale" },
	{ "no WS, no full quote", SA_NOWS, "8 8 - 8 8", "8 8 - 8 8", 6,
	  VERDICT_INCONCLUSIVE, -2, -1, -1, "stripped from unsupported" },
	{ "quotes disagree: changed, then intact", SA_WS, "F7 F0 F7 F7 F7", "C C C C C", 6,
	  VERDICT_INCONCLUSIVE, 7, -1, -1, "the quotes disagree" },
	{ "quotes disagree: removed, then intact", SA_NOWS, "F7 R F7 F7 F7", "C C C C C", 6,
	  VERDICT_INCONCLUSIVE, 7, -1, -1, "the quotes disagree" },
	{ "WS in the SYN-ACK, quotes say removed", SA_WS, "F7 F7 R R R", "C C C C C", 6,
	  VERDICT_INCONCLUSIVE, -1, -1, -1, "yet hop 5" },
	{ "a server without WS behind a rewriter", SA_NOWS, "F7 F0 F0 F0 F0", "C C C C C", 6,
	  VERDICT_REWRITTEN, 0, 2, 1, "answered without window scale" },
	{ "quotes past D are not hops", SA_WS, "F7 F7 F7 F7 F7 F0 F0", "C C C C C", 6,
	  VERDICT_OK, 7, -1, -1, "hop 5" },
	{ "syn-dropped at the box", NONE, "F7 F7 - - -", "C C C C C", 6,
	  VERDICT_SYN_DROPPED, 7, 3, 2, "from hop 3 (198.18.3.2) on" },
	{ "syn-dropped, a silent router widens", NONE, "F7 F7 - - -", "C C - C C", 6,
	  VERDICT_SYN_DROPPED, 7, 4, 2, "from hop 4 (198.18.4.2) on" },
	{ "syn-dropped after the last router", NONE, "F7 F7 F7 F7 F7", "C C C C C", 6,
	  VERDICT_SYN_DROPPED, 7, 6, 5, "from the destination (198.18.100.11) on" },
	{ "syn-dropped, 8-byte quotes only", RST, "8 8 - - -", "8 8 8 8 8", 6,
	  VERDICT_SYN_DROPPED, -2, 3, 0, "was reset" },
	{ "syn-dropped, control never reached D", NONE, "F7 - - - -", "C C C C C", 0,
	  VERDICT_SYN_DROPPED, 7, 2, 1, "from hop 2" },
};

static void
test_traces(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(trows) / sizeof(trows[0]); i++) {
		const struct trow *t = &trows[i];
		struct variant_obs r, c;
		struct trace_obs qr, qc;
		struct scale_verdict v;
		struct infer_input in = { .c = &c, .r = &r, .qc = &qc, .qr = &qr };
		struct addr ha;

		fill(&r, t->r, 7);
		if (t->r == SA_WS)
			r.sa.wscale = 7;
		fill(&c, SA_NOWS, -1);
		mk_trace(&qr, 7, t->qr, t->r == SA_WS || t->r == SA_NOWS ? t->dest : 0);
		mk_trace(&qc, -1, t->qc, t->dest);
		in.prober = lp_hop_addr(ADDR_V4, 0);
		assert_int_equal(addr_parse("198.18.100.11", &in.dst), 0);
		infer_scale(&in, &v);
		if (v.verdict != t->want || v.scale_quoted != t->quoted)
			fail_msg("%s: %s quoted %d, want %s quoted %d (%s)", t->what,
			    verdict_name(v.verdict), v.scale_quoted, verdict_name(t->want),
			    t->quoted, v.reason);
		if (t->hop < 0) {
			assert_false(v.hop.present);
		} else {
			if (!v.hop.present || v.hop.index != t->hop ||
			    v.hop.last_clean_index != t->clean)
				fail_msg("%s: hop %d after %d, want %d after %d", t->what,
				    v.hop.present ? v.hop.index : -1, v.hop.last_clean_index,
				    t->hop, t->clean);
			ha = t->hop == t->dest ? in.dst : lp_hop_addr(ADDR_V4, t->hop);
			assert_true(addr_equal(&v.hop.address, &ha));
			ha = lp_hop_addr(ADDR_V4, t->clean);
			assert_true(addr_equal(&v.hop.last_clean_address, &ha));
		}
		if (strstr(v.reason, t->says) == NULL)
			fail_msg("%s: reason \"%s\" lacks \"%s\"", t->what, v.reason, t->says);
		assert_int_equal(v.nfindings, 0);
	}
}

/* A box that resets SYNs carrying WS: the variant's trace "reaches its
 * destination" at the box, which is not the destination. */

/* --- the window test (T) beside the quotes ----------------------------- */

enum { T_OFF, T_EXACT, T_MIN, T_UNSURE };

struct wrow {
	const char *what;
	int r;			/* SA_WS or SA_NOWS */
	const char *qr;		/* NULL: no trace ran */
	int t, t_value;		/* what the window test said */
	enum verdict want;
	int hop, clean;		/* -1: hop null */
	const char *says;
};

static const struct wrow wrows[] = {
	{ "T agrees with intact quotes", SA_WS, "F7 F7 F7 F7 F7", T_EXACT, 7,
	  VERDICT_OK, -1, -1, "applied 7" },
	{ "T alone sees a rewrite after the last quote", SA_WS, "F7 F7 F7 F7 F7", T_EXACT, 0,
	  VERDICT_REWRITTEN, 6, 5, "applied window scale 0, not 7" },
	{ "T and Q agree on the rewrite", SA_WS, "F7 F7 F0 F0 F0", T_EXACT, 0,
	  VERDICT_REWRITTEN, 3, 2, "the window test agrees" },
	{ "T and Q disagree", SA_WS, "F7 F7 F0 F0 F0", T_EXACT, 7,
	  VERDICT_INCONCLUSIVE, -1, -1, "disagree" },
	{ "T's bound above Q's shift disagrees", SA_WS, "F7 F7 F0 F0 F0", T_MIN, 5,
	  VERDICT_INCONCLUSIVE, -1, -1, "at least 5" },
	{ "T's bound excludes the shift sent, no trace", SA_WS, NULL, T_MIN, 10,
	  VERDICT_REWRITTEN, 6, 0, "at least 10, not 7" },
	{ "a short answer's bound below the shift: no contradiction", SA_WS, NULL, T_MIN, 4,
	  VERDICT_OK, -1, -1, "at least 4" },
	{ "T could not tell: the quotes alone decide", SA_WS, "F7 F7 F0 F0 F0", T_UNSURE, 0,
	  VERDICT_REWRITTEN, 3, 2, "rewritten to 0" },
	{ "no trace: T's rewrite placed at D from the SYN-ACK's TTL", SA_WS, NULL, T_EXACT, 0,
	  VERDICT_REWRITTEN, 6, 0, "between the prober" },
	{ "a server that does not scale: T is no evidence", SA_NOWS, "F7 F7 F7 F7 F7", T_EXACT, 0,
	  VERDICT_UNSUPPORTED, -1, -1, "does not scale" },
};

/* The observations of one case made by hand: R to the SYN with scale 7
 * of kind r (its server's SYN-ACK five routers away), C a SYN-ACK without
 * window scale, the traces qr and qc (qr NULL: none ran; D 6, none for
 * an R that drew nothing) and the window test's view t of t_value. */
struct hand {
	struct variant_obs r, c;
	struct trace_obs qr, qc;
	struct window_obs t;
	struct infer_input in;
};

static const struct infer_input *
hand_case(struct hand *h, int r, const char *qr, const char *qc, int t, int t_value)
{
	memset(h, 0, sizeof(*h));
	fill(&h->r, r, 7);
	if (r == SA_WS)
		h->r.sa.wscale = 7;
	h->r.sa.ttl = 59;		/* a Linux server five routers away */
	fill(&h->c, SA_NOWS, -1);
	h->in.c = &h->c;
	h->in.r = &h->r;
	if (qr != NULL) {
		mk_trace(&h->qr, 7, qr, r == NONE ? 0 : 6);
		mk_trace(&h->qc, -1, qc, 6);
		h->in.qr = &h->qr;
		h->in.qc = &h->qc;
	}
	h->t.ran = true;
	h->t.synack = true;
	h->t.w = 64;
	h->t.flight_bytes = 64;
	h->t.scale_effective = t == T_EXACT ? t_value : -1;
	h->t.scale_effective_min = t == T_EXACT || t == T_MIN ? t_value : -1;
	h->t.inconclusive = t == T_UNSURE;
	h->in.t = t == T_OFF ? NULL : &h->t;
	h->in.prober = lp_hop_addr(ADDR_V4, 0);
	assert_int_equal(addr_parse("198.18.100.30", &h->in.dst), 0);
	return &h->in;
}

static void
test_window_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(wrows) / sizeof(wrows[0]); i++) {
		const struct wrow *w = &wrows[i];
		struct hand h;
		struct scale_verdict v;
		const struct infer_input *in = hand_case(&h, w->r, w->qr, "C C C C C", w->t,
		    w->t_value);
		struct addr ha;

		infer_scale(in, &v);
		if (v.verdict != w->want)
			fail_msg("%s: %s, want %s (%s)", w->what, verdict_name(v.verdict),
			    verdict_name(w->want), v.reason);
		if (w->hop < 0) {
			if (v.hop.present)
				fail_msg("%s: hop %d, want null", w->what, v.hop.index);
		} else {
			if (!v.hop.present || v.hop.index != w->hop ||
			    v.hop.last_clean_index != w->clean)
				fail_msg("%s: hop %d after %d, want %d after %d", w->what,
				    v.hop.present ? v.hop.index : -1, v.hop.last_clean_index,
				    w->hop, w->clean);
			ha = w->hop == 6 ? in->dst : lp_hop_addr(ADDR_V4, w->hop);
			assert_true(addr_equal(&v.hop.address, &ha));
			ha = lp_hop_addr(ADDR_V4, w->clean);
			assert_true(addr_equal(&v.hop.last_clean_address, &ha));
		}
		if (strstr(v.reason, w->says) == NULL)
			fail_msg("%s: reason \"%s\" lacks \"%s\"", w->what, v.reason, w->says);
	}
}

/* --- silent hops inside the interval (design-notes "Hops") ------------ */

/* A TTL between the last clean hop and the first damaged one that never
 * answered the variant may be the box: the hop is then not exact, and the
 * reason says which did not answer.  Silent TTLs outside the interval,
 * 8-byte answers inside it and TTLs past D change nothing. */
struct srow {
	const char *what;
	int r;			/* SA_WS, SA_NOWS, NONE */
	const char *qr, *qc;	/* mk_trace specs */
	int t_value;		/* the window test's exact shift; -1: not run */
	enum verdict want;
	int hop, clean;
	uint32_t silent;	/* bits: TTLs */
	const char *says;	/* in the reason; NULL: "did not answer" is not */
};

#define B(k) (1u << (k))

static const struct srow srows[] = {
	{ "none: every hop answered", SA_WS, "F7 F7 F0 F0 F0", "C C C C C", -1,
	  VERDICT_REWRITTEN, 3, 2, 0, NULL },
	{ "hops 2-3 silent inside", SA_WS, "F7 - - F0 F0", "C - - C C", -1,
	  VERDICT_REWRITTEN, 4, 1, B(2) | B(3),
	  "between hop 1 (198.18.1.2), which still quoted 7, and hop 4 (198.18.4.2); "
	  "hops 2-3 did not answer" },
	{ "silent before the last clean hop: outside", SA_WS, "- F7 F0 F0 F0", "- C C C C", -1,
	  VERDICT_REWRITTEN, 3, 2, 0, NULL },
	{ "silent after the first damaged hop: outside", SA_WS, "F7 F7 F0 - -", "C C C - -", -1,
	  VERDICT_REWRITTEN, 3, 2, 0, NULL },
	{ "at the near end: the prober, hop 1 silent", SA_WS, "- F0 F0 F0 F0", "- C C C C", -1,
	  VERDICT_REWRITTEN, 2, 0, B(1),
	  "between the prober (198.18.1.1), which sent 7, and hop 2 (198.18.2.2); hop 1 did "
	  "not answer" },
	{ "at the far end: the destination, located by the window test", SA_WS,
	  "F7 F7 F7 - -", "C C C - -", 0,
	  VERDICT_REWRITTEN, 6, 3, B(4) | B(5),
	  "and the destination (198.18.100.30); hops 4-5 did not answer" },
	{ "silent for this scale, heard by the control: still unshown", SA_WS,
	  "F7 - F0 F0 F0", "C C C C C", -1,
	  VERDICT_REWRITTEN, 3, 1, B(2), "; hop 2 did not answer" },
	{ "an 8-byte answer inside is no silence", SA_WS, "F7 8 F0 F0 F0", "C 8 C C C", -1,
	  VERDICT_REWRITTEN, 3, 1, 0, NULL },
	{ "silent and 8-byte mixed", SA_WS, "F7 - 8 - F0", "C - 8 - C", -1,
	  VERDICT_REWRITTEN, 5, 1, B(2) | B(4), "; hops 2, 4 did not answer" },
	{ "stripped with a silent hop", SA_NOWS, "F7 - R R R", "C - C C C", -1,
	  VERDICT_STRIPPED, 3, 1, B(2), "; hop 2 did not answer" },
	{ "syn-dropped, a router silent for both traces", NONE, "F7 - - - -", "C - C C C", -1,
	  VERDICT_SYN_DROPPED, 3, 1, B(2), "last quoted it intact; hop 2 did not answer" },
	{ "syn-dropped at once: nothing between", NONE, "F7 F7 - - -", "C C C C C", -1,
	  VERDICT_SYN_DROPPED, 3, 2, 0, NULL },
	{ "no trace: nothing was asked, nothing silent", SA_WS, NULL, NULL, 0,
	  VERDICT_REWRITTEN, 6, 0, 0, NULL },
};

static void
test_silent_hops(void **state)
{
	(void)state;
	for (const struct srow *w = srows; w < srows + sizeof(srows) / sizeof(srows[0]); w++) {
		struct hand h;
		struct scale_verdict v;

		infer_scale(hand_case(&h, w->r, w->qr, w->qc, w->t_value >= 0 ? T_EXACT : T_OFF,
		    w->t_value), &v);
		if (v.verdict != w->want || !v.hop.present || v.hop.index != w->hop ||
		    v.hop.last_clean_index != w->clean || v.hop.silent != w->silent)
			fail_msg("%s: %s hop %d after %d silent %#x, want %s hop %d after %d "
			    "silent %#x (%s)", w->what, verdict_name(v.verdict),
			    v.hop.present ? v.hop.index : -1, v.hop.last_clean_index,
			    (unsigned)v.hop.silent, verdict_name(w->want), w->hop, w->clean,
			    (unsigned)w->silent, v.reason);
		if (w->says != NULL && strstr(v.reason, w->says) == NULL)
			fail_msg("%s: reason \"%s\" lacks \"%s\"", w->what, v.reason, w->says);
		if (w->says == NULL && strstr(v.reason, "did not answer") != NULL)
			fail_msg("%s: an exact hop's reason \"%s\" names silent hops", w->what,
			    v.reason);
	}
}

/* How the set is named and read back from a store. */
static void
test_silent_names(void **state)
{
	static const struct { uint32_t set; const char *name, *list; } n[] = {
		{ 0, "", "" },
		{ B(2), "hop 2", "2" },
		{ B(2) | B(3), "hops 2-3", "2 3" },
		{ B(2) | B(4) | B(5), "hops 2, 4-5", "2 4 5" },
		{ B(1) | B(30), "hops 1, 30", "1 30" },
		{ 0x7ffffffeu, "hops 1-30", NULL },
		{ B(0) | B(31), "", "" },	/* no TTL 0 or 31 */
	};
	char buf[160];

	(void)state;
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		assert_string_equal(silent_hops_name(n[i].set, buf, sizeof(buf)), n[i].name);
		if (n[i].list != NULL)
			assert_string_equal(silent_hops_list(n[i].set, buf, sizeof(buf)),
			    n[i].list);
	}
	/* cut, never overrun */
	assert_string_equal(silent_hops_name(B(2) | B(3), buf, 6), "hops ");
	/* a store's value: only TTL bits, nothing negative or wider */
	assert_int_equal(silent_hops_from_i64(12), 12);
	assert_int_equal(silent_hops_from_i64(13), 12);
	assert_int_equal(silent_hops_from_i64(-4), 0);
	assert_int_equal(silent_hops_from_i64(INT64_MAX), 0);
	assert_int_equal(silent_hops_from_i64((int64_t)1 << 31), 0);
}

static void
test_reset_box(void **state)
{
	struct variant_obs r, c;
	struct trace_obs qr, qc;
	struct scale_verdict v;
	struct infer_input in = { .c = &c, .r = &r, .qc = &qc, .qr = &qr };
	struct addr h3 = lp_hop_addr(ADDR_V4, 3);

	(void)state;
	fill(&r, RST, 7);
	fill(&c, SA_NOWS, -1);
	mk_trace(&qr, 7, "F7 F7 -", 3);
	mk_trace(&qc, -1, "C C C C C", 6);
	in.prober = lp_hop_addr(ADDR_V4, 0);
	assert_int_equal(addr_parse("198.18.100.11", &in.dst), 0);
	infer_scale(&in, &v);
	assert_int_equal(v.verdict, VERDICT_SYN_DROPPED);
	assert_true(v.hop.present);
	assert_int_equal(v.hop.index, 3);
	assert_int_equal(v.hop.last_clean_index, 2);
	assert_true(addr_equal(&v.hop.address, &h3));
	assert_non_null(strstr(v.reason, "was reset from hop 3 (198.18.3.2) on"));
}

/* The syncookie case: a SYN-ACK without WS behind a box that stripped
 * the timestamps is what a Linux syncookie answer looks like; with
 * timestamps in the SYN-ACK it is not. */
static void
test_syncookie(void **state)
{
	struct variant_obs r, c;
	struct trace_obs qr, qc;
	struct scale_verdict v;
	struct infer_input in = { .c = &c, .r = &r, .qc = &qc, .qr = &qr };

	(void)state;
	fill(&r, SA_NOWS, 7);
	fill(&c, SA_NOWS, -1);
	mk_trace(&qr, 7, "F7 F7 F7 F7 F7", 6);
	mk_trace(&qc, -1, "C C C C C", 6);
	for (int k = 3; k <= 5; k++)
		qr.hop[k].ts_stripped = qc.hop[k].ts_stripped = true;
	in.prober = lp_hop_addr(ADDR_V4, 0);
	infer_scale(&in, &v);
	assert_int_equal(v.verdict, VERDICT_UNSUPPORTED);
	assert_false(v.hop.present);
	assert_non_null(strstr(v.reason, "hop 3 (198.18.3.2) stripped timestamps"));
	assert_non_null(strstr(v.reason, "syncookies"));
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, FINDING_TS_STRIPPED);
	assert_int_equal(v.findings[0].hop_index, 3);

	r.sa.ts = true;
	infer_scale(&in, &v);
	assert_int_equal(v.verdict, VERDICT_UNSUPPORTED);
	assert_null(strstr(v.reason, "syncookies"));
	assert_non_null(strstr(v.reason, "the server does not scale"));
}

/* Side findings: each kind once, at the first hop of either trace. */
static void
test_findings(void **state)
{
	struct variant_obs r, c;
	struct trace_obs qr, qc;
	struct scale_verdict v;
	struct infer_input in = { .c = &c, .r = &r, .qc = &qc, .qr = &qr };

	(void)state;
	fill(&r, SA_WS, 7);
	fill(&c, SA_WS, -1);
	mk_trace(&qr, 7, "F7 F7 F7 F7 F7", 6);
	mk_trace(&qc, -1, "C C C C C", 6);
	in.prober = lp_hop_addr(ADDR_V4, 0);
	qr.hop[4].mss = 1200;
	qr.hop[5].mss = 1100;		/* clamped again: the first one is reported */
	qc.hop[3].mss = 1300;		/* the control's trace shows it first */
	qr.hop[2].sack_stripped = true;
	qr.hop[2].quote = QUOTE_8BYTE;	/* an 8-byte quote cannot show options */
	qr.hop[3].sack_stripped = true;
	qc.hop[5].ts_stripped = true;
	qr.hop[2].nat = true;		/* NAT and ISN show in 8-byte quotes too */
	qr.hop[4].isn_rewritten = true;
	qc.hop[1].ws = WS_ADDED;	/* a box put WS into the control SYN */
	qc.hop[1].ws_value = 7;
	qr.hop[3].mss_sent = 1460;
	infer_scale(&in, &v);
	assert_int_equal(v.verdict, VERDICT_OK);
	assert_int_equal(v.nfindings, 6);
	assert_int_equal(v.findings[0].kind, FINDING_MSS_CLAMPED);
	assert_int_equal(v.findings[0].hop_index, 3);
	assert_string_equal(v.findings[0].detail, "1300");
	assert_int_equal(v.findings[1].kind, FINDING_SACK_STRIPPED);
	assert_int_equal(v.findings[1].hop_index, 3);
	assert_int_equal(v.findings[2].kind, FINDING_TS_STRIPPED);
	assert_int_equal(v.findings[2].hop_index, 5);
	assert_int_equal(v.findings[3].kind, FINDING_NAT);
	assert_int_equal(v.findings[3].hop_index, 2);
	assert_int_equal(v.findings[4].kind, FINDING_ISN_REWRITTEN);
	assert_int_equal(v.findings[4].hop_index, 4);
	assert_int_equal(v.findings[5].kind, FINDING_OPTIONS_CHANGED);
	assert_int_equal(v.findings[5].hop_index, 1);
	for (int i = 0; i < v.nfindings; i++) {
		struct addr a = lp_hop_addr(ADDR_V4, v.findings[i].hop_index);

		assert_true(addr_equal(&v.findings[i].hop_address, &a));
	}

	/* an MSS raised is no clamp; a hop beyond D is no hop */
	mk_trace(&qr, 7, "F7 F7 F7 F7 F7 F7 F7", 6);
	mk_trace(&qc, -1, "C C C C C", 6);
	qr.hop[2].mss = 1500;
	qr.hop[6].nat = true;
	qr.hop[7].ts_stripped = true;
	infer_scale(&in, &v);
	assert_int_equal(v.nfindings, 0);
}

/* A SYN proxy answered the window test's handshake: the finding, located
 * by its SYN-ACK's TTL (59 from an initial 64: hop 6), its address from a
 * trace that reached there (none without), the evidence in the detail;
 * the verdict stays the window test's. */
static void
test_syn_proxy(void **state)
{
	struct variant_obs r, c;
	struct trace_obs qr, qc;
	struct scale_verdict v;
	struct window_obs t;
	struct infer_input in = { .c = &c, .r = &r, .t = &t };
	struct addr a6 = lp_hop_addr(ADDR_V4, 6);

	(void)state;
	fill(&r, SA_WS, 7);
	fill(&c, SA_WS, -1);
	memset(&t, 0, sizeof(t));
	t.ran = t.synack = true;
	t.scale_effective = t.scale_effective_min = 7;
	t.flight_bytes = 8192;
	t.w = 64;
	t.syn_proxy = true;
	t.synack_ttl = 59;
	t.data_ttl = 58;
	infer_scale(&in, &v);
	assert_int_equal(v.verdict, VERDICT_OK);
	assert_int_equal(v.nfindings, 1);
	assert_int_equal(v.findings[0].kind, FINDING_SYN_PROXY);
	assert_int_equal(v.findings[0].hop_index, 6);
	assert_int_equal(v.findings[0].hop_address.family, 0);
	assert_string_equal(v.findings[0].detail, "syn-ack window 0, ttl 59, data ttl 58");
	/* with a trace to D = 7: hop 6's address */
	mk_trace(&qr, 7, "F7 F7 F7 F7 F7 F7", 7);
	mk_trace(&qc, -1, "C C C C C C", 7);
	in.qr = &qr;
	in.qc = &qc;
	infer_scale(&in, &v);
	assert_int_equal(v.nfindings, 1);
	assert_true(addr_equal(&v.findings[0].hop_address, &a6));
	/* the proxy on the server's own host: same TTL, window 0 then opened */
	t.synack_ttl = t.data_ttl = 58;
	infer_scale(&in, &v);
	assert_int_equal(v.findings[0].hop_index, 7);
	assert_int_equal(v.findings[0].hop_address.family, 0);
	assert_string_equal(v.findings[0].detail, "syn-ack window 0, then opened");
	/* no proxy, no finding */
	t.syn_proxy = false;
	infer_scale(&in, &v);
	assert_int_equal(v.nfindings, 0);
}

/* The traces as infer_path hands them over; NULL means none ran. */
static void
test_path(void **state)
{
	struct path_result res;
	struct trace_obs t[3];

	(void)state;
	memset(&res, 0, sizeof(res));
	res.src = lp_hop_addr(ADDR_V4, 0);
	assert_int_equal(addr_parse("198.18.100.11", &res.dst), 0);
	fill(&res.control, SA_NOWS, -1);
	res.nscales = 2;
	fill(&res.scales[0], SA_WS, 0);
	fill(&res.scales[1], NONE, 7);
	infer_path(&res);
	assert_int_equal(res.verdicts[0].verdict, VERDICT_OK);
	assert_int_equal(res.verdicts[1].verdict, VERDICT_SYN_DROPPED);
	assert_false(res.verdicts[1].hop.present);

	mk_trace(&t[0], -1, "C C C C C", 6);
	mk_trace(&t[1], 0, "F0 F0 F0 F0 F0", 6);
	mk_trace(&t[2], 7, "F7 F7 - - -", 0);
	res.trace[0] = &t[0];
	res.trace[1] = &t[1];
	res.trace[2] = &t[2];
	infer_path(&res);
	assert_int_equal(res.verdicts[0].verdict, VERDICT_OK);
	assert_int_equal(res.verdicts[0].scale_quoted, 0);
	assert_int_equal(res.verdicts[1].verdict, VERDICT_SYN_DROPPED);
	assert_true(res.verdicts[1].hop.present);
	assert_int_equal(res.verdicts[1].hop.index, 3);
	assert_int_equal(res.verdicts[1].hop.last_clean_index, 2);

	/* a trace that did not run counts as none */
	t[2].ran = false;
	infer_path(&res);
	assert_false(res.verdicts[1].hop.present);
	assert_int_equal(res.verdicts[1].scale_quoted, -2);

	assert_true(infer_is_problem(VERDICT_SYN_DROPPED));
	assert_true(infer_is_problem(VERDICT_REWRITTEN));
	assert_true(infer_is_problem(VERDICT_STRIPPED));
	assert_false(infer_is_problem(VERDICT_OK));
	assert_true(infer_is_measured(VERDICT_UNSUPPORTED));
	assert_false(infer_is_measured(VERDICT_FILTERED));
	assert_false(infer_is_measured(VERDICT_INCONCLUSIVE));
	assert_string_equal(verdict_name(VERDICT_SYN_DROPPED), "syn-dropped");
	assert_null(verdict_name(VERDICT_NONE));
	assert_string_equal(reply_kind_name(REPLY_ICMP_UNREACH), "icmp-unreach");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_traces),
		cmocka_unit_test(test_window_rows),
		cmocka_unit_test(test_reset_box),
		cmocka_unit_test(test_syncookie),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_syn_proxy),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_silent_hops),
		cmocka_unit_test(test_silent_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
