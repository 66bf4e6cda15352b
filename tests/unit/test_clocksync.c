/*
 * test_clocksync.c -- clocksync.h's readings: timesyncd's flag by presence
 * and age, chronyc's CSV tracking line by its leap status, hostile output
 * (other field counts, two lines, NULs, a prefix of a status) unknown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "clocksync.h"

#define TRACK	"A9FEA97B,169.254.169.123,4,1733360000.123456789,0.000001234,-0.000000567," \
		"0.000002000,-12.345,-0.001,0.020,0.000456789,0.000123456,64.2,"

static void
test_timesyncd(void **state)
{
	static const struct { bool present; int64_t age; enum clock_sync c; } t[] = {
		{ true, 0, CLOCK_SYNC_YES },
		{ true, 2048, CLOCK_SYNC_YES },
		{ true, CLOCKSYNC_TIMESYNCD_MAX_AGE_S, CLOCK_SYNC_YES },
		{ true, CLOCKSYNC_TIMESYNCD_MAX_AGE_S + 1, CLOCK_SYNC_UNKNOWN },
		{ true, 86400 * 30, CLOCK_SYNC_UNKNOWN },
		{ true, -30, CLOCK_SYNC_YES },		/* clock stepped back a little */
		{ true, -3600, CLOCK_SYNC_UNKNOWN },	/* touched in the future */
		{ false, 0, CLOCK_SYNC_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(clocksync_timesyncd(t[i].present, t[i].age), t[i].c);
}

static void
test_chrony(void **state)
{
	static const struct { const char *out; size_t len; enum clock_sync c; } t[] = {
		{ TRACK "Normal\n", 0, CLOCK_SYNC_YES },
		{ TRACK "Normal", 0, CLOCK_SYNC_YES },
		{ TRACK "Insert second\n", 0, CLOCK_SYNC_YES },
		{ TRACK "Delete second\n", 0, CLOCK_SYNC_YES },
		{ TRACK "Not synchronised\n", 0, CLOCK_SYNC_NO },
		{ TRACK "Not synchronized\n", 0, CLOCK_SYNC_UNKNOWN },	/* not chrony's word */
		{ TRACK "Norma\n", 0, CLOCK_SYNC_UNKNOWN },
		{ TRACK "Normal \n", 0, CLOCK_SYNC_UNKNOWN },
		{ TRACK "Normal\n\n", 0, CLOCK_SYNC_UNKNOWN },		/* two lines */
		{ TRACK "Normal\nNormal\n", 0, CLOCK_SYNC_UNKNOWN },
		{ TRACK "x,Normal\n", 0, CLOCK_SYNC_UNKNOWN },		/* 15 fields */
		{ "4,Normal\n", 0, CLOCK_SYNC_UNKNOWN },		/* 2 fields */
		{ "Normal\n", 0, CLOCK_SYNC_UNKNOWN },
		{ "", 0, CLOCK_SYNC_UNKNOWN },
		{ "506 Cannot talk to daemon\n", 0, CLOCK_SYNC_UNKNOWN },
		/* a NUL inside: the bytes given count, not the C string */
		{ TRACK "Normal\0\n", sizeof(TRACK "Normal\0\n") - 1, CLOCK_SYNC_UNKNOWN },
		/* cut short of the status */
		{ TRACK "Normal\n", sizeof(TRACK) - 1 + 3, CLOCK_SYNC_UNKNOWN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(clocksync_chrony(t[i].out, t[i].len ? t[i].len :
		    strlen(t[i].out)), t[i].c);
	assert_int_equal(clocksync_chrony(NULL, 0), CLOCK_SYNC_UNKNOWN);
}

static void
test_names(void **state)
{
	(void)state;
	assert_null(clock_sync_name(CLOCK_SYNC_NONE));
	assert_string_equal(clock_sync_name(CLOCK_SYNC_YES), "synchronised");
	assert_string_equal(clock_sync_name(CLOCK_SYNC_NO), "unsynchronised");
	assert_string_equal(clock_sync_name(CLOCK_SYNC_UNKNOWN), "unknown");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timesyncd),
		cmocka_unit_test(test_chrony),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
