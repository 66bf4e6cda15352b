/*
 * setting_set.c -- a setting's value read from text (a flag's argument or
 * a file's words), checked against the table's type and range, into
 * struct conf; the one place each type is parsed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"
#include "shard.h"

/* --- numbers ---------------------------------------------------------- */

void
setting_expected(const struct setting *s, char *buf, size_t len)
{
	if (s->type == SETT_SECONDS)
		snprintf(buf, len, "%s%sin (%g, %g]%s%s", s->noun ? s->noun : "",
		    s->noun ? " " : "", s->lo, s->hi, s->unit ? " " : "",
		    s->unit ? s->unit : "");
	else if (s->type == SETT_DURATION) {
		char lo[32], hi[32];

		conf_format_duration(lo, sizeof(lo), (uint32_t)s->lo);
		conf_format_duration(hi, sizeof(hi), (uint32_t)s->hi);
		snprintf(buf, len, "a duration in %s..%s (N, Ns, Nm, Nh, Nd or Nw)", lo, hi);
	} else
		snprintf(buf, len, "%s%sin %.0f..%.0f%s%s%s%s", s->noun ? s->noun : "",
		    s->noun ? " " : "", s->lo, s->hi, s->unit ? " " : "",
		    s->unit ? s->unit : "", s->zero_word ? " or " : "",
		    s->zero_word ? s->zero_word : "");
}

/* Decimal digits only (no sign, no spaces), into *out; -1 past 2^32-1. */
static int
parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int
parse_duration(const char *s, uint32_t *out)
{
	static const struct { char c; uint32_t mul; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 7 * 86400 },
	};
	char num[16];
	size_t len = strlen(s);
	uint32_t mul = 1, v;

	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (num[len - 1] == units[i].c) {
			mul = units[i].mul;
			num[--len] = '\0';
			break;		/* one unit: "1ms" is no duration */
		}
	if (parse_u32(num, &v) != 0 || (uint64_t)v * mul > UINT32_MAX)
		return -1;
	*out = v * mul;
	return 0;
}

/* --- each type ----------------------------------------------------------- */

/* A comma-separated list of numbers in [s->lo, s->hi], at most max, none
 * twice (a port or a shift given twice is a typo). */
static int
set_list(const struct setting *s, const char *v, int *out, int max, int *nout,
    char *why, size_t whylen)
{
	int vals[CONF_MAX_PORTS > RESULT_MAX_SCALES ? CONF_MAX_PORTS : RESULT_MAX_SCALES];
	int n = 0;
	const char *p = v;

	/* "1,,2" is a typo, not 1,2 */
	if (v[0] == ',' || v[0] == '\0' || v[strlen(v) - 1] == ',' || strstr(v, ",,") != NULL) {
		snprintf(why, whylen, "'%s' has an empty element", v);
		return -1;
	}
	while (*p != '\0') {
		size_t len = strcspn(p, ",");
		char tok[16];
		uint32_t x;

		if (len >= sizeof(tok) || (memcpy(tok, p, len), tok[len] = '\0',
		    parse_u32(tok, &x) != 0) || x < s->lo || x > s->hi) {
			snprintf(why, whylen, "'%.*s' is not %s in %.0f..%.0f",
			    len > 40 ? 40 : (int)len, p, s->noun, s->lo, s->hi);
			return -1;
		}
		if (n == max) {
			snprintf(why, whylen, "at most %d values", max);
			return -1;
		}
		for (int i = 0; i < n && s->id == SET_PORTS; i++)
			if (vals[i] == (int)x) {
				snprintf(why, whylen, "port %u given twice", x);
				return -1;
			}
		vals[n++] = (int)x;
		p += len;
		if (*p == ',')
			p++;
	}
	memcpy(out, vals, (size_t)n * sizeof(*out));
	*nout = n;
	return 0;
}

static int
add_prefix(struct conf_prefix **v, size_t *n, const char *text, unsigned line,
    char *why, size_t whylen)
{
	struct conf_prefix p;
	const char *reason;

	if (addr_parse_prefix(text, &p.net, &p.plen, &reason) == -1) {
		snprintf(why, whylen, "'%s': %s", text, reason);
		return -1;
	}
	p.text = xstrdup(text);
	p.line = line;
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = p;
	return 0;
}

