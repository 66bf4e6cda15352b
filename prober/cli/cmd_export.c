/*
 * cmd_export.c -- "scaleprobe export": the list a vendor can act on, one
 * row per vantage, address, port, scale sent and verdict (the problems by
 * default), as CSV (RFC 4180) or a JSON array (export.schema.json); with
 * --pcap DIR a pcapng of each row's evidence and a manifest.json; the rows
 * and the manifest written as the store hands them over.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr.h"
#include "cli.h"
#include "csv.h"
#include "export_pcap.h"
#include "export_render.h"
#include "cli_history.h"
#include "json.h"
#include "log.h"
#include "vantage_filter.h"

enum { OPT_FORMAT = 256, OPT_VERDICT, OPT_SINCE, OPT_HOP, OPT_PCAP, OPT_DB, OPT_VANTAGE };

static const struct option export_longopts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "verdict", required_argument, NULL, OPT_VERDICT },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "hop", required_argument, NULL, OPT_HOP },
	{ "pcap", required_argument, NULL, OPT_PCAP },
	{ "vantage", required_argument, NULL, OPT_VANTAGE },
	{ "output", required_argument, NULL, 'o' },
	{ "db", required_argument, NULL, OPT_DB },
	{ "config", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct export_opts {
	bool json;
	struct history_export_query q;
	char verdicts[256];
	char hop[ADDR_STRLEN];
	const char *pcap, *out, *db, *conf;
	struct vantage_filter vf;
};

static void
export_usage(FILE *f)
{
	fprintf(f,
	    "usage: scaleprobe export [--format csv|json] [--verdict LIST] [--since T]\n"
	    "                         [--hop ADDR] [--vantage V[,V...]] [--pcap DIR] [-o FILE]\n"
	    "                         [--db FILE] [-c config]\n"
	    "  LIST: verdicts, comma-separated (default rewritten,stripped,syn-dropped)\n"
	    "  T: RFC 3339 (2026-12-01T10:00:00Z) or an age (7d, 24h, 90m)\n"
	    "  V: only these vantages' rows (repeatable; default every one)\n"
	    "  FILE: default the configuration's database setting (%s)\n",
	    cli_history_default_db());
}

/* --verdict a,b,c into o->q; -1 after saying why. */
static int
export_verdicts(struct export_opts *o, const char *list)
{
	char *save = NULL, *tok;
	enum verdict v;

	if (strlen(list) >= sizeof(o->verdicts)) {
		log_warnx("--verdict: too long");
		return -1;
	}
	snprintf(o->verdicts, sizeof(o->verdicts), "%s", list);
	o->q.nverdicts = 0;
	for (tok = strtok_r(o->verdicts, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((v = verdict_from_name(tok)) == VERDICT_NONE) {
			log_warnx("--verdict: '%s': not a verdict (ok, unsupported, rewritten, "
			    "stripped, syn-dropped, closed, filtered, unreachable, inconclusive)",
			    tok);
			return -1;
		}
		if (o->q.nverdicts == HISTORY_MAX_VERDICTS)
			break;
		o->q.verdicts[o->q.nverdicts++] = verdict_name(v);
	}
	if (o->q.nverdicts == 0) {
		log_warnx("--verdict: an empty list");
		return -1;
	}
	return 0;
}

static int
export_options(int argc, char **argv, struct export_opts *o)
{
	struct addr a;
	int ch;

	memset(o, 0, sizeof(*o));
	o->q.since_ns = INT64_MIN;
	if (export_verdicts(o, "rewritten,stripped,syn-dropped") != 0)
		return -1;
	while ((ch = getopt_long(argc, argv, "c:ho:", export_longopts, NULL)) != -1)
		switch (ch) {
		case OPT_FORMAT:
			if (strcmp(optarg, "csv") != 0 && strcmp(optarg, "json") != 0) {
				log_warnx("--format: '%s': csv or json", optarg);
				return -1;
			}
			o->json = strcmp(optarg, "json") == 0;
			break;
		case OPT_VERDICT:
			if (export_verdicts(o, optarg) != 0)
				return -1;
			break;
		case OPT_SINCE:
			if (cli_history_since("--since", optarg, &o->q.since_ns) != 0)
				return -1;
			break;
		case OPT_HOP:
			if (addr_parse(optarg, &a) != 0 ||
			    addr_format(&a, o->hop, sizeof(o->hop)) == NULL) {
				log_warnx("--hop: '%s': expected an address", optarg);
				return -1;
			}
			o->q.hop = o->hop;
			break;
		case OPT_PCAP:
			o->pcap = optarg;
			break;
		case OPT_VANTAGE:
			if (vantage_filter_add(&o->vf, optarg) != 0)
				return -1;
			break;
		case 'o':
			o->out = optarg;
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
			return -1;
		}
	if (optind != argc) {
		log_warnx("export: '%s': no operands (scaleprobe export --help)", argv[optind]);
		return -1;
	}
	return 0;
}

struct export_run {
	const struct export_opts *o;
	struct history *h;
	struct csv csv;			/* one row at a time */
	struct json j;			/* one object at a time */
	struct json manifest;		/* one entry at a time, into mf */
	int dirfd;
	FILE *mf;			/* --pcap: the new manifest's temporary */
	char mtmp[64];			/* its name in dirfd */
	FILE *out;			/* where the rows go as they come */
	unsigned rows;
	bool failed;			/* said why */
	bool write_failed;		/* writing to out failed */
};

/* Writes len bytes to name in dirfd (flags: O_TRUNC, or O_EXCL for a
 * name of its own); -1 after saying why. */
static int
write_at(int dirfd, const char *dir, const char *name, int flags, const void *p, size_t len)
{
	const unsigned char *b = p;
	int fd;

	if ((fd = openat(dirfd, name, O_WRONLY | O_CREAT | flags | O_CLOEXEC | O_NOFOLLOW,
	    0644)) == -1) {
		log_warn("%s/%s", dir, name);
		return -1;
	}
	while (len > 0) {
		ssize_t n = write(fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("%s/%s", dir, name);
			close(fd);
			return -1;
		}
		b += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0) {
		log_warn("%s/%s", dir, name);
		return -1;
	}
	return 0;
}

/* The manifest's entries so far, written to its temporary and dropped;
 * -1 after saying why. */
static int
manifest_flush(struct export_run *x)
{
	const char *p;
	size_t len;

	p = json_text(&x->manifest, &len);
	if (fwrite(p, 1, len, x->mf) != len) {
		log_warn("--pcap: %s/manifest.json", x->o->pcap);
		return -1;
	}
	json_clear_text(&x->manifest);
	return 0;
}

/* The row's evidence as a pcapng in --pcap DIR, and its manifest entry. */
static int
export_pcap_row(struct export_run *x, const struct history_row *r)
{
	static uint8_t space[EXPORT_PCAP_MAX];
	struct pcapng_buf b = { space, 0, sizeof(space), false };
	uint8_t *ev = NULL;
	size_t evlen = 0;
	const char *why = NULL;
	char name[128];
	int n = 0, rc;

	if ((rc = history_evidence(x->h, r->path_result_id, &ev, &evlen)) < 0) {
		log_warnx("%s", history_error(x->h));
		return -1;
	}
	if (rc == 1)
		why = "no evidence stored for this result";
	else if (export_pcap_build(r, ev, evlen, &b, &n, &why) != 0)
		n = 0;
	else {
		export_pcap_name(r, x->rows, name, sizeof(name));
		if (write_at(x->dirfd, x->o->pcap, name, O_TRUNC, b.p, b.len) != 0) {
			free(ev);
			return -1;
		}
	}
	free(ev);
	export_pcap_manifest(&x->manifest, r, n > 0 ? name : NULL, n, why);
	return manifest_flush(x);
}

/* What the document holds so far, written out and dropped: the rows
 * leave as SQLite hands them over, never held whole. */
static int
export_flush(struct export_run *x)
{
	const char *p;
	size_t len;

	if (x->o->json) {
		p = json_text(&x->j, &len);
		if (fwrite(p, 1, len, x->out) != len)
			x->write_failed = true;
		json_clear_text(&x->j);
	} else {
		if (x->csv.failed) {
			log_warnx("export: out of memory");
			x->failed = true;
			return -1;
		}
		if (x->csv.len > 0 && fwrite(x->csv.p, 1, x->csv.len, x->out) != x->csv.len)
			x->write_failed = true;
		csv_clear(&x->csv);
	}
	return x->write_failed ? -1 : 0;
}

static int
export_row(void *arg, const struct history_row *r)
{
	struct export_run *x = arg;

	if (!vantage_filter_match(&x->o->vf, r->vantage))
		return 0;
	x->rows++;
	if (x->o->json)
		export_json_row(&x->j, r);
	else
		export_csv_row(&x->csv, r);
	if (export_flush(x) != 0)
		return 1;
	if (x->o->pcap != NULL && export_pcap_row(x, r) != 0) {
		x->failed = true;
		return 1;
	}
	return 0;
}

/* The run, for cli_history_write. */
struct export_doc {
	struct export_run *x;
};

/* The document, written to f as the store's rows come: a CSV header and
 * its rows, or a JSON array and a line break.  0; -1 when writing to f
 * failed; CLI_HISTORY_SAID after saying why (the store, the evidence). */
static int
export_doc_write(FILE *f, const void *arg)
{
	struct export_run *x = ((const struct export_doc *)arg)->x;

	x->out = f;
	if (x->o->json)
		json_array_begin(&x->j);
	else
		export_csv_header(&x->csv);
	if (export_flush(x) != 0)
		return x->failed ? CLI_HISTORY_SAID : -1;
	if (history_export(x->h, &x->o->q, export_row, x) != 0 || x->failed ||
	    x->write_failed) {
		if (x->write_failed)
			return -1;
		if (!x->failed)
			log_warnx("%s", history_error(x->h));
		x->failed = true;
		return CLI_HISTORY_SAID;
	}
	if (x->o->json) {
		json_array_end(&x->j);
		if (!json_ok(&x->j)) {
			log_warnx("export: the JSON document is broken");
			x->failed = true;
			return CLI_HISTORY_SAID;
		}
		if (export_flush(x) != 0 || fputc('\n', f) == EOF)
			return -1;
	}
	return 0;
}

/* Whether the new manifest (m over f, at row *curow with name cur; read
 * again from the start when asked for an earlier row) lists name for row:
 * the new export wrote it. */
static bool
export_wrote(struct export_manifest *m, FILE *f, char *cur, size_t len, unsigned *curow,
    const char *name, unsigned row)
{
	if (row < *curow) {
		/* an earlier manifest in another order: read the new one again */
		rewind(f);
		export_pcap_manifest_begin(m, f);
		*curow = 0;
		cur[0] = '\0';
	}
	while (*curow < row && export_pcap_manifest_next(m, cur, len) == 1)
		if (!export_pcap_own_name(cur, curow))
			*curow = 0;
	return *curow == row && strcmp(cur, name) == 0;
}

/* The earlier export's files that the new one did not write, removed:
 * the names the old manifest (oldf) lists, of export's shape (never a
 * path or a hidden file), that the new manifest (newf) does not, and only
 * regular files (a link is not followed nor removed, nor anything else
 * put there).  Both read a name at a time.  0, or -1 after saying why. */
static int
export_pcap_stale(struct export_run *x, FILE *oldf, FILE *newf)
{
	struct export_manifest om, nm;
	struct stat sb;
	char name[128], cur[128] = "";
	unsigned row, curow = UINT_MAX;		/* not read yet */
	int rc = 0;

	export_pcap_manifest_begin(&om, oldf);
	export_pcap_manifest_begin(&nm, newf);
	/* a file that is no manifest of ours ends the list where it stops
	 * being one: what it does not list is left alone */
	while (export_pcap_manifest_next(&om, name, sizeof(name)) == 1) {
		if (!export_pcap_own_name(name, &row) ||
		    export_wrote(&nm, newf, cur, sizeof(cur), &curow, name, row))
			continue;
		if (fstatat(x->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno == ENOENT)
				continue;
			log_warn("--pcap: %s/%s", x->o->pcap, name);
			rc = -1;
			continue;
		}
		if (S_ISREG(sb.st_mode) && unlinkat(x->dirfd, name, 0) != 0 && errno != ENOENT) {
			log_warn("--pcap: %s/%s: an earlier export's", x->o->pcap, name);
			rc = -1;
		}
	}
	return rc;
}

/* A regular file name in dirfd opened to read, or NULL (none, or not a
 * regular file: a FIFO planted there is not waited on). */
static FILE *
open_regular(int dirfd, const char *name)
{
	struct stat sb;
	FILE *f;
	int fd;

	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return NULL;
	}
	return f;
}

