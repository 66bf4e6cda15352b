/*
 * settings.c -- the table of every setting, what the command line and the
 * file share; a configuration's defaults set from it, and freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"

static const char *const trace_choices[] = { "never", "auto", "always", NULL };

/*
 * In enum setting_id's order (test_conf checks it), which is also the
 * order of the usage text and of a printed configuration.  In help, "@D"
 * stands for the default and "@R" for the range.
 */
const struct setting settings[SET_COUNT] = {
	{ SET_CONFIG, NULL, "config", 'c', NULL, SETT_PATH, SETW_CLI, false, false,
	  0, 0, NULL, NULL, NULL, NULL, "FILE",
	  "settings and targets from FILE; flags override it" },
	{ SET_FILE, "file", NULL, 'f', NULL, SETT_PATH, SETW_GROUP | SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "FILE",
	  "read targets from FILE, one per line, # comments" },
	{ SET_SCALES, "scales", "scales", 0, NULL, SETT_SCALES, SETW_TOP | SETW_CLI, false, false,
	  0, 255, "a shift", NULL, NULL, "0,7,14", "LIST",
	  "shifts to probe, @R (default @D)" },
	{ SET_PORTS, "ports", "ports", 0, NULL, SETT_PORTS, SETW_TOP | SETW_GROUP | SETW_CLI,
	  false, false, 1, 65535, "a port", NULL, NULL, "80", "LIST",
	  "ports of targets that name none, @R (default @D)" },
	{ SET_RATE, "rate", "rate", 0, NULL, SETT_UINT, SETW_TOP | SETW_CLI, false, false,
	  1, 10000000, "a rate", NULL, NULL, "100", "PPS",
	  "packets per second, every kind, never more in any\n"
	  "second: @R (default @D)" },
	{ SET_TIMEOUT, "timeout", "timeout", 0, NULL, SETT_SECONDS, SETW_TOP | SETW_CLI, false,
	  false, 0, 60, NULL, "seconds", NULL, "2", "SECONDS",
	  "wait for a reply after each SYN (default @D)" },
	{ SET_RETRIES, "retries", "retries", 0, NULL, SETT_UINT, SETW_TOP | SETW_CLI, false, false,
	  0, 10, NULL, NULL, NULL, "2", "N",
	  "resend a silent SYN N times (default @D)" },
	{ SET_ALLOW, "allow", "allow", 0, NULL, SETT_PREFIXES, SETW_TOP | SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "CIDR",
	  "lift the special-purpose blocklist for CIDR (repeatable)" },
	{ SET_ALLOW_LARGE, "allow-large", "allow-large", 0, NULL, SETT_BOOL, SETW_TOP | SETW_CLI,
	  false, false, 0, 0, NULL, NULL, NULL, "no", NULL,
	  "accept prefixes of more than 256 addresses" },
	{ SET_SOURCE, "source", "source", 0, NULL, SETT_ADDR, SETW_TOP | SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "ADDR",
	  "source address (one per family; default from the route)" },
	{ SET_INTERFACE, "interface", "interface", 0, NULL, SETT_STRING, SETW_TOP | SETW_CLI,
	  false, false, 0, 0, NULL, NULL, NULL, NULL, "NAME",
	  "capture interface (default from the route)" },
	{ SET_VANTAGE, "vantage", "vantage", 0, NULL, SETT_STRING, SETW_TOP | SETW_CLI, false,
	  true, 0, 0, NULL, NULL, NULL, NULL, "NAME",
	  "vantage point name in the results (default host name)" },
	{ SET_TRACE, "trace", "trace", 0, NULL, SETT_CHOICE, SETW_TOP | SETW_CLI, false, false,
	  0, 0, NULL, NULL, trace_choices, "auto", "MODE",
	  "auto (default), always or never: follow each SYN\n"
	  "hop by hop (TTL 1..30) and compare router quotes" },
	{ SET_WINDOW_TEST, "window-test", "window-test", 0, "no-window-test", SETT_BOOL,
	  SETW_TOP | SETW_CLI, false, false, 0, 0, NULL, NULL, NULL, "yes", NULL,
	  "complete a handshake per scale and measure which shift\n"
	  "the server applied (default on: HTTP GET on 80, TLS\n"
	  "ClientHello on 443, --payload FILE elsewhere)" },
	{ SET_PAYLOAD, "payload", "payload", 0, NULL, SETT_PAYLOAD, SETW_TOP | SETW_CLI, true,
	  false, 1, 65535, NULL, NULL, NULL, NULL, "FILE",
	  "the window test's request on any port" },
	{ SET_CONTACT, "contact", "contact", 0, NULL, SETT_CONTACT, SETW_TOP | SETW_CLI, false,
	  false, 0, 0, NULL, NULL, NULL, NULL, "URL",
	  "named in the window test's request, for operators" },
	{ SET_MAX_INFLIGHT, "max-inflight", "max-inflight", 0, NULL, SETT_UINT,
	  SETW_TOP | SETW_CLI, false, false, 1, 1 << 20, NULL, NULL, NULL, NULL, "N",
	  "paths in flight at once, @R (default from\n"
	  "the rate and the timeout)" },
	{ SET_DATABASE, "database", "db", 0, NULL, SETT_PATH, SETW_TOP | SETW_CLI, false, true,
	  0, 0, NULL, NULL, NULL, "/var/lib/scaleprobe/scaleprobe.db", "FILE",
	  "store every result in the SQLite store FILE too" },
	{ SET_JSON, NULL, "json", 0, NULL, SETT_BOOL, SETW_CLI, false, false,
	  0, 0, NULL, NULL, NULL, "no", NULL,
	  "one JSON object per path (NDJSON)" },
	{ SET_VERBOSE, NULL, "verbose", 'v', NULL, SETT_ACTION, SETW_CLI, true, false,
	  0, 0, NULL, NULL, NULL, NULL, NULL,
	  "counters and peak memory on stderr at the end" },
	{ SET_HELP, NULL, "help", 'h', NULL, SETT_ACTION, SETW_CLI, false, false,
	  0, 0, NULL, NULL, NULL, NULL, NULL,
	  "this text" },
	{ SET_BLOCK, "block", NULL, 0, NULL, SETT_PREFIXES, SETW_TOP, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "CIDR",
	  "never probe CIDR, whatever allow says (repeatable)" },
	{ SET_OPTOUT, "opt-out", NULL, 0, NULL, SETT_PATH, SETW_TOP, false, false,
	  0, 0, NULL, NULL, NULL, NULL, "FILE",
	  "ranges whose owners asked not to be probed, one per line (re-read on reload)" },
	{ SET_RETENTION, "retention", NULL, 0, NULL, SETT_UINT, SETW_TOP, false, false,
	  1, 36500, NULL, "days", NULL, "400", "DAYS",
	  "keep results this many days, @R (default @D)" },
	{ SET_ALERT_CONFIRM, "alert-confirm", NULL, 0, NULL, SETT_UINT, SETW_TOP, false, false,
	  1, 16, NULL, "runs", NULL, "2", "N",
	  "a path's change of verdict is an alert when N of the last\n"
	  "alert-window runs agree, @R (default @D)" },
	{ SET_ALERT_WINDOW, "alert-window", NULL, 0, NULL, SETT_UINT, SETW_TOP, false, false,
	  1, 16, NULL, "runs", NULL, "3", "M",
	  "the runs alert-confirm counts in, @R and at least alert-confirm (default @D)" },
	{ SET_ALERT_COMMAND, "alert-command", NULL, 0, NULL, SETT_PATH, SETW_TOP, false, false,
	  0, 0, NULL, NULL, NULL, NULL, "PROGRAM",
	  "run for each alert raised or cleared, the change as JSON on its input" },
	{ SET_ALERT_TIMEOUT, "alert-timeout", NULL, 0, NULL, SETT_DURATION, SETW_TOP, false,
	  false, 1, 3600, NULL, NULL, NULL, "30s", "DURATION",
	  "alert-command is killed this long after its start, 1s..1h (default @D)" },
	{ SET_ALERT_RETRY, "alert-retry", NULL, 0, NULL, SETT_DURATION, SETW_TOP, false,
	  false, 1, 3600, NULL, NULL, NULL, "10s", "DURATION",
	  "a failed alert-command run is run again this long after, and once more\n"
	  "6 times as long after that, 1s..1h (default @D)" },
	{ SET_INCIDENT_PATHS, "incident-paths", NULL, 0, NULL, SETT_UINT, SETW_TOP, false, false,
	  0, 1000000, NULL, "paths", NULL, "10", "N",
	  "N paths or more raised at one hop in a cycle are one incident, one alert;\n"
	  "@R, 0: never (default @D)" },
	{ SET_CONTROL, "control", NULL, 0, NULL, SETT_PATH, SETW_TOP, false, true,
	  0, 0, NULL, NULL, NULL, "/run/scaleprobe/scaleprobed.sock", "FILE",
	  "the daemon's control socket, for scaleprobe status (default @D)" },
	{ SET_INTERVAL, "interval", NULL, 0, NULL, SETT_DURATION, SETW_TOP | SETW_GROUP, false,
	  false, 1, 30 * 86400, NULL, NULL, NULL, "1h", "DURATION",
	  "a group's scans start this often (default @D; top level: every group's)" },
	{ SET_JITTER, "jitter", NULL, 0, NULL, SETT_DURATION, SETW_TOP | SETW_GROUP, false,
	  false, 0, 30 * 86400, NULL, NULL, NULL, "5m", "DURATION",
	  "each target's random slip, at most the interval (default @D)" },
	{ SET_GROUP, "group", NULL, 0, NULL, SETT_SECTION, SETW_TOP, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "NAME",
	  "a group of targets scanned together: group NAME { ... }" },
	{ SET_TARGET, "target", NULL, 0, NULL, SETT_TARGETS, SETW_GROUP, true, false,
	  0, 0, NULL, NULL, NULL, NULL, "TARGET",
	  "targets of the group: HOST, HOST:PORT, [IPV6]:PORT, ADDR/PREFIX" },
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
}

void
conf_free(struct conf *c)
{
	free(c->database);
	free(c->vantage);
	free(c->interface);
	free(c->contact);
	free(c->optout);
	free(c->alert_command);
	free(c->control);
	for (size_t i = 0; i < c->npayloads; i++) {
		free(c->payloads[i].path);
		free(c->payloads[i].bytes);
	}
	free(c->payloads);
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
conf_needs_restart(const struct conf *old, const struct conf *new, const char **names,
    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < SET_COUNT && n < max; i++) {
		struct strbuf a = { 0 }, b = { 0 };

		if (!settings[i].restart)
			continue;
		/* as the file would write them: one comparison for every type */
		setting_format(&a, old, &settings[i], "");
		setting_format(&b, new, &settings[i], "");
		if (strcmp(strbuf_str(&a), strbuf_str(&b)) != 0)
			names[n++] = settings[i].key;
		strbuf_free(&a);
		strbuf_free(&b);
	}
	return n;
}
