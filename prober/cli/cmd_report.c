/*
 * cmd_report.c -- "scaleprobe report": the store's results over a window
 * (per day, changes, boxes, side findings, problems with advice) as text,
 * JSON or one HTML file.  The routes of the advice's commands are this
 * host's: run it on the vantage whose hosts the advice is for.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "cli.h"
#include "conf.h"
#include "cli_history.h"
#include "log.h"
#include "report.h"
#include "report_query.h"
#include "route.h"
#include "vantage_filter.h"
#include "when.h"

enum report_format { FMT_TEXT, FMT_JSON, FMT_HTML };

static void
report_usage(FILE *f)
{
	fprintf(f, "usage: scaleprobe report [--db FILE | -c FILE] [--since T] [--until T]\n"
	    "                         [--vantage V[,V...]] [--format text|json|html] [-o FILE]\n"
	    "  -d, --db FILE       the store (default: the configuration's database)\n"
	    "  -c, --config FILE   take the database setting from FILE (default %s)\n"
	    "  --since T           results from T on: RFC 3339 (2026-12-01T10:00:00Z,\n"
	    "                      2026-12-01) or an age (7d, 24h, 90m); default all\n"
	    "  --until T           results before T (default now and later)\n"
	    "  --vantage V[,V...]  only these vantages' results (repeatable; default every one)\n"
	    "  --format text|json|html  text: local time (default); json: RFC 3339 UTC; html:\n"
	    "                      one self-contained file with charts\n"
	    "  -o, --output FILE   write there instead of standard output\n"
	    "  -h, --help          this text\n"
	    "exit: 0 written (an empty window too), 2 error\n", CONF_DEFAULT_PATH);
}

/* local time's offset from UTC at t */
static long
local_utcoff(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (localtime_r(&tt, &tm) == NULL)
		return 0;
	return tm.tm_gmtoff;
}

/* The route to each problem's destination from here, for its command:
 * one netlink socket for all (a store may hold thousands of problems). */
static void
report_routes(struct report_section *s)
{
	struct route *rt = s->nproblems > 0 ? route_open() : NULL;

	for (size_t i = 0; rt != NULL && i < s->nproblems; i++) {
		struct report_problem *p = &s->problems[i];
		char err[256], ifname[ROUTE_IFNAMSIZ];
		struct addr dst, gw;

		if (addr_parse(p->row.address, &dst) != 0 ||
		    route_nexthop_on(rt, &dst, &gw, ifname, err, sizeof(err)) != 0)
			continue;	/* the command keeps GW and DEV */
		snprintf(p->dev, sizeof(p->dev), "%s", ifname);
		if (gw.family != 0)
			addr_format(&gw, p->gw, sizeof(p->gw));
	}
	route_close(rt);
}

static int
report_render(const struct report *rep, enum report_format fmt, FILE *f)
{
	if (fmt == FMT_JSON)
		return report_json(rep, f);
	if (fmt == FMT_HTML)
		return report_html(rep, f);
	return report_text(rep, f);
}

/* What cli_history_write renders: the report in one format. */
struct report_doc {
	const struct report *rep;
	enum report_format fmt;
};

static int
report_doc_write(FILE *f, const void *arg)
{
	const struct report_doc *d = arg;

	return report_render(d->rep, d->fmt, f);
}

/* What report's command line asks. */
struct report_opts {
	const char *db, *conf_path, *out_path;
	enum report_format fmt;
	int64_t since, until;
	struct vantage_filter vf;
};

