/*
 * conf_print.c -- a configuration printed back as scaleprobe.conf text,
 * normalized: what `config check` and `scaleprobed -t` show, and what
 * parses back to the same settings (tests hold it to that).
 */
#include <stdio.h>
#include <stdlib.h>

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

void
conf_shaping(const struct conf *c, char *buf, size_t len)
{
	const struct probe_settings *ps = &c->probe;
	size_t n = 0, payload = 0;

	/* the payload for every port (--payload), as before the map */
	if (ps->npayloads > 0 && ps->payloads[0].port == 0)
		payload = ps->payloads[0].len;
	n += (size_t)snprintf(buf + n, len - n, "scales=");
	for (int i = 0; i < ps->nscales && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "", ps->scales[i]);
	if (n < len)
		snprintf(buf + n, len - n, " rate=%u timeout=%g retries=%u trace=%s "
		    "window-test=%s payload=%zu", ps->rate, ps->timeout, ps->retries,
		    settings[SET_TRACE].choices[ps->trace], ps->window_test ? "on" : "off",
		    payload);
}
