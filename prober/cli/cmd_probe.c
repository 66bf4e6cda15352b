/*
 * cmd_probe.c -- "scaleprobe probe": options, targets, one run, the results
 * printed as they come and the exit status of DESIGN.md's contract.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "blocklist.h"
#include "cli.h"
#include "infer.h"
#include "json.h"
#include "log.h"
#include "output.h"
#include "paths.h"
#include "probe_run.h"
#include "request.h"
#include "store.h"
#include "version.h"

#define PROBE_DEFAULT_RATE	100
#define PROBE_DEFAULT_TIMEOUT	2.0
#define PROBE_DEFAULT_RETRIES	2
#define PROBE_MAX_RETRIES	10
#define PROBE_MAX_TIMEOUT	60.0

struct probe_opts {
	struct targets targets;
	struct targets_opts topts;
	struct blocklist *bl;
	int scales[RESULT_MAX_SCALES];
	int nscales;
	uint32_t rate;
	double timeout;
	int retries;
	size_t max_inflight;
	bool json;
	enum engine_trace trace;
	bool window_test;
	const char *contact;
	uint8_t *payload;
	size_t payload_len;
	struct addr source4, source6;
	bool have_source4, have_source6;
	const char *ifname;
	char vantage[256];
	const char *db;			/* --db FILE, or NULL */
};

struct probe_out {
	const struct probe_opts *o;
	struct json j;
	size_t problems, unmeasured, clean;
	struct store *st;		/* --db: what is printed is stored */
	int64_t run_id;
};

enum {
	OPT_SCALES = 256, OPT_RATE, OPT_TIMEOUT, OPT_RETRIES, OPT_ALLOW,
	OPT_ALLOW_LARGE, OPT_SOURCE, OPT_INTERFACE, OPT_VANTAGE, OPT_JSON,
	OPT_MAX_INFLIGHT, OPT_TRACE, OPT_WINDOW, OPT_NO_WINDOW, OPT_PAYLOAD, OPT_CONTACT,
	OPT_DB,
};

