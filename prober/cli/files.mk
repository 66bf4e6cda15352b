# prober/cli: scaleprobe -- its subcommands, the settings table as its
# flags, the output of results.
PURE_SRCS += prober/cli/output.c
CLI_SRCS += prober/cli/cli.c
CLI_SRCS += prober/cli/cmd_probe.c
CLI_SRCS += prober/cli/cmd_config.c
CLI_SRCS += prober/cli/cmd_status.c
CLI_SRCS += prober/cli/cli_settings.c

PROGRAMS += scaleprobe
MAN_PAGES += prober/cli/scaleprobe.1
PURE_SRCS += prober/cli/pcapng.c
PURE_SRCS += prober/cli/csv.c
