/*
 * mbox_rules.c -- the emulator's rules file -> struct mbox_rules.
 *
 * Owns the grammar (MBOX.md): tokens, addresses, action names and their
 * arguments, the one-SYN-action/one-quote-action-per-address rule, and the
 * "file:line: what was expected" messages, all collected in one pass so a lab
 * author fixes a broken file in one go.  No I/O: bytes in, struct out.
 */
#include "mbox_rules.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MBOX_TOKENS_MAX	4	/* ADDR ACTION ARG, and one to see extras */
#define MBOX_SHOW_MAX	40	/* characters of a bad token quoted back */

/* One action name and what it needs. */
struct mbox_action_def {
	const char		*name;
	int			 is_quote;
	int			 code;	/* enum mbox_syn_action or _quote_action */
	unsigned int		 max;	/* largest argument; 0: takes none */
	const char		*what;	/* what the argument is, for messages */
};

static const struct mbox_action_def mbox_actions[] = {
	{ "pass",	  0, MBOX_SYN_PASS,	 0,	 NULL },
	{ "ws-set",	  0, MBOX_SYN_WS_SET,	 255,	 "a shift count 0..255" },
	{ "ws-cap",	  0, MBOX_SYN_WS_CAP,	 255,	 "a shift count 0..255" },
	{ "ws-nop",	  0, MBOX_SYN_WS_NOP,	 0,	 NULL },
	{ "ws-strip",	  0, MBOX_SYN_WS_STRIP,	 0,	 NULL },
	{ "drop-ws",	  0, MBOX_SYN_DROP_WS,	 0,	 NULL },
	{ "mss-clamp",	  0, MBOX_SYN_MSS_CLAMP, 65535,	 "an MSS 0..65535" },
	{ "ts-strip",	  0, MBOX_SYN_TS_STRIP,	 0,	 NULL },
	{ "quote-8byte",  1, MBOX_QUOTE_8BYTE,	 0,	 NULL },
	{ "quote-silent", 1, MBOX_QUOTE_SILENT,	 0,	 NULL },
	{ "quote-full",	  1, MBOX_QUOTE_FULL,	 0,	 NULL },
};
#define MBOX_NACTIONS	(sizeof(mbox_actions) / sizeof(mbox_actions[0]))

/* A token: a span of the line, not NUL-terminated. */
struct mbox_tok {
	const char	*p;
	size_t		 n;
};

/* The parser's state across lines. */
struct mbox_parse {
	struct mbox_rules	*rs;
	const char		*name;
	int			 line;
	int			 nomem;
	size_t			 cap;	/* allocated entries of rs->rule */
};

static void mbox_rules_error(struct mbox_parse *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends one "name:line: message" to rs->errors. */
static void
mbox_rules_error(struct mbox_parse *ps, const char *fmt, ...)
{
	struct mbox_rules *rs = ps->rs;
	char msg[512];
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rs->nerrors++;
	n = snprintf(NULL, 0, "%s:%d: %s\n", ps->name, ps->line, msg);
	if (n < 0 || (p = realloc(rs->errors, rs->errors_len + n + 1)) == NULL) {
		ps->nomem = 1;
		return;
	}
	rs->errors = p;
	snprintf(p + rs->errors_len, n + 1, "%s:%d: %s\n", ps->name, ps->line,
	    msg);
	rs->errors_len += n;
}

/* A token made printable for a message: control bytes and non-ASCII as \xNN. */
static const char *
mbox_rules_show(struct mbox_tok t, char *buf, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < t.n && o + 5 < size; i++) {
		unsigned char c = (unsigned char)t.p[i];

		if (i == MBOX_SHOW_MAX) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = (char)c;
		else
			o += snprintf(buf + o, size - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

static int
mbox_tok_is(struct mbox_tok t, const char *s)
{
	return strlen(s) == t.n && memcmp(t.p, s, t.n) == 0;
}

/* Decimal 0..max, digits only; -1 for anything else. */
static long
mbox_rules_number(struct mbox_tok t, unsigned int max)
{
	long v = 0;
	size_t i;

	if (t.n == 0 || t.n > 6)
		return -1;
	for (i = 0; i < t.n; i++) {
		if (t.p[i] < '0' || t.p[i] > '9')
			return -1;
		v = v * 10 + (t.p[i] - '0');
	}
	return v <= (long)max ? v : -1;
}

/* IPv4 dotted quad or IPv6 text into a; 0 on success. */
static int
mbox_rules_addr(struct mbox_tok t, struct mbox_addr *a)
{
	char s[INET6_ADDRSTRLEN + 1];

	if (t.n >= sizeof(s))
		return -1;
	memcpy(s, t.p, t.n);
	s[t.n] = '\0';
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->bytes) == 1) {
		a->family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->bytes) == 1) {
		a->family = 6;
		return 0;
	}
	return -1;
}