static int
set_payload(struct probe_settings *c, const char *const *vals, size_t nvals, unsigned line,
    char *why, size_t whylen)
{
	uint32_t port = 0;
	const char *path = vals[nvals - 1];
	size_t i;

	if (nvals > 2) {
		snprintf(why, whylen, "expected FILE, or PORT FILE ('*' for every port)");
		return -1;
	}
	if (nvals == 2 && strcmp(vals[0], "*") != 0 &&
	    (parse_u32(vals[0], &port) != 0 || port < 1 || port > 65535)) {
		snprintf(why, whylen, "'%s' is not a port in 1..65535 or '*'", vals[0]);
		return -1;
	}
	if (path[0] == '\0') {
		snprintf(why, whylen, "expected a file name");
		return -1;
	}
	for (i = 0; i < c->npayloads && c->payloads[i].port < port; i++)
		;
	if (i < c->npayloads && c->payloads[i].port == port) {
		if (line != 0) {
			/* a file names each port once; a flag overrides */
			snprintf(why, whylen, "port %s already has a payload on line %u",
			    port == 0 ? "*" : vals[0], c->payloads[i].line);
			return -1;
		}
		free(c->payloads[i].path);
		free(c->payloads[i].bytes);
	} else {
		c->payloads = xreallocarray(c->payloads, c->npayloads + 1,
		    sizeof(*c->payloads));
		memmove(&c->payloads[i + 1], &c->payloads[i],
		    (c->npayloads - i) * sizeof(*c->payloads));
		c->npayloads++;
	}
	c->payloads[i].port = (uint16_t)port;
	c->payloads[i].path = xstrdup(path);
	c->payloads[i].line = line;
	c->payloads[i].bytes = NULL;
	c->payloads[i].len = 0;
	return 0;
}

bool
conf_contact_ok(const char *contact)
{
	size_t len = strlen(contact);

	if (len == 0 || len > PROBE_CONTACT_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)contact[i];

		if (ch <= 0x20 || ch >= 0x7f || strchr("()\\", ch) != NULL)
			return false;
	}
	return true;
}

