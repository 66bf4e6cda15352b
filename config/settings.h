/*
 * settings.h -- every setting of scaleprobe and scaleprobed, defined once:
 * the table (name, flag, type, range, default, help) that the command
 * line, the configuration file, the usage text and the man pages all read,
 * and struct conf, the one configuration that holds the result.
 *
 * A setting is set from text (a flag's argument or a file's value) by
 * setting_set(); its default is text in the table, set through the same
 * function by conf_init(), so defaults live in the table and nowhere else.
 * setting_format() writes a value back as the file would read it, and
 * setting_equal() compares two configurations' values (a reload's test).
 * Each row names its field in struct conf by offset and type: the types
 * UINT, SECONDS, DURATION, BOOL, CHOICE, STRING, PATH and CONTACT are
 * stored, written and compared through it with no code of their own.
 * The probing settings live in struct probe_settings (probe_settings.h),
 * which the runner is handed as it is.
 *
 * Pure: no I/O.  Files named by settings (payloads, target files, the
 * opt-out list) are read by conf_file.c.
 */
#ifndef SCALEPROBE_SETTINGS_H
#define SCALEPROBE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "probe_settings.h"
#include "result.h"
#include "shard.h"
#include "srcrange.h"
#include "strbuf.h"
#include "targets.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#define CONF_DEFAULT_PATH SYSCONFDIR "/scaleprobe/scaleprobe.conf"

/* A shard's vantage name, at most (the daemon keeps its own in 256). */
#define CONF_SHARD_NAME_MAX 255

/* Ports a target without one is probed on, at most. */
#define CONF_MAX_PORTS 16

enum setting_id {
	SET_CONFIG,		/* -c FILE: the command line only */
	SET_FILE,
	SET_SCALES,
	SET_PORTS,
	SET_RATE,
	SET_TIMEOUT,
	SET_RETRIES,
	SET_ALLOW,
	SET_ALLOW_LARGE,
	SET_SOURCE,
	SET_SOURCE_RANGE,
	SET_INTERFACE,
	SET_VANTAGE,
	SET_TRACE,
	SET_WINDOW_TEST,
	SET_PAYLOAD,
	SET_CONTACT,
	SET_MAX_INFLIGHT,
	SET_SYN_TTL,
	SET_FLOWS,
	SET_DATABASE,
	SET_JSON,
	SET_VIA_DAEMON,
	SET_VERBOSE,
	SET_HELP,
	SET_BLOCK,
	SET_OPTOUT,
	SET_RETENTION,
	SET_UPLOAD,
	SET_UPLOAD_ALERT,
	SET_ALERT_CONFIRM,
	SET_ALERT_WINDOW,
	SET_ALERT_COMMAND,
	SET_ALERT_TIMEOUT,
	SET_ALERT_RETRY,
	SET_INCIDENT_PATHS,
	SET_CONTROL,
	SET_ON_DEMAND,
	SET_ON_DEMAND_RATE,
	SET_ON_DEMAND_TARGETS,
	SET_INTERVAL,
	SET_JITTER,
	SET_GROUP,
	SET_TARGET,
	SET_SHARD,
	SET_REPLICAS,
	SET_COUNT
};

enum setting_type {
	/* stored through the row's offset (into the field's C type): */
	SETT_UINT,		/* uint32_t: decimal in [lo, hi]; 0 and no
				   default: unset, not written back */
	SETT_SECONDS,		/* double: a decimal number of seconds in (lo, hi] */
	SETT_DURATION,		/* uint32_t: N, Ns, Nm, Nh, Nd or Nw in [lo, hi] s */
	SETT_BOOL,		/* bool: yes | no; a flag without argument: yes */
	SETT_CHOICE,		/* int-sized enum: the index in choices[] */
	SETT_STRING,		/* char *: any text of visible characters */
	SETT_PATH,		/* char *: a file name */
	SETT_CONTACT,		/* char *: a URL or mailto: for the HTTP request */
	/* each with code of its own: */
	SETT_SCALES,		/* a list of shifts: 0,7,14 */
	SETT_PORTS,		/* a list of ports: 80,443 */
	SETT_ADDR,		/* an IPv4 or IPv6 address, one per family */
	SETT_RANGE,		/* A-B or a CIDR of addresses, one per family */
	SETT_PREFIXES,		/* CIDRs, repeatable */
	SETT_PAYLOAD,		/* [PORT|*] FILE: a map of port to request file */
	SETT_TARGETS,		/* target specs, repeatable */
	SETT_SECTION,		/* group NAME { ... } */
	SETT_NAMES,		/* names of visible characters, repeatable */
	SETT_ACTION,		/* a flag that does something (-v, -h) */
};

