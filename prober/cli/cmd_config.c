/*
 * cmd_config.c -- "scaleprobe config": check a configuration file and
 * print it back normalized (as scaleprobed -t will: the sharded groups
 * cut for the vantage, each one's share counted), or print the settings
 * table that the flags and the file both read.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "log.h"

static void
config_usage(FILE *f)
{
	fprintf(f, "usage: scaleprobe config check [-c FILE]\n"
	    "       scaleprobe config settings\n"
	    "  check     check FILE (default %s) and the files it names,\n"
	    "            and print it back normalized; every error as file:line\n"
	    "  settings  every setting: key, flag, type, default\n",
	    CONF_DEFAULT_PATH);
}

static const char *const type_names[] = {
	[SETT_UINT] = "number", [SETT_SECONDS] = "seconds", [SETT_DURATION] = "duration",
	[SETT_BOOL] = "yes|no", [SETT_CHOICE] = "choice", [SETT_STRING] = "string",
	[SETT_PATH] = "file", [SETT_CONTACT] = "url", [SETT_SCALES] = "list",
	[SETT_PORTS] = "port-list", [SETT_ADDR] = "address", [SETT_RANGE] = "address-range", [SETT_PREFIXES] = "cidr-list",
	[SETT_PAYLOAD] = "port-map", [SETT_TARGETS] = "targets", [SETT_SECTION] = "section",
	[SETT_NAMES] = "names", [SETT_ACTION] = "action",
};


/* One line a setting: "key flag type default" ('-' for none); a
 * negating flag and a short option follow the flag, comma-separated. */
static int
config_settings(void)
{
	for (size_t i = 0; i < SET_COUNT; i++) {
		const struct setting *s = &settings[i];
		char flags[64] = "";

		if (s->flag != NULL)
			snprintf(flags, sizeof(flags), "--%s", s->flag);
		if (s->noflag != NULL)
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags),
			    ",--%s", s->noflag);
		if (s->shortopt != 0)
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags),
			    "%s-%c", flags[0] ? "," : "", s->shortopt);
		printf("%s %s %s %s\n", s->key ? s->key : "-", flags[0] ? flags : "-",
		    type_names[s->type] != NULL ? type_names[s->type] : "-", s->def ? s->def : "-");
	}
	return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_USAGE;
}

static int
config_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CONF_DEFAULT_PATH;
	struct conf_errors e = { NULL, 0 };
	struct conf c;
	char *text, vantage[256];
	int ch, status;

	while ((ch = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'h':
			config_usage(stdout);
			return EXIT_CLEAN;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		log_warnx("config check: unexpected '%s' (expected -c FILE)", argv[optind]);
		return EXIT_USAGE;
	}
	conf_init(&c);
	/* the sharded groups cut for the vantage as scaleprobed's would be
	 * (the vantage setting, else this host's name): the same errors */
	if (conf_load(&c, path, &e) == 0) {
		if (c.vantage != NULL)
			snprintf(vantage, sizeof(vantage), "%s", c.vantage);
		else if (gethostname(vantage, sizeof(vantage)) != 0)
			snprintf(vantage, sizeof(vantage), "unknown");
		if (conf_shard_apply(&c, vantage, path, &e) == 0)
			conf_shard_files(&c, path, &e);
	}
	if (e.n > 0) {
		text = conf_errors_text(&e);
		fputs(text, stderr);
		status = EXIT_USAGE;
	} else {
		struct strbuf b = { 0 };

		text = conf_print(&c);
		fputs(text, stdout);
		conf_shard_summary(&b, &c);
		fputs(strbuf_str(&b), stdout);
		strbuf_free(&b);
		status = fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_USAGE;
	}
	free(text);
	conf_errors_free(&e);
	conf_free(&c);
	return status;
}

static int
cmd_config(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return config_check(argc - 1, argv + 1);
	if (argc == 2 && strcmp(argv[1], "settings") == 0)
		return config_settings();
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		config_usage(stdout);
		return EXIT_CLEAN;
	}
	log_warnx("config: expected check [-c FILE] or settings");
	return EXIT_USAGE;
}

const struct cli_command cmd_config_entry = {
	.name = "config",
	.usage = "check [-c FILE] | settings",
	.summary = "check a configuration file and print it back normalized",
	.run = cmd_config,
};
