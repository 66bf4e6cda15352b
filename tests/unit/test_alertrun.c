/*
 * test_alertrun.c -- the alert command's run decided without I/O
 * (alertrun.h): its whole environment, its output logged up to the cap
 * and the run killed past the larger one, the steps after its timeout,
 * the words for how it ended.
 */
#include <sys/wait.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "alertrun.h"

struct seen {
	size_t lines, bytes, capped;
	char last[ALERTRUN_LINE_MAX + 1];
};

static void
emit(void *arg, const char *line, size_t len)
{
	struct seen *s = arg;

	assert_true(len > 0 && len <= ALERTRUN_LINE_MAX);
	if (strncmp(line, "(the rest of its output not logged", 34) == 0) {
		s->capped++;
		return;
	}
	s->lines++;
	s->bytes += len;
	memcpy(s->last, line, len);
	s->last[len] = '\0';
}

static void
test_env(void **state)
{
	size_t n;

	(void)state;
	for (n = 0; alertrun_env[n] != NULL; n++)
		;
	assert_int_equal(n, 2);
	assert_string_equal(alertrun_env[0], "PATH=/usr/sbin:/usr/bin:/sbin:/bin");
	assert_string_equal(alertrun_env[1], "LANG=C");
}

static void
test_lines(void **state)
{
	struct alertrun_out o;
	struct seen s;
	const char text[] = "one\ntwo\x1b[2J\n\nthree";

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	/* byte by byte: lines do not depend on how reads cut them */
	for (size_t i = 0; i < sizeof(text) - 1; i++)
		assert_false(alertrun_out_feed(&o, text + i, 1, emit, &s));
	assert_int_equal(s.lines, 2);
	/* the bytes as they were: the caller escapes them */
	assert_string_equal(s.last, "two\x1b[2J");
	alertrun_out_end(&o, emit, &s);
	assert_int_equal(s.lines, 3);
	assert_string_equal(s.last, "three");
	assert_int_equal(s.capped, 0);
}

static void
test_long_line_in_pieces(void **state)
{
	struct alertrun_out o;
	struct seen s;
	char buf[1300];

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	memset(buf, 'a', sizeof(buf));
	assert_false(alertrun_out_feed(&o, buf, sizeof(buf), emit, &s));
	alertrun_out_end(&o, emit, &s);
	assert_int_equal(s.lines, 3);		/* 512 + 512 + 276 */
	assert_int_equal(s.bytes, sizeof(buf));
}

/* 1 GiB in 64 KiB reads: at most ALERTRUN_LOG_MAX logged, one "not
 * logged" line, killed once past ALERTRUN_OUT_MAX and not before. */
static void
test_gib(void **state)
{
	static char buf[65536];
	struct alertrun_out o;
	struct seen s;
	uint64_t fed = 0, killed_at = 0;

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i % 100 == 99 ? '\n' : 'x';
	while (fed < (1ULL << 30)) {
		bool kill = alertrun_out_feed(&o, buf, sizeof(buf), emit, &s);

		fed += sizeof(buf);
		if (kill && killed_at == 0)
			killed_at = fed;
		assert_true(kill == (fed > ALERTRUN_OUT_MAX));
	}
	alertrun_out_end(&o, emit, &s);
	print_message("# 1 GiB: %zu lines, %zu bytes logged; kill asked at %llu bytes\n",
	    s.lines, s.bytes, (unsigned long long)killed_at);
	assert_true(s.bytes <= ALERTRUN_LOG_MAX);
	assert_true(s.bytes >= ALERTRUN_LOG_MAX - 200);
	assert_int_equal(s.capped, 1);
	assert_int_equal(killed_at, ALERTRUN_OUT_MAX + sizeof(buf));
}

