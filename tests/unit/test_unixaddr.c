/*
 * test_unixaddr.c -- socket paths at and past sun_path's size, as a table:
 * what fits is copied whole with its NUL, what does not is refused and
 * leaves no name behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "unixaddr.h"

#define SUN_MAX (sizeof(((struct sockaddr_un *)0)->sun_path))

static const struct row {
	size_t len;
	int ok;
} rows[] = {
	{ 1, 1 },
	{ 40, 1 },
	{ SUN_MAX - 2, 1 },
	{ SUN_MAX - 1, 1 },	/* the last byte is the NUL's */
	{ SUN_MAX, 0 },
	{ SUN_MAX + 1, 0 },
	{ 300, 0 },
};

static void
test_table(void **state)
{
	char path[301];
	struct sockaddr_un sun;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(path, 'a', rows[i].len);
		path[0] = '/';
		path[rows[i].len] = '\0';
		memset(&sun, 0x55, sizeof(sun));
		assert_int_equal(unixaddr_fits(path), rows[i].ok);
		assert_int_equal(unixaddr_set(&sun, path), rows[i].ok ? 0 : -1);
		assert_int_equal(sun.sun_family, AF_UNIX);
		if (rows[i].ok)
			assert_string_equal(sun.sun_path, path);
		else
			assert_int_equal(sun.sun_path[0], '\0');
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
