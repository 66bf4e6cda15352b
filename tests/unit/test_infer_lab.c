/*
 * test_infer_lab.c -- the verdict function (prober/infer.c) on paths of
 * the lab model (labpath.c: the lab's own mbox surgery at a router's
 * ingress or egress, NAT translating or leaking, 8-byte and silent
 * routers, Linux servers; quotes made as ICMP errors and compared by
 * quote_compare): paths of our own, exact reasons, and every row of
 * tests/lab/cases.tsv -- IPv4 and IPv6, scales 0, 7 and 14 -- each a test
 * of its own, so the table and the rules cannot drift apart.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "labcases.h"
#include "labpath.h"

#define CASES_TSV "tests/lab/cases.tsv"

static const int scales3[3] = { 0, 7, 14 };

/* --- the lab model ------------------------------------------------------ */

static const char *
finding_kind_name(enum finding_kind k)
{
	switch (k) {
	case FINDING_MSS_CLAMPED:	return "mss-clamped";
	case FINDING_SACK_STRIPPED:	return "sack-stripped";
	case FINDING_TS_STRIPPED:	return "ts-stripped";
	case FINDING_NAT:		return "nat";
	case FINDING_ISN_REWRITTEN:	return "isn-rewritten";
	case FINDING_OPTIONS_CHANGED:	return "options-changed";
	case FINDING_SYN_PROXY:		return "syn-proxy";
	}
	return "?";
}

struct want {
	const char *v[3];	/* verdicts at scales 0, 7, 14 */
	int q[3];		/* scale_quoted */
	int hop, clean;		/* for the problem verdicts; -1: none */
	const char *side;	/* cases.tsv's KIND[=DETAIL]@HOP,... or "-" */
};

static void
appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static struct addr
hop_address(const struct lp_path *p, int k)
{
	return k == p->dist ? p->dst : lp_hop_addr(p->family, k);
}

/* The side findings against the table's list, exactly. */
static void
check_side(const struct lp_path *p, const struct scale_verdict *v, const char *side,
    char *err, size_t errlen)
{
	char buf[128], *save = NULL;
	int want = 0;

	snprintf(buf, sizeof(buf), "%s", side);
	for (char *t = strtok_r(buf, ",", &save); t != NULL && strcmp(t, "-") != 0;
	    t = strtok_r(NULL, ",", &save)) {
		char *at = strchr(t, '@'), *eq = strchr(t, '=');
		bool found = false;
		int k;

		if (at == NULL)
			fail_msg("side finding %s without @HOP", t);
		*at = '\0';
		k = atoi(at + 1);
		if (eq != NULL)
			*eq++ = '\0';
		want++;
		for (int i = 0; i < v->nfindings; i++) {
			const struct side_finding *f = &v->findings[i];
			struct addr a = hop_address(p, k);

			if (strcmp(finding_kind_name(f->kind), t) == 0 && f->hop_index == k &&
			    (eq == NULL || strcmp(f->detail, eq) == 0) &&
			    addr_equal(&f->hop_address, &a))
				found = true;
		}
		if (!found)
			appendf(err, errlen, " [%s%s%s@%d missing]", t, eq ? "=" : "",
			    eq ? eq : "", k);
	}
	if (v->nfindings != want)
		for (int i = 0; i < v->nfindings; i++)
			appendf(err, errlen, " [has %s=%s@%d]",
			    finding_kind_name(v->findings[i].kind), v->findings[i].detail,
			    v->findings[i].hop_index);
}

/*
 * Probe p (both families are the caller's business) and hold every scale
 * to w.  window_only: the table's rewrites are what only the window test
 * sees; from the quotes alone a correct prober says ok, hop null.
 */
