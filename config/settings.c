/*
 * settings.c -- the table of every setting, what the command line and the
 * file share; a configuration's defaults set from it, and freed.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"
#include "shard.h"

/* enum probe_trace's order; stored as an int (setting_set.c) */
static const char *const trace_choices[] = { "never", "auto", "always", NULL };
_Static_assert(sizeof(enum probe_trace) == sizeof(int), "a choice is stored as an int");
/* enum on_demand_mode's order */
static const char *const on_demand_choices[] = { "off", "group-targets", "allowed", NULL };

/* A field of struct conf, and one of a group */
#define OFF(f)	offsetof(struct conf, f)
#define GOFF(f)	offsetof(struct conf_group, f)

/*
 * In enum setting_id's order (test_conf checks it), which is also the
 * order of the usage text and of a printed configuration.  In help, "@D"
 * stands for the default and "@R" for the range.
 *
 * restart: what a reload (SIGHUP) cannot apply, each for its reason; the
 * daemon names the ones that changed.  Every other setting takes effect
 * at the reload: the groups, targets, ports, lists, sources and interface
 * with the next start of each target (every walk reads them; captures
 * open as interfaces appear, with the capabilities the daemon keeps), the
 * probing settings (struct probe_settings) with the next batch the runner
 * is handed (runner_configure: the engine is made anew on the guard, raw
 * sockets and captures opened once before the privileges went).
 */