/* on-demand: what members of the control socket's group may have the
 * daemon probe (scaleprobed(8) "ON DEMAND"); the choices' order */
enum on_demand_mode {
	ON_DEMAND_OFF,
	ON_DEMAND_GROUP_TARGETS,	/* the groups' targets only */
	ON_DEMAND_ALLOWED,		/* any address the lists allow */
};

/* Where a setting may appear. */
#define SETW_TOP	0x1	/* the configuration file, outside groups */
#define SETW_GROUP	0x2	/* inside a group { } */
#define SETW_CLI	0x4	/* scaleprobe probe's command line */

struct setting {
	enum setting_id id;
	const char *key;	/* the file's key; NULL: command line only */
	const char *flag;	/* long option; NULL: file only */
	char shortopt;		/* short option or 0 */
	const char *noflag;	/* a BOOL's negating long option, or NULL */
	enum setting_type type;
	unsigned where;		/* SETW_* */
	bool repeat;		/* may be given more than once */
	bool restart;		/* the daemon needs a restart to change it */
	bool shaping;		/* shapes results: in each run's settings text
				   (conf_shaping), in the table's order */
	size_t off;		/* its field in struct conf (never 0) */
	size_t goff, gline;	/* inside a group: its field and line in
				   struct conf_group; 0: none */
	double lo, hi;		/* range of numbers */
	const char *noun;	/* "a rate": "'0' is not a rate in 1..10000000" */
	const char *unit;	/* after the range: "seconds" */
	const char *const *choices;
	const char *zero_word;	/* a SETT_UINT's word for 0, which the range
				   then leaves out ("auto"); NULL: none */
	const char *def;	/* the default, as the file writes it; NULL: none */
	const char *arg;	/* the argument's name in the usage: "PPS" */
	const char *help;	/* usage text; "\n" continues on the next line */
};

extern const struct setting settings[SET_COUNT];

/* By file key or long option; NULL when there is none. */
const struct setting *setting_by_key(const char *key);
const struct setting *setting_by_flag(const char *flag);

struct conf_prefix {
	struct addr net;
	unsigned plen;
	char *text;		/* as written */
	unsigned line;
};

struct conf_file {
	char *path;
	unsigned line;
	bool streamed;			/* more than TARGETS_STREAM_MIN targets:
					   not in the group's targets, read as
					   each cycle walks it */
	struct targets_scan scan;	/* ... its figures */
};

struct conf_group {
	char *name;
	unsigned line;
	uint32_t interval, jitter;	/* seconds */
	uint16_t ports[CONF_MAX_PORTS];
	int nports;
	unsigned interval_line, jitter_line, ports_line;	/* 0: inherited */
	char **target_text;		/* inline targets as written */
	unsigned *target_line;
	size_t ntargets;
	struct conf_file *files;
	size_t nfiles;
	struct targets targets;		/* inline targets, then the files' */
	char **shard;			/* the site's vantages sharing the group
					   (shard.h); none: not sharded */
	unsigned *shard_line;
	size_t nshard;
	uint32_t replicas;		/* owners per target, capped at nshard */
	unsigned replicas_line;
	bool *mine;			/* per targets.v[]: this vantage's
					   (conf_shard_apply); NULL: all */
	struct shard_sel sel;		/* ... and its streamed files' cut */
	size_t shard_total, shard_owned;	/* targets as written, and ours */
	bool broken;			/* its group line was wrong: no more
					   errors are told about it */
};

