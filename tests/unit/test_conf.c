/*
 * test_conf.c -- the settings table (consistent, every default valid, in
 * step with the engine's and the daemon's limits), scaleprobe.conf's parser (good files to
 * their settings, broken ones to their exact "file:line:" errors, all in
 * one pass), its print-back (parses to the same, idempotent), opt-out
 * lists, and blocked ranges that no allow lifts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "alert_state.h"
#include "blocklist.h"
#include "conf.h"
#include "engine.h"
#include "request.h"

/* Parses text as "t.conf"; returns the errors' text (malloc'd, "" if none). */
static char *
parse(struct conf *c, const char *text, int *rc)
{
	struct conf_errors e = { NULL, 0 };
	char *out;

	conf_init(c);
	*rc = conf_parse(c, text, strlen(text), "t.conf", &e);
	out = conf_errors_text(&e);
	conf_errors_free(&e);
	return out;
}

/* --- the table ------------------------------------------------------------ */

static void
test_table(void **state)
{
	struct conf c;

	(void)state;
	for (size_t i = 0; i < SET_COUNT; i++) {
		const struct setting *s = &settings[i];

		assert_int_equal(s->id, i);
		assert_true(s->key != NULL || s->flag != NULL || s->shortopt != 0);
		assert_non_null(s->help);
		/* a key is in the file, a flag on the command line */
		assert_true((s->key != NULL) == ((s->where & (SETW_TOP | SETW_GROUP)) != 0));
		assert_true((s->flag != NULL || s->shortopt != 0) == ((s->where & SETW_CLI) != 0));
		for (size_t k = 0; k < i; k++) {
			if (s->key != NULL && settings[k].key != NULL)
				assert_string_not_equal(s->key, settings[k].key);
			if (s->flag != NULL && settings[k].flag != NULL)
				assert_string_not_equal(s->flag, settings[k].flag);
			assert_true(s->shortopt == 0 || s->shortopt != settings[k].shortopt);
		}
		if (s->key != NULL)
			assert_ptr_equal(setting_by_key(s->key), s);
		if (s->flag != NULL)
			assert_ptr_equal(setting_by_flag(s->flag), s);
	}
	assert_null(setting_by_key("json"));
	assert_null(setting_by_key("nope"));
	/* the defaults, set through the table (conf_init would fatalx) */
	conf_init(&c);
	assert_int_equal(c.probe.rate, 100);
	assert_int_equal(c.probe.nscales, 3);
	assert_int_equal(c.probe.scales[0], 0);
	assert_int_equal(c.probe.scales[1], 7);
	assert_int_equal(c.probe.scales[2], 14);
	assert_true(c.probe.timeout == 2.0);
	assert_int_equal(c.probe.retries, 2);
	assert_int_equal(c.probe.trace, PROBE_TRACE_AUTO);
	assert_true(c.probe.window_test);
	assert_false(c.allow_large);
	assert_int_equal(c.interval, 3600);
	assert_int_equal(c.jitter, 300);
	assert_string_equal(c.database, "/var/lib/scaleprobe/scaleprobe.db");
	assert_null(c.vantage);
	conf_free(&c);
}

/* config/ may not include engine/: the numbers it repeats must agree. */
static void
test_engine_agrees(void **state)
{
	static const char *const contacts[] = {
		"https://example.org/scan", "mailto:noc@example.org", "a", "x(y)", "a\\b",
		"sp ace", "tab\t", "caf\xc3\xa9", "",
	};
	uint8_t buf[REQUEST_MAX];
	char big[PROBE_CONTACT_MAX + 2];

	(void)state;
	/* the trace's choices are enum probe_trace's, in order */
	assert_string_equal(settings[SET_TRACE].choices[PROBE_TRACE_NEVER], "never");
	assert_string_equal(settings[SET_TRACE].choices[PROBE_TRACE_AUTO], "auto");
	assert_string_equal(settings[SET_TRACE].choices[PROBE_TRACE_ALWAYS], "always");
	/* the daemon's alerts count at most ALERT_M_MAX runs */
	assert_true(settings[SET_ALERT_WINDOW].hi == ALERT_M_MAX);
	assert_true(settings[SET_ALERT_CONFIRM].hi == ALERT_M_MAX);
	for (size_t i = 0; i < sizeof(contacts) / sizeof(contacts[0]); i++) {
		if (contacts[i][0] == '\0')
			continue;	/* "" means none to request_http */
		assert_int_equal(conf_contact_ok(contacts[i]),
		    request_http(buf, sizeof(buf), "example.org", contacts[i]) > 0);
	}
	memset(big, 'a', sizeof(big));
	big[PROBE_CONTACT_MAX] = '\0';
	assert_true(conf_contact_ok(big));
	assert_true(request_http(buf, sizeof(buf), "example.org", big) > 0);
	big[PROBE_CONTACT_MAX] = 'a';
	big[PROBE_CONTACT_MAX + 1] = '\0';
	assert_false(conf_contact_ok(big));
	assert_int_equal(request_http(buf, sizeof(buf), "example.org", big), 0);
}

