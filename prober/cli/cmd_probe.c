/*
 * cmd_probe.c -- "scaleprobe probe": a configuration file and the flags
 * over it (both read through the settings table), targets, one run, the
 * results printed as they come and the exit status of cli.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blocklist.h"
#include "cli.h"
#include "cli_run.h"
#include "demand_client.h"
#include "cli_settings.h"
#include "conf.h"
#include "cli_history.h"
#include "infer.h"
#include "json.h"
#include "log.h"
#include "output.h"
#include "paths.h"
#include "show.h"
#include "store.h"
#include "version.h"

struct probe_out {
	const struct conf *c;
	const char *vantage;
	struct json j;
	size_t problems, unmeasured, clean;
	struct store *st;		/* --db: what is printed is stored */
	int64_t run_id;
	bool flush_each;		/* stdout is read as it comes (a pipe, a
					   terminal): each result flushed */
	bool stdout_failed;		/* told once */
};

static void
probe_usage(FILE *f)
{
	fprintf(f,
	    "usage: scaleprobe probe [options] [-c config] [-f file] target ...\n"
	    "  targets: HOST, HOST:PORT, [IPV6]:PORT, ADDR/PREFIX (ports: --ports, default 80)\n");
	cli_usage_settings(f);
	fprintf(f,
	    "exit: 0 clean, 1 path problem found, 2 error or nothing probed, 3 some path not measured\n");
}

/* Prints every error of a configuration, one line each. */
static void
probe_conf_errors(struct conf_errors *e)
{
	char *text = conf_errors_text(e);

	fputs(text, stderr);
	free(text);
	conf_errors_free(e);
}

/* -c FILE, read before any flag so that the flags override it.  Returns
 * 0 (also without -c), or -1 after printing its errors. */
static int
probe_config(int argc, char **argv, const struct cli_getopt *go, struct conf *c)
{
	struct conf_errors e = { NULL, 0 };
	const char *path = NULL;
	bool neg;
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, go->shortopts, go->longopts, NULL)) != -1) {
		const struct setting *s = cli_getopt_setting(ch, &neg);

		if (s != NULL && s->id == SET_CONFIG)
			path = optarg;
		/* the file's prefixes are checked as it is read: the flag
		 * must be in force by then to override the default */
		if (s != NULL && s->id == SET_ALLOW_LARGE)
			c->allow_large = true;
	}
	opterr = 1;
	optind = 0;		/* glibc: start again, from scratch */
	if (path == NULL)
		return 0;
	if (conf_load(c, path, &e) != 0) {
		probe_conf_errors(&e);
		return -1;
	}
	return 0;
}

/* Every group's targets join the command line's, as written, each on the
 * port it was given (its group's ports applied already). */
static int
probe_conf_targets(const struct conf *c, struct targets *t, struct paths_files *files)
{
	for (size_t i = 0; i < c->ngroups; i++) {
		/* a group's long file is streamed after the rest, on its ports */
		for (size_t k = 0; k < c->groups[i].nfiles; k++)
			if (c->groups[i].files[k].streamed)
				paths_files_add(files, c->groups[i].files[k].path, c->allow_large,
				    c->groups[i].ports, c->groups[i].nports,
				    &c->groups[i].files[k].scan);
		for (size_t k = 0; k < c->groups[i].targets.n; k++) {
			const struct target *tg = &c->groups[i].targets.v[k];
			struct targets_opts o = { c->allow_large, tg->port };

			if (targets_parse_spec(t, tg->as_given, &o) != 0)
				return -1;
		}
	}
	return 0;
}

/* -f FILE, with the ports setting as it stands: read through once first
 * (its errors all found before anything is sent, its targets counted);
 * a list of at most PATHS_CHUNK targets is then read whole into t, as
 * the command line's; a longer one is left to be streamed by the walk
 * (paths.h), after t, with no limit on its size. */
