/*
 * cmd_show.c -- "scaleprobe show HOST": what the store knows of one host
 * (a target as written or an address): per path, vantage and scale sent
 * the latest verdict with its evidence and the history as changes of
 * state; --live probes it now first (cmd_show_live.c).  Reads while
 * scaleprobed writes (WAL).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "cli.h"
#include "cli_history.h"
#include "log.h"
#include "show.h"
#include "show_fold.h"
#include "show_render.h"
#include "store.h"

enum { OPT_PORT = 256, OPT_SINCE, OPT_VANTAGE, OPT_LIVE, OPT_JSON, OPT_DB };

static const struct option show_longopts[] = {
	{ "port", required_argument, NULL, OPT_PORT },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "vantage", required_argument, NULL, OPT_VANTAGE },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "db", required_argument, NULL, OPT_DB },
	{ "config", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
show_usage(FILE *f)
{
	fprintf(f,
	    "usage: scaleprobe show [--port P] [--since T] [--vantage V[,V...]] [--live] [--json]\n"
	    "                       [--db FILE] [-c config] HOST\n"
	    "  HOST: a target as written when it was probed, or an address\n"
	    "  V: only these vantages (repeatable; default every one, side by side);\n"
	    "     --live probes as the first\n"
	    "  T: RFC 3339 (2026-12-01T10:00:00Z) or an age (7d, 24h, 90m)\n"
	    "  FILE: default the configuration's database setting (%s)\n",
	    cli_history_default_db());
}

/* A port 0..65535, or -1 after saying why. */
int
show_parse_port(const char *opt, const char *s)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0 || v > 65535) {
		log_warnx("%s: '%s': expected a port, 0 to 65535", opt, s);
		return -1;
	}
	return (int)v;
}

/* Returns 0, 1 for --help, -1 on a usage error (said in one line). */
static int
show_options(int argc, char **argv, struct show_opts *o)
{
	int ch;

	memset(o, 0, sizeof(*o));
	o->port = -1;
	o->since_ns = INT64_MIN;
	while ((ch = getopt_long(argc, argv, "c:h", show_longopts, NULL)) != -1)
		switch (ch) {
		case OPT_PORT:
			if ((o->port = show_parse_port("--port", optarg)) < 0)
				return -1;
			break;
		case OPT_SINCE:
			if (cli_history_since("--since", optarg, &o->since_ns) != 0)
				return -1;
			break;
		case OPT_VANTAGE:
			if (vantage_filter_add(&o->vf, optarg) != 0)
				return -1;
			o->vantage = o->vf.names[0];
			break;
		case OPT_LIVE:
			o->live = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_DB:
			o->db = optarg;
			break;
		case 'c':
			o->conf = optarg;
			break;
		case 'h':
			return 1;
		default:
			return -1;	/* getopt_long said why */
		}
	if (optind + 1 != argc) {
		log_warnx("show: %s (scaleprobe show --help)",
		    optind == argc ? "no HOST" : "one HOST only");
		return -1;
	}
	o->host = argv[optind];
	if (o->host[0] == '\0') {
		log_warnx("show: an empty HOST");
		return -1;
	}
	return 0;
}

/* The daemon's open alerts on the fold's paths (show marks them). */
struct show_keep {
	struct show_fold *fold;
	const struct vantage_filter *vf;
};

static void
show_alert(void *arg, const struct store_alert *a)
{
	struct show_keep *k = arg;

	if (strcmp(a->kind, "path") == 0 && vantage_filter_match(k->vf, a->vantage))
		show_fold_alert(k->fold, a->address, (int)a->port, a->vantage, a->state, a->scales,
		    a->hop_index, a->hop_address, a->incident, a->raised_ns);
}

static int
show_add(void *arg, const struct history_row *row)
{
	struct show_keep *k = arg;

	if (vantage_filter_match(k->vf, row->vantage))
		show_fold_add(k->fold, row);
	return 0;
}

struct finding_arg {
	struct show_fold *f;
	struct show_series *s;
};

static int
show_finding(void *arg, const struct history_finding *hf)
{
	struct finding_arg *a = arg;

	show_fold_finding(a->f, a->s, hf);
	return 0;
}

