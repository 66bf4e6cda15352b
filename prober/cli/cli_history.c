/*
 * cli_history.c -- what the commands that use the store share: options, the
 * opening, a run begun, the output written whole (cli_history.h).
 */
#define _GNU_SOURCE	/* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_history.h"
#include "log.h"
#include "when.h"

const char *
cli_history_default_db(void)
{
	static char buf[512];
	struct conf c;

	conf_init(&c);
	snprintf(buf, sizeof(buf), "%s", c.database != NULL ? c.database : "none");
	conf_free(&c);
	return buf;
}

int
cli_history_conf(const char *conf_path, struct conf *c)
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
cli_history_since(const char *opt, const char *s, int64_t *ns)
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
cli_history_open(const char *file, struct store **st, struct history **h)
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
cli_history_close(struct store *st, struct history *h)
{
	history_close(h);
	if (st != NULL)
		store_close(st, NULL, 0);
}

int
cli_history_run_begin(const struct conf *c, const char *db, const char *vantage,
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

/* render into fd (shown as name), which is closed */
static int
cli_history_write_fd(int fd, const char *name, int (*render)(FILE *f, const void *arg),
    const void *arg)
{
	FILE *f;
	int rc;

	if ((f = fdopen(fd, "w")) == NULL) {
		log_warn("%s", name);
		close(fd);
		return -1;
	}
	if ((rc = render(f, arg)) != 0 || ferror(f)) {
		if (rc != CLI_HISTORY_SAID)
			log_warn("%s", name);
		fclose(f);
		return -1;
	}
	if (fclose(f) != 0) {
		log_warn("%s", name);
		return -1;
	}
	return 0;
}

/* A FIFO or a device named by -o, written as it is: opened without
 * waiting (a FIFO no one reads is said at once, ENXIO), then blocking. */
static int
cli_history_write_special(const char *out, int (*render)(FILE *f, const void *arg),
    const void *arg)
{
	int fd, fl;

	if ((fd = open(out, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)) == -1) {
		if (errno == ENXIO)
			log_warnx("%s: a FIFO that no one reads", out);
		else
			log_warn("%s", out);
		return -1;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
		log_warn("%s", out);
		close(fd);
		return -1;
	}
	return cli_history_write_fd(fd, out, render, arg);
}

int
cli_history_write(const char *out, int (*render)(FILE *f, const void *arg), const void *arg)
{
	char tmp[PATH_MAX];
	struct stat sb;
	mode_t mask;
	int fd;

	if (out == NULL || strcmp(out, "-") == 0 || strcmp(out, "/dev/stdout") == 0) {
		int rc = render(stdout, arg);

		if (rc == CLI_HISTORY_SAID)
			return -1;
		if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
			log_warn("standard output");
			return -1;
		}
		return 0;
	}
	/* Only a regular file (or none yet) is replaced whole: /dev/null or
	 * a FIFO renamed over would be destroyed (as root, "-o /dev/null"
	 * once left a regular file in /dev).  A symbolic link is neither
	 * followed (planted in a shared directory, it would aim a root's -o
	 * anywhere) nor replaced: refused. */
	if (lstat(out, &sb) == 0) {
		if (S_ISLNK(sb.st_mode)) {
			log_warnx("%s: a symbolic link: refused (name the file it points to)", out);
			return -1;
		}
		if (S_ISDIR(sb.st_mode)) {
			log_warnx("%s: a directory", out);
			return -1;
		}
		if (!S_ISREG(sb.st_mode))
			return cli_history_write_special(out, render, arg);
	}
	/* a new name in the same directory, made here (O_EXCL: never a link
	 * or another's file), so that the rename replaces only the name */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out) >= sizeof(tmp)) {
		log_warnx("%s: name too long", out);
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC | O_NOFOLLOW)) == -1) {
		log_warn("%s", out);
		return -1;
	}
	/* mkostemp makes it 0600: what a plain create would, instead */
	mask = umask(0);
	umask(mask);
	/* the errors name out, the file the user asked for: the temporary is
	 * this function's business */
	if (fchmod(fd, 0666 & ~mask) != 0) {
		log_warn("%s", out);
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (cli_history_write_fd(fd, out, render, arg) != 0) {
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
