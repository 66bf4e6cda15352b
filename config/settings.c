/*
 * settings.c -- the table of every setting, and each type's reading from
 * text and writing back: what the command line and the file share.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"

static const char *const trace_choices[] = { "never", "auto", "always", NULL };

/*
 * In enum setting_id's order (test_conf checks it), which is also the
 * order of the usage text and of a printed configuration.  In help, "@D"
 * stands for the default and "@R" for the range.
 */
const struct setting settings[SET_COUNT] = {
	{ SET_CONFIG, NULL, "config", 'c', NULL, SETT_PATH, SETW_CLI, false, false,
	  0, 0, NULL, NULL, NULL, NULL, "FILE",
	  "settings and targets from FILE; flags override it" },
	{ SET_FILE, "file", NULL, 'f', NULL, SETT_PATH, SETW_GROUP | SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "FILE",
	  "read targets from FILE, one per line, # comments" },
	{ SET_SCALES, "scales", "scales", 0, NULL, SETT_SCALES, SETW_TOP | SETW_CLI, false, false,
	  0, 255, "a shift", NULL, NULL, "0,7,14", "LIST",
	  "shifts to probe, @R (default @D)" },
	{ SET_PORTS, "ports", "ports", 0, NULL, SETT_PORTS, SETW_TOP | SETW_GROUP | SETW_CLI,
	  false, false, 1, 65535, "a port", NULL, NULL, "80", "LIST",
	  "ports of targets that name none, @R (default @D)" },
	{ SET_RATE, "rate", "rate", 0, NULL, SETT_UINT, SETW_TOP | SETW_CLI, false, false,
	  1, 10000000, "a rate", NULL, NULL, "100", "PPS",
	  "packets per second, every kind, never more in any\n"
	  "second: @R (default @D)" },
	{ SET_TIMEOUT, "timeout", "timeout", 0, NULL, SETT_SECONDS, SETW_TOP | SETW_CLI, false,
	  false, 0, 60, NULL, "seconds", NULL, "2", "SECONDS",
	  "wait for a reply after each SYN (default @D)" },
	{ SET_RETRIES, "retries", "retries", 0, NULL, SETT_UINT, SETW_TOP | SETW_CLI, false, false,
	  0, 10, NULL, NULL, NULL, "2", "N",
	  "resend a silent SYN N times (default @D)" },
	{ SET_ALLOW, "allow", "allow", 0, NULL, SETT_PREFIXES, SETW_TOP | SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "CIDR",
	  "lift the special-purpose blocklist for CIDR (repeatable)" },
	{ SET_ALLOW_LARGE, "allow-large", "allow-large", 0, NULL, SETT_BOOL, SETW_TOP | SETW_CLI,
	  false, false, 0, 0, NULL, NULL, NULL, "no", NULL,
	  "accept prefixes of more than 256 addresses" },
	{ SET_SOURCE, "source", "source", 0, NULL, SETT_ADDR, SETW_TOP | SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "ADDR",
	  "source address (one per family; default from the route)" },
	{ SET_INTERFACE, "interface", "interface", 0, NULL, SETT_STRING, SETW_TOP | SETW_CLI,
	  false, false, 0, 0, NULL, NULL, NULL, NULL, "NAME",
	  "capture interface (default from the route)" },
	{ SET_VANTAGE, "vantage", "vantage", 0, NULL, SETT_STRING, SETW_TOP | SETW_CLI, false,
	  true, 0, 0, NULL, NULL, NULL, NULL, "NAME",
	  "vantage point name in the results (default host name)" },
	{ SET_TRACE, "trace", "trace", 0, NULL, SETT_CHOICE, SETW_TOP | SETW_CLI, false, false,
	  0, 0, NULL, NULL, trace_choices, "auto", "MODE",
	  "auto (default), always or never: follow each SYN\n"
	  "hop by hop (TTL 1..30) and compare router quotes" },
	{ SET_WINDOW_TEST, "window-test", "window-test", 0, "no-window-test", SETT_BOOL,
	  SETW_TOP | SETW_CLI, false, false, 0, 0, NULL, NULL, NULL, "yes", NULL,
	  "complete a handshake per scale and measure which shift\n"
	  "the server applied (default on: HTTP GET on 80, TLS\n"
	  "ClientHello on 443, --payload FILE elsewhere)" },
	{ SET_PAYLOAD, "payload", "payload", 0, NULL, SETT_PAYLOAD, SETW_TOP | SETW_CLI, true,
	  false, 1, 65535, NULL, NULL, NULL, NULL, "FILE",
	  "the window test's request on any port" },
	{ SET_CONTACT, "contact", "contact", 0, NULL, SETT_CONTACT, SETW_TOP | SETW_CLI, false,
	  false, 0, 0, NULL, NULL, NULL, NULL, "URL",
	  "named in the window test's request, for operators" },
	{ SET_MAX_INFLIGHT, "max-inflight", "max-inflight", 0, NULL, SETT_UINT,
	  SETW_TOP | SETW_CLI, false, false, 1, 1 << 20, NULL, NULL, NULL, NULL, "N",
	  "paths in flight at once, @R (default from\n"
	  "the rate and the timeout)" },
	{ SET_DATABASE, "database", "db", 0, NULL, SETT_PATH, SETW_TOP | SETW_CLI, false, true,
	  0, 0, NULL, NULL, NULL, "/var/lib/scaleprobe/scaleprobe.db", "FILE",
	  "the results database (default @D)" },
	{ SET_JSON, NULL, "json", 0, NULL, SETT_BOOL, SETW_CLI, false, false,
	  0, 0, NULL, NULL, NULL, "no", NULL,
	  "one JSON object per path (NDJSON)" },
	{ SET_VERBOSE, NULL, "verbose", 'v', NULL, SETT_ACTION, SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, NULL,
	  "counters and peak memory on stderr at the end" },
	{ SET_HELP, NULL, "help", 'h', NULL, SETT_ACTION, SETW_CLI, false, false,
	  0, 0, NULL, NULL, NULL, NULL, NULL,
	  "this text" },
	{ SET_BLOCK, "block", NULL, 0, NULL, SETT_PREFIXES, SETW_TOP, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "CIDR",
	  "never probe CIDR, whatever allow says (repeatable)" },
	{ SET_OPTOUT, "opt-out", NULL, 0, NULL, SETT_PATH, SETW_TOP, false, false,
	  0, 0, NULL, NULL, NULL, NULL, "FILE",
	  "ranges whose owners asked not to be probed, one per line (re-read on reload)" },
	{ SET_RETENTION, "retention", NULL, 0, NULL, SETT_UINT, SETW_TOP, false, false,
	  1, 36500, NULL, "days", NULL, "400", "DAYS",
	  "keep results this many days, @R (default @D)" },
	{ SET_INTERVAL, "interval", NULL, 0, NULL, SETT_DURATION, SETW_TOP | SETW_GROUP, false,
	  false, 1, 30 * 86400, NULL, NULL, NULL, "1h", "DURATION",
	  "a group's scans start this often (default @D; top level: every group's)" },
	{ SET_JITTER, "jitter", NULL, 0, NULL, SETT_DURATION, SETW_TOP | SETW_GROUP, false,
	  false, 0, 30 * 86400, NULL, NULL, NULL, "5m", "DURATION",
	  "each target's random slip, at most the interval (default @D)" },
	{ SET_GROUP, "group", NULL, 0, NULL, SETT_SECTION, SETW_TOP, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "NAME",
	  "a group of targets scanned together: group NAME { ... }" },
	{ SET_TARGET, "target", NULL, 0, NULL, SETT_TARGETS, SETW_GROUP, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "TARGET",
	  "targets of the group: HOST, HOST:PORT, [IPV6]:PORT, ADDR/PREFIX" },
};