const struct mbox_rule *
mbox_rules_find(const struct mbox_rules *rs, int family, const uint8_t *addr)
{
	size_t i, n = family == 4 ? 4 : 16;

	for (i = 0; i < rs->nrules; i++)
		if (rs->rule[i].addr.family == family &&
		    memcmp(rs->rule[i].addr.bytes, addr, n) == 0)
			return &rs->rule[i];
	return NULL;
}

/* The rule for a, created empty when new; NULL when memory ran out. */
static struct mbox_rule *
mbox_rules_get(struct mbox_parse *ps, const struct mbox_addr *a)
{
	struct mbox_rules *rs = ps->rs;
	struct mbox_rule *r;
	size_t i;

	for (i = 0; i < rs->nrules; i++)
		if (rs->rule[i].addr.family == a->family &&
		    memcmp(rs->rule[i].addr.bytes, a->bytes, 16) == 0)
			return &rs->rule[i];
	if (rs->nrules == ps->cap) {
		size_t ncap = ps->cap ? ps->cap * 2 : 16;

		if ((r = realloc(rs->rule, ncap * sizeof(*r))) == NULL) {
			ps->nomem = 1;
			return NULL;
		}
		rs->rule = r;
		ps->cap = ncap;
	}
	r = &rs->rule[rs->nrules++];
	memset(r, 0, sizeof(*r));
	r->addr = *a;
	return r;
}

/* Applies one line's tokens (at least one) to the rule set. */
static void
mbox_rules_line(struct mbox_parse *ps, struct mbox_tok *tok, int ntok)
{
	const struct mbox_action_def *d = NULL;
	struct mbox_rule *r;
	struct mbox_addr a;
	char show[4 * MBOX_SHOW_MAX + 8];
	long arg = 0;
	size_t i;

	if (mbox_rules_addr(tok[0], &a) != 0) {
		mbox_rules_error(ps, "expected an IPv4 or IPv6 address, got '%s'",
		    mbox_rules_show(tok[0], show, sizeof(show)));
		return;
	}
	if (ntok < 2) {
		mbox_rules_error(ps, "expected an action after the address");
		return;
	}
	for (i = 0; i < MBOX_NACTIONS; i++)
		if (mbox_tok_is(tok[1], mbox_actions[i].name))
			d = &mbox_actions[i];
	if (d == NULL) {
		mbox_rules_error(ps, "expected an action (pass, ws-set, ws-cap, "
		    "ws-nop, ws-strip, drop-ws, mss-clamp, ts-strip, quote-8byte, "
		    "quote-silent, quote-full), got '%s'",
		    mbox_rules_show(tok[1], show, sizeof(show)));
		return;
	}
	if (d->max > 0) {
		if (ntok < 3) {
			mbox_rules_error(ps, "%s: expected %s", d->name, d->what);
			return;
		}
		if ((arg = mbox_rules_number(tok[2], d->max)) < 0) {
			mbox_rules_error(ps, "%s: expected %s, got '%s'", d->name,
			    d->what, mbox_rules_show(tok[2], show, sizeof(show)));
			return;
		}
	}
	if (ntok > (d->max > 0 ? 3 : 2)) {
		mbox_rules_error(ps, "%s: expected the end of the line, got '%s'",
		    d->name, mbox_rules_show(tok[d->max > 0 ? 3 : 2], show,
		    sizeof(show)));
		return;
	}
	if ((r = mbox_rules_get(ps, &a)) == NULL)
		return;
	if (d->is_quote) {
		if (r->quote != MBOX_QUOTE_NONE) {
			mbox_rules_error(ps, "expected at most one quote action "
			    "per address (line %d has %s)", r->quote_line,
			    mbox_rules_quote_name(r->quote));
			return;
		}
		r->quote = (enum mbox_quote_action)d->code;
		r->quote_line = ps->line;
	} else {
		if (r->syn != MBOX_SYN_NONE) {
			mbox_rules_error(ps, "expected at most one SYN action "
			    "per address (line %d has %s)", r->syn_line,
			    mbox_rules_syn_name(r->syn));
			return;
		}
		r->syn = (enum mbox_syn_action)d->code;
		r->syn_arg = (unsigned int)arg;
		r->syn_line = ps->line;
	}
}