/* --- good files --------------------------------------------------------------- */

static void
test_good(void **state)
{
	const char *text =
	    "# a comment\n"
	    "rate 250   # trailing\n"
	    "scales 0,7\n"
	    "timeout 0.5\n"
	    "retries 0\n"
	    "trace never\n"
	    "window-test no\n"
	    "contact \"mailto:noc@example.org\"\n"
	    "source 198.18.0.1\n"
	    "source fd00::1\n"
	    "allow 198.18.0.0/15 fd00::/8\n"
	    "block 198.18.5.0/24\n"
	    "payload 443 \"/x/tls.bin\"\n"
	    "payload /x/any.bin\n"
	    "vantage \"a \\\"quoted\\\" \\\\ name\"\n"
	    "interval 90m\n"
	    "\n"
	    "group web {\n"
	    "\tjitter 30s\n"
	    "\ttarget www.example.org 198.18.0.0/30:443\n"
	    "\tfile /x/web.txt\n"
	    "}\n"
	    "group b-2.x {\n"
	    "  interval 2w\n"
	    "  jitter 1d\n"
	    "  target [fd00::9]:22\n"
	    "}";
	struct conf c;
	char *err;
	int rc;

	(void)state;
	err = parse(&c, text, &rc);
	assert_string_equal(err, "");
	assert_int_equal(rc, 0);
	assert_int_equal(c.probe.rate, 250);
	assert_int_equal(c.probe.nscales, 2);
	assert_true(c.probe.timeout == 0.5);
	assert_int_equal(c.probe.retries, 0);
	assert_int_equal(c.probe.trace, PROBE_TRACE_NEVER);
	assert_false(c.probe.window_test);
	assert_string_equal(c.probe.contact, "mailto:noc@example.org");
	assert_true(c.have_source4 && c.have_source6);
	assert_int_equal(c.nallow, 2);
	assert_int_equal(c.nblock, 1);
	assert_int_equal(c.probe.npayloads, 2);
	assert_int_equal(c.probe.payloads[0].port, 0);	/* sorted by port */
	assert_string_equal(c.probe.payloads[0].path, "/x/any.bin");
	assert_int_equal(c.probe.payloads[1].port, 443);
	assert_string_equal(c.vantage, "a \"quoted\" \\ name");
	assert_int_equal(c.ngroups, 2);
	assert_string_equal(c.groups[0].name, "web");
	assert_int_equal(c.groups[0].interval, 5400);	/* inherited */
	assert_int_equal(c.groups[0].jitter, 30);
	assert_int_equal(c.groups[0].ntargets, 2);
	assert_int_equal(c.groups[0].targets.n, 2);
	assert_int_equal(c.groups[0].targets.v[1].kind, TARGET_PREFIX);
	assert_int_equal(c.groups[0].targets.v[1].port, 443);
	assert_int_equal(c.groups[0].targets.v[1].line, 20);
	assert_int_equal(c.groups[0].nfiles, 1);
	assert_int_equal(c.groups[0].files[0].line, 21);
	assert_int_equal(c.groups[1].interval, 14 * 86400);
	assert_int_equal(c.groups[1].jitter, 86400);
	assert_int_equal(c.groups[1].targets.v[0].port, 22);
	free(err);
	conf_free(&c);
}

/* --- broken files: the whole error text ------------------------------------ */

struct bad {
	const char *text;
	const char *errors;
};