const struct setting *
setting_by_key(const char *key)
{
	for (size_t i = 0; i < SET_COUNT; i++)
		if (settings[i].key != NULL && strcmp(settings[i].key, key) == 0)
			return &settings[i];
	return NULL;
}

const struct setting *
setting_by_flag(const char *flag)
{
	for (size_t i = 0; i < SET_COUNT; i++)
		if (settings[i].flag != NULL && strcmp(settings[i].flag, flag) == 0)
			return &settings[i];
	return NULL;
}

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
		snprintf(buf, len, "a duration in %s..%s (N, Ns, Nm, Nh or Nd)", lo, hi);
	} else
		snprintf(buf, len, "%s%sin %.0f..%.0f%s%s", s->noun ? s->noun : "",
		    s->noun ? " " : "", s->lo, s->hi, s->unit ? " " : "",
		    s->unit ? s->unit : "");
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
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
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

void
conf_format_ports(struct conf_buf *b, const char *indent, const uint16_t *ports, int n)
{
	conf_buf_printf(b, "%sports ", indent);
	for (int i = 0; i < n; i++)
		conf_buf_printf(b, "%s%u", i ? "," : "", ports[i]);
	conf_buf_printf(b, "\n");
}

void
conf_format_duration(char *buf, size_t len, uint32_t secs)
{
	if (secs != 0 && secs % 86400 == 0)
		snprintf(buf, len, "%ud", secs / 86400);
	else if (secs != 0 && secs % 3600 == 0)
		snprintf(buf, len, "%uh", secs / 3600);
	else if (secs != 0 && secs % 60 == 0)
		snprintf(buf, len, "%um", secs / 60);
	else
		snprintf(buf, len, "%us", secs);
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
set_payload(struct conf *c, const char *const *vals, size_t nvals, unsigned line,
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

	if (len == 0 || len > CONF_CONTACT_MAX)
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

int
setting_set(struct conf *c, struct conf_group *g, const struct setting *s,
    const char *const *vals, size_t nvals, unsigned line, char *why, size_t whylen)
{
	const char *v = nvals > 0 ? vals[0] : "";
	char expect[128];
	uint32_t u = 0;

	if (nvals == 0 && s->type != SETT_ACTION) {
		snprintf(why, whylen, "expected %s", s->arg != NULL ? s->arg : "yes or no");
		return -1;
	}
	if (nvals > 1 && s->type != SETT_PREFIXES && s->type != SETT_TARGETS &&
	    s->type != SETT_PAYLOAD) {
		snprintf(why, whylen, "expected one value, not %zu", nvals);
		return -1;
	}
	switch (s->type) {
	case SETT_UINT:
	case SETT_DURATION:
		if ((s->type == SETT_UINT ? parse_u32(v, &u) : parse_duration(v, &u)) != 0 ||
		    u < s->lo || u > s->hi) {
			setting_expected(s, expect, sizeof(expect));
			snprintf(why, whylen, "'%s' is not %s", v, expect);
			return -1;
		}
		break;
	case SETT_SECONDS: {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (errno != 0 || end == v || *end != '\0' || !(d > s->lo) || d > s->hi) {
			setting_expected(s, expect, sizeof(expect));
			snprintf(why, whylen, "'%s' is not %s", v, expect);
			return -1;
		}
		c->timeout = d;
		break;
	}
	case SETT_BOOL:
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0) {
			snprintf(why, whylen, "'%s' is not yes or no", v);
			return -1;
		}
		break;
	case SETT_CHOICE: {
		int i;

		for (i = 0; s->choices[i] != NULL; i++)
			if (strcmp(v, s->choices[i]) == 0)
				break;
		if (s->choices[i] == NULL) {
			snprintf(why, whylen, "'%s' is not auto, always or never", v);
			return -1;
		}
		c->trace = (enum conf_trace)i;
		break;
	}
	case SETT_STRING:
	case SETT_PATH:
		if (v[0] == '\0') {
			snprintf(why, whylen, "expected %s, not an empty string", s->arg);
			return -1;
		}
		break;
	case SETT_CONTACT:
		if (!conf_contact_ok(v)) {
			snprintf(why, whylen, "'%s' is not a URL or mailto: address of visible "
			    "ASCII without parentheses or backslash, at most %d bytes", v,
			    CONF_CONTACT_MAX);
			return -1;
		}
		set_string(&c->contact, v);
		break;
	case SETT_SCALES:
		if (set_list(s, v, c->scales, RESULT_MAX_SCALES, &c->nscales, why,
		    whylen) != 0)
			return -1;
		break;
	case SETT_PORTS: {
		int ports[CONF_MAX_PORTS], n;

		if (set_list(s, v, ports, CONF_MAX_PORTS, &n, why, whylen) != 0)
			return -1;
		for (int i = 0; i < n; i++) {
			if (g != NULL)
				g->ports[i] = (uint16_t)ports[i];
			else
				c->ports[i] = (uint16_t)ports[i];
		}
		if (g != NULL) {
			g->nports = n;
			g->ports_line = line;
		} else
			c->nports = n;
		break;
	}
	case SETT_ADDR: {
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
		break;
	}
	case SETT_PREFIXES:
		for (size_t i = 0; i < nvals; i++)
			if (add_prefix(s->id == SET_ALLOW ? &c->allow : &c->block,
			    s->id == SET_ALLOW ? &c->nallow : &c->nblock, vals[i], line,
			    why, whylen) != 0)
				return -1;
		break;
	case SETT_PAYLOAD:
		if (set_payload(c, vals, nvals, line, why, whylen) != 0)
			return -1;
		break;
	case SETT_TARGETS:
		if (g == NULL) {
			snprintf(why, whylen, "expected inside a group");
			return -1;
		}
		for (size_t i = 0; i < nvals; i++) {
			g->target_text = xreallocarray(g->target_text, g->ntargets + 1,
			    sizeof(*g->target_text));
			g->target_line = xreallocarray(g->target_line, g->ntargets + 1,
			    sizeof(*g->target_line));
			g->target_text[g->ntargets] = xstrdup(vals[i]);
			g->target_line[g->ntargets++] = line;
		}
		break;
	case SETT_SECTION:
	case SETT_ACTION:
		break;
	}

	switch (s->id) {
	case SET_RATE:
		c->rate = u;
		break;
	case SET_RETRIES:
		c->retries = u;
		break;
	case SET_MAX_INFLIGHT:
		c->max_inflight = u;
		break;
	case SET_RETENTION:
		c->retention = u;
		break;
	case SET_INTERVAL:
		if (g != NULL) {
			g->interval = u;
			g->interval_line = line;
		} else
			c->interval = u;
		break;
	case SET_JITTER:
		if (g != NULL) {
			g->jitter = u;
			g->jitter_line = line;
		} else
			c->jitter = u;
		break;
	case SET_ALLOW_LARGE:
		c->allow_large = strcmp(v, "yes") == 0;
		break;
	case SET_WINDOW_TEST:
		c->window_test = strcmp(v, "yes") == 0;
		break;
	case SET_JSON:
		c->json = strcmp(v, "yes") == 0;
		break;
	case SET_VERBOSE:
		c->verbose++;
		break;
	case SET_DATABASE:
		set_string(&c->database, v);
		break;
	case SET_VANTAGE:
		set_string(&c->vantage, v);
		break;
	case SET_INTERFACE:
		set_string(&c->interface, v);
		break;
	case SET_OPTOUT:
		set_string(&c->optout, v);
		break;
	case SET_FILE:
		if (g == NULL) {
			snprintf(why, whylen, "expected inside a group");
			return -1;
		}
		g->files = xreallocarray(g->files, g->nfiles + 1, sizeof(*g->files));
		g->files[g->nfiles].path = xstrdup(v);
		g->files[g->nfiles++].line = line;
		break;
	default:
		break;
	}
	if (g == NULL)
		c->set_line[s->id] = line;
	return 0;
}

void
conf_init(struct conf *c)
{
	char why[256];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < SET_COUNT; i++) {
		const char *v = settings[i].def;

		/* the table is ours: a default that does not parse is a bug */
		if (v != NULL && setting_set(c, NULL, &settings[i], &v, 1, 0, why,
		    sizeof(why)) != 0)
			fatalx("settings: %s: default %s", settings[i].key, why);
	}
}