/* The new manifest's temporary, made in DIR (O_EXCL: never a link or
 * another's file); -1 after saying why. */
static int
export_pcap_begin(struct export_run *x)
{
	int fd;

	snprintf(x->mtmp, sizeof(x->mtmp), ".manifest.json.%ld", (long)getpid());
	if ((fd = openat(x->dirfd, x->mtmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0644)) == -1) {
		log_warn("--pcap: %s/%s", x->o->pcap, x->mtmp);
		x->mtmp[0] = '\0';
		return -1;
	}
	if ((x->mf = fdopen(fd, "w+")) == NULL) {
		log_warn("--pcap: %s/%s", x->o->pcap, x->mtmp);
		close(fd);
		return -1;
	}
	json_array_begin(&x->manifest);
	return 0;
}

/* The manifest completed and renamed over manifest.json (whole, as the
 * rows were), then the earlier export's files it does not list removed;
 * 0, or -1 after saying why. */
static int
export_pcap_finish(struct export_run *x)
{
	FILE *oldf;
	int rc;

	json_array_end(&x->manifest);
	if (!json_ok(&x->manifest)) {
		log_warnx("--pcap: %s/manifest.json: the document is broken", x->o->pcap);
		return -1;
	}
	if (manifest_flush(x) != 0)
		return -1;
	if (fflush(x->mf) != 0 || ferror(x->mf)) {
		log_warn("--pcap: %s/manifest.json", x->o->pcap);
		return -1;
	}
	/* the earlier manifest, opened before it is replaced */
	oldf = open_regular(x->dirfd, "manifest.json");
	if (renameat(x->dirfd, x->mtmp, x->dirfd, "manifest.json") != 0) {
		log_warn("--pcap: %s/manifest.json", x->o->pcap);
		if (oldf != NULL)
			fclose(oldf);
		return -1;
	}
	x->mtmp[0] = '\0';
	rc = oldf != NULL ? export_pcap_stale(x, oldf, x->mf) : 0;
	if (oldf != NULL)
		fclose(oldf);
	return rc;
}

