/*
 * conf_parse.c -- scaleprobe.conf's text into a struct conf: lines into
 * words, statements checked against the settings table, every error kept
 * with its line and the parse carried on to the end.  Pure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"

#define CONF_GROUP_NAME_MAX 64
/* Longer than any line a person writes (long target lists go in files):
 * a longer one is a file that is not a configuration. */
#define CONF_LINE_MAX 65536

struct word {
	char *s;
	bool quoted;
};

struct parse {
	struct conf *c;
	struct conf_errors *e;
	const char *fname;
	unsigned line;
	struct conf_group *g;		/* the open group, or NULL */
	unsigned source_line[2];	/* IPv4, IPv6 */
};

/* --- errors -------------------------------------------------------------- */

void
conf_errors_add(struct conf_errors *e, const char *fname, unsigned line,
    const char *fmt, ...)
{
	char msg[512], shown[LOG_ESCAPE_SIZE(160)];
	struct conf_error *x;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	/* the file's bytes may be anything: printed escaped, cut short */
	log_escape(shown, sizeof(shown), msg, strlen(msg) > 160 ? 160 : strlen(msg));
	e->v = xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	x = &e->v[e->n++];
	x->fname = xstrdup(fname);
	x->line = line;
	x->seq = e->n;
	xasprintf(&x->msg, "%s%s", shown, strlen(msg) > 160 ? "..." : "");
}

char *
conf_errors_text(const struct conf_errors *e)
{
	struct strbuf b = { 0 };

	for (size_t i = 0; i < e->n; i++) {
		if (e->v[i].line != 0)
			strbuf_printf(&b, "%s:%u: %s\n", e->v[i].fname, e->v[i].line,
			    e->v[i].msg);
		else
			strbuf_printf(&b, "%s: %s\n", e->v[i].fname, e->v[i].msg);
	}
	return strbuf_take(&b);
}

void
conf_errors_free(struct conf_errors *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].fname);
		free(e->v[i].msg);
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static void perr(struct parse *p, unsigned line, const char *fmt, ...) LOG_PRINTF(3, 4);

static void
perr(struct parse *p, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conf_errors_add(p->e, p->fname, line, "%s", msg);
}

/* --- words --------------------------------------------------------------- */

static void
words_free(struct word *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(w[i].s);
	free(w);
}

/*
 * One line into words.  Returns the count, or -1 after an error (the line
 * is then skipped).  '#' outside quotes ends the line; '{' and '}' are
 * words of their own.
 */
static int
split_line(struct parse *p, const char *s, size_t len, struct word **out)
{
	struct word *w = NULL;
	size_t n = 0, i = 0;

	*out = NULL;
	while (i < len) {
		unsigned char ch = (unsigned char)s[i];
		char *t;
		size_t tl = 0;
		bool quoted = false;

		if (ch == ' ' || ch == '\t' || ch == '\r') {
			i++;
			continue;
		}
		if (ch == '#')
			break;
		/* the rest of the line at most; cut to size once known (a
		 * long line of short words must not cost a line per word) */
		t = xmalloc(len - i + 1);
		if (ch == '{' || ch == '}') {
			t[tl++] = (char)ch;
			i++;
		} else if (ch == '"') {
			quoted = true;
			for (i++; i < len && s[i] != '"'; i++) {
				if (s[i] == '\\' && i + 1 < len &&
				    (s[i + 1] == '"' || s[i + 1] == '\\'))
					i++;
				else if (s[i] == '\\') {
					perr(p, p->line, "a backslash in a string (expected one "
					    "before '\"' or before a backslash)");
					goto fail;
				}
				if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
					perr(p, p->line, "byte '%c' in a string (expected "
					    "printable characters)", s[i]);
					goto fail;
				}
				t[tl++] = s[i];
			}
			if (i == len) {
				perr(p, p->line, "unterminated string (expected a closing '\"')");
				goto fail;
			}
			i++;
		} else {
			for (; i < len; i++) {
				ch = (unsigned char)s[i];
				if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '#' ||
				    ch == '"' || ch == '{' || ch == '}')
					break;
				if (ch < 0x20 || ch >= 0x7f) {
					perr(p, p->line, "byte '%c' outside a string (expected "
					    "printable ASCII, or a \"quoted string\")", ch);
					goto fail;
				}
				t[tl++] = (char)ch;
			}
		}
		t[tl] = '\0';
		t = xrealloc(t, tl + 1);
		w = xreallocarray(w, n + 1, sizeof(*w));
		w[n].s = t;
		w[n++].quoted = quoted;
		continue;