const struct setting settings[SET_COUNT] = {
	{ .id = SET_CONFIG, .flag = "config", .shortopt = 'c', .type = SETT_PATH,
	  .where = SETW_CLI, .arg = "FILE",
	  .help = "settings and targets from FILE; flags override it" },
	{ .id = SET_FILE, .key = "file", .shortopt = 'f', .type = SETT_PATH,
	  .where = SETW_GROUP | SETW_CLI, .repeat = true, .arg = "FILE",
	  .help = "read targets from FILE, one per line, # comments" },
	{ .id = SET_SCALES, .key = "scales", .flag = "scales", .type = SETT_SCALES,
	  .shaping = true,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(probe.scales), .lo = 0, .hi = 255,
	  .noun = "a shift", .def = "0,7,14", .arg = "LIST",
	  .help = "shifts to probe, @R (default @D)" },
	{ .id = SET_PORTS, .key = "ports", .flag = "ports", .type = SETT_PORTS,
	  .where = SETW_TOP | SETW_GROUP | SETW_CLI, .off = OFF(ports), .goff = GOFF(ports),
	  .gline = GOFF(ports_line), .lo = 1, .hi = 65535, .noun = "a port", .def = "80",
	  .arg = "LIST", .help = "ports of targets that name none, @R (default @D)" },
	{ .id = SET_RATE, .key = "rate", .flag = "rate", .type = SETT_UINT,
	  .shaping = true,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(probe.rate), .lo = 1, .hi = 10000000,
	  .noun = "a rate", .def = "100", .arg = "PPS",
	  .help = "packets per second, every kind, never more in any\n"
	  "second: @R (default @D)" },
	{ .id = SET_TIMEOUT, .key = "timeout", .flag = "timeout", .type = SETT_SECONDS,
	  .shaping = true,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(probe.timeout), .lo = 0, .hi = 60,
	  .unit = "seconds", .def = "2", .arg = "SECONDS",
	  .help = "wait for a reply after each SYN (default @D)" },
	{ .id = SET_RETRIES, .key = "retries", .flag = "retries", .type = SETT_UINT,
	  .shaping = true,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(probe.retries), .lo = 0, .hi = 10,
	  .def = "2", .arg = "N",
	  .help = "resend a silent SYN N times (default @D)" },
	{ .id = SET_ALLOW, .key = "allow", .flag = "allow", .type = SETT_PREFIXES,
	  .where = SETW_TOP | SETW_CLI, .repeat = true, .off = OFF(allow), .arg = "CIDR",
	  .help = "lift the special-purpose blocklist for CIDR (repeatable)" },
	{ .id = SET_ALLOW_LARGE, .key = "allow-large", .flag = "allow-large",
	  .type = SETT_BOOL, .where = SETW_TOP | SETW_CLI, .off = OFF(allow_large),
	  .def = "no", .help = "accept prefixes of more than 256 addresses" },
	{ .id = SET_SOURCE, .key = "source", .flag = "source", .type = SETT_ADDR,
	  .where = SETW_TOP | SETW_CLI, .repeat = true, .off = OFF(source4), .arg = "ADDR",
	  .help = "source address (one per family; default from the route)" },
	/* routers limit their ICMP errors per destination: each source is a
	 * budget of the trace's (prober/design-notes.md "Source ranges") */
	{ .id = SET_SOURCE_RANGE, .key = "source-range", .flag = "source-range",
	  .type = SETT_RANGE, .where = SETW_TOP | SETW_CLI, .repeat = true,
	  .off = OFF(range4), .arg = "RANGE",
	  .help = "source addresses, each path one of them (one range\n"
	  "per family, at most 4096, every one configured on the\n"
	  "route's interface; replaces --source)" },
	{ .id = SET_INTERFACE, .key = "interface", .flag = "interface", .type = SETT_STRING,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(interface), .arg = "NAME",
	  .help = "capture interface (default from the route)" },
	/* the name the results and the open alerts are kept under */
	{ .id = SET_VANTAGE, .key = "vantage", .flag = "vantage", .type = SETT_STRING,
	  .where = SETW_TOP | SETW_CLI, .restart = true, .off = OFF(vantage), .arg = "NAME",
	  .help = "vantage point name in the results (default host name)" },
	{ .id = SET_TRACE, .key = "trace", .flag = "trace", .type = SETT_CHOICE,
	  .shaping = true,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(probe.trace), .choices = trace_choices,
	  .def = "auto", .arg = "MODE",
	  .help = "auto (default), always or never: follow each SYN\n"
	  "hop by hop (TTL 1..30) and compare router quotes" },
	{ .id = SET_WINDOW_TEST, .key = "window-test", .flag = "window-test",
	  .noflag = "no-window-test", .type = SETT_BOOL, .shaping = true,
	  .where = SETW_TOP | SETW_CLI,
	  .off = OFF(probe.window_test), .def = "yes",
	  .help = "complete a handshake per scale and measure which shift\n"
	  "the server applied (default on: HTTP GET on 80, TLS\n"
	  "ClientHello on 443, --payload FILE elsewhere)" },
	{ .id = SET_PAYLOAD, .key = "payload", .flag = "payload", .type = SETT_PAYLOAD,
	  .shaping = true,
	  .where = SETW_TOP | SETW_CLI, .repeat = true, .off = OFF(probe.payloads),
	  .lo = 1, .hi = 65535, .arg = "FILE",
	  .help = "the window test's request on any port" },
	{ .id = SET_CONTACT, .key = "contact", .flag = "contact", .type = SETT_CONTACT,
	  .where = SETW_TOP | SETW_CLI, .off = OFF(probe.contact), .arg = "URL",
	  .help = "named in the window test's request, for operators" },
	{ .id = SET_MAX_INFLIGHT, .key = "max-inflight", .flag = "max-inflight",
	  .type = SETT_UINT, .where = SETW_TOP | SETW_CLI, .off = OFF(probe.max_inflight),
	  .lo = 1, .hi = 1 << 20, .arg = "N",
	  .help = "paths in flight at once, @R (default from\n"
	  "the rate and the timeout)" },
	{ .id = SET_SYN_TTL, .key = "syn-ttl", .flag = "syn-ttl", .type = SETT_UINT,
	  .shaping = true, .where = SETW_TOP | SETW_CLI, .off = OFF(probe.syn_ttl),
	  .lo = 1, .hi = 255, .noun = "a TTL", .def = "64", .arg = "TTL",
	  .help = "TTL (hop limit) of the measurement SYNs, @R (default @D)" },
	/* the guard's range of ports is sized by it, once, before the
	 * privileges go (prober/design-notes.md "Flows per path") */
	{ .id = SET_FLOWS, .key = "flows", .flag = "flows", .type = SETT_UINT,
	  .restart = true, .where = SETW_TOP | SETW_CLI,
	  .off = OFF(probe.flows), .lo = 1, .hi = 64, .noun = "a count of flows",
	  .zero_word = "auto", .def = "1", .arg = "N|auto",
	  .help = "probe each scale over N flows (source ports), @R\n"
	  "(default @D): a box on one branch of a load-balanced\n"
	  "path shows as flows_affected k of N; auto: one flow,\n"
	  "and up to 16 where it shows a problem (MDA, 95 %)" },
	/* the store and its lock are opened once, the lock as root */
	{ .id = SET_DATABASE, .key = "database", .flag = "db", .type = SETT_PATH,
	  .where = SETW_TOP | SETW_CLI, .restart = true, .off = OFF(database),
	  .def = "/var/lib/scaleprobe/scaleprobe.db", .arg = "FILE",
	  .help = "store every result in the SQLite store FILE too" },
	{ .id = SET_JSON, .flag = "json", .type = SETT_BOOL, .where = SETW_CLI,
	  .off = OFF(json), .def = "no", .help = "one JSON object per path (NDJSON)" },
	/* the daemon's settings, not the flags: only these may come with it */
	{ .id = SET_VIA_DAEMON, .flag = "via-daemon", .type = SETT_BOOL, .where = SETW_CLI,
	  .off = OFF(via_daemon), .def = "no",
	  .help = "have the running scaleprobed probe (its control socket,\n"
	  "its settings; -c, -f, --json and -v only)" },
	{ .id = SET_VERBOSE, .flag = "verbose", .shortopt = 'v', .type = SETT_ACTION,
	  .where = SETW_CLI, .repeat = true,
	  .help = "counters and peak memory on stderr at the end" },
	{ .id = SET_HELP, .flag = "help", .shortopt = 'h', .type = SETT_ACTION,
	  .where = SETW_CLI, .help = "this text" },
	{ .id = SET_BLOCK, .key = "block", .type = SETT_PREFIXES, .where = SETW_TOP,
	  .repeat = true, .off = OFF(block), .arg = "CIDR",
	  .help = "never probe CIDR, whatever allow says (repeatable)" },
	{ .id = SET_OPTOUT, .key = "opt-out", .type = SETT_PATH, .where = SETW_TOP,
	  .off = OFF(optout), .arg = "FILE",
	  .help = "ranges whose owners asked not to be probed, one per line (re-read on "
	  "reload)" },
	{ .id = SET_RETENTION, .key = "retention", .type = SETT_UINT, .where = SETW_TOP,
	  .off = OFF(retention), .lo = 1, .hi = 36500, .unit = "days", .def = "400",
	  .arg = "DAYS", .help = "keep results this many days, @R (default @D)" },
	/* the thread and its connections are made once, with the store */
	{ .id = SET_UPLOAD, .key = "upload", .type = SETT_STRING, .where = SETW_TOP,
	  .restart = true, .off = OFF(upload), .arg = "URI",
	  .help = "send every result to the shared PostgreSQL at URI too" },
	{ .id = SET_UPLOAD_ALERT, .key = "upload-alert", .type = SETT_DURATION,
	  .where = SETW_TOP, .off = OFF(upload_alert), .lo = 60, .hi = 2592000,
	  .def = "12h", .arg = "DURATION",
	  .help = "alert when results wait and the last upload is older,\n"
	  "1m..30d (default @D)" },
	{ .id = SET_ALERT_CONFIRM, .key = "alert-confirm", .type = SETT_UINT,
	  .where = SETW_TOP, .off = OFF(alert_confirm), .lo = 1, .hi = 16, .unit = "runs",
	  .def = "2", .arg = "N",
	  .help = "a path's change of verdict is an alert when N of the last\n"
	  "alert-window runs agree, @R (default @D)" },
	{ .id = SET_ALERT_WINDOW, .key = "alert-window", .type = SETT_UINT,
	  .where = SETW_TOP, .off = OFF(alert_window), .lo = 1, .hi = 16, .unit = "runs",
	  .def = "3", .arg = "M",
	  .help = "the runs alert-confirm counts in, @R and at least alert-confirm "
	  "(default @D)" },
	{ .id = SET_ALERT_COMMAND, .key = "alert-command", .type = SETT_PATH,
	  .where = SETW_TOP, .off = OFF(alert_command), .arg = "PROGRAM",
	  .help = "run for each alert raised or cleared, the change as JSON on its input" },
	{ .id = SET_ALERT_TIMEOUT, .key = "alert-timeout", .type = SETT_DURATION,
	  .where = SETW_TOP, .off = OFF(alert_timeout), .lo = 1, .hi = 3600, .def = "30s",
	  .arg = "DURATION",
	  .help = "alert-command is killed this long after its start, 1s..1h (default @D)" },
	{ .id = SET_ALERT_RETRY, .key = "alert-retry", .type = SETT_DURATION,
	  .where = SETW_TOP, .off = OFF(alert_retry), .lo = 1, .hi = 3600, .def = "10s",
	  .arg = "DURATION",
	  .help = "a failed alert-command run is run again this long after, and once more\n"
	  "6 times as long after that, 1s..1h (default @D)" },
	{ .id = SET_INCIDENT_PATHS, .key = "incident-paths", .type = SETT_UINT,
	  .where = SETW_TOP, .off = OFF(incident_paths), .lo = 0, .hi = 1000000,
	  .unit = "paths", .def = "10", .arg = "N",
	  .help = "N paths or more raised at one hop in a cycle are one incident, one alert;\n"
	  "@R, 0: never (default @D)" },
	/* bound once, in a directory that may need root */
	{ .id = SET_CONTROL, .key = "control", .type = SETT_PATH, .where = SETW_TOP,
	  .restart = true, .off = OFF(control), .def = "/run/scaleprobe/scaleprobed.sock",
	  .arg = "FILE",
	  .help = "the daemon's control socket, for scaleprobe status (default @D)" },
	{ .id = SET_ON_DEMAND, .key = "on-demand", .type = SETT_CHOICE, .where = SETW_TOP,
	  .off = OFF(on_demand), .choices = on_demand_choices, .def = "group-targets",
	  .arg = "MODE",
	  .help = "what the control socket's group may have probed now: off, group-targets\n"
	  "(the groups' targets; default) or allowed (any address the lists allow)" },
	{ .id = SET_ON_DEMAND_RATE, .key = "on-demand-rate", .type = SETT_UINT,
	  .where = SETW_TOP, .off = OFF(on_demand_rate), .lo = 1, .hi = 1000,
	  .unit = "requests a minute", .def = "10", .arg = "N",
	  .help = "on-demand requests a user may make in any minute, @R (default @D)" },
	{ .id = SET_ON_DEMAND_TARGETS, .key = "on-demand-targets", .type = SETT_UINT,
	  .where = SETW_TOP, .off = OFF(on_demand_targets), .lo = 1, .hi = 64,
	  .unit = "targets", .def = "16", .arg = "N",
	  .help = "targets one on-demand request may name, @R (default @D)" },
	{ .id = SET_INTERVAL, .key = "interval", .type = SETT_DURATION,
	  .where = SETW_TOP | SETW_GROUP, .off = OFF(interval), .goff = GOFF(interval),
	  .gline = GOFF(interval_line), .lo = 1, .hi = 30 * 86400, .def = "1h",
	  .arg = "DURATION",
	  .help = "a group's scans start this often (default @D; top level: every group's)" },
	{ .id = SET_JITTER, .key = "jitter", .type = SETT_DURATION,
	  .where = SETW_TOP | SETW_GROUP, .off = OFF(jitter), .goff = GOFF(jitter),
	  .gline = GOFF(jitter_line), .lo = 0, .hi = 30 * 86400, .def = "5m",
	  .arg = "DURATION",
	  .help = "each target's random slip, at most the interval (default @D)" },
	{ .id = SET_GROUP, .key = "group", .type = SETT_SECTION, .where = SETW_TOP,
	  .repeat = true, .off = OFF(groups), .arg = "NAME",
	  .help = "a group of targets scanned together: group NAME { ... }" },
	{ .id = SET_TARGET, .key = "target", .type = SETT_TARGETS, .where = SETW_GROUP,
	  .repeat = true, .arg = "TARGET",
	  .help = "targets of the group: HOST, HOST:PORT, [IPV6]:PORT, ADDR/PREFIX" },
	{ .id = SET_SHARD, .key = "shard", .type = SETT_NAMES, .where = SETW_GROUP,
	  .repeat = true, .arg = "NAME",
	  .help = "the vantages of the site sharing the group's targets (repeatable);\n"
	  "the vantage setting must be one of them" },
	{ .id = SET_REPLICAS, .key = "replicas", .type = SETT_UINT, .where = SETW_GROUP,
	  .goff = GOFF(replicas), .gline = GOFF(replicas_line), .lo = 1,
	  .hi = SHARD_MAX_REPLICAS, .noun = "a count of vantages", .def = "1", .arg = "K",
	  .help = "vantages of the shard that probe each target, @R, at most the\n"
	  "shard's (default @D)" },
};

