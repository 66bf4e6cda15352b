/*
 * cli.h -- the subcommands of scaleprobe, one entry each (as tmux's
 * cmd_entry): cli.c dispatches, each cmd_NAME.c implements one.
 */
#ifndef SCALEPROBE_CLI_H
#define SCALEPROBE_CLI_H

/* Exit statuses (scaleprobe.1 EXIT STATUS; prober/design-notes.md "Output"). */
#define EXIT_CLEAN	0	/* every path measured and ok or unsupported */
#define EXIT_PROBLEM	1	/* a path problem: rewritten, stripped, syn-dropped */
#define EXIT_USAGE	2	/* usage or runtime error, or nothing could be probed */
#define EXIT_UNMEASURED	3	/* no problem, but some path not measured */

struct cli_command {
	const char *name;
	const char *usage;		/* one line, after the command name */
	const char *summary;
	int (*run)(int argc, char **argv);	/* argv[0] is the command name */
};

extern const struct cli_command cmd_probe_entry;
extern const struct cli_command cmd_config_entry;
extern const struct cli_command cmd_status_entry;
extern const struct cli_command cmd_show_entry;
extern const struct cli_command cmd_export_entry;
extern const struct cli_command cmd_report_entry;
extern const struct cli_command cmd_db_entry;

#endif