static void
check_path(const char *what, const struct lp_path *p, const struct want *w,
    bool window_only, uint64_t drops)
{
	struct path_result res;
	struct trace_obs traces[4];
	char err[1024] = "";

	lp_probe(p, scales3, 3, &res, traces);
	res.capture_drops = drops;
	infer_path(&res);
	for (int s = 0; s < 3; s++) {
		const struct scale_verdict *v = &res.verdicts[s];
		const char *want_v = w->v[s];
		bool problem;

		if (window_only && strcmp(want_v, "rewritten") == 0)
			want_v = "ok";
		problem = strcmp(want_v, "rewritten") == 0 || strcmp(want_v, "stripped") == 0 ||
		    strcmp(want_v, "syn-dropped") == 0;
		if (verdict_name(v->verdict) == NULL || strcmp(verdict_name(v->verdict), want_v) != 0)
			appendf(err, sizeof(err), " [scale %d: %s, want %s: %s]", scales3[s],
			    verdict_name(v->verdict) ? verdict_name(v->verdict) : "null",
			    want_v, v->reason);
		if (v->scale_quoted != w->q[s])
			appendf(err, sizeof(err), " [scale %d: quoted %d, want %d]", scales3[s],
			    v->scale_quoted, w->q[s]);
		if (problem && w->hop >= 0) {
			struct addr a = hop_address(p, w->hop), b = hop_address(p, w->clean);

			if (!v->hop.present || v->hop.index != w->hop ||
			    v->hop.last_clean_index != w->clean ||
			    !addr_equal(&v->hop.address, &a) ||
			    !addr_equal(&v->hop.last_clean_address, &b))
				appendf(err, sizeof(err), " [scale %d: hop %d after %d, want %d after %d]",
				    scales3[s], v->hop.present ? v->hop.index : -1,
				    v->hop.last_clean_index, w->hop, w->clean);
		} else if (v->hop.present) {
			appendf(err, sizeof(err), " [scale %d: hop %d, want null]", scales3[s],
			    v->hop.index);
		}
		check_side(p, v, w->side, err, sizeof(err));
		/* one sentence, whole: never cut by the buffer */
		if (strlen(v->reason) < 20 || strlen(v->reason) >= sizeof(v->reason) - 1)
			appendf(err, sizeof(err), " [scale %d: reason \"%s\"]", scales3[s], v->reason);
	}
	if (err[0] != '\0')
		fail_msg("%s, IPv%d:%s", what, p->family, err);
}

/* Paths of our own, beyond the lab's table. */
struct prow {
	const char *what;
	struct lp_path p;
	struct want w;
	uint64_t drops;
};

#define R(k) (1u << (k))

