# config/: the settings table (every setting once, for the command line and
# the file), scaleprobe.conf's parser and printer (pure), and the reading of
# the files a configuration names.
PURE_SRCS += config/settings.c
PURE_SRCS += config/setting_set.c
PURE_SRCS += config/setting_format.c
PURE_SRCS += config/conf_parse.c
PURE_SRCS += config/conf_print.c
PURE_SRCS += config/conf_blocklist.c
PURE_SRCS += config/conf_targets.c
PURE_SRCS += config/conf_shard.c
PROBER_SRCS += config/conf_file.c

MAN_PAGES += config/scaleprobe.conf.5
