/*
 * cli.c -- scaleprobe's main: finds the subcommand in the table and runs it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "version.h"

static const struct cli_command *const commands[] = {
	&cmd_probe_entry,
	&cmd_config_entry,
	&cmd_status_entry,
	&cmd_show_entry,
	&cmd_export_entry,
	&cmd_report_entry,
	&cmd_db_entry,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *f)
{
	fprintf(f, "usage: scaleprobe COMMAND [options] ...\n"
	    "       scaleprobe --version\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n'scaleprobe COMMAND --help' describes each; see scaleprobe(1).\n");
}

int
main(int argc, char **argv)
{
	log_init(1, 0, "scaleprobe");
	/* a misuse is one line; the list of commands is --help's */
	if (argc < 2) {
		fprintf(stderr, "scaleprobe: no command (scaleprobe --help lists them)\n");
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_CLEAN;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("scaleprobe %s\n", SCALEPROBE_VERSION);
		return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_USAGE;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i]->name) == 0)
			return commands[i]->run(argc - 1, argv + 1);
	fprintf(stderr, "scaleprobe: unknown command '%s' (scaleprobe --help lists them)\n",
	    argv[1]);
	return EXIT_USAGE;
}
