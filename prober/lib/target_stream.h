/*
 * target_stream.h -- a target file read as the run needs it: lines parsed
 * a few at a time from a buffer of TSTREAM_BUF bytes, so memory does not
 * grow with the file, and no file is too big.  Pure: the bytes come from
 * a read callback (targets_file.c's reads a file; the unit tests feed
 * tables).
 *
 * A line is at most TSTREAM_LINE_MAX bytes, comment included; a longer
 * one is one error ("file:line: line longer than 4096 bytes") and is
 * skipped to its end, however long.  Every other byte is the parser's
 * (targets.h): a NUL byte, a '\r' before the '\n', anything.  A target
 * that names no port is one entry on each of ports[], in the order given,
 * and a line's entries always go out together.
 */
#ifndef SCALEPROBE_TARGET_STREAM_H
#define SCALEPROBE_TARGET_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "targets.h"

#define TSTREAM_LINE_MAX 4096
#define TSTREAM_BUF 65536

/* Up to cap bytes into buf: how many, 0 at the end, -1 (errno set). */
typedef long (*tstream_read_fn)(void *arg, char *buf, size_t cap);

struct tstream {
	const char *fname;
	tstream_read_fn read;
	void *arg;
	bool allow_large;
	const uint16_t *ports;
	int nports;
	char *buf;			/* TSTREAM_BUF bytes */
	size_t off, len;		/* the bytes not parsed yet */
	bool eof;
	bool skipping;			/* inside a line too long */
	unsigned line;			/* lines complete */
	int err;			/* the read's errno, once failed */
};

/* ports: nports >= 1 of them, outliving s. */
void tstream_init(struct tstream *s, const char *fname, tstream_read_fn read, void *arg,
    bool allow_large, const uint16_t *ports, int nports);
void tstream_free(struct tstream *s);

/* Parses lines into t until it holds at least max entries more, or the
 * end.  Returns 1 when lines may follow, 0 at the end, -1 when the read
 * failed ("file: why" added to t's errors).  Errors of lines are added to
 * t's errors as they are found, and the parse goes on. */
int tstream_fill(struct tstream *s, struct targets *t, size_t max);

#endif
