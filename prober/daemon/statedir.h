/*
 * statedir.h -- what scaleprobed accepts at a name it creates or changes
 * as root (its state directory, the database and its -wal, -shm and .lock,
 * the control socket and its directory), decided from what lstat (or
 * fstat of a descriptor opened without following a link) found there.
 * Pure: the caller does the I/O, relative to a directory descriptor.
 */
#ifndef SCALEPROBE_STATEDIR_H
#define SCALEPROBE_STATEDIR_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum statedir_kind {
	/* the directory the state directory (or the control socket's
	 * directory) is in, reached by following links: root's or the
	 * user's, writable by no one else unless sticky (as /tmp is) */
	SD_PARENT,
	/* the state directory or the control socket's directory itself */
	SD_DIR,
	/* the database, -wal, -shm, .lock: a regular file of one link */
	SD_FILE,
	/* the control socket: a socket of one link */
	SD_SOCKET,
};

/* 0 when sb (from lstat, never following a link) is of kind and owned by
 * root or by user; else -1 with why ("a symbolic link, not a directory",
 * "owned by uid 1001, neither root nor the user", ...) in why. */
int statedir_check(const struct stat *sb, enum statedir_kind kind, uid_t user,
    char *why, size_t len);

/* What the file type of mode is, in words: "a symbolic link", "a FIFO". */
const char *statedir_type(mode_t mode);

#endif
