/*
 * cli_history.h -- what the commands that use the store share (show, export,
 * report, probe --db): the database they read
 * (--db, else the configuration's database setting, -c FILE), --since as
 * an RFC 3339 time or an age, and the store opened read-only with its
 * reader, and the output written whole.  Each prints its one line and
 * says -1.
 */
#ifndef SCALEPROBE_CLI_HISTORY_H
#define SCALEPROBE_CLI_HISTORY_H

#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "history.h"
#include "store.h"

/* The database setting's default (the settings table's), for the usage. */
const char *cli_history_default_db(void);

/* Loads conf_path (NULL: none, the defaults) into c, which it inits. */
int cli_history_conf(const char *conf_path, struct conf *c);

/* --since: ns since the epoch into *ns. */
int cli_history_since(const char *opt, const char *s, int64_t *ns);

/* file opened read-only (a missing, foreign or newer file refused) and
 * its reader; both NULL on failure. */
int cli_history_open(const char *file, struct store **st, struct history **h);
void cli_history_close(struct store *st, struct history *h);

/* db opened to write (a bad file refused before anything is sent) and a
 * run's row begun: now, vantage, c's settings that shape results, and
 * program.  0, or -1 said in one line (*st NULL). */
int cli_history_run_begin(const struct conf *c, const char *db, const char *vantage,
    const char *program, struct store **st, int64_t *run_id);

/* What render writes, to out: standard output when out is NULL, "-" or
 * "/dev/stdout"; else, for a regular file or a new one, a temporary
 * OUT.XXXXXX made in its directory (O_EXCL) written whole and renamed into
 * place (a reader, a web server, never sees half a file); a FIFO or a
 * device is written as it is, never replaced (a FIFO no one reads is an
 * error at once, not a wait); a symbolic link or a directory is refused.
 * render returns 0; -1 when a write failed (then said here, naming out);
 * or CLI_HISTORY_SAID when it failed and said why itself.  Every error names
 * out, never the temporary.  0, or -1 said in one line. */
#define CLI_HISTORY_SAID	(-2)
int cli_history_write(const char *out, int (*render)(FILE *f, const void *arg),
    const void *arg);

#endif
