/*
 * cmd_db.c -- "scaleprobe db": the store's upkeep for its owner, none of
 * which sends a packet or needs root unless the file does.
 *   upgrade  migrates the schema in place; the copy through SQLite's
 *            backup API comes first (FILE.vN-TIME.bak, db/store_backup.c);
 *   check    integrity, foreign keys and the schema, one line per fault,
 *            exit 1 when there is one;
 *   prune    retention now, with the daemon's rule and steps (store.h's
 *            store_prune_step), of every vantage or, with --vantage, of
 *            those named, one after the other, a line each; --dry-run
 *            counts and writes nothing.
 */
#include <sys/stat.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_history.h"
#include "log.h"
#include "store.h"
#include "vantage_filter.h"
#include "when.h"

enum { OPT_DB = 256, OPT_DRY_RUN, OPT_RETENTION, OPT_QUICK, OPT_VANTAGE };

static const struct option db_longopts[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "config", required_argument, NULL, 'c' },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "retention", required_argument, NULL, OPT_RETENTION },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "vantage", required_argument, NULL, OPT_VANTAGE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
db_usage(FILE *f)
{
	fprintf(f,
	    "usage: scaleprobe db upgrade [--db FILE] [-c config]\n"
	    "       scaleprobe db check [--quick] [--db FILE] [-c config]\n"
	    "       scaleprobe db prune [--dry-run] [--retention DAYS] [--vantage V[,V...]]\n"
	    "                           [--db FILE] [-c config]\n"
	    "  upgrade: migrate the schema in place, after a copy FILE.vN-TIME.bak\n"
	    "  check: integrity, foreign keys, schema; one line per fault, exit 1 if any\n"
	    "  prune: delete results older than DAYS (default the retention setting)\n"
	    "         but those that begin or end a state; --dry-run writes nothing;\n"
	    "         V: only these vantages' results (repeatable; default every one)\n"
	    "  FILE: default the configuration's database setting (%s)\n",
	    cli_history_default_db());
}

struct db_opts {
	const char *sub, *db, *conf;
	bool dry_run, quick;
	long retention;		/* days; 0: the configuration's */
	struct vantage_filter vf;	/* prune's; none: every vantage */
};

