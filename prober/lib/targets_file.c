/*
 * targets_file.c -- reads a target file and hands its bytes to the pure
 * parser in targets.c: the only I/O of target lists.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "targets.h"

/* Bigger than any sane target list (at ~40 bytes a line, 1.6 million
 * targets), small enough to hold in memory at once. */
#define TARGETS_FILE_MAX (64u << 20)

int
targets_read_file(struct targets *t, const char *path, const struct targets_opts *o)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc, err = 0;

	if ((f = fopen(path, "r")) == NULL) {
		err = errno;
		goto fail;
	}
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len > TARGETS_FILE_MAX) {
			err = EFBIG;
			break;
		}
		if (n == 0) {
			if (ferror(f))
				err = errno != 0 ? errno : EIO;
			break;
		}
	}
	fclose(f);
	if (err != 0)
		goto fail;
	rc = targets_parse_buf(t, buf, len, path, o);
	free(buf);
	return rc;

fail:
	free(buf);
	targets_add_error(t, "%s: %s", path, strerror(err));
	return -1;
}
