/*
 * strbuf.h -- a growing text buffer: lines of errors, settings written
 * back, anything built with printf whose length is not known beforehand.
 * Zero-initialized it is empty (p NULL); after the first append p is a
 * NUL-terminated string.  Allocation failure ends the program (xrealloc).
 */
#ifndef SCALEPROBE_STRBUF_H
#define SCALEPROBE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "log.h"

struct strbuf {
	char *p;		/* NULL until something is appended */
	size_t len;		/* strlen(p) */
	size_t cap;		/* bytes allocated */
};

void strbuf_printf(struct strbuf *b, const char *fmt, ...) LOG_PRINTF(2, 3);
void strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap) LOG_PRINTF(2, 0);
/* The text so far, "" when nothing was appended. */
const char *strbuf_str(const struct strbuf *b);
/* The text, the caller's to free ("" allocated when nothing was
 * appended); b is empty again. */
char *strbuf_take(struct strbuf *b);
/* Frees the text; b is empty again. */
void strbuf_free(struct strbuf *b);

#endif
