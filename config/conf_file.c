/*
 * conf_file.c -- the I/O of configuration: reads the file and hands its
 * text to the pure parser, then reads the files its settings name (the
 * payloads, the groups' target files, the opt-out list), and a sharded
 * group's streamed files through once for the share of one vantage.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"

/* Bigger than any sane configuration or target list (targets_file.c's
 * limit), small enough to hold in memory at once. */
#define CONF_FILE_MAX (64u << 20)

int
conf_read_text(const char *path, size_t max, bool regular, char **buf, size_t *len,
    char *err, size_t errlen)
{
	struct stat st;
	char *p = NULL;
	size_t n = 0, cap = 0;
	ssize_t r;
	int fd;

	*buf = NULL;
	*len = 0;
	/* without O_NONBLOCK a FIFO no one opens for writing holds the
	 * program in open() for good */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode) || (regular && !S_ISREG(st.st_mode))) {
		snprintf(err, errlen, "%s: %s", path, regular ? "not a regular file" :
		    strerror(EISDIR));
		close(fd);
		return -1;
	}
	/* a device reads as it always did: blocking */
	if (!S_ISFIFO(st.st_mode) && fcntl(fd, F_SETFL, 0) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* read to the end rather than trust st_size: the file may change */
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			p = xrealloc(p, cap + 1);
		}
		r = read(fd, p + n, cap - n);
		if (r == -1 && errno == EINTR)
			continue;
		/* a FIFO with a writer that has not written yet: wait for it */
		if (r == -1 && errno == EAGAIN) {
			struct pollfd pfd = { fd, POLLIN, 0 };

			if (poll(&pfd, 1, -1) == -1 && errno != EINTR) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				goto fail;
			}
			continue;
		}
		/* at once, nothing: a FIFO no program has open for writing */
		if (r == 0 && n == 0 && S_ISFIFO(st.st_mode)) {
			snprintf(err, errlen, "%s: a FIFO no program writes to", path);
			goto fail;
		}
		if (r == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			snprintf(err, errlen, "%s: longer than %zu bytes", path, max);
			goto fail;
		}
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
fail:
	close(fd);
	free(p);
	return -1;
}

int
conf_load(struct conf *c, const char *path, struct conf_errors *e)
{
	char err[600], *buf;
	size_t len;
	int rc;

	if (conf_read_text(path, CONF_FILE_MAX, false, &buf, &len, err, sizeof(err)) != 0) {
		/* "path: why" is the whole message */
		conf_errors_add(e, path, 0, "%s", strchr(err, ':') + 2);
		return -1;
	}
	rc = conf_parse(c, buf, len, path, e);
	free(buf);
	if (rc != 0)
		return -1;
	return conf_load_files(c, path, e);
}

struct seen {
	const char *text, *fname;
	unsigned line;
	size_t order;
};

static int
seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int r = strcmp(x->text, y->text);

	return r != 0 ? r : (x->order > y->order) - (x->order < y->order);
}

static void
seen_add(struct seen **v, size_t *n, const struct target *tg, const char *fname)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n] = (struct seen){ tg->as_given, fname, tg->line, *n };
	(*n)++;
}

/* Targets given twice as written, across the inline ones and the files
 * (the parser found those among the inline ones): each repeat is an
 * error at its own file and line. */
static void
duplicates(struct seen *v, size_t n, struct conf_errors *e)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), seen_cmp);
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i].text, v[i - 1].text) == 0)
			conf_errors_add(e, v[i].fname, v[i].line,
			    "target: '%s' given again (first at %s:%u)", v[i].text,
			    v[i - 1].fname, v[i - 1].line);
}

int
conf_load_payloads(struct conf *c, const char *fname, struct conf_errors *e)
{
	char err[600], *buf;
	size_t len, first = e->n;

	for (size_t i = 0; i < c->probe.npayloads; i++) {
		struct probe_payload *p = &c->probe.payloads[i];

		if (p->bytes != NULL)
			continue;
		if (conf_read_text(p->path, PROBE_PAYLOAD_MAX, true, &buf, &len, err,
		    sizeof(err)) != 0) {
			if (p->line == 0)
				conf_errors_add(e, "--payload", 0, "%s", err);
			else
				conf_errors_add(e, fname, p->line, "payload: %s", err);
			continue;
		}
		p->bytes = (uint8_t *)buf;
		p->len = len;
	}
	return e->n > first ? -1 : 0;
}

/* A group's file of more than TARGETS_STREAM_MIN targets (or bigger than
 * CONF_FILE_MAX): scanned for its errors and figures, left out of the
 * group's targets and out of the check of targets given twice (a
 * duplicate in it is probed once: the walk's set).  True when it is one
 * (its errors added), false for a file read whole as before. */
