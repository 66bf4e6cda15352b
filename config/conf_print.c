/*
 * conf_print.c -- a configuration printed back as scaleprobe.conf text,
 * normalized: what `config check` and `scaleprobed -t` show, and what
 * parses back to the same settings (tests hold it to that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

char *
conf_print(const struct conf *c)
{
	struct strbuf b = { 0 };
	char d[32];

	for (size_t i = 0; i < SET_COUNT; i++)
		if (settings[i].where & SETW_TOP)
			setting_format(&b, c, &settings[i], "");
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct conf_group *g = &c->groups[i];

		strbuf_printf(&b, "\ngroup ");
		conf_quote_word(&b, g->name);
		conf_format_duration(d, sizeof(d), g->interval);
		strbuf_printf(&b, " {\n\tinterval %s\n", d);
		conf_format_duration(d, sizeof(d), g->jitter);
		strbuf_printf(&b, "\tjitter %s\n", d);
		conf_format_ports(&b, "\t", g->ports, g->nports);
		if (g->nshard > 0) {
			strbuf_printf(&b, "\tshard");
			for (size_t k = 0; k < g->nshard; k++) {
				strbuf_printf(&b, " ");
				conf_quote_word(&b, g->shard[k]);
			}
			strbuf_printf(&b, "\n\treplicas %u\n", g->replicas);
		}
		for (size_t k = 0; k < g->ntargets; k++) {
			strbuf_printf(&b, "\ttarget ");
			conf_quote_word(&b, g->target_text[k]);
			strbuf_printf(&b, "\n");
		}
		for (size_t k = 0; k < g->nfiles; k++) {
			strbuf_printf(&b, "\tfile ");
			conf_quote_word(&b, g->files[k].path);
			strbuf_printf(&b, "\n");
		}
		strbuf_printf(&b, "}\n");
	}
	return strbuf_take(&b);
}

/* The settings that shape results (the table's shaping column), as
 * "key=value" words: numbers as the file writes them, the window test
 * "on" or "off", the payload by the length of every port's one. */
void
conf_shaping(const struct conf *c, char *buf, size_t len)
{
	const struct probe_settings *ps = &c->probe;
	struct strbuf b = { 0 };
	const char *sep = "";

	for (size_t i = 0; i < SET_COUNT; i++) {
		const struct setting *s = &settings[i];
		const void *f = (const char *)c + s->off;
		uint32_t u;
		double d;
		bool yes;
		int n;

		if (!s->shaping)
			continue;
		strbuf_printf(&b, "%s%s=", sep, s->key);
		sep = " ";
		switch (s->type) {
		case SETT_SCALES:
			for (n = 0; n < ps->nscales; n++)
				strbuf_printf(&b, "%s%d", n ? "," : "", ps->scales[n]);
			break;
		case SETT_UINT:
		case SETT_DURATION:
			memcpy(&u, f, sizeof(u));
			strbuf_printf(&b, "%u", u);
			break;
		case SETT_SECONDS:
			memcpy(&d, f, sizeof(d));
			strbuf_printf(&b, "%g", d);
			break;
		case SETT_CHOICE:
			memcpy(&n, f, sizeof(n));
			strbuf_printf(&b, "%s", s->choices[n]);
			break;
		case SETT_BOOL:
			memcpy(&yes, f, sizeof(yes));
			strbuf_printf(&b, "%s", yes ? "on" : "off");
			break;
		case SETT_PAYLOAD:
			/* the payload for every port (--payload), as before the map */
			strbuf_printf(&b, "%zu", ps->npayloads > 0 && ps->payloads[0].port == 0 ?
			    ps->payloads[0].len : 0);
			break;
		default:
			break;
		}
	}
	snprintf(buf, len, "%s", strbuf_str(&b));
	strbuf_free(&b);
}