static const struct option longopts[] = {
	{ "scales",	required_argument, NULL, OPT_SCALES },
	{ "rate",	required_argument, NULL, OPT_RATE },
	{ "timeout",	required_argument, NULL, OPT_TIMEOUT },
	{ "retries",	required_argument, NULL, OPT_RETRIES },
	{ "allow",	required_argument, NULL, OPT_ALLOW },
	{ "allow-large", no_argument,	   NULL, OPT_ALLOW_LARGE },
	{ "source",	required_argument, NULL, OPT_SOURCE },
	{ "interface",	required_argument, NULL, OPT_INTERFACE },
	{ "vantage",	required_argument, NULL, OPT_VANTAGE },
	{ "json",	no_argument,	   NULL, OPT_JSON },
	{ "trace",	required_argument, NULL, OPT_TRACE },
	{ "window-test", no_argument,	   NULL, OPT_WINDOW },
	{ "no-window-test", no_argument,   NULL, OPT_NO_WINDOW },
	{ "payload",	required_argument, NULL, OPT_PAYLOAD },
	{ "contact",	required_argument, NULL, OPT_CONTACT },
	{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
	{ "db",		required_argument, NULL, OPT_DB },
	{ "verbose",	no_argument,	   NULL, 'v' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
probe_usage(FILE *f)
{
	fprintf(f,
	    "usage: scaleprobe probe [options] [-f file] target ...\n"
	    "  targets: HOST, HOST:PORT, [IPV6]:PORT, ADDR/PREFIX (port 80 by default)\n"
	    "  -f FILE             read targets from FILE, one per line, # comments\n"
	    "  --scales LIST       shifts to probe, 0..255 (default 0,7,14)\n"
	    "  --rate PPS          packets per second, every kind, never more in any\n"
	    "                      second: 1..10000000 (default 100)\n"
	    "  --timeout SECONDS   wait for a reply after each SYN (default 2)\n"
	    "  --retries N         resend a silent SYN N times (default 2)\n"
	    "  --allow CIDR        lift the special-purpose blocklist for CIDR (repeatable)\n"
	    "  --allow-large       accept prefixes of more than 256 addresses\n"
	    "  --source ADDR       source address (one per family; default from the route)\n"
	    "  --interface NAME    capture interface (default from the route)\n"
	    "  --vantage NAME      vantage point name in the results (default host name)\n"
	    "  --trace MODE        auto (default), always or never: follow each SYN\n"
	    "                      hop by hop (TTL 1..30) and compare router quotes\n"
	    "  --[no-]window-test  complete a handshake per scale and measure which shift\n"
	    "                      the server applied (default on: HTTP GET on 80, TLS\n"
	    "                      ClientHello on 443, --payload FILE elsewhere)\n"
	    "  --payload FILE      the window test's request on any port\n"
	    "  --contact URL       named in the window test's request, for operators\n"
	    "  --json              one JSON object per path (NDJSON)\n"
	    "  --db FILE           store every result in the SQLite store FILE too\n"
	    "  -v, --verbose       counters and peak memory on stderr at the end\n"
	    "exit: 0 clean, 1 path problem found, 2 error or nothing probed, 3 some path not measured\n");
}

/* Parses an integer in [lo, hi] from all of s. */
static int
parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int
parse_scales(const char *s, struct probe_opts *o)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	int rc = 0;

	o->nscales = 0;
	/* strtok_r would skip an empty element: "1,,2" is a typo, not 1,2 */
	if (s[0] == ',' || s[0] == '\0' || s[strlen(s) - 1] == ',' || strstr(s, ",,") != NULL) {
		log_warnx("--scales: '%s' has an empty element", s);
		free(copy);
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		long v;
		if (parse_long(tok, 0, 255, &v) != 0) {
			log_warnx("--scales: '%s' is not a shift in 0..255", tok);
			rc = -1;
			break;
		}
		if (o->nscales == RESULT_MAX_SCALES) {
			log_warnx("--scales: at most %d values", RESULT_MAX_SCALES);
			rc = -1;
			break;
		}
		o->scales[o->nscales++] = (int)v;
	}
	if (rc == 0 && o->nscales == 0) {
		log_warnx("--scales: empty list");
		rc = -1;
	}
	free(copy);
	return rc;
}

static int
parse_source(const char *s, struct probe_opts *o)
{
	struct addr a;

	if (addr_parse(s, &a) != 0) {
		log_warnx("--source: '%s' is not an IPv4 or IPv6 address", s);
		return -1;
	}
	if (a.family == ADDR_V4) {
		o->source4 = a;
		o->have_source4 = true;
	} else {
		o->source6 = a;
		o->have_source6 = true;
	}
	return 0;
}

/* Reads options into o; returns 0, 1 for --help, -1 on a usage error. */
static int
probe_options(int argc, char **argv, struct probe_opts *o)
{
	const char *why;
	long v;
	int ch;

	while ((ch = getopt_long(argc, argv, "f:vh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (targets_read_file(&o->targets, optarg, &o->topts) != 0)
				return -1;
			break;
		case OPT_SCALES:
			if (parse_scales(optarg, o) != 0)
				return -1;
			break;
		case OPT_RATE:
			if (parse_long(optarg, 1, 10000000, &v) != 0) {
				log_warnx("--rate: '%s' is not a rate in 1..10000000", optarg);
				return -1;
			}
			o->rate = (uint32_t)v;
			break;
		case OPT_TIMEOUT: {
			char *end;
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (errno != 0 || *end != '\0' || !(o->timeout > 0) ||
			    o->timeout > PROBE_MAX_TIMEOUT) {
				log_warnx("--timeout: '%s' is not in (0, %.0f] seconds",
				    optarg, PROBE_MAX_TIMEOUT);
				return -1;
			}
			break;
		}
		case OPT_RETRIES:
			if (parse_long(optarg, 0, PROBE_MAX_RETRIES, &v) != 0) {
				log_warnx("--retries: '%s' is not in 0..%d", optarg,
				    PROBE_MAX_RETRIES);
				return -1;
			}
			o->retries = (int)v;
			break;
		case OPT_ALLOW:
			if (blocklist_allow(o->bl, optarg, &why) != 0) {
				log_warnx("--allow: '%s': %s", optarg, why);
				return -1;
			}
			break;
		case OPT_ALLOW_LARGE:
			o->topts.allow_large = true;
			break;
		case OPT_SOURCE:
			if (parse_source(optarg, o) != 0)
				return -1;
			break;
		case OPT_INTERFACE:
			o->ifname = optarg;
			break;
		case OPT_VANTAGE:
			snprintf(o->vantage, sizeof(o->vantage), "%s", optarg);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_WINDOW:
			o->window_test = true;
			break;
		case OPT_NO_WINDOW:
			o->window_test = false;
			break;
		case OPT_CONTACT: {
			uint8_t probe[REQUEST_MAX];

			/* refused here, or every HTTP window test would quietly
			 * not run */
			if (request_http(probe, sizeof(probe), "example.org", optarg) == 0) {
				log_warnx("--contact: '%s' is not a URL or mailto: address of "
				    "visible ASCII without parentheses or backslash, at most "
				    "%d bytes", optarg, REQUEST_CONTACT_MAX);
				return -1;
			}
			o->contact = optarg;
			break;
		}
		case OPT_PAYLOAD: {
			char err[256];
			long n;

			free(o->payload);
			o->payload = xmalloc(REQUEST_PAYLOAD_MAX);
			n = request_payload_file(optarg, o->payload, REQUEST_PAYLOAD_MAX,
			    err, sizeof(err));
			if (n < 0) {
				log_warnx("--payload: %s", err);
				return -1;
			}
			o->payload_len = (size_t)n;
			break;
		}
		case OPT_TRACE:
			if (strcmp(optarg, "auto") == 0)
				o->trace = ENGINE_TRACE_AUTO;
			else if (strcmp(optarg, "always") == 0)
				o->trace = ENGINE_TRACE_ALWAYS;
			else if (strcmp(optarg, "never") == 0)
				o->trace = ENGINE_TRACE_NEVER;
			else {
				log_warnx("--trace: '%s' is not auto, always or never", optarg);
				return -1;
			}
			break;
		case OPT_MAX_INFLIGHT:
			if (parse_long(optarg, 1, 1 << 20, &v) != 0) {
				log_warnx("--max-inflight: '%s' is not in 1..%d", optarg, 1 << 20);
				return -1;
			}
			o->max_inflight = (size_t)v;
			break;
		case OPT_DB:
			o->db = optarg;
			break;
		case 'v':
			log_setverbose(log_getverbose() + 1);
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	for (int i = optind; i < argc; i++)
		if (targets_parse_spec(&o->targets, argv[i], &o->topts) != 0)
			return -1;
	return 0;
}

/* One result out; -1 when stdout is gone (a closed pipe, a full disk):
 * the run then ends, exit 2, as results would only be lost. */
static int
probe_result(void *arg, struct path_result *res)
{
	struct probe_out *out = arg;
	bool problem = false, unmeasured = false;

	infer_path(res);
	for (int i = 0; i < res->nscales; i++) {
		if (infer_is_problem(res->verdicts[i].verdict))
			problem = true;
		else if (!infer_is_measured(res->verdicts[i].verdict))
			unmeasured = true;
	}
	if (problem)
		out->problems++;
	else if (unmeasured)
		out->unmeasured++;
	else
		out->clean++;

	if (out->o->json) {
		size_t len;
		const char *text;

		json_reset(&out->j);
		output_json(&out->j, res, out->o->vantage);
		text = json_text(&out->j, &len);
		fwrite(text, 1, len, stdout);
		fputc('\n', stdout);
	} else
		output_text(stdout, res);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_warn("standard output");
		return -1;
	}
	if (out->st != NULL && store_add(out->st, out->run_id, res) != 0) {
		log_warnx("%s", store_error(out->st));
		return -1;
	}
	return 0;
}

/* The settings that shape results, as the store keeps them per run. */
static void
probe_settings(const struct probe_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	n += (size_t)snprintf(buf + n, len - n, "scales=");
	for (int i = 0; i < o->nscales && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "", o->scales[i]);
	if (n < len)
		snprintf(buf + n, len - n, " rate=%u timeout=%g retries=%d trace=%s "
		    "window-test=%s payload=%zu", o->rate, o->timeout, o->retries,
		    o->trace == ENGINE_TRACE_AUTO ? "auto" : o->trace == ENGINE_TRACE_ALWAYS ?
		    "always" : "never", o->window_test ? "on" : "off", o->payload_len);
}

/* --db: the store opened (a bad file refused before anything is sent)
 * and the run's row begun; -1 after saying why. */
static int
probe_store_open(const struct probe_opts *o, struct probe_out *out)
{
	char err[STORE_ERRLEN], settings[512];
	struct store_run run;

	if (o->db == NULL)
		return 0;
	if ((out->st = store_open(o->db, STORE_WRITE, NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	probe_settings(o, settings, sizeof(settings));
	memset(&run, 0, sizeof(run));
	clock_gettime(CLOCK_REALTIME, &run.start);
	run.vantage = o->vantage;
	run.settings = settings;
	run.program = "scaleprobe " SCALEPROBE_VERSION;
	if (store_run_begin(out->st, &run, &out->run_id) != 0) {
		log_warnx("%s", store_error(out->st));
		store_close(out->st, NULL, 0);
		out->st = NULL;
		return -1;
	}
	return 0;
}

static void
probe_summary(const struct probe_run_stats *st, size_t npaths)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	log_info("%zu paths: %llu SYNs sent (%llu retries), %llu SYN-ACKs, %llu RSTs, "
	    "%llu ICMP errors matched; %llu rejected, %llu late; %llu RSTs sent; "
	    "trace: %llu paths, %llu SYNs, %llu hops quoted, %llu reached the destination; "
	    "window test: %llu paths, %llu segments sent; "
	    "capture: %llu packets, %llu dropped; peak RSS %.1f MiB",
	    npaths, (unsigned long long)st->n.syns_sent,
	    (unsigned long long)st->n.retries_sent, (unsigned long long)st->n.synacks,
	    (unsigned long long)st->n.rsts, (unsigned long long)st->n.icmp_errors,
	    (unsigned long long)st->n.rejected, (unsigned long long)st->n.late,
	    (unsigned long long)st->n.rsts_sent,
	    (unsigned long long)st->n.paths_traced, (unsigned long long)st->n.trace_sent,
	    (unsigned long long)st->n.trace_hops, (unsigned long long)st->n.trace_dest,
	    (unsigned long long)st->n.paths_windowed, (unsigned long long)st->n.window_sent,
	    (unsigned long long)st->captured,
	    (unsigned long long)st->capture_drops, ru.ru_maxrss / 1024.0);
}

/* Whether this process holds CAP_NET_RAW and CAP_NET_ADMIN (root has
 * them): the effective set in /proc/self/status, or euid 0 without it. */
static bool
probe_privileged(void)
{
	const unsigned long need = (1ul << 12) | (1ul << 13);	/* NET_ADMIN, NET_RAW */
	char line[256];
	unsigned long long eff;
	bool found = false, ok = false;
	FILE *f;

	if ((f = fopen("/proc/self/status", "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "CapEff: %llx", &eff) == 1) {
				found = true;
				ok = (eff & need) == need;
				break;
			}
		fclose(f);
	}
	return found ? ok : geteuid() == 0;
}

static int
cmd_probe(int argc, char **argv)
{
	struct probe_opts o;
	struct probe_out out;
	struct paths paths;
	struct paths_opts po;
	struct probe_run_config rc;
	struct probe_run_stats st;
	int r, status;

	memset(&o, 0, sizeof(o));
	targets_init(&o.targets);
	o.bl = blocklist_new();
	o.scales[0] = 0;
	o.scales[1] = 7;
	o.scales[2] = 14;
	o.nscales = 3;
	o.rate = PROBE_DEFAULT_RATE;
	o.timeout = PROBE_DEFAULT_TIMEOUT;
	o.retries = PROBE_DEFAULT_RETRIES;
	o.trace = ENGINE_TRACE_AUTO;
	o.window_test = true;
	if (gethostname(o.vantage, sizeof(o.vantage)) != 0)
		snprintf(o.vantage, sizeof(o.vantage), "unknown");

	r = probe_options(argc, argv, &o);
	if (r != 0 || o.targets.nerrors > 0) {
		if (o.targets.errors != NULL)
			fputs(o.targets.errors, stderr);
		/* a misuse is one line that names it (--help has the rest) */
		if (r == 1)
			probe_usage(stdout);
		status = r == 1 ? EXIT_CLEAN : EXIT_USAGE;
		goto done;
	}
	if (o.targets.n == 0) {
		log_warnx("no targets (scaleprobe probe --help)");
		status = EXIT_USAGE;
		goto done;
	}
	/* before any name or route is looked up: nothing to wait for */
	if (!probe_privileged()) {
		log_warnx("probing needs root, or CAP_NET_RAW and CAP_NET_ADMIN "
		    "(raw sockets, the capture, the nftables guard)");
		status = EXIT_USAGE;
		goto done;
	}

	memset(&po, 0, sizeof(po));
	po.bl = o.bl;
	po.source4 = o.have_source4 ? &o.source4 : NULL;
	po.source6 = o.have_source6 ? &o.source6 : NULL;
	po.ifname = o.ifname;
	if (paths_build(&paths, &o.targets, &po) != 0) {
		status = EXIT_USAGE;
		goto done;
	}
	if (paths.n == 0) {
		log_warnx("nothing to probe");
		paths_free(&paths);
		status = EXIT_USAGE;
		goto done;
	}

	memset(&out, 0, sizeof(out));
	out.o = &o;
	if (probe_store_open(&o, &out) != 0) {
		paths_free(&paths);
		status = EXIT_USAGE;
		goto done;
	}
	json_init(&out.j);
	memset(&rc, 0, sizeof(rc));
	rc.paths = &paths;
	rc.nscales = o.nscales;
	memcpy(rc.scales, o.scales, sizeof(rc.scales));
	rc.rate = o.rate;
	rc.timeout_ns = (uint64_t)llround(o.timeout * 1e9);
	rc.retries = o.retries;
	rc.max_inflight = o.max_inflight;
	rc.trace = o.trace;
	rc.window_test = o.window_test;
	rc.contact = o.contact;
	rc.payload = o.payload;
	rc.payload_len = o.payload_len;
	rc.progress = isatty(STDERR_FILENO) && paths.n > 1;
	rc.on_result = probe_result;
	rc.arg = &out;
	if (probe_run(&rc, &st) != 0)
		status = EXIT_USAGE;
	else if (st.interrupted)
		status = EXIT_USAGE;
	else if (out.problems > 0)
		status = EXIT_PROBLEM;
	else if (out.unmeasured > 0 || paths.blocked_targets > 0 ||
	    paths.unresolved > 0 || paths.unrouted > 0)
		status = EXIT_UNMEASURED;
	else
		status = EXIT_CLEAN;
	if (out.st != NULL) {
		char err[STORE_ERRLEN];
		struct store_stats ss;

		if (store_flush(out.st, true) != 0) {
			log_warnx("%s", store_error(out.st));
			status = EXIT_USAGE;
		}
		ss = *store_get_stats(out.st);
		if (store_close(out.st, err, sizeof(err)) != 0) {
			log_warnx("%s", err);
			status = EXIT_USAGE;
		}
		/* the event loop's stalls the store caused, for the notes */
		if (log_getverbose() > 0)
			log_info("store: %llu results in %llu batches; longest commit %.2f ms, "
			    "longest insert %.2f ms; evidence of %llu packets, %llu bytes",
			    (unsigned long long)ss.paths, (unsigned long long)ss.batches,
			    ss.commit_ns_max / 1e6, ss.add_ns_max / 1e6,
			    (unsigned long long)ss.evidence, (unsigned long long)ss.evidence_bytes);
	}
	if (log_getverbose() > 0)
		probe_summary(&st, paths.n);
	json_free(&out.j);
	paths_free(&paths);
done:
	targets_free(&o.targets);
	blocklist_free(o.bl);
	free(o.payload);
	return status;
}

const struct cli_command cmd_probe_entry = {
	.name = "probe",
	.usage = "[options] [-f file] target ...",
	.summary = "probe targets now and print one result per path",
	.run = cmd_probe,
};