static const struct bad bad_cases[] = {
	{ "rate 0\n", "t.conf:1: rate: '0' is not a rate in 1..10000000\n" },
	{ "rate\n", "t.conf:1: rate: expected PPS\n" },
	{ "rate 1 2\n", "t.conf:1: rate: expected one value, not 2\n" },
	{ "rate 10\nrate 20\n", "t.conf:2: rate: already set on line 1\n" },
	{ "timeout 0\n", "t.conf:1: timeout: '0' is not in (0, 60] seconds\n" },
	{ "retries -1\n", "t.conf:1: retries: '-1' is not in 0..10\n" },
	{ "scales 1,,2\n", "t.conf:1: scales: '1,,2' has an empty element\n" },
	{ "scales 300\n", "t.conf:1: scales: '300' is not a shift in 0..255\n" },
	{ "trace maybe\n", "t.conf:1: trace: 'maybe' is not auto, always or never\n" },
	{ "window-test on\n", "t.conf:1: window-test: 'on' is not yes or no\n" },
	{ "contact \"a b\"\n", "t.conf:1: contact: 'a b' is not a URL or mailto: address "
	  "of visible ASCII without parentheses or backslash, at most 512 bytes\n" },
	{ "source 1.2.3\n", "t.conf:1: source: '1.2.3' is not an IPv4 or IPv6 address\n" },
	{ "source 198.18.0.1\nsource 198.18.0.2\n",
	  "t.conf:2: source: an IPv4 source is already set on line 1\n" },
	{ "allow 1.2.3.4/33\n", "t.conf:1: allow: '1.2.3.4/33': prefix length too long "
	  "for IPv4 (at most 32)\n" },
	{ "payload 0 /x\n", "t.conf:1: payload: '0' is not a port in 1..65535 or '*'\n" },
	{ "payload 80 /x\npayload 80 /y\n",
	  "t.conf:2: payload: port 80 already has a payload on line 1\n" },
	{ "retention 0\n", "t.conf:1: retention: '0' is not in 1..36500 days\n" },
	{ "interval 0s\n", "t.conf:1: interval: '0s' is not a duration in 1s..30d "
	  "(N, Ns, Nm, Nh, Nd or Nw)\n" },
	{ "interval h\n", "t.conf:1: interval: 'h' is not a duration in 1s..30d "
	  "(N, Ns, Nm, Nh, Nd or Nw)\n" },
	{ "interval 1ms\n", "t.conf:1: interval: '1ms' is not a duration in 1s..30d "
	  "(N, Ns, Nm, Nh, Nd or Nw)\n" },
	{ "ports 80,80\n", "t.conf:1: ports: port 80 given twice\n" },
	{ "ports 0\n", "t.conf:1: ports: '0' is not a port in 1..65535\n" },
	{ "group a {\n ports 80,\n target 198.18.0.1\n}\n",
	  "t.conf:2: ports: '80,' has an empty element\n" },
	{ "jitter 1y\n", "t.conf:1: jitter: '1y' is not a duration in 0s..30d "
	  "(N, Ns, Nm, Nh, Nd or Nw)\n" },
	{ "alert-confirm 4\n", "t.conf:1: alert-confirm: 4 is more than alert-window, 3\n" },
	{ "alert-window 1\n", "t.conf:1: alert-confirm: 2 is more than alert-window, 1\n" },
	{ "frobnicate yes\n", "t.conf:1: unknown key 'frobnicate'\n" },
	{ "json yes\n", "t.conf:1: unknown key 'json'\n" },
	{ "\"rate\" 5\n", "t.conf:1: unknown key 'rate'\n" },
	{ "target 198.18.0.1\n", "t.conf:1: target: allowed only inside a group { }\n" },
	{ "}\n", "t.conf:1: unexpected '}' (no group is open)\n" },
	{ "group a {\n target 198.18.0.1\n", "t.conf:1: group 'a': expected '}' before "
	  "the end of the file\n" },
	{ "group a\n", "t.conf:1: group: expected group NAME {\n" },
	{ "group \"a b\" {\n target 198.18.0.1\n}\n", "t.conf:1: group: 'a b' is not a "
	  "name of 1..64 letters, digits, '_', '.' or '-'\n" },
	{ "group a {\n target 198.18.0.1\n}\ngroup a {\n target 198.18.0.2\n}\n",
	  "t.conf:4: group: 'a' already defined on line 1\n" },
	{ "group a {\n target 198.18.0.1\n group b {\n", "t.conf:1: group 'a': expected '}' "
	  "before the end of the file\nt.conf:3: group: groups do not nest (expected '}' "
	  "first)\n" },
	{ "group a {\n rate 5\n target 198.18.0.1\n}\n", "t.conf:2: rate: not allowed "
	  "inside a group (expected interval, jitter, ports, target, file, shard, replicas or '}')\n" },
	{ "group a {\n}\n", "t.conf:1: group 'a' has no targets (expected target or file)\n" },
	{ "group a {\n interval 1m\n jitter 2m\n target 198.18.0.1\n}\n",
	  "t.conf:3: jitter: 2m is longer than the group's interval, 1m\n" },
	{ "group a {\n target 198.18.0.1\n interval 1h\n interval 2h\n}\n",
	  "t.conf:4: interval: already set on line 3\n" },
	{ "group a {\n target 198.18.0.1 x.lab\n}\ngroup b {\n target x.lab\n}\n",
	  "t.conf:5: target: 'x.lab' already given on line 2\n" },
	{ "group a {\n target 198.18.0.0/16\n}\n", "t.conf:2: target: 198.18.0.0/16: prefix "
	  "has 65536 addresses; more than 256 need --allow-large\n" },
	{ "group a {\n target 198.18.0.1:0\n}\n", "t.conf:2: target: 198.18.0.1:0: port out "
	  "of range (expected 1..65535)\n" },
	{ "group a {\n file /a\n file /a\n}\n",
	  "t.conf:3: file: '/a' already given on line 2\n" },
	{ "rate \"5\n", "t.conf:1: unterminated string (expected a closing '\"')\n" },
	{ "vantage \"a\\nb\"\n", "t.conf:1: a backslash in a string (expected one before '\"' or "
	  "before a backslash)\n" },
	{ "rate 5\x01\n", "t.conf:1: byte '\\x01' outside a string (expected printable "
	  "ASCII, or a \"quoted string\")\n" },
	{ "rate { 5\n", "t.conf:1: rate: unexpected '{'\n" },
	{ "} x\n", "t.conf:1: unexpected '}' (no group is open)\n" },
	{ "database \"\"\n", "t.conf:1: database: expected FILE, not an empty string\n" },
};

