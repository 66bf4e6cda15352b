/*
 * test_infer.c -- the verdict table, row by row, from the handshake alone
 * (R: the reply to the SYN with window scale, C: the control's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "infer.h"

enum { NONE, SA_WS, SA_NOWS, RST, UNREACH };

struct row {
	const char *what;
	int r, c;
	bool r_mixed;
	uint64_t drops;
	enum verdict want;
};

static const struct row rows[] = {
	{ "clean path, server's own shift 0", SA_WS, SA_NOWS, false, 0, VERDICT_OK },
	{ "WS SYN silent, control answered", NONE, SA_NOWS, false, 0, VERDICT_SYN_DROPPED },
	{ "WS SYN reset, control answered", RST, SA_NOWS, false, 0, VERDICT_SYN_DROPPED },
	{ "both reset", RST, RST, false, 0, VERDICT_CLOSED },
	{ "both silent", NONE, NONE, false, 0, VERDICT_FILTERED },
	{ "both silent while capture dropped", NONE, NONE, false, 3, VERDICT_INCONCLUSIVE },
	{ "both unreachable", UNREACH, UNREACH, false, 0, VERDICT_UNREACHABLE },
	{ "no WS in SYN-ACK, no quotes", SA_NOWS, SA_NOWS, false, 0, VERDICT_INCONCLUSIVE },
	{ "mixed replies", SA_WS, SA_NOWS, true, 0, VERDICT_INCONCLUSIVE },
	{ "WS SYN answered, control silent", SA_WS, NONE, false, 0, VERDICT_OK },
	{ "reset vs silence", RST, NONE, false, 0, VERDICT_INCONCLUSIVE },
	{ "unreachable vs reset", UNREACH, RST, false, 0, VERDICT_INCONCLUSIVE },
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
test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct variant_obs r, c;
		struct scale_verdict v;

		fill(&r, rows[i].r, 7);
		fill(&c, rows[i].c, -1);
		r.mixed = rows[i].r_mixed;
		infer_scale(&c, &r, rows[i].drops, &v);
		if (v.verdict != rows[i].want)
			fail_msg("%s: got %s, want %s", rows[i].what,
			    verdict_name(v.verdict), verdict_name(rows[i].want));
		assert_true(strlen(v.reason) > 10);
	}
}

static void
test_path_and_classes(void **state)
{
	struct path_result res;

	(void)state;
	memset(&res, 0, sizeof(res));
	fill(&res.control, SA_NOWS, -1);
	res.nscales = 2;
	fill(&res.scales[0], SA_WS, 0);
	fill(&res.scales[1], NONE, 7);
	infer_path(&res);
	assert_int_equal(res.verdicts[0].verdict, VERDICT_OK);
	assert_int_equal(res.verdicts[1].verdict, VERDICT_SYN_DROPPED);

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
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_path_and_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
