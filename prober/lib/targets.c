/*
 * targets.c -- target specs and target-file contents into a list of
 * entries (address, prefix or name, and port), with every error of a file
 * reported in one pass; and the lazy walk over the addresses of prefixes.
 * Pure: targets_file.c reads the file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "targets.h"

/* Where a target text came from, for its error lines. */
struct targets_src {
	const char *fname;	/* NULL: the command line */
	unsigned line;
};

void
targets_init(struct targets *t)
{
	memset(t, 0, sizeof(*t));
}

void
targets_free(struct targets *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].as_given);
		free(t->v[i].name);
	}
	free(t->v);
	strbuf_free(&t->errors);
	targets_init(t);
}

void
targets_add_error(struct targets *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(&t->errors, fmt, ap);
	va_end(ap);
	strbuf_printf(&t->errors, "\n");
	t->nerrors++;
}

/* Appends one error line: "file:line: TARGET: message", the target text
 * escaped (it may hold any byte) and cut at 80 bytes. */
static void targets_error(struct targets *t, const struct targets_src *src,
    const char *tok, size_t toklen, const char *fmt, ...) LOG_PRINTF(5, 6);

static void
targets_error(struct targets *t, const struct targets_src *src, const char *tok,
    size_t toklen, const char *fmt, ...)
{
	char where[300], shown[LOG_ESCAPE_SIZE(80)], msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (src->fname != NULL)
		snprintf(where, sizeof(where), "%s:%u: ", src->fname, src->line);
	else
		where[0] = '\0';
	log_escape(shown, sizeof(shown), tok, toklen > 80 ? 80 : toklen);
	targets_add_error(t, "%s%s%s%s%s", where, shown, toklen > 80 ? "..." : "",
	    toklen > 0 ? ": " : "", msg);
}

/* A port: decimal digits only, 1..65535. */
static int
targets_port(const char *s, uint16_t *port, const char **why)
{
	unsigned long v = 0;
	size_t len = strlen(s);

	if (len == 0) {
		*why = "missing port after ':' (expected 1..65535)";
		return -1;
	}
	if (strspn(s, "0123456789") != len) {
		*why = "port is not a number (expected 1..65535)";
		return -1;
	}
	if (len > 5) {
		*why = "port out of range (expected 1..65535)";
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (v < 1 || v > 65535) {
		*why = "port out of range (expected 1..65535)";
		return -1;
	}
	*port = (uint16_t)v;
	return 0;
}

/* A host name as RFC 1123 allows it: labels of letters, digits and '-',
 * 1..63 long, not starting or ending with '-'; 253 characters at most
 * (a final dot aside).  A last label of digits only is refused (RFC 3696):
 * "198.18.0.256" or "10.1" would otherwise go to the resolver, which may
 * read them as numeric addresses in inet_aton's loose forms. */
static int
targets_hostname(const char *s, char *why, size_t whylen)
{
	size_t len = strlen(s), lablen = 0, labstart = 0;
	bool digits_only = true;

	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len == 0) {
		snprintf(why, whylen, "empty host name");
		return -1;
	}
	if (len > TARGETS_NAME_MAX) {
		snprintf(why, whylen, "host name longer than %d characters",
		    TARGETS_NAME_MAX);
		return -1;
	}
	for (size_t i = 0; i <= len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == len || c == '.') {
			if (lablen == 0) {
				snprintf(why, whylen, "empty label in host name");
				return -1;
			}
			if (s[labstart] == '-' || s[i - 1] == '-') {
				snprintf(why, whylen,
				    "host name label starts or ends with '-'");
				return -1;
			}
			if (i == len && digits_only) {
				snprintf(why, whylen, "not an IPv4 address, and a "
				    "host name cannot end in a number");
				return -1;
			}
			lablen = 0;
			labstart = i + 1;
			digits_only = true;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-')) {
			char shown[LOG_ESCAPE_SIZE(1)];

			log_escape(shown, sizeof(shown), &c, 1);
			snprintf(why, whylen, "'%s' cannot appear in a host name "
			    "(expected letters, digits, '-' and '.')", shown);
			return -1;
		}
		if (c < '0' || c > '9')
			digits_only = false;
		if (++lablen > 63) {
			snprintf(why, whylen, "host name label longer than 63 characters");
			return -1;
		}
	}
	return 0;
}