static void
test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct conf c;
		char *err;
		int rc;

		err = parse(&c, bad_cases[i].text, &rc);
		if (strcmp(err, bad_cases[i].errors) != 0)
			fail_msg("case %zu: %s\n got: %s\nwant: %s", i, bad_cases[i].text,
			    err, bad_cases[i].errors);
		assert_int_equal(rc, -1);
		free(err);
		conf_free(&c);
	}
}

/* Every error of a file in one pass, in the order of the lines. */
static void
test_all_errors(void **state)
{
	const char *text =
	    "group g {\n"
	    " target 300.1.1.1\n"
	    " target 198.18.0.1\n"
	    "}\n"
	    "rate 0\n"
	    "bogus\n"
	    "scales 1,,2\n"
	    "allow-large yes\n";
	struct conf c;
	char *err;
	int rc;

	(void)state;
	err = parse(&c, text, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(err,
	    "t.conf:2: target: 300.1.1.1: not an IPv4 address, and a host name cannot "
	    "end in a number\n"
	    "t.conf:5: rate: '0' is not a rate in 1..10000000\n"
	    "t.conf:6: unknown key 'bogus'\n"
	    "t.conf:7: scales: '1,,2' has an empty element\n");
	free(err);
	conf_free(&c);
}

/* allow-large applies wherever it is written: targets are read at the end */
static void
test_allow_large_after(void **state)
{
	struct conf c;
	char *err;
	int rc;

	(void)state;
	err = parse(&c, "group g {\n target 198.18.0.0/16\n}\nallow-large yes\n", &rc);
	assert_string_equal(err, "");
	assert_int_equal(c.groups[0].targets.v[0].plen, 16);
	free(err);
	conf_free(&c);
}

/* A target without a port goes on each port of its group's list. */
static void
test_ports(void **state)
{
	const char *text = "ports 443\ngroup a {\n ports 80,8080\n target x.lab y.lab:22\n}\n"
	    "group b {\n target z.lab\n}\n";
	const uint16_t two[] = { 80, 443 };
	const char *file = "p.lab\n# c\n[fd00::1]:25\n198.18.0.0/31\n";
	struct targets t;
	struct conf c;
	size_t nw;
	char *err;
	int rc;

	(void)state;
	err = parse(&c, text, &rc);
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(c.groups[0].targets.n, 3);
	assert_string_equal(c.groups[0].targets.v[0].as_given, "x.lab");
	assert_int_equal(c.groups[0].targets.v[0].port, 80);
	assert_string_equal(c.groups[0].targets.v[1].as_given, "x.lab");
	assert_int_equal(c.groups[0].targets.v[1].port, 8080);
	assert_int_equal(c.groups[0].targets.v[1].line, 4);
	assert_int_equal(c.groups[0].targets.v[2].port, 22);
	assert_int_equal(c.groups[1].targets.n, 1);
	assert_int_equal(c.groups[1].targets.v[0].port, 443);	/* inherited */
	conf_free(&c);

	targets_init(&t);
	assert_int_equal(conf_targets_buf(&t, file, strlen(file), "f", false, two, 2, &nw), 0);
	assert_int_equal(nw, 3);
	assert_int_equal(t.n, 5);		/* p.lab and the /31 twice */
	assert_int_equal(t.v[3].port, 443);
	assert_string_equal(t.v[3].as_given, "p.lab");
	assert_int_equal(t.v[3].line, 1);
	assert_int_equal(t.v[4].port, 443);
	assert_int_equal(t.v[4].kind, TARGET_PREFIX);
	assert_int_equal(conf_targets_spec(&t, "[fd00::2]:80", false, two, 2), 0);
	assert_int_equal(t.n, 6);		/* named its port: once */
	assert_int_equal(conf_targets_spec(&t, "q.lab:1", false, two, 2), 0);
	assert_int_equal(t.n, 7);		/* 1 named, though 1 is the probe's default */
	targets_free(&t);
}

/* --- printed back -------------------------------------------------------- */

static void
test_print_round_trip(void **state)
{
	const char *text =
	    "vantage \"x y\"\nrate 7\nscales 14,0\ntimeout 2.25\npayload 8080 \"/p q\"\n"
	    "allow 198.18.0.0/15\nblock fd00::/16\nopt-out /o\ninterface eth0\n"
	    "source fd00::1\ncontact https://e.org/\nretention 30\nmax-inflight 9\n"
	    "trace always\nwindow-test no\nallow-large yes\ninterval 90s\njitter 0\n"
	    "database /db\n"
	    "group \"g\" {\n target a.lab \"b.lab:443\"\n file \"/t f\"\n interval 2m\n}\n";
	struct conf c1, c2;
	char *err, *p1, *p2;
	int rc;

	(void)state;
	err = parse(&c1, text, &rc);
	assert_string_equal(err, "");
	free(err);
	p1 = conf_print(&c1);
	err = parse(&c2, p1, &rc);
	assert_string_equal(err, "");
	free(err);
	p2 = conf_print(&c2);
	assert_string_equal(p1, p2);
	/* the same settings, field by field where printing could hide it */
	assert_string_equal(c2.vantage, "x y");
	assert_int_equal(c2.probe.rate, 7);
	assert_int_equal(c2.probe.scales[0], 14);
	assert_true(c2.probe.timeout == 2.25);
	assert_string_equal(c2.probe.payloads[0].path, "/p q");
	assert_int_equal(c2.probe.payloads[0].port, 8080);
	assert_int_equal(c2.interval, 90);
	assert_int_equal(c2.jitter, 0);
	assert_int_equal(c2.groups[0].interval, 120);
	assert_int_equal(c2.groups[0].jitter, 0);
	assert_int_equal(c2.groups[0].targets.n, 2);
	assert_string_equal(c2.groups[0].files[0].path, "/t f");
	assert_true(strstr(p1, "group g {\n\tinterval 2m\n\tjitter 0s\n\tports 80\n\ttarget a.lab\n"
	    "\ttarget b.lab:443\n\tfile \"/t f\"\n}\n") != NULL);
	free(p1);
	free(p2);
	conf_free(&c1);
	conf_free(&c2);
}

/* A reload names the settings it cannot apply. */
/* Each row's offset: set for every type stored through it (but -c and a
 * group's file lists, which have code of their own, and a group-only
 * setting, stored in the group), never shared. */
static void
test_offsets(void **state)
{
	(void)state;
	for (size_t i = 0; i < SET_COUNT; i++) {
		const struct setting *s = &settings[i];

		if (s->type <= SETT_CONTACT && s->id != SET_CONFIG && s->id != SET_FILE)
			assert_true(s->off != 0 || (s->goff != 0 && s->where == SETW_GROUP));
		for (size_t j = 0; j < i; j++)
			assert_true(s->off == 0 || settings[j].off != s->off);
		/* a group's field comes with its line */
		assert_true((s->goff != 0) == (s->gline != 0));
		assert_true(s->goff == 0 || (s->where & SETW_GROUP));
	}
}

/* Two configurations that differ in one setting of each row type: the
 * reload's comparison, generated from the table, names it and only it. */
static void
test_changed(void **state)
{
	static const struct {
		enum setting_id id;
		const char *a, *b;
	} cases[] = {
		{ SET_RATE, "rate 5\n", "rate 6\n" },				/* UINT */
		{ SET_MAX_INFLIGHT, "", "max-inflight 8\n" },			/* UINT, unset */
		{ SET_SYN_TTL, "syn-ttl 64\n", "syn-ttl 63\n" },
		{ SET_FLOWS, "", "flows 8\n" },
		{ SET_FLOWS, "flows 1\n", "flows auto\n" },		/* UINT, its word */
		{ SET_TIMEOUT, "timeout 1.5\n", "timeout 1.25\n" },		/* SECONDS */
		{ SET_ALERT_TIMEOUT, "alert-timeout 30s\n", "alert-timeout 31s\n" },
		{ SET_INTERVAL, "interval 1h\n", "interval 61m\n" },		/* DURATION */
		{ SET_WINDOW_TEST, "window-test yes\n", "window-test no\n" },	/* BOOL */
		{ SET_ALLOW_LARGE, "", "allow-large yes\n" },
		{ SET_TRACE, "trace never\n", "trace always\n" },		/* CHOICE */
		{ SET_VANTAGE, "vantage x\n", "vantage y\n" },			/* STRING */
		{ SET_INTERFACE, "", "interface eth1\n" },
		{ SET_DATABASE, "database /a\n", "database /b\n" },		/* PATH */
		{ SET_ALERT_COMMAND, "", "alert-command /bin/true\n" },
		{ SET_CONTACT, "contact mailto:a@b\n", "contact mailto:c@d\n" },	/* CONTACT */
		{ SET_SCALES, "scales 0,7\n", "scales 7,0\n" },			/* SCALES */
		{ SET_SCALES, "scales 0,7\n", "scales 0,7,14\n" },
		{ SET_PORTS, "ports 80\n", "ports 80,443\n" },			/* PORTS */
		{ SET_SOURCE, "source 198.18.0.1\n", "source 198.18.0.2\n" },	/* ADDR */
		{ SET_ALLOW, "allow 198.18.0.0/24\n", "allow 198.18.1.0/24\n" },	/* PREFIXES */
		{ SET_BLOCK, "", "block 198.18.1.0/24\n" },
		{ SET_PAYLOAD, "payload 8080 /x\n", "payload 8081 /x\n" },	/* PAYLOAD */
		{ SET_PAYLOAD, "payload 8080 /x\n", "payload 8080 /y\n" },
	};
	const struct setting *changed[SET_COUNT];
	struct conf a, b;
	char *err;
	int rc;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = parse(&a, cases[i].a, &rc);
		assert_string_equal(err, "");
		free(err);
		err = parse(&b, cases[i].b, &rc);
		assert_string_equal(err, "");
		free(err);
		assert_int_equal(conf_changed(&a, &a, changed, SET_COUNT), 0);
		assert_int_equal(conf_changed(&a, &b, changed, SET_COUNT), 1);
		assert_int_equal(changed[0]->id, cases[i].id);
		assert_int_equal(conf_changed(&b, &a, changed, SET_COUNT), 1);
		conf_free(&a);
		conf_free(&b);
	}
	/* the restart column: what a reload cannot apply */
	err = parse(&a, "rate 5\nvantage x\n", &rc);
	free(err);
	err = parse(&b, "rate 6\ndatabase /other\ncontrol /c\nscales 7\n", &rc);
	free(err);
	assert_int_equal(conf_changed(&a, &b, changed, SET_COUNT), 5);
	assert_int_equal(changed[0]->id, SET_SCALES);
	assert_false(changed[0]->restart);
	assert_int_equal(changed[1]->id, SET_RATE);
	assert_false(changed[1]->restart);
	assert_true(changed[2]->restart && changed[2]->id == SET_VANTAGE);
	assert_true(changed[3]->restart && changed[3]->id == SET_DATABASE);
	assert_true(changed[4]->restart && changed[4]->id == SET_CONTROL);
	assert_int_equal(conf_changed(&a, &b, changed, 2), 2);
	conf_free(&a);
	conf_free(&b);
}