static bool
conf_group_stream(const struct conf *c, struct conf_group *g, struct conf_file *f,
    const char *fname, struct conf_errors *e)
{
	struct targets errs;
	struct stat sb;
	int rc;

	/* a FIFO or a pipe can be read only once: whole, as before */
	if (stat(f->path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return false;
	targets_init(&errs);
	rc = targets_scan_file(f->path, c->allow_large, g->ports, g->nports, &f->scan, &errs);
	if (f->scan.entries + f->scan.errors <= TARGETS_STREAM_MIN &&
	    sb.st_size <= (off_t)CONF_FILE_MAX) {
		targets_free(&errs);
		return false;
	}
	f->streamed = true;
	if (rc != 0)
		for (char *l = errs.errors.p, *nl; l != NULL && *l != '\0'; l = nl + 1) {
			nl = strchr(l, '\n');
			*nl = '\0';
			conf_errors_add(e, fname, f->line, "file: %s", l);
		}
	targets_free(&errs);
	return true;
}

int
conf_load_files(struct conf *c, const char *fname, struct conf_errors *e)
{
	char err[600], *buf;
	size_t len, first = e->n, nseen = 0;
	struct seen *seen = NULL;

	/* top-level files first: groups tend to come last in a file */
	conf_load_payloads(c, fname, e);
	if (c->optout != NULL)
		conf_optout_read(c, fname, e);
	for (size_t i = 0; i < c->ngroups; i++) {
		struct conf_group *g = &c->groups[i];

		/* each target once as written, not once per port */
		for (size_t t = 0; t < g->targets.n; t++)
			if (t == 0 || strcmp(g->targets.v[t].as_given,
			    g->targets.v[t - 1].as_given) != 0)
				seen_add(&seen, &nseen, &g->targets.v[t], fname);
		for (size_t k = 0; k < g->nfiles; k++) {
			size_t before = g->targets.n, nwritten = 0;

			if (conf_group_stream(c, g, &g->files[k], fname, e))
				continue;
			if (conf_read_text(g->files[k].path, CONF_FILE_MAX, false, &buf, &len, err,
			    sizeof(err)) != 0) {
				conf_errors_add(e, fname, g->files[k].line, "file: %s", err);
				continue;
			}
			if (conf_targets_buf(&g->targets, buf, len, g->files[k].path,
			    c->allow_large, g->ports, g->nports, &nwritten) != 0) {
				/* already "file:line: TARGET: why", one a line */
				for (char *l = g->targets.errors.p, *nl; l != NULL && *l != '\0';
				    l = nl + 1) {
					nl = strchr(l, '\n');
					*nl = '\0';
					conf_errors_add(e, fname, g->files[k].line, "file: %s", l);
				}
				strbuf_free(&g->targets.errors);
				g->targets.nerrors = 0;
			}
			free(buf);
			for (size_t t = before; t < before + nwritten; t++)
				seen_add(&seen, &nseen, &g->targets.v[t], g->files[k].path);
		}
	}
	if (e->n == first)
		duplicates(seen, nseen, e);
	free(seen);
	return e->n > first ? -1 : 0;
}

int
conf_optout_read(struct conf *c, const char *fname, struct conf_errors *e)
{
	struct conf_prefix *v = NULL;
	char err[600], *buf;
	size_t len, n = 0;
	int rc;

	if (conf_read_text(c->optout, CONF_FILE_MAX, false, &buf, &len, err, sizeof(err)) != 0) {
		conf_errors_add(e, fname, c->set_line[SET_OPTOUT], "opt-out: %s", err);
		return -1;
	}
	rc = conf_optout_parse(&v, &n, buf, len, c->optout, e);
	free(buf);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < c->noptout; i++)
		free(c->optout_v[i].text);
	free(c->optout_v);
	c->optout_v = v;
	c->noptout = n;
	return 0;
}

int
conf_shard_files(struct conf *c, const char *fname, struct conf_errors *e)
{
	size_t first = e->n;

	for (size_t gi = 0; gi < c->ngroups; gi++) {
		struct conf_group *g = &c->groups[gi];

		for (size_t f = 0; g->mine != NULL && f < g->nfiles; f++) {
			struct targets t;
			uint64_t seen, kept;

			if (!g->files[f].streamed)
				continue;
			targets_init(&t);
			if (targets_count_shard(g->files[f].path, c->allow_large, g->ports,
			    g->nports, &g->sel, &seen, &kept, &t) != 0)
				conf_errors_add(e, fname, g->files[f].line, "file: %.*s",
				    (int)strcspn(strbuf_str(&t.errors), "\n"), strbuf_str(&t.errors));
			else {
				g->shard_total += seen;
				g->shard_owned += kept;
			}
			targets_free(&t);
		}
	}
	return e->n > first ? -1 : 0;
}
