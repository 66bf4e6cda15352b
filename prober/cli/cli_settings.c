/*
 * cli_settings.c -- getopt_long's option table and the usage lines, both
 * built from the settings table.
 */
#include <stdio.h>
#include <string.h>

#include "cli_settings.h"

static bool
takes_arg(const struct setting *s)
{
	return s->type != SETT_BOOL && s->type != SETT_ACTION;
}

void
cli_getopt_build(struct cli_getopt *g)
{
	size_t nl = 0, ns = 0;

	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < SET_COUNT; i++) {
		const struct setting *s = &settings[i];

		if (!(s->where & SETW_CLI))
			continue;
		if (s->flag != NULL)
			g->longopts[nl++] = (struct option){ s->flag,
			    takes_arg(s) ? required_argument : no_argument, NULL,
			    CLI_OPT_SET + (int)s->id };
		if (s->noflag != NULL)
			g->longopts[nl++] = (struct option){ s->noflag, no_argument, NULL,
			    CLI_OPT_NO + (int)s->id };
		if (s->shortopt != 0) {
			g->shortopts[ns++] = s->shortopt;
			if (takes_arg(s))
				g->shortopts[ns++] = ':';
		}
	}
}

const struct setting *
cli_getopt_setting(int ch, bool *negated)
{
	*negated = false;
	if (ch >= CLI_OPT_NO && ch < CLI_OPT_NO + SET_COUNT) {
		*negated = true;
		return &settings[ch - CLI_OPT_NO];
	}
	if (ch >= CLI_OPT_SET && ch < CLI_OPT_SET + SET_COUNT)
		return &settings[ch - CLI_OPT_SET];
	for (size_t i = 0; i < SET_COUNT; i++)
		if (ch > 0 && settings[i].shortopt == ch && (settings[i].where & SETW_CLI))
			return &settings[i];
	return NULL;
}

/* help with "@D" as the default and "@R" as the range. */
static void
expand(char *out, size_t len, const struct setting *s)
{
	size_t o = 0;

	for (const char *p = s->help; *p != '\0' && o + 1 < len; p++) {
		char sub[64];

		if (p[0] == '@' && (p[1] == 'D' || p[1] == 'R')) {
			if (p[1] == 'D')
				snprintf(sub, sizeof(sub), "%s", s->def ? s->def : "none");
			else
				snprintf(sub, sizeof(sub), "%.0f..%.0f", s->lo, s->hi);
			o += (size_t)snprintf(out + o, len - o, "%s", sub);
			if (o >= len)
				o = len - 1;
			p++;
			continue;
		}
		out[o++] = *p;
	}
	out[o] = '\0';
}

void
cli_usage_settings(FILE *f)
{
	for (size_t i = 0; i < SET_COUNT; i++) {
		const struct setting *s = &settings[i];
		char left[64], help[512], *line, *save = NULL;
		bool first = true;

		if (!(s->where & SETW_CLI))
			continue;
		if (s->noflag != NULL)
			snprintf(left, sizeof(left), "--[no-]%s", s->flag);
		else if (s->shortopt != 0 && s->flag != NULL)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", s->shortopt, s->flag,
			    s->arg ? " " : "", s->arg ? s->arg : "");
		else if (s->shortopt != 0)
			snprintf(left, sizeof(left), "-%c%s%s", s->shortopt,
			    s->arg ? " " : "", s->arg ? s->arg : "");
		else
			snprintf(left, sizeof(left), "--%s%s%s", s->flag,
			    s->arg && takes_arg(s) ? " " : "", takes_arg(s) && s->arg ?
			    s->arg : "");
		expand(help, sizeof(help), s);
		for (line = strtok_r(help, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			fprintf(f, "  %-19s %s\n", first ? left : "", line);
			first = false;
		}
	}
}