/* The runs' settings text, from the table's shaping column: word for
 * word what the store has kept since before the column (runs compare). */
static void
test_shaping(void **state)
{
	char buf[512], *err;
	struct conf c;
	int rc;

	(void)state;
	err = parse(&c, "", &rc);
	free(err);
	conf_shaping(&c, buf, sizeof(buf));
	assert_string_equal(buf, "scales=0,7,14 rate=100 timeout=2 retries=2 trace=auto "
	    "window-test=on payload=0 syn-ttl=64");
	conf_free(&c);
	err = parse(&c, "scales 3\nrate 5000\ntimeout 0.1\nretries 0\ntrace always\n"
	    "window-test no\npayload 8080 /q\npayload /p\ncontact mailto:a@b\n"
	    "max-inflight 9\nsyn-ttl 7\n", &rc);
	assert_string_equal(err, "");
	free(err);
	c.probe.payloads[0].len = 5;		/* port 0 sorts first */
	conf_shaping(&c, buf, sizeof(buf));
	assert_string_equal(buf, "scales=3 rate=5000 timeout=0.1 retries=0 trace=always "
	    "window-test=off payload=5 syn-ttl=7");
	conf_shaping(&c, buf, 12);
	assert_string_equal(buf, "scales=3 ra");
	conf_free(&c);
}

