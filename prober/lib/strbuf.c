/*
 * strbuf.c -- a growing text buffer (strbuf.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "strbuf.h"

void
strbuf_vprintf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0) {
		va_end(again);
		return;
	}
	if (b->cap - b->len < (size_t)n + 1) {
		/* doubling: a file of junk adds a line per line */
		while (b->cap - b->len < (size_t)n + 1)
			b->cap = b->cap ? b->cap * 2 : 256;
		b->p = xrealloc(b->p, b->cap);
	}
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
	va_end(again);
	b->len += (size_t)n;
}

void
strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *
strbuf_str(const struct strbuf *b)
{
	return b->p != NULL ? b->p : "";
}

char *
strbuf_take(struct strbuf *b)
{
	char *s = b->p != NULL ? b->p : xstrdup("");

	b->p = NULL;
	b->len = b->cap = 0;
	return s;
}

void
strbuf_free(struct strbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