static int
export_pcap_dir(const char *dir)
{
	int fd;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		log_warn("--pcap: %s", dir);
		return -1;
	}
	/* a link at dir itself is not followed (planted in a shared place, it
	 * would aim a root's export anywhere); the files are made in what
	 * was opened, with openat */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		struct stat sb;

		if (lstat(dir, &sb) == 0 && S_ISLNK(sb.st_mode))
			log_warnx("--pcap: %s: a symbolic link: refused (name the directory "
			    "it points to)", dir);
		else
			log_warn("--pcap: %s", dir);
	}
	return fd;
}

static int
cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct export_run x;
	struct export_doc doc;
	struct conf c;
	struct store *st = NULL;
	int r, rc = EXIT_CLEAN;

	if ((r = export_options(argc, argv, &o)) != 0) {
		if (r == 1)
			export_usage(stdout);
		vantage_filter_free(&o.vf);
		return r == 1 ? EXIT_CLEAN : EXIT_USAGE;
	}
	if (cli_history_conf(o.conf, &c) != 0) {
		conf_free(&c);
		vantage_filter_free(&o.vf);
		return EXIT_USAGE;
	}
	memset(&x, 0, sizeof(x));
	x.o = &o;
	x.dirfd = -1;
	json_init(&x.j);
	json_init(&x.manifest);
	if (cli_history_open(o.db != NULL ? o.db : c.database, &st, &x.h) != 0) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (o.pcap != NULL && (x.dirfd = export_pcap_dir(o.pcap)) == -1) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (o.pcap != NULL && export_pcap_begin(&x) != 0) {
		rc = EXIT_USAGE;
		goto done;
	}
	/* to -o FILE (a temporary renamed into place when whole) or stdout */
	doc.x = &x;
	if (cli_history_write(o.out, export_doc_write, &doc) != 0) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (o.pcap != NULL && export_pcap_finish(&x) != 0)
		rc = EXIT_USAGE;
	/* an empty list is an answer, not an error: said where people look */
	if (rc == EXIT_CLEAN && x.rows == 0)
		fprintf(stderr, "scaleprobe: export: no results match\n");
done:
	if (x.mf != NULL)
		fclose(x.mf);
	/* a manifest never put in place goes */
	if (x.mtmp[0] != '\0')
		unlinkat(x.dirfd, x.mtmp, 0);
	if (x.dirfd != -1)
		close(x.dirfd);
	csv_free(&x.csv);
	json_free(&x.j);
	json_free(&x.manifest);
	cli_history_close(st, x.h);
	conf_free(&c);
	vantage_filter_free(&o.vf);
	return rc;
}

const struct cli_command cmd_export_entry = {
	.name = "export",
	.usage = "[--format csv|json] [--verdict LIST] [--since T] [--hop ADDR] [--pcap DIR] "
	    "[-o FILE]",
	.summary = "the problems found, as CSV or JSON, with pcapng evidence",
	.run = cmd_export,
};