static void
set_string(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* A list of ports into to[], its length into *n. */
static int
set_ports(const struct setting *s, int *n, uint16_t *to, const char *v, char *why,
    size_t whylen)
{
	int ports[CONF_MAX_PORTS];

	if (set_list(s, v, ports, CONF_MAX_PORTS, n, why, whylen) != 0)
		return -1;
	for (int i = 0; i < *n; i++)
		to[i] = (uint16_t)ports[i];
	return 0;
}

/* A source address: one per family, the last one given. */
static int
set_source(struct conf *c, const char *v, char *why, size_t whylen)
{
	struct addr a;

	if (addr_parse(v, &a) != 0) {
		snprintf(why, whylen, "'%s' is not an IPv4 or IPv6 address", v);
		return -1;
	}
	if (a.family == ADDR_V4) {
		c->source4 = a;
		c->have_source4 = true;
	} else {
		c->source6 = a;
		c->have_source6 = true;
	}
	return 0;
}

/* A range of source addresses: one per family, the last one given. */
static int
set_range(struct conf *c, const char *v, char *why, size_t whylen)
{
	struct srcrange r;

	if (srcrange_parse(v, &r, why, whylen) != 0)
		return -1;
	if (r.first.family == ADDR_V4)
		c->range4 = r;
	else
		c->range6 = r;
	return 0;
}

/* A group's target file, added to its list (not one value). */
static int
add_file(const struct setting *s, struct conf_group *g, const char *v, unsigned line,
    char *why, size_t whylen)
{
	if (v[0] == '\0') {
		snprintf(why, whylen, "expected %s, not an empty string", s->arg);
		return -1;
	}
	if (g == NULL) {
		snprintf(why, whylen, "expected inside a group");
		return -1;
	}
	g->files = xreallocarray(g->files, g->nfiles + 1, sizeof(*g->files));
	/* whole: streamed and scan are read for every file, set only for
	 * the files that stream */
	g->files[g->nfiles] = (struct conf_file){ .path = xstrdup(v), .line = line };
	g->nfiles++;
	return 0;
}

/* A group's shard names, added: visible characters, none twice, at most
 * SHARD_MAX_VANTAGES (a vantage's name is compared as bytes by every
 * daemon of the site, so a name that could be read two ways is refused). */
static int
add_shard(struct conf_group *g, const char *const *vals, size_t nvals, unsigned line,
    char *why, size_t whylen)
{
	if (g == NULL) {
		snprintf(why, whylen, "expected inside a group");
		return -1;
	}
	for (size_t i = 0; i < nvals; i++) {
		size_t len = strlen(vals[i]);
		bool ok = len > 0 && len <= CONF_SHARD_NAME_MAX;

		for (size_t k = 0; k < len && ok; k++)
			ok = (unsigned char)vals[i][k] > 0x20 && (unsigned char)vals[i][k] < 0x7f;
		if (!ok) {
			snprintf(why, whylen, "'%.64s' is not a vantage name of 1..%d visible "
			    "characters", vals[i], CONF_SHARD_NAME_MAX);
			return -1;
		}
		for (size_t k = 0; k < g->nshard; k++)
			if (strcmp(g->shard[k], vals[i]) == 0) {
				snprintf(why, whylen, "'%s' already given on line %u", vals[i],
				    g->shard_line[k]);
				return -1;
			}
		if (g->nshard == SHARD_MAX_VANTAGES) {
			snprintf(why, whylen, "more than %d vantages", SHARD_MAX_VANTAGES);
			return -1;
		}
		g->shard = xreallocarray(g->shard, g->nshard + 1, sizeof(*g->shard));
		g->shard_line = xreallocarray(g->shard_line, g->nshard + 1,
		    sizeof(*g->shard_line));
		g->shard[g->nshard] = xstrdup(vals[i]);
		g->shard_line[g->nshard++] = line;
	}
	return 0;
}

/* Where s's value lives: the group's field inside a group, else the
 * configuration's; NULL for a setting without one (-c, -h). */
static void *
field(const struct setting *s, struct conf *c, struct conf_group *g)
{
	if (g != NULL && s->goff != 0)
		return (char *)g + s->goff;
	return s->off != 0 ? (char *)c + s->off : NULL;
}

/* v checked against s's type and range, into *u / *d; -1 with why. */
static int
check_number(const struct setting *s, const char *v, uint32_t *u, double *d, char *why,
    size_t whylen)
{
	char expect[128], *end;
	bool ok;

	if (s->type == SETT_SECONDS) {
		errno = 0;
		*d = strtod(v, &end);
		ok = errno == 0 && end != v && *end == '\0' && *d > s->lo && *d <= s->hi;
	} else if (s->type == SETT_UINT && s->zero_word != NULL &&
	    strcmp(v, s->zero_word) == 0) {
		*u = 0;
		ok = true;
	} else
		ok = (s->type == SETT_UINT ? parse_u32(v, u) : parse_duration(v, u)) == 0 &&
		    *u >= s->lo && *u <= s->hi;
	if (!ok) {
		setting_expected(s, expect, sizeof(expect));
		snprintf(why, whylen, "'%s' is not %s", v, expect);
		return -1;
	}
	return 0;
}

/* The types stored through the row's offset: checked, then stored. */
static int
set_stored(const struct setting *s, void *f, const char *v, char *why, size_t whylen)
{
	uint32_t u = 0;
	double d = 0;
	int i;
	bool b;

	switch (s->type) {
	case SETT_UINT:
	case SETT_DURATION:
	case SETT_SECONDS:
		if (check_number(s, v, &u, &d, why, whylen) != 0)
			return -1;
		if (s->type == SETT_SECONDS)
			memcpy(f, &d, sizeof(d));
		else
			memcpy(f, &u, sizeof(u));
		return 0;
	case SETT_BOOL:
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0) {
			snprintf(why, whylen, "'%s' is not yes or no", v);
			return -1;
		}
		b = strcmp(v, "yes") == 0;
		memcpy(f, &b, sizeof(b));
		return 0;
	case SETT_CHOICE:
		for (i = 0; s->choices[i] != NULL; i++)
			if (strcmp(v, s->choices[i]) == 0)
				break;
		if (s->choices[i] == NULL) {
			snprintf(why, whylen, "'%s' is not auto, always or never", v);
			return -1;
		}
		memcpy(f, &i, sizeof(i));	/* an int-sized enum (settings.c) */
		return 0;
	case SETT_CONTACT:
		if (!conf_contact_ok(v)) {
			snprintf(why, whylen, "'%s' is not a URL or mailto: address of visible "
			    "ASCII without parentheses or backslash, at most %d bytes", v,
			    PROBE_CONTACT_MAX);
			return -1;
		}
		set_string(f, v);
		return 0;
	case SETT_STRING:
	case SETT_PATH:
		if (v[0] == '\0') {
			snprintf(why, whylen, "expected %s, not an empty string", s->arg);
			return -1;
		}
		set_string(f, v);
		return 0;
	default:
		return 0;
	}
}