int
mbox_rules_parse(struct mbox_rules *rs, const char *name, const char *text,
    size_t len)
{
	struct mbox_parse ps = { rs, name, 0, 0, 0 };
	struct mbox_tok tok[MBOX_TOKENS_MAX];
	size_t i = 0;

	memset(rs, 0, sizeof(*rs));
	while (i < len && !ps.nomem) {
		int ntok = 0, nul = 0, comment = 0;

		ps.line++;
		while (i < len && text[i] != '\n') {
			char c = text[i];

			if (c == '\0')
				nul = 1;
			if (c == '#')
				comment = 1;
			if (comment || c == ' ' || c == '\t' || c == '\r' ||
			    c == '\0') {
				i++;
				continue;
			}
			if (ntok < MBOX_TOKENS_MAX) {
				tok[ntok].p = text + i;
				tok[ntok].n = 0;
			}
			while (i < len && text[i] != '\n' && text[i] != ' ' &&
			    text[i] != '\t' && text[i] != '\r' &&
			    text[i] != '\0' && text[i] != '#') {
				if (ntok < MBOX_TOKENS_MAX)
					tok[ntok].n++;
				i++;
			}
			if (ntok < MBOX_TOKENS_MAX)
				ntok++;
		}
		i++;	/* the newline */
		if (nul)
			mbox_rules_error(&ps, "expected text, got a NUL byte");
		else if (ntok > 0)
			mbox_rules_line(&ps, tok, ntok);
	}
	if (rs->nerrors > 0) {
		free(rs->rule);
		rs->rule = NULL;
		rs->nrules = 0;
	}
	return ps.nomem ? -1 : rs->nerrors;
}

void
mbox_rules_free(struct mbox_rules *rs)
{
	free(rs->rule);
	free(rs->errors);
	memset(rs, 0, sizeof(*rs));
}

const char *
mbox_rules_syn_name(enum mbox_syn_action a)
{
	size_t i;

	for (i = 0; i < MBOX_NACTIONS; i++)
		if (!mbox_actions[i].is_quote && mbox_actions[i].code == (int)a)
			return mbox_actions[i].name;
	return "";
}

const char *
mbox_rules_quote_name(enum mbox_quote_action a)
{
	size_t i;

	for (i = 0; i < MBOX_NACTIONS; i++)
		if (mbox_actions[i].is_quote && mbox_actions[i].code == (int)a)
			return mbox_actions[i].name;
	return "";
}

int
mbox_rules_format(const struct mbox_rule *r, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	char arg[16] = "";
	int n = 0, m;

	if (inet_ntop(r->addr.family == 4 ? AF_INET : AF_INET6, r->addr.bytes,
	    a, sizeof(a)) == NULL)
		a[0] = '\0';
	if (size > 0)
		buf[0] = '\0';
	if (r->syn != MBOX_SYN_NONE) {
		if (r->syn == MBOX_SYN_WS_SET || r->syn == MBOX_SYN_WS_CAP ||
		    r->syn == MBOX_SYN_MSS_CLAMP)
			snprintf(arg, sizeof(arg), " %u", r->syn_arg);
		n = snprintf(buf, size, "%s %s%s\n", a,
		    mbox_rules_syn_name(r->syn), arg);
		if (n < 0)
			return n;
	}
	if (r->quote != MBOX_QUOTE_NONE) {
		m = snprintf((size_t)n < size ? buf + n : NULL,
		    (size_t)n < size ? size - n : 0, "%s %s\n", a,
		    mbox_rules_quote_name(r->quote));
		if (m < 0)
			return m;
		n += m;
	}
	return n;
}
