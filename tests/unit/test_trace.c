/*
 * test_trace.c -- the trace's TTL ladder (trace.c): closing the interval.
 * Silent TTLs between the last clean full quote and the first changed one
 * are asked again after the retries, only they, a timeout apart, up to the
 * budget; a TTL another variant heard gets every round, one nobody heard
 * at most two; nothing is asked again when no silent TTL lies inside.  A
 * variant whose SYN was dropped has the TTL where the box would be placed
 * asked again, two rounds.  A round every hop answered ends at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace.h"

#define SEC 1000000000ULL

enum { CTL = 0, S7 = 1 };

static struct trace *
new_trace(int close_rounds)
{
	struct trace_config tc;

	memset(&tc, 0, sizeof(tc));
	tc.nvariants = 2;
	tc.max_ttl = 8;
	tc.retries = 0;
	tc.gap_ns = 0;
	tc.timeout_ns = SEC;
	tc.close_rounds = close_rounds;
	return trace_new(&tc, 0);
}

static void
answer(struct trace *t, int v, int ttl, enum ws_seen ws, uint64_t now)
{
	struct hop_quote q;

	memset(&q, 0, sizeof(q));
	q.quote = QUOTE_FULL;
	q.ws = ws;
	trace_hop(t, v, ttl, &q, now);
}

/* Sends everything due at now; the probes sent as bits per variant. */
static void
send_due(struct trace *t, uint64_t now, uint32_t sent[2])
{
	int v, ttl;

	sent[0] = sent[1] = 0;
	while (trace_next(t, now, &v, &ttl)) {
		sent[v] |= 1u << ttl;
		trace_sent(t, v, ttl, now);
	}
}

/* The first sweep: hop 1, 2 clean for both; hop 3 silent for the scale
 * variant (heard by the control when ctl3); hop 4, 5 changed for the
 * scale variant; the destination at 6. */
static void
first_round(struct trace *t, bool ctl3, uint64_t *now)
{
	uint32_t sent[2];

	send_due(t, *now, sent);
	assert_int_equal(sent[CTL], 0x1fe);
	for (int k = 1; k <= 5; k++) {
		if (k != 3 || ctl3)
			answer(t, CTL, k, WS_NOT_SENT, *now);
		if (k < 3)
			answer(t, S7, k, WS_INTACT, *now);
		else if (k > 3)
			answer(t, S7, k, WS_CHANGED, *now);
	}
	trace_dest(t, CTL, 6);
	trace_dest(t, S7, 6);
	*now += SEC;
}

/* Counts the closing rounds until the trace is done; each must ask only
 * want (the scale variant's TTLs). */
static int
closing_rounds(struct trace *t, uint64_t now, uint32_t want)
{
	int n = 0;

	while (!trace_step(t, now)) {
		uint32_t sent[2];

		send_due(t, now, sent);
		assert_int_equal(sent[CTL], 0);
		assert_int_equal(sent[S7], want);
		n++;
		assert_true(n < 20);
		now = trace_wake(t);
	}
	return n;
}

static void
test_known_router_every_round(void **state)
{
	uint64_t now = 0;
	struct trace *t = new_trace(4);

	(void)state;
	first_round(t, true, &now);
	assert_int_equal(closing_rounds(t, now, 1u << 3), 4);
	trace_free(t);
}

static void
test_unknown_router_two_rounds(void **state)
{
	uint64_t now = 0;
	struct trace *t = new_trace(4);

	(void)state;
	first_round(t, false, &now);
	assert_int_equal(closing_rounds(t, now, 1u << 3), 2);
	trace_free(t);
}

static void
test_answer_ends_it(void **state)
{
	uint64_t now = 0;
	uint32_t sent[2];
	struct trace *t = new_trace(4);

	(void)state;
	first_round(t, true, &now);
	assert_false(trace_step(t, now));
	send_due(t, now, sent);
	assert_int_equal(sent[S7], 1u << 3);
	answer(t, S7, 3, WS_CHANGED, now);
	assert_int_equal(trace_result(t, S7)->hop[3].ws, WS_CHANGED);
	assert_true(trace_step(t, trace_wake(t)));
	trace_free(t);
}

static void
test_no_budget_no_rounds(void **state)
{
	uint64_t now = 0;
	struct trace *t = new_trace(0);

	(void)state;
	first_round(t, true, &now);
	assert_true(trace_step(t, now));
	trace_free(t);
}