static int
db_upgrade(const char *file)
{
	char err[STORE_ERRLEN];
	struct stat sb;
	struct store *st;

	/* a writer's open would create a missing file */
	if (stat(file, &sb) != 0) {
		log_warn("%s", file);
		return EXIT_USAGE;
	}
	if ((st = store_open(file, STORE_WRITE, NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return EXIT_USAGE;
	}
	if (store_backup(st) != NULL)
		printf("%s: schema version %" PRId64 " migrated to %d; the copy before it: %s\n",
		    file, store_migrated_from(st), STORE_SCHEMA_VERSION, store_backup(st));
	else
		printf("%s: schema version %d, this scaleprobe's: nothing to migrate\n", file,
		    STORE_SCHEMA_VERSION);
	if (store_close(st, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return EXIT_USAGE;
	}
	return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_USAGE;
}

static void
print_fault(void *arg, const char *line)
{
	printf("%s: %s\n", (const char *)arg, line);
}

static int
db_check(const char *file, bool quick)
{
	char err[STORE_ERRLEN];
	int n;

	if ((n = store_check(file, quick, print_fault, (void *)(uintptr_t)file, err,
	    sizeof(err))) < 0) {
		log_warnx("%s", err);
		return EXIT_USAGE;
	}
	if (n == 0)
		printf("%s: ok\n", file);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return n > 0 ? EXIT_PROBLEM : EXIT_CLEAN;
}

/* One pass over vantage (NULL: every vantage's results), its line
 * printed; 0 or -1 (store_error). */
static int
prune_one(struct store *st, const char *file, const char *vantage, long days, bool dry_run)
{
	char when[WHEN_RFC3339_LEN];
	struct store_prune p;
	int64_t cutoff_s = (int64_t)time(NULL) - (int64_t)days * 86400;
	int rc;

	store_prune_init(&p, cutoff_s * 1000000000, 0, dry_run);
	p.vantage = vantage;
	while ((rc = store_prune_step(st, &p)) > 0)
		;
	/* the freed pages leave the file now, not at the next checkpoint
	 * (PostgreSQL's autovacuum makes them reusable there) */
	if (rc == 0 && !dry_run && !store_is_uri(file) &&
	    store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)") != 0)
		rc = -1;
	if (rc != 0)
		return -1;
	when_format_utc(cutoff_s, when);
	printf("%s: %s%s%s %" PRIu64 " results of %" PRIu64 " paths older than %s "
	    "(%ld days), %" PRIu64 " evidence records, %" PRIu64 " runs; %s%" PRId64 " bytes "
	    "freed (%" PRId64 " -> %" PRId64 ")", file, vantage != NULL ? "vantage " : "",
	    vantage != NULL ? vantage : "every vantage", dry_run ? ": would remove" :
	    ": removed", p.results, p.paths, when, days, p.evidence, p.runs,
	    dry_run ? "about " : "", p.bytes_before - p.bytes_after, p.bytes_before,
	    p.bytes_after);
	if (!dry_run)
		printf("; %" PRIu64 " transactions, the longest %.1f ms; %.2f s", p.batches,
		    (double)p.lock_ns_max / 1e6, (double)p.took_ns / 1e9);
	printf("\n");
	return 0;
}

static int
db_prune(const char *file, long days, bool dry_run, const struct vantage_filter *vf)
{
	char err[STORE_ERRLEN];
	struct store *st;

	if ((st = store_open(file, dry_run ? STORE_READ : STORE_WRITE, NULL, err,
	    sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return EXIT_USAGE;
	}
	/* each vantage named its own pass: the same rule as the daemon's
	 * retention of that vantage */
	for (size_t i = 0; i < (vf->n > 0 ? vf->n : 1); i++)
		if (prune_one(st, file, vf->n > 0 ? vf->names[i] : NULL, days, dry_run) != 0) {
			log_warnx("%s", store_error(st));
			store_close(st, NULL, 0);
			return EXIT_USAGE;
		}
	if (store_close(st, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return EXIT_USAGE;
	}
	return fflush(stdout) == 0 ? EXIT_CLEAN : EXIT_USAGE;
}

static int
db_parse(int argc, char **argv, struct db_opts *o)
{
	char *end;
	int ch;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:h", db_longopts, NULL)) != -1)
		switch (ch) {
		case OPT_DB:
			o->db = optarg;
			break;
		case 'c':
			o->conf = optarg;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_VANTAGE:
			if (vantage_filter_add(&o->vf, optarg) != 0)
				return -1;
			break;
		case OPT_RETENTION:
			o->retention = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || o->retention < 1 ||
			    o->retention > 36500) {
				log_warnx("--retention: '%s': expected days, 1 to 36500", optarg);
				return -1;
			}
			break;
		case 'h':
			return 1;
		default:
			return -1;	/* getopt_long said why */
		}
	if (optind + 1 != argc) {
		log_warnx("%s", optind == argc ? "no subcommand: upgrade, check or prune" :
		    "one subcommand only");
		return -1;
	}
	o->sub = argv[optind];
	if (strcmp(o->sub, "upgrade") != 0 && strcmp(o->sub, "check") != 0 &&
	    strcmp(o->sub, "prune") != 0) {
		log_warnx("'%s': not a subcommand of db (upgrade, check, prune)", o->sub);
		return -1;
	}
	if ((o->dry_run || o->retention != 0 || o->vf.n > 0) && strcmp(o->sub, "prune") != 0) {
		log_warnx("--dry-run, --retention and --vantage are prune's");
		return -1;
	}
	if (o->quick && strcmp(o->sub, "check") != 0) {
		log_warnx("--quick is check's");
		return -1;
	}
	return 0;
}

static int
cmd_db(int argc, char **argv)
{
	struct db_opts o;
	struct conf c;
	const char *db;
	int r, rc;

	/* a misuse is the one line db_parse said; the usage is --help's */
	if ((r = db_parse(argc, argv, &o)) != 0) {
		vantage_filter_free(&o.vf);
		if (r == 1)
			db_usage(stdout);
		return r == 1 ? EXIT_CLEAN : EXIT_USAGE;
	}
	if (cli_history_conf(o.conf, &c) != 0) {
		vantage_filter_free(&o.vf);
		conf_free(&c);
		return EXIT_USAGE;
	}
	db = o.db != NULL ? o.db : c.database;
	if (db == NULL) {
		log_warnx("no database: --db FILE, or the configuration's database setting");
		vantage_filter_free(&o.vf);
		conf_free(&c);
		return EXIT_USAGE;
	}
	if (strcmp(o.sub, "upgrade") == 0)
		rc = db_upgrade(db);
	else if (strcmp(o.sub, "check") == 0)
		rc = db_check(db, o.quick);
	else
		rc = db_prune(db, o.retention != 0 ? o.retention : (long)c.retention, o.dry_run,
		    &o.vf);
	vantage_filter_free(&o.vf);
	conf_free(&c);
	return rc;
}

const struct cli_command cmd_db_entry = {
	"db", "upgrade|check|prune [options]",
	"the store's upkeep: migrate with a copy, check, prune", cmd_db,
};
