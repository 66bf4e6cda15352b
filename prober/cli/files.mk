# prober/cli: scaleprobe -- its subcommands, the output of results, the
# --payload file.
PURE_SRCS += prober/cli/output.c
PROBER_SRCS += prober/cli/request_file.c
CLI_SRCS += prober/cli/cli.c
CLI_SRCS += prober/cli/cmd_probe.c
CLI_SRCS += prober/cli/cmd_config.c
CLI_SRCS += prober/cli/cli_settings.c

PROGRAMS += scaleprobe
MAN_PAGES += prober/cli/scaleprobe.1
PURE_SRCS += prober/cli/pcapng.c
PURE_SRCS += prober/cli/csv.c