static const struct prow prows[] = {
	{ "ws-set 0 at r1 ingress: clean is the prober",
	  { .dist = 6, .box = 1, .action = "ws-set 0" },
	  { { "ok", "rewritten", "rewritten" }, { 0, 0, 0 }, 1, 0, "-" }, 0 },
	{ "ws-set 0 at r1 egress",
	  { .dist = 6, .box = 1, .box_egress = true, .action = "ws-set 0" },
	  { { "ok", "rewritten", "rewritten" }, { 0, 0, 0 }, 2, 1, "-" }, 0 },
	{ "ws-set 0 at r4 ingress, r2 and r3 quote 8 bytes",
	  { .dist = 6, .box = 4, .action = "ws-set 0", .quote8 = R(2) | R(3) },
	  { { "ok", "rewritten", "rewritten" }, { 0, 0, 0 }, 4, 1, "-" }, 0 },
	{ "ws-cap 7 at r2 egress, r3 silent, r4 8-byte",
	  { .dist = 6, .box = 2, .box_egress = true, .action = "ws-cap 7", .silent = R(3), .quote8 = R(4) },
	  { { "ok", "ok", "rewritten" }, { 0, 7, 7 }, 5, 2, "-" }, 0 },
	{ "ws-strip at r3 egress with nothing quoting after it: unverified",
	  { .dist = 6, .box = 3, .box_egress = true, .action = "ws-strip", .silent = R(4), .quote8 = R(5) },
	  { { "unsupported", "unsupported", "unsupported" }, { 0, 7, 14 }, -1, -1, "-" }, 0 },
	{ "ws-nop at r3 egress, RFC 4884 routers",
	  { .dist = 6, .box = 3, .box_egress = true, .action = "ws-nop", .quote4884 = R(1) | R(2) | R(3) | R(4) | R(5) },
	  { { "stripped", "stripped", "stripped" }, { -1, -1, -1 }, 4, 3, "-" }, 0 },
	{ "ws-strip at r2 ingress in front of a syncookie server",
	  { .dist = 6, .box = 2, .action = "ws-strip", .server = LP_SRV_COOKIE },
	  { { "stripped", "stripped", "stripped" }, { -1, -1, -1 }, 2, 1, "-" }, 0 },
	{ "ws-set 0 in front of a server without window scaling",
	  { .dist = 6, .box = 3, .action = "ws-set 0", .server = LP_SRV_NOWS },
	  { { "unsupported", "rewritten", "rewritten" }, { 0, 0, 0 }, 3, 2, "-" }, 0 },
	{ "ts-strip in front of a server without window scaling",
	  { .dist = 6, .box = 4, .action = "ts-strip", .server = LP_SRV_NOWS },
	  { { "unsupported", "unsupported", "unsupported" }, { 0, 7, 14 }, -1, -1, "ts-stripped@4" }, 0 },
	{ "drop-ws at r3 ingress, r3 silent: the segment widens",
	  { .dist = 6, .box = 3, .action = "drop-ws", .silent = R(3) },
	  { { "syn-dropped", "syn-dropped", "syn-dropped" }, { 0, 7, 14 }, 4, 2, "-" }, 0 },
	{ "drop-ws at r5 egress: the destination",
	  { .dist = 6, .box = 5, .box_egress = true, .action = "drop-ws" },
	  { { "syn-dropped", "syn-dropped", "syn-dropped" }, { 0, 7, 14 }, 6, 5, "-" }, 0 },
	{ "drop-ws at r2 ingress, every router 8-byte",
	  { .dist = 6, .box = 2, .action = "drop-ws", .quote8 = R(1) | R(2) | R(3) | R(4) | R(5) },
	  { { "syn-dropped", "syn-dropped", "syn-dropped" }, { -2, -2, -2 }, 2, 0, "-" }, 0 },
	{ "translated NAT before ws-strip",
	  { .dist = 6, .box = 3, .action = "ws-strip", .nat = 1 },
	  { { "stripped", "stripped", "stripped" }, { -1, -1, -1 }, 3, 2, "-" }, 0 },
	{ "leaking NAT, r2 8-byte, ws-set 5 at r3",
	  { .dist = 6, .box = 3, .action = "ws-set 5", .nat = 1, .nat_leaked = true, .quote8 = R(2) },
	  { { "rewritten", "rewritten", "rewritten" }, { 5, 5, 5 }, 3, 1, "nat@2" }, 0 },
	{ "leaking NAT at r2 behind mss-clamp at r1",
	  { .dist = 6, .box = 1, .action = "mss-clamp 536", .nat = 2, .nat_leaked = true },
	  { { "ok", "ok", "ok" }, { 0, 7, 14 }, -1, -1, "mss-clamped=536@1,nat@3" }, 0 },
	{ "every router 8-byte, ws-nop: nothing tells",
	  { .dist = 6, .box = 3, .action = "ws-nop", .quote8 = R(1) | R(2) | R(3) | R(4) | R(5) },
	  { { "inconclusive", "inconclusive", "inconclusive" }, { -2, -2, -2 }, -1, -1, "-" }, 0 },
	{ "every router silent, ws-set 0: nothing tells",
	  { .dist = 6, .box = 3, .action = "ws-set 0", .silent = R(1) | R(2) | R(3) | R(4) | R(5) },
	  { { "ok", "ok", "ok" }, { -2, -2, -2 }, -1, -1, "-" }, 0 },
	{ "closed port behind a rewriter",
	  { .dist = 6, .box = 3, .action = "ws-set 0", .closed = true },
	  { { "closed", "closed", "closed" }, { 0, 0, 0 }, -1, -1, "-" }, 0 },
	{ "silence while the capture dropped packets",
	  { .dist = 6, .filtered = true },
	  { { "inconclusive", "inconclusive", "inconclusive" }, { 0, 7, 14 }, -1, -1, "-" }, 5 },
	{ "drop-ws while the capture dropped packets",
	  { .dist = 6, .box = 3, .action = "drop-ws" },
	  { { "inconclusive", "inconclusive", "inconclusive" }, { 0, 7, 14 }, -1, -1, "-" }, 5 },
	{ "a long path: D = 12, ws-set 0 at r9 egress",
	  { .dist = 12, .box = 9, .box_egress = true, .action = "ws-set 0" },
	  { { "ok", "rewritten", "rewritten" }, { 0, 0, 0 }, 10, 9, "-" }, 0 },
};

static void
test_paths(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(prows) / sizeof(prows[0]); i++) {
		for (int family = ADDR_V4; family <= ADDR_V6; family += 2) {
			struct lp_path p = prows[i].p;

			p.family = family;
			assert_int_equal(addr_parse(family == ADDR_V4 ? "198.18.100.99" :
			    "fd00:5ca1:100::99", &p.dst), 0);
			check_path(prows[i].what, &p, &prows[i].w, false, prows[i].drops);
		}
	}
}

