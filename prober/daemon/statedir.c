/*
 * statedir.c -- the decision whether what is found at a name scaleprobed
 * changes as root is what scaleprobed(8) says it must be (statedir.h).
 */
#include <stdio.h>

#include "statedir.h"

const char *
statedir_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	default:
		return "of an unknown type";
	}
}

int
statedir_check(const struct stat *sb, enum statedir_kind kind, uid_t user, char *why,
    size_t len)
{
	mode_t want;

	switch (kind) {
	case SD_PARENT:
	case SD_DIR:
		want = S_IFDIR;
		break;
	case SD_FILE:
		want = S_IFREG;
		break;
	case SD_SOCKET:
		want = S_IFSOCK;
		break;
	default:
		snprintf(why, len, "unknown kind");
		return -1;
	}
	if ((sb->st_mode & S_IFMT) != want) {
		snprintf(why, len, "%s, not %s", statedir_type(sb->st_mode), statedir_type(want));
		return -1;
	}
	/* another user's could be swapped or linked at will */
	if (sb->st_uid != 0 && sb->st_uid != user) {
		snprintf(why, len, "owned by uid %lu, neither root nor the user",
		    (unsigned long)sb->st_uid);
		return -1;
	}
	/* a hard link to a file elsewhere (/etc/shadow) would be re-owned */
	if ((kind == SD_FILE || kind == SD_SOCKET) && sb->st_nlink != 1) {
		snprintf(why, len, "%lu hard links, not one", (unsigned long)sb->st_nlink);
		return -1;
	}
	/* where others may write, they may rename what we checked away */
	if (kind == SD_PARENT && (sb->st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (sb->st_mode & S_ISVTX) == 0) {
		snprintf(why, len, "writable by group or others (mode %04o) and not sticky",
		    (unsigned)(sb->st_mode & 07777));
		return -1;
	}
	return 0;
}