const struct setting *
setting_by_key(const char *key)
{
	for (size_t i = 0; i < SET_COUNT; i++)
		if (settings[i].key != NULL && strcmp(settings[i].key, key) == 0)
			return &settings[i];
	return NULL;
}

const struct setting *
setting_by_flag(const char *flag)
{
	for (size_t i = 0; i < SET_COUNT; i++)
		if (settings[i].flag != NULL && strcmp(settings[i].flag, flag) == 0)
			return &settings[i];
	return NULL;
}

void
conf_init(struct conf *c)
{
	char why[256];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < SET_COUNT; i++) {
		const char *v = settings[i].def;

		/* the table is ours: a default that does not parse is a bug */
		if (v != NULL && setting_set(c, NULL, &settings[i], &v, 1, 0, why,
		    sizeof(why)) != 0)
			fatalx("settings: %s: default %s", settings[i].key, why);
	}
}

static void
group_free(struct conf_group *g)
{
	free(g->name);
	for (size_t i = 0; i < g->ntargets; i++)
		free(g->target_text[i]);
	free(g->target_text);
	free(g->target_line);
	for (size_t i = 0; i < g->nfiles; i++)
		free(g->files[i].path);
	free(g->files);
	targets_free(&g->targets);
	for (size_t i = 0; i < g->nshard; i++)
		free(g->shard[i]);
	free(g->shard);
	free(g->shard_line);
	free(g->mine);
}