static int
probe_targets_file(const struct conf *c, struct targets *t, struct paths_files *files,
    const char *path)
{
	char err[600], *buf;
	size_t len, n;
	struct targets_scan sum;
	struct stat sb;
	int rc;

	/* a FIFO or a pipe can be read only once: whole, as before */
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
		rc = targets_scan_file(path, c->allow_large, c->ports, c->nports, &sum, t);
		if (sum.entries + sum.errors > PATHS_CHUNK || sb.st_size > (off_t)(64u << 20)) {
			if (rc != 0)
				return -1;
			paths_files_add(files, path, c->allow_large, c->ports, c->nports, &sum);
			return 0;
		}
		/* a short list: every error told again by the one pass of
		 * before, not the scan's first 100 */
		strbuf_free(&t->errors);
		t->nerrors = 0;
	}
	if (conf_read_text(path, 64u << 20, false, &buf, &len, err, sizeof(err)) != 0) {
		targets_add_error(t, "%s", err);
		return -1;
	}
	rc = conf_targets_buf(t, buf, len, path, c->allow_large, c->ports, c->nports, &n);
	free(buf);
	return rc;
}

/* Reads the flags into c (over its configuration) and the targets into t;
 * returns 0, 1 for --help, -1 on a usage error (said in one line). */
static int
probe_options(int argc, char **argv, struct conf *c, struct targets *t,
    struct paths_files *files, bool *db, const char **probing)
{
	struct cli_getopt go;
	struct conf_errors e = { NULL, 0 };
	char why[700];
	bool neg;
	int ch;

	cli_getopt_build(&go);
	if (probe_config(argc, argv, &go, c) != 0)
		return -1;
	while ((ch = getopt_long(argc, argv, go.shortopts, go.longopts, NULL)) != -1) {
		const struct setting *s = cli_getopt_setting(ch, &neg);
		const char *v = optarg;

		if (s == NULL)
			return -1;	/* getopt_long said why */
		switch (s->id) {
		case SET_CONFIG:
			continue;
		case SET_HELP:
			return 1;
		case SET_FILE:
			if (probe_targets_file(c, t, files, optarg) != 0)
				return -1;
			continue;
		default:
			break;
		}
		/* --via-daemon probes with the daemon's settings, not these */
		if (*probing == NULL && s->id != SET_JSON && s->id != SET_VERBOSE &&
		    s->id != SET_VIA_DAEMON)
			*probing = s->flag;
		if (s->type == SETT_BOOL)
			v = neg ? "no" : "yes";
		if (setting_set(c, NULL, s, &v, s->type == SETT_ACTION ? 0 : 1, 0, why,
		    sizeof(why)) != 0) {
			log_warnx("--%s: %s", s->flag, why);
			return -1;
		}
		/* the database's default is scaleprobed's: probe stores only
		 * when told to */
		if (s->id == SET_DATABASE)
			*db = true;
		/* read now, so a missing file is named before anything else */
		if (s->id == SET_PAYLOAD && conf_load_payloads(c, "--payload", &e) != 0) {
			log_warnx("--payload: %s", e.v[0].msg);
			conf_errors_free(&e);
			return -1;
		}
	}
	/* the daemon's groups are its own to probe: --via-daemon asks for
	 * the command line's targets only */
	if (!c->via_daemon && probe_conf_targets(c, t, files) != 0)
		return -1;
	for (int i = optind; i < argc; i++)
		if (conf_targets_spec(t, argv[i], c->allow_large, c->ports, c->nports) != 0)
			return -1;
	return 0;
}

/* One result out; -1 when stdout is gone (a closed pipe, a full disk):
 * the run then ends, exit 2, as results would only be lost. */
