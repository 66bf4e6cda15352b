/*
 * setting_format.c -- a setting's value written back as the file reads
 * it: words quoted where needed, durations in their largest exact unit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"

void
conf_format_ports(struct strbuf *b, const char *indent, const uint16_t *ports, int n)
{
	strbuf_printf(b, "%sports ", indent);
	for (int i = 0; i < n; i++)
		strbuf_printf(b, "%s%u", i ? "," : "", ports[i]);
	strbuf_printf(b, "\n");
}

void
conf_format_duration(char *buf, size_t len, uint32_t secs)
{
	if (secs != 0 && secs % (7 * 86400) == 0)
		snprintf(buf, len, "%uw", secs / (7 * 86400));
	else if (secs != 0 && secs % 86400 == 0)
		snprintf(buf, len, "%ud", secs / 86400);
	else if (secs != 0 && secs % 3600 == 0)
		snprintf(buf, len, "%uh", secs / 3600);
	else if (secs != 0 && secs % 60 == 0)
		snprintf(buf, len, "%um", secs / 60);
	else
		snprintf(buf, len, "%us", secs);
}

/* --- writing back ------------------------------------------------------- */

/* A bare word when it reads back as one, else "quoted" with \" and \\. */
void
conf_quote_word(struct strbuf *b, const char *s)
{
	bool bare = s[0] != '\0';

	for (const char *p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_./:@+-,=[]*", *p) != NULL))
			bare = false;
	if (bare) {
		strbuf_printf(b, "%s", s);
		return;
	}
	strbuf_printf(b, "\"");
	for (const char *p = s; *p != '\0'; p++)
		strbuf_printf(b, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
	strbuf_printf(b, "\"");
}

static void
key_word(struct strbuf *b, const char *indent, const char *key, const char *v)
{
	strbuf_printf(b, "%s%s ", indent, key);
	conf_quote_word(b, v);
	strbuf_printf(b, "\n");
}

/* Where s's value lives in c (top level); NULL for none. */
static const void *
field(const struct setting *s, const struct conf *c)
{
	return s->off != 0 ? (const char *)c + s->off : NULL;
}

void
setting_format(struct strbuf *b, const struct conf *c, const struct setting *s,
    const char *indent)
{
	const void *f = field(s, c);
	const struct probe_settings *ps = &c->probe;
	const char *k = s->key;
	char t[2 * ADDR_STRLEN + 2];
	uint32_t u;
	double d;
	bool yes;
	int i;

	if (f == NULL || k == NULL)
		return;
	switch (s->type) {
	case SETT_UINT:
		memcpy(&u, f, sizeof(u));
		if (u == 0 && s->zero_word != NULL)
			strbuf_printf(b, "%s%s %s\n", indent, k, s->zero_word);
		else if (u != 0 || s->def != NULL)	/* 0 without a default: unset */
			strbuf_printf(b, "%s%s %u\n", indent, k, u);
		break;
	case SETT_SECONDS:
		memcpy(&d, f, sizeof(d));
		strbuf_printf(b, "%s%s %.17g\n", indent, k, d);
		break;
	case SETT_DURATION:
		memcpy(&u, f, sizeof(u));
		conf_format_duration(t, sizeof(t), u);
		strbuf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	case SETT_BOOL:
		memcpy(&yes, f, sizeof(yes));
		strbuf_printf(b, "%s%s %s\n", indent, k, yes ? "yes" : "no");
		break;
	case SETT_CHOICE:
		memcpy(&i, f, sizeof(i));
		strbuf_printf(b, "%s%s %s\n", indent, k, s->choices[i]);
		break;
	case SETT_STRING:
	case SETT_PATH:
	case SETT_CONTACT:
		if (*(char *const *)f != NULL)
			key_word(b, indent, k, *(char *const *)f);
		break;
	case SETT_SCALES:
		strbuf_printf(b, "%s%s ", indent, k);
		for (i = 0; i < ps->nscales; i++)
			strbuf_printf(b, "%s%d", i ? "," : "", ps->scales[i]);
		strbuf_printf(b, "\n");
		break;
	case SETT_PORTS:
		conf_format_ports(b, indent, c->ports, c->nports);
		break;
	case SETT_ADDR:
		if (c->have_source4)
			key_word(b, indent, k, addr_format(&c->source4, t, sizeof(t)));
		if (c->have_source6)
			key_word(b, indent, k, addr_format(&c->source6, t, sizeof(t)));
		break;
	case SETT_RANGE:
		if (c->range4.first.family != 0)
			key_word(b, indent, k, srcrange_format(&c->range4, t, sizeof(t)));
		if (c->range6.first.family != 0)
			key_word(b, indent, k, srcrange_format(&c->range6, t, sizeof(t)));
		break;
	case SETT_PAYLOAD:
		for (size_t n = 0; n < ps->npayloads; n++) {
			if (ps->payloads[n].port == 0)
				strbuf_printf(b, "%s%s * ", indent, k);
			else
				strbuf_printf(b, "%s%s %u ", indent, k, ps->payloads[n].port);
			conf_quote_word(b, ps->payloads[n].path);
			strbuf_printf(b, "\n");
		}
		break;
	case SETT_PREFIXES: {
		const struct conf_prefix *v = s->id == SET_ALLOW ? c->allow : c->block;
		size_t n = s->id == SET_ALLOW ? c->nallow : c->nblock;

		for (size_t j = 0; j < n; j++)
			key_word(b, indent, k, v[j].text);
		break;
	}
	default:
		break;
	}
}

/* Two payload maps alike: the same ports, files and bytes. */
static bool
payloads_equal(const struct probe_settings *a, const struct probe_settings *b)
{
	if (a->npayloads != b->npayloads)
		return false;
	for (size_t i = 0; i < a->npayloads; i++) {
		const struct probe_payload *x = &a->payloads[i], *y = &b->payloads[i];

		if (x->port != y->port || strcmp(x->path, y->path) != 0 || x->len != y->len ||
		    (x->bytes == NULL) != (y->bytes == NULL) ||
		    (x->len > 0 && x->bytes != NULL && memcmp(x->bytes, y->bytes, x->len) != 0))
			return false;
	}
	return true;
}

bool
setting_equal(const struct setting *s, const struct conf *a, const struct conf *b)
{
	const void *fa = field(s, a), *fb = field(s, b);

	if (fa == NULL)
		return true;
	switch (s->type) {
	case SETT_UINT:
	case SETT_DURATION:
		return memcmp(fa, fb, sizeof(uint32_t)) == 0;
	case SETT_SECONDS: {
		double x, y;

		memcpy(&x, fa, sizeof(x));
		memcpy(&y, fb, sizeof(y));
		return x == y;
	}
	case SETT_BOOL:
		return memcmp(fa, fb, sizeof(bool)) == 0;
	case SETT_CHOICE:
		return memcmp(fa, fb, sizeof(int)) == 0;
	case SETT_STRING:
	case SETT_PATH:
	case SETT_CONTACT: {
		const char *x = *(char *const *)fa, *y = *(char *const *)fb;

		return x == y || (x != NULL && y != NULL && strcmp(x, y) == 0);
	}
	case SETT_SCALES:
		return a->probe.nscales == b->probe.nscales && memcmp(a->probe.scales,
		    b->probe.scales, (size_t)a->probe.nscales * sizeof(int)) == 0;
	case SETT_PAYLOAD:
		return payloads_equal(&a->probe, &b->probe);
	default: {
		/* the lists (ports, sources, prefixes): as the file writes them */
		struct strbuf x = { 0 }, y = { 0 };
		bool same;

		setting_format(&x, a, s, "");
		setting_format(&y, b, s, "");
		same = strcmp(strbuf_str(&x), strbuf_str(&y)) == 0;
		strbuf_free(&x);
		strbuf_free(&y);
		return same;
	}
	}
}
