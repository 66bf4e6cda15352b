/*
 * targets_file.c -- reads target files: whole (targets_read_file, for a
 * short list) or as a stream of lines (target_file_open, the bounded
 * reader of target_stream.h on a FILE), and one pass over a whole file
 * that counts it and finds its errors with the memory of one buffer.
 * The only I/O of target lists.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "shard.h"
#include "target_stream.h"
#include "targets.h"

/* targets_read_file's limit: the whole file is held at once.  A list
 * without a limit is streamed (target_file_open). */
#define TARGETS_FILE_MAX (64u << 20)

struct target_file {
	FILE *f;
	char *path;
	struct tstream s;
};

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

static long
target_file_read(void *arg, char *buf, size_t cap)
{
	FILE *f = arg;
	size_t n;

	errno = 0;
	n = fread(buf, 1, cap, f);
	if (n == 0 && ferror(f)) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return (long)n;
}

struct target_file *
target_file_open(const char *path, bool allow_large, const uint16_t *ports, int nports,
    struct targets *t)
{
	struct target_file *tf;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL) {
		targets_add_error(t, "%s: %s", path, strerror(errno));
		return NULL;
	}
	tf = xcalloc(1, sizeof(*tf));
	tf->f = f;
	tf->path = xstrdup(path);
	tstream_init(&tf->s, tf->path, target_file_read, f, allow_large, ports, nports);
	return tf;
}

struct tstream *
target_file_stream(struct target_file *tf)
{
	return &tf->s;
}

void
target_file_close(struct target_file *tf)
{
	if (tf == NULL)
		return;
	tstream_free(&tf->s);
	fclose(tf->f);
	free(tf->path);
	free(tf);
}

int
targets_scan_file(const char *path, bool allow_large, const uint16_t *ports, int nports,
    struct targets_scan *sum, struct targets *t)
{
	struct target_file *tf;
	struct targets part;
	int rc;

	memset(sum, 0, sizeof(*sum));
	if ((tf = target_file_open(path, allow_large, ports, nports, t)) == NULL)
		return -1;
	do {
		targets_init(&part);
		rc = tstream_fill(&tf->s, &part, 4096);
		for (size_t i = 0; i < part.n; i++) {
			const struct target *tg = &part.v[i];

			sum->entries++;
			sum->addresses += target_count(tg);
			if (tg->kind == TARGET_NAME) {
				sum->names++;
				sum->v4 = sum->v6 = true;
			} else if (tg->addr.family == ADDR_V4)
				sum->v4 = true;
			else
				sum->v6 = true;
		}
		/* the errors of a hostile file are not all kept: the first
		 * few say what is wrong */
		if (part.nerrors > 0) {
			const char *e = strbuf_str(&part.errors);

			for (size_t k = 0; k < part.nerrors; k++) {
				const char *nl = strchr(e, '\n');
				size_t n = nl != NULL ? (size_t)(nl - e) : strlen(e);

				if (sum->errors++ < TARGETS_SCAN_ERRORS)
					targets_add_error(t, "%.*s", (int)n, e);
				e = nl != NULL ? nl + 1 : e + n;
			}
		}
		targets_free(&part);
	} while (rc == 1);
	target_file_close(tf);
	if (sum->errors > TARGETS_SCAN_ERRORS)
		targets_add_error(t, "%s: %zu more errors", path,
		    sum->errors - TARGETS_SCAN_ERRORS);
	return rc < 0 || sum->errors > 0 ? -1 : 0;
}

int
targets_count_shard(const char *path, bool allow_large, const uint16_t *ports, int nports,
    const struct shard_sel *sel, uint64_t *seen, uint64_t *kept, struct targets *t)
{
	struct target_file *tf;
	struct targets part;
	int rc;

	*seen = *kept = 0;
	if ((tf = target_file_open(path, allow_large, ports, nports, t)) == NULL)
		return -1;
	do {
		targets_init(&part);
		rc = tstream_fill(&tf->s, &part, 4096);
		/* the file's errors were the load's scan's: only a failed read
		 * is one here */
		if (rc < 0)
			targets_add_error(t, "%s: cannot be read through", path);
		shard_keep(&part, 0, sel, seen, kept);
		targets_free(&part);
	} while (rc == 1);
	target_file_close(tf);
	return rc < 0 ? -1 : 0;
}
