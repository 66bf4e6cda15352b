# prober/cli: scaleprobe -- its subcommands, the settings table as its
# flags, the output of results.
CLI_SRCS += prober/cli/cli.c
CLI_SRCS += prober/cli/cmd_probe.c
# the CLI's run: one batch, the signals that end it, the progress line
CLI_SRCS += prober/cli/cli_run.c
CLI_SRCS += prober/cli/cmd_config.c
CLI_SRCS += prober/cli/cmd_status.c
# probe --via-daemon and show --live unprivileged: the daemon asked
CLI_SRCS += prober/cli/demand_client.c
CLI_SRCS += prober/cli/cli_settings.c
# report: the store's trends and advice (report.h pure, cmd_report.c the command)
CLI_SRCS += prober/cli/cmd_report.c
PURE_SRCS += prober/cli/report.c
PURE_SRCS += prober/cli/report_changes.c
PURE_SRCS += prober/cli/report_text.c
PURE_SRCS += prober/cli/report_json.c
PURE_SRCS += prober/cli/report_html.c

PROGRAMS += scaleprobe
MAN_PAGES += prober/cli/scaleprobe.1
PURE_SRCS += prober/cli/pcapng.c
PURE_SRCS += prober/cli/csv.c

# show and export: the store read back
PURE_SRCS += prober/cli/show_fold.c
PURE_SRCS += prober/cli/show_render.c
PURE_SRCS += prober/cli/export_render.c
PURE_SRCS += prober/cli/export_pcap.c
# --vantage of show, export and report: which vantages they keep
PURE_SRCS += prober/cli/vantage_filter.c
CLI_SRCS += prober/cli/cli_history.c
CLI_SRCS += prober/cli/cmd_show.c
CLI_SRCS += prober/cli/cmd_show_live.c
CLI_SRCS += prober/cli/cmd_export.c
# db: the store's upkeep for its owner (upgrade with a copy, check, prune)
CLI_SRCS += prober/cli/cmd_db.c