int
setting_set(struct conf *c, struct conf_group *g, const struct setting *s,
    const char *const *vals, size_t nvals, unsigned line, char *why, size_t whylen)
{
	const char *v = nvals > 0 ? vals[0] : "";
	void *f = field(s, c, g);

	if (nvals == 0 && s->type != SETT_ACTION) {
		snprintf(why, whylen, "expected %s", s->arg != NULL ? s->arg : "yes or no");
		return -1;
	}
	if (nvals > 1 && s->type != SETT_PREFIXES && s->type != SETT_TARGETS &&
	    s->type != SETT_PAYLOAD && s->type != SETT_NAMES) {
		snprintf(why, whylen, "expected one value, not %zu", nvals);
		return -1;
	}
	if (s->type == SETT_TARGETS && g == NULL) {
		snprintf(why, whylen, "expected inside a group");
		return -1;
	}
	switch (s->type) {
	case SETT_SCALES:
		if (set_list(s, v, c->probe.scales, RESULT_MAX_SCALES, &c->probe.nscales, why,
		    whylen) != 0)
			return -1;
		break;
	case SETT_PORTS:
		if (set_ports(s, g != NULL ? &g->nports : &c->nports, f, v, why, whylen) != 0)
			return -1;
		break;
	case SETT_ADDR:
		if (set_source(c, v, why, whylen) != 0)
			return -1;
		break;
	case SETT_RANGE:
		if (set_range(c, v, why, whylen) != 0)
			return -1;
		break;
	case SETT_PREFIXES:
		for (size_t i = 0; i < nvals; i++)
			if (add_prefix(s->id == SET_ALLOW ? &c->allow : &c->block,
			    s->id == SET_ALLOW ? &c->nallow : &c->nblock, vals[i], line,
			    why, whylen) != 0)
				return -1;
		break;
	case SETT_PAYLOAD:
		if (set_payload(&c->probe, vals, nvals, line, why, whylen) != 0)
			return -1;
		break;
	case SETT_TARGETS:
		for (size_t i = 0; i < nvals; i++) {
			g->target_text = xreallocarray(g->target_text, g->ntargets + 1,
			    sizeof(*g->target_text));
			g->target_line = xreallocarray(g->target_line, g->ntargets + 1,
			    sizeof(*g->target_line));
			g->target_text[g->ntargets] = xstrdup(vals[i]);
			g->target_line[g->ntargets++] = line;
		}
		break;
	case SETT_NAMES:
		if (add_shard(g, vals, nvals, line, why, whylen) != 0)
			return -1;
		break;
	case SETT_SECTION:
		break;
	case SETT_ACTION:
		if (s->id == SET_VERBOSE)
			c->verbose++;
		break;
	default:
		if (s->id == SET_FILE) {
			if (add_file(s, g, v, line, why, whylen) != 0)
				return -1;
		} else if (f != NULL && set_stored(s, f, v, why, whylen) != 0)
			return -1;
		else if (f == NULL && s->type == SETT_PATH && v[0] == '\0') {
			snprintf(why, whylen, "expected %s, not an empty string", s->arg);
			return -1;
		}
		break;
	}
	if (g != NULL && s->gline != 0)
		memcpy((char *)g + s->gline, &line, sizeof(line));
	if (g == NULL)
		c->set_line[s->id] = line;
	return 0;
}
