/*
 * test_statedir.c -- what scaleprobed accepts at a name it changes as
 * root: each kind against each file type, owner, link count and mode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "statedir.h"

#define USER 1001

static struct stat
st(mode_t mode, uid_t uid, nlink_t nlink)
{
	struct stat sb;

	memset(&sb, 0, sizeof(sb));
	sb.st_mode = mode;
	sb.st_uid = uid;
	sb.st_nlink = nlink;
	return sb;
}

static void
test_table(void **state)
{
	static const struct {
		enum statedir_kind kind;
		mode_t mode;
		uid_t uid;
		nlink_t nlink;
		const char *why;	/* NULL: accepted */
	} t[] = {
		/* the state directory: root's (new) or the user's, never a link */
		{ SD_DIR, S_IFDIR | 0750, USER, 2, NULL },
		{ SD_DIR, S_IFDIR | 0755, 0, 5, NULL },
		{ SD_DIR, S_IFLNK | 0777, USER, 1, "a symbolic link, not a directory" },
		{ SD_DIR, S_IFREG | 0640, USER, 1, "a regular file, not a directory" },
		{ SD_DIR, S_IFDIR | 0750, 1002, 2, "owned by uid 1002, neither root nor the user" },
		/* the database and its files */
		{ SD_FILE, S_IFREG | 0640, USER, 1, NULL },
		{ SD_FILE, S_IFREG | 0600, 0, 1, NULL },
		{ SD_FILE, S_IFLNK | 0777, USER, 1, "a symbolic link, not a regular file" },
		{ SD_FILE, S_IFIFO | 0640, USER, 1, "a FIFO, not a regular file" },
		{ SD_FILE, S_IFCHR | 0640, 0, 1, "a character device, not a regular file" },
		{ SD_FILE, S_IFBLK | 0640, 0, 1, "a block device, not a regular file" },
		{ SD_FILE, S_IFDIR | 0750, USER, 2, "a directory, not a regular file" },
		{ SD_FILE, S_IFREG | 0640, 0, 2, "2 hard links, not one" },
		{ SD_FILE, S_IFREG | 0640, 1002, 1, "owned by uid 1002, neither root nor the user" },
		/* the control socket */
		{ SD_SOCKET, S_IFSOCK | 0660, USER, 1, NULL },
		{ SD_SOCKET, S_IFSOCK | 0660, 0, 1, NULL },
		{ SD_SOCKET, S_IFLNK | 0777, 0, 1, "a symbolic link, not a socket" },
		{ SD_SOCKET, S_IFREG | 0660, 0, 1, "a regular file, not a socket" },
		{ SD_SOCKET, S_IFSOCK | 0660, 0, 3, "3 hard links, not one" },
		/* the directory the state directory is in */
		{ SD_PARENT, S_IFDIR | 0755, 0, 9, NULL },
		{ SD_PARENT, S_IFDIR | 01777, 0, 9, NULL },
		{ SD_PARENT, S_IFDIR | 0750, USER, 3, NULL },
		{ SD_PARENT, S_IFDIR | 0777, 0, 9,
		  "writable by group or others (mode 0777) and not sticky" },
		{ SD_PARENT, S_IFDIR | 0775, 0, 9,
		  "writable by group or others (mode 0775) and not sticky" },
		{ SD_PARENT, S_IFDIR | 0755, 1002, 9, "owned by uid 1002, neither root nor the user" },
	};
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct stat sb = st(t[i].mode, t[i].uid, t[i].nlink);
		int rc;

		why[0] = '\0';
		rc = statedir_check(&sb, t[i].kind, USER, why, sizeof(why));
		if (t[i].why == NULL) {
			if (rc != 0)
				fail_msg("row %zu: refused: %s", i, why);
		} else {
			if (rc != -1)
				fail_msg("row %zu: accepted", i);
			assert_string_equal(why, t[i].why);
		}
	}
}

static void
test_short_buffer(void **state)
{
	struct stat sb = st(S_IFLNK | 0777, 0, 1);
	char why[8];

	(void)state;
	assert_int_equal(statedir_check(&sb, SD_FILE, USER, why, sizeof(why)), -1);
	assert_string_equal(why, "a symbo");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