/* Payloads compare by their bytes: one file name, other content (the
 * file was rewritten between two reloads) is a change. */
static void
test_changed_payload(void **state)
{
	const struct setting *changed[SET_COUNT];
	struct conf a, b;
	char *err;
	int rc;

	(void)state;
	err = parse(&a, "payload /p\npayload 8080 /q\n", &rc);
	free(err);
	err = parse(&b, "payload /p\npayload 8080 /q\n", &rc);
	free(err);
	for (size_t i = 0; i < 2; i++) {
		a.probe.payloads[i].bytes = (uint8_t *)xstrdup("GET /\r\n");
		b.probe.payloads[i].bytes = (uint8_t *)xstrdup("GET /\r\n");
		a.probe.payloads[i].len = b.probe.payloads[i].len = 7;
	}
	assert_int_equal(conf_changed(&a, &b, changed, SET_COUNT), 0);
	/* as many payloads, as long, the same names: other bytes */
	b.probe.payloads[1].bytes[0] = 'P';
	assert_int_equal(conf_changed(&a, &b, changed, SET_COUNT), 1);
	assert_int_equal(changed[0]->id, SET_PAYLOAD);
	assert_false(changed[0]->restart);
	b.probe.payloads[1].bytes[0] = 'G';
	b.probe.payloads[1].len = 6;
	assert_int_equal(conf_changed(&a, &b, changed, SET_COUNT), 1);
	conf_free(&a);
	conf_free(&b);
}