fail:
		free(t);
		words_free(w, n);
		return -1;
	}
	*out = w;
	return (int)n;
}

/* --- statements ---------------------------------------------------------- */

static bool
group_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > CONF_GROUP_NAME_MAX)
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("_.-", *s) != NULL))
			return false;
	return true;
}

static void
open_group(struct parse *p, struct word *w, size_t n)
{
	struct conf *c = p->c;
	const char *name = n >= 2 ? w[1].s : "";
	struct conf_group *g;
	size_t before = p->e->n;

	if (p->g != NULL) {
		perr(p, p->line, "group: groups do not nest (expected '}' first)");
		return;
	}
	if (n != 3 || strcmp(w[2].s, "{") != 0 || w[2].quoted)
		perr(p, p->line, "group: expected group NAME {");
	else if (!group_name_ok(name))
		perr(p, p->line, "group: '%s' is not a name of 1..%d letters, digits, "
		    "'_', '.' or '-'", name, CONF_GROUP_NAME_MAX);
	else
		for (size_t i = 0; i < c->ngroups; i++)
			if (strcmp(c->groups[i].name, name) == 0) {
				perr(p, p->line, "group: '%s' already defined on line %u",
				    name, c->groups[i].line);
				break;
			}
	/* opened whatever was wrong, so that its lines and its '}' are
	 * read as a group's and no error follows from this one */
	c->groups = xreallocarray(c->groups, c->ngroups + 1, sizeof(*c->groups));
	g = &c->groups[c->ngroups++];
	memset(g, 0, sizeof(*g));
	targets_init(&g->targets);
	g->name = xstrdup(name);
	g->line = p->line;
	g->broken = p->e->n > before;
	p->g = g;
}

static void
statement(struct parse *p, struct word *w, size_t n)
{
	const struct setting *s;
	const char **vals;
	char why[600];
	unsigned prev;

	if (strcmp(w[0].s, "}") == 0 && !w[0].quoted) {
		if (p->g == NULL)
			perr(p, p->line, "unexpected '}' (no group is open)");
		else if (n > 1)
			perr(p, p->line, "expected nothing after '}'");
		p->g = NULL;
		return;
	}
	s = w[0].quoted ? NULL : setting_by_key(w[0].s);
	if (s == NULL || (s->where & (SETW_TOP | SETW_GROUP)) == 0) {
		perr(p, p->line, "unknown key '%s'", w[0].s);
		return;
	}
	if (p->g != NULL && !(s->where & SETW_GROUP) && s->id != SET_GROUP) {
		perr(p, p->line, "%s: not allowed inside a group (expected interval, "
		    "jitter, ports, target, file, shard, replicas or '}')", s->key);
		return;
	}
	if (p->g == NULL && !(s->where & SETW_TOP)) {
		perr(p, p->line, "%s: allowed only inside a group { }", s->key);
		return;
	}
	if (s->id == SET_GROUP) {
		open_group(p, w, n);
		return;
	}
	for (size_t i = 1; i < n; i++)
		if (!w[i].quoted && (strcmp(w[i].s, "{") == 0 || strcmp(w[i].s, "}") == 0)) {
			perr(p, p->line, "%s: unexpected '%s'", s->key, w[i].s);
			return;
		}
	if (!s->repeat) {
		prev = p->g == NULL ? p->c->set_line[s->id] : s->id == SET_INTERVAL ?
		    p->g->interval_line : s->id == SET_JITTER ? p->g->jitter_line :
		    s->id == SET_REPLICAS ? p->g->replicas_line : p->g->ports_line;
		if (prev != 0) {
			perr(p, p->line, "%s: already set on line %u", s->key, prev);
			return;
		}
	}
	if (s->id == SET_SOURCE && n == 2) {
		struct addr a;
		int fam;

		if (addr_parse(w[1].s, &a) == 0) {
			fam = a.family == ADDR_V4 ? 0 : 1;
			if (p->source_line[fam] != 0) {
				perr(p, p->line, "source: an %s source is already set on line %u",
				    fam == 0 ? "IPv4" : "IPv6", p->source_line[fam]);
				return;
			}
			p->source_line[fam] = p->line;
		}
	}
	vals = xcalloc(n, sizeof(*vals));
	for (size_t i = 1; i < n; i++)
		vals[i - 1] = w[i].s;
	if (setting_set(p->c, p->g, s, vals, n - 1, p->line, why, sizeof(why)) != 0)
		perr(p, p->line, "%s: %s", s->key, why);
	free(vals);
}

