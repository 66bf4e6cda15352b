/*
 * target_stream.c -- the bounded line reader of target_stream.h: finds
 * each line in its buffer, refuses one too long without holding it, and
 * hands each line to the target parser on every port it stands for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "target_stream.h"

void
tstream_init(struct tstream *s, const char *fname, tstream_read_fn read, void *arg,
    bool allow_large, const uint16_t *ports, int nports)
{
	*s = (struct tstream){ .fname = fname, .read = read, .arg = arg,
	    .allow_large = allow_large, .ports = ports, .nports = nports,
	    .buf = xcalloc(1, TSTREAM_BUF) };
}

void
tstream_free(struct tstream *s)
{
	free(s->buf);
	s->buf = NULL;
}

/* One line's entries: on ports[0], and on each other port unless the
 * text names its own (parsed with another default, the port would stay). */
static void
tstream_line(struct tstream *s, struct targets *t, const char *p, size_t len)
{
	struct targets_opts o = { s->allow_large, s->ports[0] };
	size_t before = t->n;
	unsigned line = s->line + 1;

	if (targets_parse_line(t, p, len, s->fname, line, &o) != 0 || t->n == before ||
	    s->nports < 2)
		return;
	{
		struct targets other;
		struct targets_opts oo = { s->allow_large, t->v[before].port == 1 ? 2 : 1 };
		bool named;

		targets_init(&other);
		named = targets_parse_line(&other, p, len, s->fname, line, &oo) == 0 &&
		    other.n == 1 && other.v[0].port == t->v[before].port;
		targets_free(&other);
		if (named)
			return;
	}
	for (int i = 1; i < s->nports; i++) {
		o.default_port = s->ports[i];
		targets_parse_line(t, p, len, s->fname, line, &o);
	}
}

/* More bytes behind what is left: 1, 0 at the end, -1 on an error. */
static int
tstream_more(struct tstream *s)
{
	long n;

	if (s->off > 0) {
		memmove(s->buf, s->buf + s->off, s->len - s->off);
		s->len -= s->off;
		s->off = 0;
	}
	n = s->read(s->arg, s->buf + s->len, TSTREAM_BUF - s->len);
	if (n < 0)
		return -1;
	if (n == 0) {
		s->eof = true;
		return 0;
	}
	s->len += (size_t)n;
	return 1;
}

static void
tstream_too_long(struct tstream *s, struct targets *t)
{
	targets_add_error(t, "%s:%u: line longer than %d bytes", s->fname, s->line + 1,
	    TSTREAM_LINE_MAX);
	s->skipping = true;
}

int
tstream_fill(struct tstream *s, struct targets *t, size_t max)
{
	size_t before = t->n;

	if (s->err != 0)
		return -1;
	while (t->n - before < max) {
		char *p = s->buf + s->off;
		size_t avail = s->len - s->off;
		char *nl = memchr(p, '\n', avail);

		if (nl != NULL) {
			size_t n = (size_t)(nl - p);

			if (s->skipping)
				s->skipping = false;
			else if (n > TSTREAM_LINE_MAX)
				tstream_too_long(s, t), s->skipping = false;
			else
				tstream_line(s, t, p, n);
			s->line++;
			s->off += n + 1;
			continue;
		}
		if (s->eof) {
			/* the last line, without its '\n' */
			if (avail > 0 && !s->skipping) {
				if (avail > TSTREAM_LINE_MAX)
					tstream_too_long(s, t);
				else
					tstream_line(s, t, p, avail);
			}
			if (avail > 0)
				s->line++;
			s->off = s->len;
			s->skipping = false;
			return 0;
		}
		if (avail > TSTREAM_LINE_MAX) {
			/* no '\n' in reach: the line is too long whatever follows;
			 * its bytes are dropped as they come */
			if (!s->skipping)
				tstream_too_long(s, t);
			s->off = s->len;
		}
		if (tstream_more(s) < 0) {
			s->err = errno != 0 ? errno : EIO;
			targets_add_error(t, "%s: %s", s->fname, strerror(s->err));
			return -1;
		}
	}
	return s->eof && s->off == s->len ? 0 : 1;
}