static int
probe_result(void *arg, struct path_result *res)
{
	struct probe_out *out = arg;

	switch (output_class(res)) {
	case OUTPUT_PROBLEM:
		out->problems++;
		break;
	case OUTPUT_UNMEASURED:
		out->unmeasured++;
		break;
	case OUTPUT_CLEAN:
	default:
		out->clean++;
		break;
	}

	if (out->c->json) {
		size_t len;
		const char *text;

		json_reset(&out->j);
		output_json(&out->j, res, out->vantage);
		text = json_text(&out->j, &len);
		fwrite(text, 1, len, stdout);
		fputc('\n', stdout);
	} else
		output_text(stdout, res);
	if ((out->flush_each && fflush(stdout) != 0) || ferror(stdout)) {
		log_warn("standard output");
		out->stdout_failed = true;
		return -1;
	}
	if (out->st != NULL && store_add(out->st, out->run_id, res) != 0) {
		log_warnx("%s", store_error(out->st));
		return -1;
	}
	return 0;
}

/* --db: everything flushed and the store closed; -1 after saying why. */
static int
probe_store_close(struct probe_out *out)
{
	char err[STORE_ERRLEN];
	struct store_stats ss;
	int rc = 0;

	if (store_flush(out->st, true) != 0) {
		log_warnx("%s", store_error(out->st));
		rc = -1;
	}
	ss = *store_get_stats(out->st);
	if (store_close(out->st, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		rc = -1;
	}
	out->st = NULL;
	/* -v: the event loop's stalls the store caused ("The store" of
	 * prober/design-notes.md quotes them) */
	if (log_getverbose() > 0)
		log_info("store: %llu results in %llu batches; longest commit %.2f ms, "
		    "longest insert %.2f ms; evidence of %llu packets, %llu bytes",
		    (unsigned long long)ss.paths, (unsigned long long)ss.batches,
		    ss.commit_ns_max / 1e6, ss.add_ns_max / 1e6,
		    (unsigned long long)ss.evidence, (unsigned long long)ss.evidence_bytes);
	return rc;
}

static void
probe_summary(const struct runner_stats *st, size_t npaths)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	log_info("%zu paths: %llu SYNs sent (%llu retries), %llu SYN-ACKs, %llu RSTs, "
	    "%llu ICMP errors matched; %llu rejected, %llu replayed, %llu late; %llu RSTs sent; "
	    "trace: %llu paths, %llu SYNs, %llu hops quoted, %llu reached the destination; "
	    "window test: %llu paths, %llu segments sent; "
	    "capture: %llu packets, %llu dropped; peak RSS %.1f MiB",
	    npaths, (unsigned long long)st->n.syns_sent,
	    (unsigned long long)st->n.retries_sent, (unsigned long long)st->n.synacks,
	    (unsigned long long)st->n.rsts, (unsigned long long)st->n.icmp_errors,
	    (unsigned long long)st->n.rejected, (unsigned long long)st->n.replayed,
	    (unsigned long long)st->n.late,
	    (unsigned long long)st->n.rsts_sent,
	    (unsigned long long)st->n.paths_traced, (unsigned long long)st->n.trace_sent,
	    (unsigned long long)st->n.trace_hops, (unsigned long long)st->n.trace_dest,
	    (unsigned long long)st->n.paths_windowed, (unsigned long long)st->n.window_sent,
	    (unsigned long long)st->captured,
	    (unsigned long long)st->capture_drops, ru.ru_maxrss / 1024.0);
	{
		char why[512];

		runner_rejects_line(st, why, sizeof(why));
		log_info("packets: %s", why);
	}
	/* memory per path in flight, from the engine's own count (malloc's
	 * overhead and the path table apart) */
	if (st->n.mem_peak_paths > 0)
		log_info("engine: %llu paths in flight at most; %llu bytes per path in flight "
		    "at its memory's peak (%llu bytes for %llu paths)",
		    (unsigned long long)st->n.inflight_peak,
		    (unsigned long long)(st->n.mem_peak / st->n.mem_peak_paths),
		    (unsigned long long)st->n.mem_peak, (unsigned long long)st->n.mem_peak_paths);
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

/* Whether each target left out was named in a line of its own (blocked,
 * unresolved, unrouted): "nothing to probe" would then be a second line
 * saying the same. */
static bool
probe_told(const struct paths *paths)
{
	return paths->blocked_targets > 0 || paths->unresolved > 0 || paths->unrouted > 0;
}

/* The paths of the targets, through the blocklist, from the sources and
 * interface asked for; -1 (logged, nothing left open) when there is
 * nothing to probe. */
static int
probe_paths_open(const struct conf *c, const struct targets *targets,
    const struct paths_files *files, const struct blocklist *bl, struct paths *paths)
{
	struct paths_opts po;

	memset(&po, 0, sizeof(po));
	po.files = files;
	po.bl = bl;
	po.source4 = c->have_source4 ? &c->source4 : NULL;
	po.source6 = c->have_source6 ? &c->source6 : NULL;
	po.range4 = c->range4.first.family != 0 ? &c->range4 : NULL;
	po.range6 = c->range6.first.family != 0 ? &c->range6 : NULL;
	po.ifname = c->interface;
	if (paths_open(paths, targets, &po) != 0) {
		paths_free(paths);
		return -1;
	}
	/* names are resolved during the run: only they may still give one */
	if (paths->n == 0 && paths->nnames == 0 && !paths->more_now) {
		if (!probe_told(paths))
			log_warnx("nothing to probe");
		paths_free(paths);
		return -1;
	}
	return 0;
}

/* The exit status of a run that ended by itself: a problem found, paths
 * left unmeasured, or clean. */
static int
probe_status(const struct probe_out *out, const struct paths *paths)
{
	if (paths->n == 0) {
		if (!probe_told(paths))
			log_warnx("nothing to probe");
		return EXIT_USAGE;
	}
	if (out->problems > 0)
		return EXIT_PROBLEM;
	if (out->unmeasured > 0 || paths->blocked_targets > 0 ||
	    paths->unresolved > 0 || paths->unrouted > 0)
		return EXIT_UNMEASURED;
	return EXIT_CLEAN;
}

static int
probe_via_result(void *arg, const char *text, size_t len)
{
	(void)arg;
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
		log_warn("standard output");
		return -1;
	}
	return 0;
}

