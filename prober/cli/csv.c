/*
 * csv.c -- RFC 4180 fields and records, text neutralised for spreadsheets
 * (csv.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "textsafe.h"

static void
put(struct csv *c, const char *s, size_t n)
{
	if (c->failed || n == 0)
		return;
	if (n > c->cap - c->len) {
		size_t cap = c->cap ? c->cap : 256;
		char *p;

		while (cap - c->len < n)
			cap *= 2;
		if ((p = realloc(c->p, cap)) == NULL) {
			c->failed = true;
			return;
		}
		c->p = p;
		c->cap = cap;
	}
	memcpy(c->p + c->len, s, n);
	c->len += n;
}

/* One field: lead (or "") then s, quoted as RFC 4180 wants. */
static void
field(struct csv *c, const char *lead, const char *s)
{
	if (c->row_open)
		put(c, ",", 1);
	c->row_open = true;
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\r\n") == NULL) {
		put(c, lead, strlen(lead));
		put(c, s, strlen(s));
		return;
	}
	put(c, "\"", 1);
	put(c, lead, strlen(lead));
	for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
		put(c, s, (size_t)(q - s));
		put(c, "\"\"", 2);
	}
	put(c, s, strlen(s));
	put(c, "\"", 1);
}

void
csv_field(struct csv *c, const char *s)
{
	size_t n;
	char *t;

	if (s == NULL) {
		field(c, "", NULL);
		return;
	}
	n = strlen(s);
	if (n >= SIZE_MAX / 4 || (t = malloc(TEXTSAFE_SIZE(n))) == NULL) {
		c->failed = true;
		return;
	}
	textsafe(t, TEXTSAFE_SIZE(n), s, n, TEXTSAFE_LINES | TEXTSAFE_KEEP_BACKSLASH);
	field(c, t[0] != '\0' && strchr(CSV_FORMULA_LEADS, t[0]) != NULL ? "'" : "", t);
	free(t);
}

void
csv_number(struct csv *c, const char *s)
{
	field(c, "", s);
}

void
csv_end_row(struct csv *c)
{
	put(c, "\r\n", 2);
	c->row_open = false;
}

void
csv_clear(struct csv *c)
{
	c->len = 0;
}

void
csv_free(struct csv *c)
{
	free(c->p);
	memset(c, 0, sizeof(*c));
}