/* Exact sentences for the cases operators meet most. */
static void
test_reasons(void **state)
{
	static const struct {
		struct lp_path p;
		int scale;
		const char *reason;
	} r[] = {
		{ { .family = ADDR_V4, .dist = 6, .box = 3, .action = "ws-set 0" }, 1,
		  "window scale 7 was rewritten to 0 between hop 2 (198.18.2.2), which still "
		  "quoted 7, and hop 3 (198.18.3.2)" },
		{ { .family = ADDR_V6, .dist = 6, .box = 3, .box_egress = true, .action = "ws-strip" }, 2,
		  "window scale 14 was removed between hop 3 (fd00:5ca1:3::2), which still quoted "
		  "14, and hop 4 (fd00:5ca1:4::2); the SYN-ACK has none" },
		{ { .family = ADDR_V4, .dist = 6, .server = LP_SRV_NOWS }, 1,
		  "the SYN-ACK has no window scale though hop 5 (198.18.5.2) still quoted 7: the "
		  "server does not scale, or something after hop 5, unverified, removed it" },
		{ { .family = ADDR_V4, .dist = 6, .box = 3, .action = "ts-strip", .server = LP_SRV_COOKIE }, 1,
		  "no window scale in the SYN-ACK though hop 5 (198.18.5.2) quoted 7; hop 3 "
		  "(198.18.3.2) stripped timestamps, and Linux syncookies without timestamps "
		  "drop window scale" },
		{ { .family = ADDR_V4, .dist = 6, .box = 3, .action = "drop-ws" }, 0,
		  "the SYN with window scale 0 went unanswered from hop 3 (198.18.3.2) on, where "
		  "the control SYN still got through; hop 2 (198.18.2.2) last quoted it intact" },
		{ { .family = ADDR_V4, .dist = 6 }, 1,
		  "the SYN-ACK carries window scale and hop 5 (198.18.5.2), the last hop to quote "
		  "the SYN in full, still had 7" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		struct lp_path p = r[i].p;
		struct path_result res;
		struct trace_obs traces[4];

		assert_int_equal(addr_parse(p.family == ADDR_V4 ? "198.18.100.99" :
		    "fd00:5ca1:100::99", &p.dst), 0);
		lp_probe(&p, scales3, 3, &res, traces);
		infer_path(&res);
		assert_string_equal(res.verdicts[r[i].scale].reason, r[i].reason);
	}
}

/* --- tests/lab/cases.tsv, one test per row --------------------------- */

static struct lc_row cases[LC_MAX_ROWS];

static void
test_case_row(void **state)
{
	const struct lc_row *row = *state;
	/* the window test's rows: the quotes alone must not claim more */
	bool window_only = strstr(row->seen_by, "window") != NULL;
	struct want w = { { row->verdict[0], row->verdict[1], row->verdict[2] },
	    { row->quoted[0], row->quoted[1], row->quoted[2] }, row->hop, row->clean,
	    row->side };

	char side[sizeof(row->side)] = "";

	/* an AnyIP range sits on the prober's own link: no router quotes,
	 * whatever the table's column says (cases_check.py skips it too) */
	if (strcmp(row->kind, "range") == 0)
		w.q[0] = w.q[1] = w.q[2] = -2;
	/* a syn-proxy finding is the window test's, which the model lacks */
	if (window_only) {
		char buf[sizeof(row->side)], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", row->side);
		for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save))
			if (strncmp(t, "syn-proxy", 9) != 0 && strcmp(t, "-") != 0)
				snprintf(side + strlen(side), sizeof(side) - strlen(side), "%s%s",
				    side[0] ? "," : "", t);
		w.side = side[0] ? side : "-";
	}
	for (int family = ADDR_V4; family <= ADDR_V6; family += 2) {
		struct lp_path p;

		lc_path(row, family, &p);
		check_path(row->name, &p, &w, window_only, 0);
	}
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_reasons),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	struct CMUnitTest *tests;
	char err[256];
	int n, rc;

	n = lc_read(CASES_TSV, cases, LC_MAX_ROWS, err, sizeof(err));
	if (n <= 0) {
		fprintf(stderr, "test_infer_lab: %s\n", n < 0 ? err : CASES_TSV ": no rows");
		printf("not ok 1 - %s\n", CASES_TSV);
		return 1;
	}
	tests = calloc(nfixed + (size_t)n, sizeof(*tests));
	if (tests == NULL)
		return 1;
	memcpy(tests, fixed, sizeof(fixed));
	for (int i = 0; i < n; i++) {
		tests[nfixed + (size_t)i].name = cases[i].name;
		tests[nfixed + (size_t)i].test_func = test_case_row;
		tests[nfixed + (size_t)i].initial_state = &cases[i];
	}
	rc = _cmocka_run_group_tests("test_infer_lab", tests, nfixed + (size_t)n, NULL, NULL);
	free(tests);
	return rc;
}
