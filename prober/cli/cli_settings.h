/*
 * cli_settings.h -- the settings table (settings.h) as getopt_long's
 * options and as the usage text's lines: the command line knows no flag
 * the table does not define.
 */
#ifndef SCALEPROBE_CLI_SETTINGS_H
#define SCALEPROBE_CLI_SETTINGS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "settings.h"

#define CLI_OPT_SET	256	/* + setting id: the flag */
#define CLI_OPT_NO	512	/* + setting id: its negation (--no-window-test) */

struct cli_getopt {
	struct option longopts[2 * SET_COUNT + 1];
	char shortopts[2 * SET_COUNT + 1];
};

/* Every setting the command line has, as getopt_long wants them. */
void cli_getopt_build(struct cli_getopt *g);

/* The setting getopt_long's return value stands for, or NULL ('?');
 * *negated when it was the --no- form. */
const struct setting *cli_getopt_setting(int ch, bool *negated);

/* One usage line (or more) per flag, in the table's order. */
void cli_usage_settings(FILE *f);

#endif