/* Silence after the first changed quote is outside the interval. */
static void
test_silence_beyond_box(void **state)
{
	uint64_t now = 0;
	uint32_t sent[2];
	struct trace *t = new_trace(4);

	(void)state;
	send_due(t, now, sent);
	for (int k = 1; k <= 5; k++) {
		answer(t, CTL, k, WS_NOT_SENT, now);
		if (k < 3)
			answer(t, S7, k, WS_INTACT, now);
		else if (k == 3)
			answer(t, S7, k, WS_CHANGED, now);
	}
	trace_dest(t, CTL, 6);
	trace_dest(t, S7, 6);
	assert_true(trace_step(t, now + SEC));
	trace_free(t);
}

/* No quote changed: the silent hops after the last clean one up to the
 * destination are the interval (a box the window test finds at D). */
static void
test_silence_before_destination(void **state)
{
	uint64_t now = 0;
	uint32_t sent[2];
	struct trace *t = new_trace(4);

	(void)state;
	send_due(t, now, sent);
	for (int k = 1; k <= 5; k++) {
		answer(t, CTL, k, WS_NOT_SENT, now);
		if (k <= 3)
			answer(t, S7, k, WS_INTACT, now);
	}
	trace_dest(t, CTL, 6);
	trace_dest(t, S7, 6);
	assert_int_equal(closing_rounds(t, now + SEC, (1u << 4) | (1u << 5)), 4);
	trace_free(t);
}

/* The scale variant's SYN is dropped (no destination) where the control
 * still got through: hop 1 heard, hop 2 silent (at its limit) though the
 * control heard it.  The box would be placed at hop 2, so hop 2 is asked
 * again; once it answers, hop 3, the next candidate. */
static void
dropped_first_round(struct trace *t, uint64_t *now)
{
	uint32_t sent[2];

	send_due(t, *now, sent);
	for (int k = 1; k <= 5; k++)
		answer(t, CTL, k, WS_NOT_SENT, *now);
	answer(t, S7, 1, WS_INTACT, *now);
	trace_dest(t, CTL, 6);
	*now += SEC;
}

/* A boundary that never answers is asked two rounds, only it; one that
 * answers moves the boundary to the next TTL. */
static void
test_dropped_boundary(void **state)
{
	uint64_t now = 0;
	uint32_t sent[2];
	struct trace *t = new_trace(4);

	(void)state;
	dropped_first_round(t, &now);
	assert_int_equal(closing_rounds(t, now, 1u << 2), 2);
	trace_free(t);

	now = 0;
	t = new_trace(4);
	dropped_first_round(t, &now);
	assert_false(trace_step(t, now));
	send_due(t, now, sent);
	assert_int_equal(sent[CTL], 0);
	assert_int_equal(sent[S7], 1u << 2);
	answer(t, S7, 2, WS_INTACT, now);
	now = trace_wake(t);
	assert_false(trace_step(t, now));
	send_due(t, now, sent);
	assert_int_equal(sent[S7], 1u << 3);
	/* hop 3 stays silent (the box): two rounds in all, then done */
	assert_true(trace_step(t, trace_wake(t)));
	trace_free(t);
}

/* A round whose every TTL answered, for every variant, ends at once: its
 * wait could only end the trace.  One with a silent hop waits its timeout
 * (and one hop short of all answered still does). */
static void
test_all_answered_ends_round(void **state)
{
	uint32_t sent[2];
	struct trace *t = new_trace(4);

	(void)state;
	send_due(t, 0, sent);
	for (int k = 1; k <= 4; k++) {
		answer(t, CTL, k, WS_NOT_SENT, 0);
		if (k < 4)
			answer(t, S7, k, WS_INTACT, 0);
	}
	trace_dest(t, CTL, 5);
	trace_dest(t, S7, 5);
	/* hop 4 of the scale variant still silent: the round waits */
	assert_int_equal(trace_wake(t), SEC);
	assert_false(trace_step(t, SEC / 10));
	answer(t, S7, 4, WS_INTACT, SEC / 10);
	assert_int_equal(trace_wake(t), 0);
	assert_true(trace_step(t, SEC / 10));
	assert_int_equal(trace_result(t, S7)->dest_ttl, 5);
	assert_int_equal(trace_result(t, S7)->hop[4].ws, WS_INTACT);
	trace_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_router_every_round),
		cmocka_unit_test(test_unknown_router_two_rounds),
		cmocka_unit_test(test_answer_ends_it),
		cmocka_unit_test(test_no_budget_no_rounds),
		cmocka_unit_test(test_silence_beyond_box),
		cmocka_unit_test(test_silence_before_destination),
		cmocka_unit_test(test_dropped_boundary),
		cmocka_unit_test(test_all_answered_ends_round),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