/* --- after the last line --------------------------------------------------- */

struct written {
	const char *kind, *text;
	unsigned line;
};

static int
written_cmp(const void *a, const void *b)
{
	const struct written *x = a, *y = b;
	int r = strcmp(x->kind, y->kind);

	if (r == 0)
		r = strcmp(x->text, y->text);
	if (r == 0)
		r = (x->line > y->line) - (x->line < y->line);
	return r;
}

/* Groups inherit interval and jitter; targets parsed now, when
 * allow-large is known wherever it was written; duplicates found. */
static void
finish(struct parse *p)
{
	struct conf *c = p->c;
	struct written *all = NULL;
	size_t nall = 0;
	char d1[32], d2[32];

	if (c->alert_confirm > c->alert_window)
		perr(p, c->set_line[SET_ALERT_CONFIRM] ? c->set_line[SET_ALERT_CONFIRM] :
		    c->set_line[SET_ALERT_WINDOW], "alert-confirm: %u is more than "
		    "alert-window, %u", c->alert_confirm, c->alert_window);

	for (size_t i = 0; i < c->ngroups; i++) {
		struct conf_group *g = &c->groups[i];

		if (g->interval_line == 0)
			g->interval = c->interval;
		if (g->jitter_line == 0)
			g->jitter = c->jitter;
		if (g->ports_line == 0) {
			memcpy(g->ports, c->ports, sizeof(g->ports));
			g->nports = c->nports;
		}
		if (g->jitter > g->interval) {
			conf_format_duration(d1, sizeof(d1), g->jitter);
			conf_format_duration(d2, sizeof(d2), g->interval);
			perr(p, g->jitter_line ? g->jitter_line : g->interval_line ?
			    g->interval_line : g->line, "jitter: %s is longer than the "
			    "group's interval, %s", d1, d2);
		}
		if (g->replicas_line == 0)
			g->replicas = 1;
		else if (g->nshard == 0)
			perr(p, g->replicas_line, "replicas: group '%s' has no shard (expected "
			    "shard NAME... first)", g->name);
		if (g->ntargets == 0 && g->nfiles == 0 && !g->broken)
			perr(p, g->line, "group '%s' has no targets (expected target or file)",
			    g->name);
		for (size_t k = 0; k < g->ntargets; k++) {
			size_t before = g->targets.errors.len;
			size_t first = g->targets.n;

			if (conf_targets_spec(&g->targets, g->target_text[k], c->allow_large,
			    g->ports, g->nports) != 0)
				perr(p, g->target_line[k], "target: %.*s",
				    (int)(g->targets.errors.len - before - 1),
				    g->targets.errors.p + before);
			for (size_t x = first; x < g->targets.n; x++)
				g->targets.v[x].line = g->target_line[k];
			all = xreallocarray(all, nall + 1, sizeof(*all));
			all[nall++] = (struct written){ "target", g->target_text[k],
			    g->target_line[k] };
		}
		for (size_t k = 0; k < g->nfiles; k++) {
			all = xreallocarray(all, nall + 1, sizeof(*all));
			all[nall++] = (struct written){ "file", g->files[k].path,
			    g->files[k].line };
		}
		/* its errors are ours now, with their lines */
		strbuf_free(&g->targets.errors);
		g->targets.nerrors = 0;
	}
	if (nall > 0)
		qsort(all, nall, sizeof(*all), written_cmp);
	for (size_t i = 1; i < nall; i++)
		if (strcmp(all[i].kind, all[i - 1].kind) == 0 &&
		    strcmp(all[i].text, all[i - 1].text) == 0)
			perr(p, all[i].line, "%s: '%s' already given on line %u", all[i].kind,
			    all[i].text, all[i - 1].line);
	free(all);
}