static void
group_free(struct conf_group *g)
{
	free(g->name);
	for (size_t i = 0; i < g->ntargets; i++)
		free(g->target_text[i]);
	free(g->target_text);
	free(g->target_line);
	for (size_t i = 0; i < g->nfiles; i++)
		free(g->files[i].path);
	free(g->files);
	targets_free(&g->targets);
}

void
conf_free(struct conf *c)
{
	free(c->database);
	free(c->vantage);
	free(c->interface);
	free(c->contact);
	free(c->optout);
	for (size_t i = 0; i < c->npayloads; i++) {
		free(c->payloads[i].path);
		free(c->payloads[i].bytes);
	}
	free(c->payloads);
	for (size_t i = 0; i < c->nallow; i++)
		free(c->allow[i].text);
	free(c->allow);
	for (size_t i = 0; i < c->nblock; i++)
		free(c->block[i].text);
	free(c->block);
	for (size_t i = 0; i < c->noptout; i++)
		free(c->optout_v[i].text);
	free(c->optout_v);
	for (size_t i = 0; i < c->ngroups; i++)
		group_free(&c->groups[i]);
	free(c->groups);
	memset(c, 0, sizeof(*c));
}

/* --- writing back ------------------------------------------------------- */

void
conf_buf_printf(struct conf_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->cap - b->len < (size_t)n + 1) {
		while (b->cap - b->len < (size_t)n + 1)
			b->cap = b->cap ? b->cap * 2 : 1024;
		b->p = xrealloc(b->p, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A bare word when it reads back as one, else "quoted" with \" and \\. */
void
conf_buf_word(struct conf_buf *b, const char *s)
{
	bool bare = s[0] != '\0';

	for (const char *p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_./:@+-,=[]*", *p) != NULL))
			bare = false;
	if (bare) {
		conf_buf_printf(b, "%s", s);
		return;
	}
	conf_buf_printf(b, "\"");
	for (const char *p = s; *p != '\0'; p++)
		conf_buf_printf(b, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
	conf_buf_printf(b, "\"");
}

static void
key_word(struct conf_buf *b, const char *indent, const char *key, const char *v)
{
	conf_buf_printf(b, "%s%s ", indent, key);
	conf_buf_word(b, v);
	conf_buf_printf(b, "\n");
}

void
setting_format(struct conf_buf *b, const struct conf *c, const struct setting *s,
    const char *indent)
{
	char t[64];
	const char *k = s->key;

	switch (s->id) {
	case SET_DATABASE:
		key_word(b, indent, k, c->database);
		break;
	case SET_VANTAGE:
	case SET_INTERFACE:
	case SET_CONTACT:
	case SET_OPTOUT: {
		const char *v = s->id == SET_VANTAGE ? c->vantage : s->id == SET_INTERFACE ?
		    c->interface : s->id == SET_CONTACT ? c->contact : c->optout;
		if (v != NULL)
			key_word(b, indent, k, v);
		break;
	}
	case SET_SOURCE:
		if (c->have_source4)
			key_word(b, indent, k, addr_format(&c->source4, t, sizeof(t)));
		if (c->have_source6)
			key_word(b, indent, k, addr_format(&c->source6, t, sizeof(t)));
		break;
	case SET_RATE:
		conf_buf_printf(b, "%s%s %u\n", indent, k, c->rate);
		break;
	case SET_SCALES:
		conf_buf_printf(b, "%s%s ", indent, k);
		for (int i = 0; i < c->nscales; i++)
			conf_buf_printf(b, "%s%d", i ? "," : "", c->scales[i]);
		conf_buf_printf(b, "\n");
		break;
	case SET_PORTS:
		conf_format_ports(b, indent, c->ports, c->nports);
		break;
	case SET_TIMEOUT:
		conf_buf_printf(b, "%s%s %.17g\n", indent, k, c->timeout);
		break;
	case SET_RETRIES:
		conf_buf_printf(b, "%s%s %u\n", indent, k, c->retries);
		break;
	case SET_MAX_INFLIGHT:
		if (c->max_inflight != 0)
			conf_buf_printf(b, "%s%s %u\n", indent, k, c->max_inflight);
		break;
	case SET_TRACE:
		conf_buf_printf(b, "%s%s %s\n", indent, k, trace_choices[c->trace]);
		break;
	case SET_WINDOW_TEST:
		conf_buf_printf(b, "%s%s %s\n", indent, k, c->window_test ? "yes" : "no");
		break;
	case SET_ALLOW_LARGE:
		conf_buf_printf(b, "%s%s %s\n", indent, k, c->allow_large ? "yes" : "no");
		break;
	case SET_PAYLOAD:
		for (size_t i = 0; i < c->npayloads; i++) {
			if (c->payloads[i].port == 0)
				conf_buf_printf(b, "%s%s * ", indent, k);
			else
				conf_buf_printf(b, "%s%s %u ", indent, k, c->payloads[i].port);
			conf_buf_word(b, c->payloads[i].path);
			conf_buf_printf(b, "\n");
		}
		break;
	case SET_RETENTION:
		conf_buf_printf(b, "%s%s %u\n", indent, k, c->retention);
		break;
	case SET_ALLOW:
		for (size_t i = 0; i < c->nallow; i++)
			key_word(b, indent, k, c->allow[i].text);
		break;
	case SET_BLOCK:
		for (size_t i = 0; i < c->nblock; i++)
			key_word(b, indent, k, c->block[i].text);
		break;
	case SET_INTERVAL:
		conf_format_duration(t, sizeof(t), c->interval);
		conf_buf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	case SET_JITTER:
		conf_format_duration(t, sizeof(t), c->jitter);
		conf_buf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	default:
		break;
	}
}

size_t
conf_needs_restart(const struct conf *old, const struct conf *new, const char **names,
    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < SET_COUNT && n < max; i++) {
		struct conf_buf a = { NULL, 0, 0 }, b = { NULL, 0, 0 };

		if (!settings[i].restart)
			continue;
		/* as the file would write them: one comparison for every type */
		conf_buf_printf(&a, "%s", "");
		conf_buf_printf(&b, "%s", "");
		setting_format(&a, old, &settings[i], "");
		setting_format(&b, new, &settings[i], "");
		if (strcmp(a.p, b.p) != 0)
			names[n++] = settings[i].key;
		free(a.p);
		free(b.p);
	}
	return n;
}