/* --- opt-out lists and the blocklist ------------------------------------ */

static void
test_optout(void **state)
{
	const char *good = "# owners who asked\n198.18.7.0/24\n  fd00:7::/32  # x\n\n";
	const char *bad = "198.18.7.0/24\nnot-a-prefix\n198.18.0.1/8\n";
	struct conf_errors e = { NULL, 0 };
	struct conf_prefix *v = NULL;
	size_t n = 0;
	char *text;

	(void)state;
	assert_int_equal(conf_optout_parse(&v, &n, good, strlen(good), "o", &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[1].line, 3);
	assert_string_equal(v[1].text, "fd00:7::/32");
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
	assert_int_equal(conf_optout_parse(&v, &n, bad, strlen(bad), "o", &e), -1);
	text = conf_errors_text(&e);
	assert_string_equal(text, "o:2: 'not-a-prefix': not an IPv4 or IPv6 address\n"
	    "o:3: '198.18.0.1/8': host bits set after the prefix length\n");
	free(text);
	conf_errors_free(&e);
}

static void
test_blocklist(void **state)
{
	struct conf c;
	struct blocklist *bl;
	struct addr a;
	char *err;
	int rc;

	(void)state;
	err = parse(&c, "allow 198.18.0.0/15\nblock 198.18.5.0/24\n", &rc);
	assert_string_equal(err, "");
	free(err);
	c.optout_v = calloc(1, sizeof(*c.optout_v));
	c.optout_v[0].text = strdup("198.18.7.0/24");
	assert_int_equal(addr_parse_prefix("198.18.7.0/24", &c.optout_v[0].net,
	    &c.optout_v[0].plen, &(const char *){ NULL }), 0);
	c.noptout = 1;
	bl = conf_blocklist(&c);
	assert_int_equal(addr_parse("198.18.4.1", &a), 0);
	assert_null(blocklist_check(bl, &a));
	assert_int_equal(addr_parse("198.18.5.1", &a), 0);
	assert_string_equal(blocklist_check(bl, &a)->text,
	    "198.18.5.0/24 (blocked by the configuration)");
	assert_int_equal(addr_parse("198.18.7.1", &a), 0);
	assert_string_equal(blocklist_check(bl, &a)->text, "198.18.7.0/24 (opt-out)");
	assert_int_equal(addr_parse("10.0.0.1", &a), 0);
	assert_non_null(blocklist_check(bl, &a));
	blocklist_free(bl);
	conf_free(&c);
}

/* --- the files a configuration names (conf_file.c) ---------------------- */

static char dir[] = "/tmp/test_conf.XXXXXX";

static void
put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_read_text(void **state)
{
	char path[256], err[256], *buf;
	size_t len;

	(void)state;
	put("p", "HELO x\r\n");
	snprintf(path, sizeof(path), "%s/p", dir);
	assert_int_equal(conf_read_text(path, 16, true, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 8);
	assert_memory_equal(buf, "HELO x\r\n", 8);
	free(buf);
	assert_int_equal(conf_read_text(path, 8, true, &buf, &len, err, sizeof(err)), 0);
	free(buf);
	assert_int_equal(conf_read_text(path, 7, true, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than 7 bytes"));
	assert_non_null(strstr(err, path));
	assert_null(buf);
	put("p", "");
	assert_int_equal(conf_read_text(path, 7, true, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 0);
	free(buf);
	unlink(path);
	assert_int_equal(conf_read_text(path, 7, true, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(conf_read_text(dir, 7, true, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(conf_read_text(dir, 7, false, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Is a directory"));
	/* a target list may come from a pipe or a device */
	assert_int_equal(conf_read_text("/dev/null", 7, false, &buf, &len, err,
	    sizeof(err)), 0);
	assert_int_equal(len, 0);
	free(buf);
	assert_int_equal(conf_read_text("/dev/null", 7, true, &buf, &len, err,
	    sizeof(err)), -1);
	/* a FIFO no program writes to is refused at once, not waited on;
	 * one with a writer is read to its end */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(conf_read_text(path, 64, false, &buf, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a FIFO no program writes to"));
	assert_null(buf);
	{
		int fd = open(path, O_RDWR);	/* a writer, without blocking */
		pid_t pid;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "rate 5\n", 7), 7);
		/* the reader has the bytes, then waits for the rest: the
		 * writer, the child's copy, closes 100 ms later */
		if ((pid = fork()) == 0) {
			usleep(100000);
			_exit(0);
		}
		assert_true(pid > 0);
		close(fd);
		assert_int_equal(conf_read_text(path, 64, false, &buf, &len, err,
		    sizeof(err)), 0);
		assert_int_equal(len, 7);
		assert_memory_equal(buf, "rate 5\n", 7);
		free(buf);
		assert_int_equal(waitpid(pid, NULL, 0), pid);
	}
	unlink(path);
}

/* A line over CONF_LINE_MAX is one error at its line, and a long line of
 * short words costs its words, not a line's length per word. */
static void
test_long_lines(void **state)
{
	size_t n = 10u << 20;
	char *text = malloc(n + 40), *err;
	struct conf c;
	int rc;

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < n; i += 2)
		memcpy(text + i, "a ", 2);
	strcpy(text + n, "\nrate 0\n");
	err = parse(&c, text, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(err, "t.conf:1: a line of 10485760 bytes (expected at most 65536)\n"
	    "t.conf:2: rate: '0' is not a rate in 1..10000000\n");
	free(err);
	conf_free(&c);
	/* at the limit: 32,768 words, each an unknown key's first */
	for (size_t i = 0; i < 65536; i += 2)
		memcpy(text + i, "a ", 2);
	strcpy(text + 65536, "\n");
	err = parse(&c, text, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(err, "t.conf:1: unknown key 'a'\n");
	free(err);
	conf_free(&c);
	free(text);
}

/* A whole configuration with its files: payload bytes read, the target
 * files' entries after the inline ones (on the group's ports), the opt-out
 * list read; and each kind of file error at the line that names it. */
static void
test_load(void **state)
{
	struct conf_errors e = { NULL, 0 };
	char text[1024], path[256], *err;
	struct conf c;

	(void)state;
	put("req", "PING\n");
	put("t", "# web\nw.lab\n198.18.0.2:443\n");
	put("o", "198.18.7.0/24\n");
	snprintf(text, sizeof(text), "payload 25 %s/req\nopt-out %s/o\ngroup g {\n"
	    " ports 80,8080\n target 198.18.0.1\n file %s/t\n}\n", dir, dir, dir);
	put("c.conf", text);
	snprintf(path, sizeof(path), "%s/c.conf", dir);
	conf_init(&c);
	assert_int_equal(conf_load(&c, path, &e), 0);
	assert_int_equal(c.probe.payloads[0].len, 5);
	assert_memory_equal(c.probe.payloads[0].bytes, "PING\n", 5);
	assert_int_equal(c.noptout, 1);
	assert_int_equal(c.groups[0].targets.n, 5);	/* 2 + 1 + 2 */
	assert_string_equal(c.groups[0].targets.v[2].as_given, "w.lab");
	assert_int_equal(c.groups[0].targets.v[2].line, 2);
	assert_int_equal(c.groups[0].targets.v[3].port, 443);
	assert_int_equal(c.groups[0].targets.v[4].port, 8080);
	conf_free(&c);

	put("t", "198.18.0.9\n198.18.0.1\n");
	snprintf(text, sizeof(text), "payload 25 %s/none\nopt-out %s/none\ngroup g {\n"
	    " target 198.18.0.1\n file %s/t\n file %s/none\n}\n", dir, dir, dir, dir);
	put("c.conf", text);
	conf_init(&c);
	assert_int_equal(conf_load(&c, path, &e), -1);
	err = conf_errors_text(&e);
	snprintf(text, sizeof(text),
	    "%s/c.conf:1: payload: %s/none: No such file or directory\n"
	    "%s/c.conf:2: opt-out: %s/none: No such file or directory\n"
	    "%s/c.conf:6: file: %s/none: No such file or directory\n",
	    dir, dir, dir, dir, dir, dir);
	assert_string_equal(err, text);
	free(err);
	conf_errors_free(&e);
	conf_free(&c);

	/* without the missing files, the duplicate across file and inline */
	snprintf(text, sizeof(text), "group g {\n target 198.18.0.1\n file %s/t\n}\n", dir);
	put("c.conf", text);
	conf_init(&c);
	assert_int_equal(conf_load(&c, path, &e), -1);
	err = conf_errors_text(&e);
	snprintf(text, sizeof(text), "%s/t:2: target: '198.18.0.1' given again (first at "
	    "%s/c.conf:2)\n", dir, dir);
	assert_string_equal(err, text);
	free(err);
	conf_errors_free(&e);
	conf_free(&c);
}

static int
dir_setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
dir_teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_engine_agrees),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_all_errors),
		cmocka_unit_test(test_allow_large_after),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_changed),
		cmocka_unit_test(test_changed_payload),
		cmocka_unit_test(test_shaping),
		cmocka_unit_test(test_optout),
		cmocka_unit_test(test_blocklist),
		cmocka_unit_test(test_read_text),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