/* Newlines alone fill the cap too: no flood of log lines. */
static void
test_empty_lines_count(void **state)
{
	struct alertrun_out o;
	struct seen s;
	char buf[10000];

	(void)state;
	memset(&o, 0, sizeof(o));
	memset(&s, 0, sizeof(s));
	memset(buf, '\n', sizeof(buf));
	buf[5000] = 'z';
	assert_false(alertrun_out_feed(&o, buf, sizeof(buf), emit, &s));
	alertrun_out_end(&o, emit, &s);
	assert_int_equal(s.lines, 0);
	assert_int_equal(s.capped, 1);
}

static void
test_timer(void **state)
{
	enum alertrun_stage st = ALERTRUN_RUNNING;
	unsigned next = 99;

	(void)state;
	assert_int_equal(alertrun_on_timer(&st, &next), SIGTERM);
	assert_int_equal(st, ALERTRUN_TERMED);
	assert_int_equal(next, ALERTRUN_GRACE_S);
	assert_int_equal(alertrun_on_timer(&st, &next), SIGKILL);
	assert_int_equal(st, ALERTRUN_KILLED);
	assert_int_equal(next, ALERTRUN_GRACE_S);
	assert_int_equal(alertrun_on_timer(&st, &next), 0);
	assert_int_equal(st, ALERTRUN_ABANDONED);
	assert_int_equal(next, 0);
	assert_int_equal(alertrun_on_timer(&st, &next), 0);
	assert_int_equal(next, 0);
}

static void
test_status(void **state)
{
	char b[128];

	(void)state;
	alertrun_status_text(b, sizeof(b), 0, ALERTRUN_RUNNING, false);
	assert_string_equal(b, "");
	alertrun_status_text(b, sizeof(b), 3 << 8, ALERTRUN_RUNNING, false);
	assert_string_equal(b, "exit 3");
	alertrun_status_text(b, sizeof(b), SIGTERM, ALERTRUN_TERMED, false);
	assert_string_equal(b, "signal 15, killed at its timeout");
	alertrun_status_text(b, sizeof(b), 0, ALERTRUN_TERMED, false);
	assert_string_equal(b, "exit 0, killed at its timeout");
	alertrun_status_text(b, sizeof(b), SIGPIPE, ALERTRUN_TERMED, true);
	assert_string_equal(b, "signal 13, killed for its output");
}

/* A failed run is tried again after alert-retry, then 6 times that: 3 runs
 * in all; only a run that failed by itself is. */
static void
test_retry(void **state)
{
	(void)state;
	assert_int_equal(ALERTRUN_TRIES, 3);
	assert_int_equal(alertrun_retry_delay(1, 10), 10);
	assert_int_equal(alertrun_retry_delay(2, 10), 60);
	assert_int_equal(alertrun_retry_delay(3, 10), 0);
	assert_int_equal(alertrun_retry_delay(1, 1), 1);
	assert_int_equal(alertrun_retry_delay(2, 1), 6);
	assert_int_equal(alertrun_retry_delay(0, 10), 0);
	assert_int_equal(alertrun_retry_delay(100, 10), 0);
	assert_int_equal(alertrun_retry_delay(1, 0), 0);
	assert_false(alertrun_failed(0, ALERTRUN_RUNNING, false));
	assert_true(alertrun_failed(3 << 8, ALERTRUN_RUNNING, false));	/* exit 3 */
	assert_true(alertrun_failed(127 << 8, ALERTRUN_RUNNING, false));	/* not executed */
	assert_true(alertrun_failed(SIGSEGV, ALERTRUN_RUNNING, false));	/* its own signal */
	/* killed by the daemon: at its timeout, or for its output */
	assert_false(alertrun_failed(SIGTERM, ALERTRUN_TERMED, false));
	assert_false(alertrun_failed(SIGKILL, ALERTRUN_KILLED, false));
	assert_false(alertrun_failed(3 << 8, ALERTRUN_TERMED, false));
	assert_false(alertrun_failed(SIGPIPE, ALERTRUN_RUNNING, true));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_long_line_in_pieces),
		cmocka_unit_test(test_gib),
		cmocka_unit_test(test_empty_lines_count),
		cmocka_unit_test(test_timer),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_retry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
