/*
 * conf_print.c -- a configuration printed back as scaleprobe.conf text,
 * normalized: what `config check` and `scaleprobed -t` show, and what
 * parses back to the same settings (tests hold it to that).
 */
#include <stdlib.h>

#include "conf.h"

char *
conf_print(const struct conf *c)
{
	struct conf_buf b = { NULL, 0, 0 };
	char d[32];

	conf_buf_printf(&b, "%s", "");
	for (size_t i = 0; i < SET_COUNT; i++)
		if (settings[i].where & SETW_TOP)
			setting_format(&b, c, &settings[i], "");
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct conf_group *g = &c->groups[i];

		conf_buf_printf(&b, "\ngroup ");
		conf_buf_word(&b, g->name);
		conf_format_duration(d, sizeof(d), g->interval);
		conf_buf_printf(&b, " {\n\tinterval %s\n", d);
		conf_format_duration(d, sizeof(d), g->jitter);
		conf_buf_printf(&b, "\tjitter %s\n", d);
		conf_format_ports(&b, "\t", g->ports, g->nports);
		for (size_t k = 0; k < g->ntargets; k++) {
			conf_buf_printf(&b, "\ttarget ");
			conf_buf_word(&b, g->target_text[k]);
			conf_buf_printf(&b, "\n");
		}
		for (size_t k = 0; k < g->nfiles; k++) {
			conf_buf_printf(&b, "\tfile ");
			conf_buf_word(&b, g->files[k].path);
			conf_buf_printf(&b, "\n");
		}
		conf_buf_printf(&b, "}\n");
	}
	return b.p;
}