/* An address or prefix text (no brackets, no port) into tg; a /32 or
 * /128 is a plain address. */
static int
targets_addr(struct target *tg, const char *s, const struct targets_opts *o,
    char *why, size_t whylen)
{
	const char *reason;
	unsigned bits;

	if (addr_parse_prefix(s, &tg->addr, &tg->plen, &reason) == -1) {
		snprintf(why, whylen, "%s", reason);
		return -1;
	}
	bits = (unsigned)addr_len(&tg->addr) * 8;
	if (tg->plen == bits) {
		tg->kind = TARGET_ADDR;
		return 0;
	}
	tg->kind = TARGET_PREFIX;
	if (bits - tg->plen > 32) {
		snprintf(why, whylen, "prefix has 2^%u addresses, at most 2^32 "
		    "can be probed", bits - tg->plen);
		return -1;
	}
	if (!o->allow_large && target_count(tg) > TARGETS_LARGE) {
		snprintf(why, whylen, "prefix has %llu addresses; more than %d "
		    "need --allow-large", (unsigned long long)target_count(tg),
		    TARGETS_LARGE);
		return -1;
	}
	return 0;
}

/* One target text (trimmed, no NUL, at most TARGETS_TEXT_MAX) into tg. */
static int
targets_one(struct target *tg, const char *text, const struct targets_opts *o,
    char *why, size_t whylen)
{
	char buf[TARGETS_TEXT_MAX + 1], *host = buf, *port = NULL, *p;
	const char *reason;
	size_t colons = 0;

	memset(tg, 0, sizeof(*tg));
	tg->port = o->default_port != 0 ? o->default_port : TARGETS_DEFAULT_PORT;
	snprintf(buf, sizeof(buf), "%s", text);
	for (p = buf; *p != '\0'; p++)
		colons += *p == ':';

	if (buf[0] == '[') {
		if ((p = strchr(buf, ']')) == NULL) {
			snprintf(why, whylen, "missing ']' (expected [IPV6]:PORT)");
			return -1;
		}
		*p++ = '\0';
		host = buf + 1;
		if (*p == ':')
			port = p + 1;
		else if (*p != '\0') {
			snprintf(why, whylen, "expected ':PORT' after ']'");
			return -1;
		}
		if (strchr(host, ':') == NULL) {
			snprintf(why, whylen, "brackets are for IPv6 addresses only");
			return -1;
		}
	} else if (colons == 1) {
		p = strchr(buf, ':');
		*p = '\0';
		port = p + 1;
	} else if (colons > 1) {
		/* a bare IPv6 address: its last group is not a port */
		char a[TARGETS_TEXT_MAX + 1];
		struct addr tmp;

		snprintf(a, sizeof(a), "%.*s", (int)strcspn(buf, "/"), buf);
		if (addr_parse(a, &tmp) == -1) {
			snprintf(why, whylen, "not an IPv6 address "
			    "(write [IPV6]:PORT to give a port)");
			return -1;
		}
		return targets_addr(tg, buf, o, why, whylen);
	}

	if (port != NULL && targets_port(port, &tg->port, &reason) == -1) {
		snprintf(why, whylen, "%s", reason);
		return -1;
	}
	if (*host == '\0') {
		snprintf(why, whylen, "missing host before ':'");
		return -1;
	}
	if (buf[0] == '[' || strchr(host, '/') != NULL)
		return targets_addr(tg, host, o, why, whylen);
	if (addr_parse(host, &tg->addr) == 0) {
		tg->kind = TARGET_ADDR;
		tg->plen = (unsigned)addr_len(&tg->addr) * 8;
		return 0;
	}
	if (targets_hostname(host, why, whylen) == -1)
		return -1;
	tg->kind = TARGET_NAME;
	tg->name = xstrdup(host);
	return 0;
}

static void
targets_push(struct targets *t, struct target *tg)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n++] = *tg;
}

static bool
targets_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* One line (or one command-line argument): its single target, if any, is
 * added.  comments: '#' starts one.  Returns 0 (also for an empty line) or
 * -1 with an error line added. */