/* The options into o; -1 to go on, else the exit status. */
static int
report_options(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "since", required_argument, NULL, 's' },
		{ "until", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "vantage", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *since_s = NULL, *until_s = NULL;
	int ch;

	*o = (struct report_opts){ .fmt = FMT_TEXT, .since = INT64_MIN, .until = INT64_MAX };
	while ((ch = getopt_long(argc, argv, "d:c:o:h", longopts, NULL)) != -1)
		switch (ch) {
		case 'd': o->db = optarg; break;
		case 'c': o->conf_path = optarg; break;
		case 's': since_s = optarg; break;
		case 'u': until_s = optarg; break;
		case 'o': o->out_path = optarg; break;
		case 'V':
			if (vantage_filter_add(&o->vf, optarg) != 0)
				return EXIT_USAGE;
			break;
		case 'F':
			if (strcmp(optarg, "text") == 0)
				o->fmt = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				o->fmt = FMT_JSON;
			else if (strcmp(optarg, "html") == 0)
				o->fmt = FMT_HTML;
			else {
				log_warnx("--format: '%s': expected text, json or html", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			report_usage(stdout);
			return EXIT_CLEAN;
		default:
			return EXIT_USAGE;	/* getopt_long said why, in one line */
		}
	if (optind != argc) {
		log_warnx("report: unexpected argument '%s' (see scaleprobe report --help)",
		    argv[optind]);
		return EXIT_USAGE;
	}
	if ((since_s != NULL && cli_history_since("--since", since_s, &o->since) != 0) ||
	    (until_s != NULL && cli_history_since("--until", until_s, &o->until) != 0))
		return EXIT_USAGE;
	if (o->since != INT64_MIN && o->until != INT64_MAX && o->since >= o->until) {
		log_warnx("--since %s is not before --until %s", since_s, until_s);
		return EXIT_USAGE;
	}
	return -1;
}

/* What report_query hands over, kept when its vantage is asked for. */
struct report_keep {
	const struct vantage_filter *vf;
	struct report *rep;
};

static int
report_keep_row(void *arg, const struct report_row *row)
{
	struct report_keep *k = arg;

	if (!vantage_filter_match(k->vf, row->vantage))
		return 0;
	return report_add(k->rep, row);
}

/* The store's rows of o's window folded into rep (begun here); 0, or -1
 * said, rep freed. */
static int
report_read(const struct report_opts *o, struct report *rep)
{
	const char *db = o->db;
	struct report_keep keep;
	char err[512];
	struct conf c;
	int rc;

	if (cli_history_conf(db == NULL ? o->conf_path : NULL, &c) != 0) {
		conf_free(&c);
		return -1;
	}
	if (db == NULL)
		db = c.database;
	if (db == NULL) {
		log_warnx("report: no database (--db FILE, or a configuration's database)");
		conf_free(&c);
		return -1;
	}
	/* the rows folded as SQLite steps through them: memory follows the
	 * paths, not the results of the window */
	if (report_begin(rep, o->since, o->until, o->fmt == FMT_JSON ? NULL : local_utcoff) != 0) {
		log_warnx("report: out of memory");
		conf_free(&c);
		return -1;
	}
	keep.vf = &o->vf;
	keep.rep = rep;
	rc = report_query(db, o->since, o->until, report_keep_row, &keep, err, sizeof(err));
	conf_free(&c);
	if (rc == 0 && report_end(rep) != 0)
		rc = 1;
	if (rc == -1)
		log_warnx("%s", err);
	else if (rc != 0)	/* the changes beyond a run wait in a temporary file */
		log_warnx("report: out of memory or of temporary space (TMPDIR)");
	if (rc != 0) {
		report_free(rep);
		return -1;
	}
	return 0;
}

static int
cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct report rep;
	struct report_doc doc;
	int rc;

	if ((rc = report_options(argc, argv, &o)) >= 0) {
		vantage_filter_free(&o.vf);
		return rc;
	}
	rc = report_read(&o, &rep);
	vantage_filter_free(&o.vf);
	if (rc != 0)
		return EXIT_USAGE;
	report_routes(&rep.all);
	if (rep.all.results == 0)
		fprintf(stderr, "scaleprobe: report: no results in the window\n");
	doc.rep = &rep;
	doc.fmt = o.fmt;
	rc = cli_history_write(o.out_path, report_doc_write, &doc);
	report_free(&rep);
	return rc == 0 ? EXIT_CLEAN : EXIT_USAGE;
}

const struct cli_command cmd_report_entry = {
	.name = "report",
	.usage = "[--db FILE | -c FILE] [--since T] [--until T] [--vantage V] [--format text|json|html]"
	    " [-o FILE]",
	.summary = "trends and advice over the store: per day, changes, boxes, findings",
	.run = cmd_report,
};