static int
error_cmp(const void *a, const void *b)
{
	const struct conf_error *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int
conf_parse(struct conf *c, const char *buf, size_t len, const char *fname,
    struct conf_errors *e)
{
	struct parse p;
	size_t pos = 0, first = e->n;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.e = e;
	p.fname = fname;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl != NULL ? (size_t)(nl - (buf + pos)) : len - pos;
		struct word *w;
		int n;

		p.line++;
		if (ll > CONF_LINE_MAX) {
			perr(&p, p.line, "a line of %zu bytes (expected at most %d)", ll,
			    CONF_LINE_MAX);
			pos += ll + (nl != NULL);
			continue;
		}
		n = split_line(&p, buf + pos, ll, &w);
		if (n > 0)
			statement(&p, w, (size_t)n);
		if (n >= 0)
			words_free(w, (size_t)n);
		pos += ll + (nl != NULL);
	}
	if (p.g != NULL && !p.g->broken)
		perr(&p, p.g->line, "group '%s': expected '}' before the end of the file",
		    p.g->name);
	finish(&p);
	/* one pass found them in two orders: the file's lines, then the
	 * groups'; the reader wants the file's. */
	if (e->n - first > 1)
		qsort(e->v + first, e->n - first, sizeof(*e->v), error_cmp);
	return e->n > first ? -1 : 0;
}

/* --- opt-out lists ------------------------------------------------------- */

int
conf_optout_parse(struct conf_prefix **v, size_t *n, const char *buf, size_t len,
    const char *fname, struct conf_errors *e)
{
	struct conf_prefix *out = NULL;
	size_t nout = 0, pos = 0, first = e->n;
	unsigned line = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl != NULL ? (size_t)(nl - (buf + pos)) : len - pos;
		const char *s = buf + pos, *why;
		char text[128];
		size_t a = 0, b;

		line++;
		pos += ll + (nl != NULL);
		for (b = 0; b < ll && s[b] != '#'; b++)
			;
		while (a < b && (s[a] == ' ' || s[a] == '\t'))
			a++;
		while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
			b--;
		if (a == b)
			continue;
		if (b - a >= sizeof(text) || memchr(s + a, '\0', b - a) != NULL) {
			conf_errors_add(e, fname, line, "expected one CIDR a line");
			continue;
		}
		memcpy(text, s + a, b - a);
		text[b - a] = '\0';
		out = xreallocarray(out, nout + 1, sizeof(*out));
		if (addr_parse_prefix(text, &out[nout].net, &out[nout].plen, &why) == -1) {
			conf_errors_add(e, fname, line, "'%s': %s", text, why);
			continue;
		}
		out[nout].text = xstrdup(text);
		out[nout++].line = line;
	}
	if (e->n > first) {
		for (size_t i = 0; i < nout; i++)
			free(out[i].text);
		free(out);
		return -1;
	}
	*v = out;
	*n = nout;
	return 0;
}