static int
targets_line(struct targets *t, const char *s, size_t len, bool comments,
    const struct targets_src *src, const struct targets_opts *o)
{
	char text[TARGETS_TEXT_MAX + 1], why[200];
	size_t b, e, rest;
	struct target tg;
	const char *nul;

	if (comments) {
		const char *hash = memchr(s, '#', len);

		if (hash != NULL)
			len = (size_t)(hash - s);
	}
	for (b = 0; b < len && targets_space(s[b]); b++)
		;
	for (e = b; e < len && !targets_space(s[e]); e++)
		;
	for (rest = e; rest < len && targets_space(s[rest]); rest++)
		;
	if (b == e) {
		if (src->fname != NULL)
			return 0;
		targets_error(t, src, "", 0, "empty target");
		return -1;
	}
	if (rest < len) {
		targets_error(t, src, s + b, e - b, "expected one target%s, "
		    "found more text after it", comments ? " per line" : "");
		return -1;
	}
	if ((nul = memchr(s + b, '\0', e - b)) != NULL) {
		targets_error(t, src, s + b, e - b, "NUL byte in target");
		return -1;
	}
	if (e - b > TARGETS_TEXT_MAX) {
		targets_error(t, src, s + b, e - b, "target longer than %d characters",
		    TARGETS_TEXT_MAX);
		return -1;
	}
	memcpy(text, s + b, e - b);
	text[e - b] = '\0';
	if (targets_one(&tg, text, o, why, sizeof(why)) == -1) {
		free(tg.name);
		targets_error(t, src, text, e - b, "%s", why);
		return -1;
	}
	tg.as_given = xstrdup(text);
	tg.line = src->line;
	targets_push(t, &tg);
	return 0;
}

/* Drops the entries from index n on (a failed parse adds none). */
static void
targets_truncate(struct targets *t, size_t n)
{
	while (t->n > n) {
		t->n--;
		free(t->v[t->n].as_given);
		free(t->v[t->n].name);
	}
}

int
targets_parse_spec(struct targets *t, const char *spec, const struct targets_opts *o)
{
	struct targets_src src = { NULL, 0 };

	return targets_line(t, spec, strlen(spec), false, &src, o);
}

int
targets_parse_line(struct targets *t, const char *s, size_t len, const char *fname,
    unsigned line, const struct targets_opts *o)
{
	struct targets_src src = { fname != NULL ? fname : "(buffer)", line };

	return targets_line(t, s, len, true, &src, o);
}

int
targets_parse_buf(struct targets *t, const char *buf, size_t len, const char *fname,
    const struct targets_opts *o)
{
	struct targets_src src = { fname != NULL ? fname : "(buffer)", 0 };
	size_t before = t->n, errors = t->nerrors, off = 0;

	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;

		src.line++;
		targets_line(t, buf + off, n, true, &src, o);
		off += n + 1;
	}
	if (t->nerrors != errors) {
		targets_truncate(t, before);
		return -1;
	}
	return 0;
}

uint64_t
target_count(const struct target *tg)
{
	if (tg->kind != TARGET_PREFIX)
		return 1;
	return 1ULL << (addr_len(&tg->addr) * 8 - tg->plen);
}

int
target_address(const struct target *tg, uint64_t k, struct addr *out)
{
	size_t len = addr_len(&tg->addr);

	if (tg->kind == TARGET_NAME || k >= target_count(tg))
		return -1;
	*out = tg->addr;
	/* add k to the address, byte by byte from the end: the host part is
	 * at most 32 bits (TARGETS_MAX_EXPANSION), so k fits in it */
	for (size_t i = len; i > 0 && k != 0; i--) {
		uint64_t sum = out->bytes[i - 1] + (k & 0xff);

		out->bytes[i - 1] = (uint8_t)sum;
		k = (k >> 8) + (sum >> 8);
	}
	return 0;
}

void
targets_iter_init(struct targets_iter *it, const struct targets *t)
{
	it->t = t;
	it->i = 0;
	it->k = 0;
}

const struct target *
targets_iter_next(struct targets_iter *it, struct addr *addr)
{
	const struct target *tg;

	if (it->i >= it->t->n)
		return NULL;
	tg = &it->t->v[it->i];
	if (tg->kind == TARGET_NAME)
		memset(addr, 0, sizeof(*addr));
	else
		target_address(tg, it->k, addr);
	if (++it->k >= target_count(tg)) {
		it->i++;
		it->k = 0;
	}
	return tg;
}
