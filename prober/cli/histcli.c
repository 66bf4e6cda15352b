/*
 * histcli.c -- what the commands that use the store share: options, the
 * opening, a run begun, the output written whole (histcli.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "histcli.h"
#include "log.h"
#include "when.h"

const char *
histcli_default_db(void)
{
	static char buf[512];
	struct conf c;

	conf_init(&c);
	snprintf(buf, sizeof(buf), "%s", c.database != NULL ? c.database : "none");
	conf_free(&c);
	return buf;
}

int
histcli_conf(const char *conf_path, struct conf *c)
{
	struct conf_errors e = { NULL, 0 };
	char *text;

	conf_init(c);
	if (conf_path == NULL)
		return 0;
	if (conf_load(c, conf_path, &e) == 0) {
		conf_errors_free(&e);
		return 0;
	}
	text = conf_errors_text(&e);
	fputs(text, stderr);
	free(text);
	conf_errors_free(&e);
	return -1;
}

int
histcli_since(const char *opt, const char *s, int64_t *ns)
{
	char err[256];
	int64_t t;

	if (when_parse(s, (int64_t)time(NULL), &t, err, sizeof(err)) != 0) {
		log_warnx("%s: %s", opt, err);
		return -1;
	}
	/* beyond what ns since the epoch hold: no result is that old or new */
	if (t < -9000000000LL || t > 9000000000LL) {
		log_warnx("%s: '%s': out of range", opt, s);
		return -1;
	}
	*ns = t * 1000000000;
	return 0;
}

int
histcli_open(const char *file, struct store **st, struct history **h)
{
	char err[STORE_ERRLEN];

	*h = NULL;
	if ((*st = store_open(file, STORE_READ, NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	if ((*h = history_open(*st, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		store_close(*st, NULL, 0);
		*st = NULL;
		return -1;
	}
	return 0;
}

void
histcli_close(struct store *st, struct history *h)
{
	history_close(h);
	if (st != NULL)
		store_close(st, NULL, 0);
}

int
histcli_run_begin(const struct conf *c, const char *db, const char *vantage,
    const char *program, struct store **st, int64_t *run_id)
{
	char err[STORE_ERRLEN], shaping[512];
	struct store_run run;

	if ((*st = store_open(db, STORE_WRITE, NULL, err, sizeof(err))) == NULL) {
		log_warnx("%s", err);
		return -1;
	}
	conf_shaping(c, shaping, sizeof(shaping));
	memset(&run, 0, sizeof(run));
	clock_gettime(CLOCK_REALTIME, &run.start);
	run.vantage = vantage;
	run.settings = shaping;
	run.program = program;
	if (store_run_begin(*st, &run, run_id) != 0) {
		log_warnx("%s", store_error(*st));
		store_close(*st, NULL, 0);
		*st = NULL;
		return -1;
	}
	return 0;
}

/* Straight into out: one that exists and is not a regular file, or the
 * temporary file a regular one is replaced by. */
static int
histcli_write_to(const char *out, int (*render)(FILE *f, const void *arg), const void *arg)
{
	FILE *f;

	if ((f = fopen(out, "w")) == NULL) {
		log_warn("%s", out);
		return -1;
	}
	if (render(f, arg) != 0 || ferror(f)) {
		log_warn("%s", out);
		fclose(f);
		return -1;
	}
	if (fclose(f) != 0) {
		log_warn("%s", out);
		return -1;
	}
	return 0;
}

int
histcli_write(const char *out, int (*render)(FILE *f, const void *arg), const void *arg)
{
	char tmp[PATH_MAX];
	struct stat sb;

	if (out == NULL || strcmp(out, "-") == 0) {
		if (render(stdout, arg) != 0 || fflush(stdout) != 0 || ferror(stdout)) {
			log_warn("standard output");
			return -1;
		}
		return 0;
	}
	/* Only a regular file (or none yet) is replaced whole: /dev/null, a
	 * FIFO or a symbolic link renamed over would be destroyed (as root,
	 * "-o /dev/null" once left a regular file in /dev). */
	if (lstat(out, &sb) == 0 && !S_ISREG(sb.st_mode))
		return histcli_write_to(out, render, arg);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", out) >= sizeof(tmp)) {
		log_warnx("%s: name too long", out);
		return -1;
	}
	if (histcli_write_to(tmp, render, arg) != 0) {
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, out) != 0) {
		log_warn("%s", out);
		unlink(tmp);
		return -1;
	}
	return 0;
}