void
conf_free(struct conf *c)
{
	/* the strings stored through the table (contact: with the probing
	 * settings); -c and a group's files have no field here */
	for (size_t i = 0; i < SET_COUNT; i++)
		if ((settings[i].type == SETT_STRING || settings[i].type == SETT_PATH) &&
		    settings[i].off != 0)
			free(*(char **)(void *)((char *)c + settings[i].off));
	probe_settings_free(&c->probe);
	for (size_t i = 0; i < c->nallow; i++)
		free(c->allow[i].text);
	free(c->allow);
	for (size_t i = 0; i < c->nblock; i++)
		free(c->block[i].text);
	free(c->block);
	for (size_t i = 0; i < c->noptout; i++)
		free(c->optout_v[i].text);
	free(c->optout_v);
	for (size_t i = 0; i < c->ngroups; i++)
		group_free(&c->groups[i]);
	free(c->groups);
	memset(c, 0, sizeof(*c));
}

size_t
conf_changed(const struct conf *old, const struct conf *new,
    const struct setting **changed, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < SET_COUNT && n < max; i++)
		if ((settings[i].where & SETW_TOP) && settings[i].type != SETT_SECTION &&
		    !setting_equal(&settings[i], old, new))
			changed[n++] = &settings[i];
	return n;
}