struct conf {
	unsigned set_line[SET_COUNT];	/* where each was last set; 0: default
					   (first: no setting's offset is 0) */
	struct probe_settings probe;	/* what shapes every path, as the
					   runner takes it */
	char *database;
	char *vantage;			/* NULL: the host name */
	char *interface;		/* NULL: from the route */
	struct addr source4, source6;
	bool have_source4, have_source6;
	struct srcrange range4, range6;	/* --source-range; first.family 0:
					   none (the source or the route's) */
	uint16_t ports[CONF_MAX_PORTS];	/* for targets that name none */
	int nports;
	uint32_t retention;		/* days */
	char *upload;			/* the shared PostgreSQL's URI, or NULL */
	uint32_t upload_alert;		/* seconds: a backlog older alerts */
	uint32_t alert_confirm;		/* an alert needs this many ... */
	uint32_t alert_window;		/* ... of the last this many runs */
	char *alert_command;		/* run with the change as JSON on stdin */
	uint32_t alert_timeout;		/* seconds: then it is killed */
	uint32_t alert_retry;		/* seconds before a failed run's retry */
	uint32_t incident_paths;	/* raises at one hop in a cycle that make an
					   incident; 0: never */
	char *control;			/* the daemon's control socket */
	int on_demand;			/* enum on_demand_mode */
	uint32_t on_demand_rate;	/* requests a user may make a minute */
	uint32_t on_demand_targets;	/* targets a request may name */
	struct conf_prefix *allow, *block;
	size_t nallow, nblock;
	bool allow_large;
	char *optout;
	struct conf_prefix *optout_v;	/* the opt-out file's ranges */
	size_t noptout;
	uint32_t interval, jitter;	/* the groups' defaults, seconds */
	struct conf_group *groups;
	size_t ngroups;
	bool json;			/* command line only */
	bool via_daemon;		/* command line only: probe --via-daemon */
	unsigned verbose;		/* command line only */
};

/* Every setting at its default. */
void conf_init(struct conf *c);
void conf_free(struct conf *c);

/*
 * Sets s from text into c (g: the group being read, for SETW_GROUP
 * settings, else NULL); a repeatable setting adds to what is there.
 * line is recorded (0 for the command line).  Returns 0, or -1 with
 * what was expected in why ("'0' is not a rate in 1..10000000"), without
 * the setting's name.  Most take one value; SETT_PREFIXES and SETT_TARGETS
 * one or more, SETT_PAYLOAD "FILE" or "PORT FILE" ("*" for every port).
 */
int setting_set(struct conf *c, struct conf_group *g, const struct setting *s,
    const char *const *vals, size_t nvals, unsigned line, char *why, size_t whylen);

/*
 * Writes s's value(s) as lines "KEY VALUE\n" (indent before each) into a
 * growing buffer; nothing for a setting without a value.
 */
void conf_quote_word(struct strbuf *b, const char *s);	/* quoted if needed */
void setting_format(struct strbuf *b, const struct conf *c, const struct setting *s,
    const char *indent);
void conf_format_duration(char *buf, size_t len, uint32_t secs);
void conf_format_ports(struct strbuf *b, const char *indent, const uint16_t *ports, int n);

/* The expected text of a number setting: "a rate in 1..10000000". */
void setting_expected(const struct setting *s, char *buf, size_t len);

/* Whether s has the same value in a and b (top level; payloads by port,
 * file name and content; lists in order). */
bool setting_equal(const struct setting *s, const struct conf *a, const struct conf *b);

/*
 * For a reload: the settings of the file (top level) whose value differs
 * between old and new, at most max of them into changed, in the table's
 * order.  Returns how many.  The caller tells the table's restart ones
 * from the rest.
 */
size_t conf_changed(const struct conf *old, const struct conf *new,
    const struct setting **changed, size_t max);

/* Whether contact is acceptable in the window test's HTTP request. */
bool conf_contact_ok(const char *contact);

#endif