/* The story of o->host as the store has it; exit status. */
static int
show_history(struct store *st, struct history *h, const struct show_opts *o, const char *host)
{
	/* one vantage: the store filters; several: the rows are kept here */
	struct history_query q = { host, o->port, o->since_ns, vantage_filter_one(&o->vf) };
	struct show_fold fold = { NULL, 0, 0, false, NULL, 0 };
	struct show_keep keep = { &fold, &o->vf };
	int rc = EXIT_CLEAN;

	if (history_show(h, &q, show_add, &keep) != 0) {
		log_warnx("%s", history_error(h));
		rc = EXIT_USAGE;
		goto done;
	}
	for (size_t i = 0; i < fold.n; i++) {
		struct finding_arg a = { &fold, &fold.v[i] };

		if (history_findings(h, fold.v[i].last.path_result_id, fold.v[i].last.scale_idx,
		    show_finding, &a) != 0) {
			log_warnx("%s", history_error(h));
			rc = EXIT_USAGE;
			goto done;
		}
	}
	if (store_alert_each(st, vantage_filter_one(&o->vf), show_alert, &keep) < 0) {
		log_warnx("%s", store_error(st));
		rc = EXIT_USAGE;
		goto done;
	}
	if (fold.failed) {
		log_warnx("show: out of memory");
		rc = EXIT_USAGE;
		goto done;
	}
	if (fold.n == 0) {
		/* not an error: the store simply has nothing on it */
		fprintf(o->json ? stderr : stdout, "no results for %s%s%s%s%s in the store\n",
		    host, o->port >= 0 ? " on that port" : "",
		    o->since_ns != INT64_MIN ? " since that time" : "",
		    o->vantage != NULL ? " from that vantage" : "",
		    o->live ? " (and the live probe stored none)" : "");
		goto done;
	}
	if (o->json) {
		struct json j;

		json_init(&j);
		for (size_t i = 0; i < fold.n;) {
			size_t len;
			const char *text;

			json_reset(&j);
			i = show_render_json(&j, &fold, i);
			text = json_text(&j, &len);
			fwrite(text, 1, len, stdout);
			fputc('\n', stdout);
		}
		json_free(&j);
	} else
		show_render_text(stdout, &fold);
done:
	show_fold_free(&fold);
	return rc;
}

static int
cmd_show(int argc, char **argv)
{
	struct show_opts o;
	struct conf c;
	struct store *st = NULL;
	struct history *h = NULL;
	struct addr a;
	char host[ADDR_STRLEN];
	const char *db;
	int r, rc;

	if ((r = show_options(argc, argv, &o)) != 0) {
		if (r == 1)
			show_usage(stdout);
		vantage_filter_free(&o.vf);
		return r == 1 ? EXIT_CLEAN : EXIT_USAGE;
	}
	if (cli_history_conf(o.conf, &c) != 0) {
		conf_free(&c);
		vantage_filter_free(&o.vf);
		return EXIT_USAGE;
	}
	db = o.db != NULL ? o.db : c.database;
	/* an address as the store writes it: fd00::1 for FD00:0::1 */
	if (addr_parse(o.host, &a) == 0 && addr_format(&a, host, sizeof(host)) != NULL)
		o.host = host;
	if (cli_history_open(db, &st, &h) != 0) {
		conf_free(&c);
		vantage_filter_free(&o.vf);
		return EXIT_USAGE;
	}
	rc = EXIT_CLEAN;
	if (o.live)
		rc = show_live(&c, &o, db, h);
	if (rc == EXIT_CLEAN)
		rc = show_history(st, h, &o, o.host);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_warn("standard output");
		rc = EXIT_USAGE;
	}
	cli_history_close(st, h);
	conf_free(&c);
	vantage_filter_free(&o.vf);
	return rc;
}

const struct cli_command cmd_show_entry = {
	.name = "show",
	.usage = "[--port P] [--since T] [--vantage V[,V...]] [--live] [--json] HOST",
	.summary = "one host's latest verdicts and their history from the store",
	.run = cmd_show,
};