/* --via-daemon: the targets as written (once each, whatever ports they
 * were read on) asked of the daemon on its control socket. */
static int
probe_via_daemon(const struct conf *c, const struct targets *t)
{
	struct demand_client q;
	const char **v = xcalloc(t->n + 1, sizeof(*v));
	size_t n = 0;
	int status;

	if (c->control == NULL) {
		log_warnx("--via-daemon: no control setting: which socket to ask is unknown");
		free(v);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < t->n; i++)
		if (n == 0 || strcmp(v[n - 1], t->v[i].as_given) != 0)
			v[n++] = t->v[i].as_given;
	memset(&q, 0, sizeof(q));
	q.socket = c->control;
	q.targets = v;
	q.ntargets = n;
	q.json = c->json;
	q.result = probe_via_result;
	status = demand_ask(&q);
	free(v);
	return status;
}

static int
cmd_probe(int argc, char **argv)
{
	struct conf c;
	struct targets targets;
	struct paths_files files;
	struct blocklist *bl = NULL;
	struct probe_out out;
	struct stat sb;
	struct paths paths;
	struct cli_run_config rc;
	struct runner_stats st;
	char vantage[256];
	bool db = false;
	const char *probing = NULL;
	int r, status;

	conf_init(&c);
	targets_init(&targets);
	memset(&files, 0, sizeof(files));
	r = probe_options(argc, argv, &c, &targets, &files, &db, &probing);
	if (r != 0 || targets.nerrors > 0) {
		fputs(strbuf_str(&targets.errors), stderr);
		/* a misuse is one line that names it (--help has the rest) */
		if (r == 1)
			probe_usage(stdout);
		status = r == 1 ? EXIT_CLEAN : EXIT_USAGE;
		goto done;
	}
	log_setverbose(log_getverbose() + (int)c.verbose);
	if (targets.n == 0 && files.entries == 0) {
		log_warnx("no targets (scaleprobe probe --help)");
		status = EXIT_USAGE;
		goto done;
	}
	if (c.via_daemon && probing != NULL) {
		log_warnx("--via-daemon: --%s is not taken: the daemon probes with its own "
		    "settings (-c, -f, --json and -v only)", probing);
		status = EXIT_USAGE;
		goto done;
	}
	if (c.via_daemon && files.n > 0) {
		log_warnx("--via-daemon: %s: more than %d targets: the daemon is asked "
		    "for fewer at once", files.v[0].path, PATHS_CHUNK);
		status = EXIT_USAGE;
		goto done;
	}
	if (c.via_daemon) {
		status = probe_via_daemon(&c, &targets);
		goto done;
	}
	/* before any name or route is looked up: nothing to wait for */
	if (!probe_privileged()) {
		log_warnx("probing needs root, or CAP_NET_RAW and CAP_NET_ADMIN "
		    "(raw sockets, the capture, the nftables guard)");
		status = EXIT_USAGE;
		goto done;
	}
	if (c.vantage != NULL)
		snprintf(vantage, sizeof(vantage), "%s", c.vantage);
	else if (gethostname(vantage, sizeof(vantage)) != 0)
		snprintf(vantage, sizeof(vantage), "unknown");

	bl = conf_blocklist(&c);
	if (probe_paths_open(&c, &targets, &files, bl, &paths) != 0) {
		status = EXIT_USAGE;
		goto done;
	}

	memset(&out, 0, sizeof(out));
	out.c = &c;
	out.vantage = vantage;
	/* a file is read when the run is over: stdio's buffer spares a
	 * write per result; anything else may be read live */
	out.flush_each = fstat(STDOUT_FILENO, &sb) != 0 || !S_ISREG(sb.st_mode);
	if (db && cli_history_run_begin(&c, c.database, vantage, "scaleprobe " SCALEPROBE_VERSION,
	    &out.st, &out.run_id) != 0) {
		paths_free(&paths);
		status = EXIT_USAGE;
		goto done;
	}
	json_init(&out.j);
	memset(&rc, 0, sizeof(rc));
	rc.paths = &paths;
	rc.settings = &c.probe;
	/* the packets that prove a result are kept for the store only */
	rc.no_evidence = !db;
	rc.progress = isatty(STDERR_FILENO) && paths.total > 1;
	rc.on_result = probe_result;
	rc.arg = &out;
	if (cli_run(&rc, &st) != 0 || st.interrupted)
		status = EXIT_USAGE;
	else
		status = probe_status(&out, &paths);
	if (!out.stdout_failed && (fflush(stdout) != 0 || ferror(stdout))) {
		log_warn("standard output");
		status = EXIT_USAGE;
	} else if (out.stdout_failed)
		status = EXIT_USAGE;
	if (out.st != NULL && probe_store_close(&out) != 0)
		status = EXIT_USAGE;
	if (log_getverbose() > 0)
		probe_summary(&st, paths.n);
	if (log_getverbose() > 0 && paths.streaming)
		log_info("list streamed: %zu chunks of up to %d targets, at most %zu held at once, "
		    "%zu with their spaces; "
		    "%llu addresses skipped as an earlier chunk's; the set of what went out: "
		    "%zu pairs in %zu bytes, %zu prefixes", paths.chunks_loaded, PATHS_CHUNK,
		    paths.chunks_live_max, paths.spaces_live_max,
		    (unsigned long long)paths.skipped_earlier,
		    paths.sent.n, paths.sent.bytes, paths.nlarge);
	json_free(&out.j);
	paths_free(&paths);
done:
	free(files.v);
	targets_free(&targets);
	blocklist_free(bl);
	conf_free(&c);
	return status;
}

bool
cli_may_probe(void)
{
	return probe_privileged();
}

const struct cli_command cmd_probe_entry = {
	.name = "probe",
	.usage = "[options] [-c config] [-f file] target ...",
	.summary = "probe targets now and print one result per path",
	.run = cmd_probe,
};
