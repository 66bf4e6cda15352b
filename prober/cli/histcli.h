/*
 * histcli.h -- what `show` and `export` share: the database they read
 * (--db, else the configuration's database setting, -c FILE), --since as
 * an RFC 3339 time or an age, and the store opened read-only with its
 * reader.  Each prints its one line and says -1.
 */
#ifndef SCALEPROBE_HISTCLI_H
#define SCALEPROBE_HISTCLI_H

#include <stdint.h>

#include "conf.h"
#include "history.h"
#include "store.h"

/* The database setting's default (the settings table's), for the usage. */
const char *histcli_default_db(void);

/* Loads conf_path (NULL: none, the defaults) into c, which it inits. */
int histcli_conf(const char *conf_path, struct conf *c);

/* --since: ns since the epoch into *ns. */
int histcli_since(const char *opt, const char *s, int64_t *ns);

/* file opened read-only (a missing, foreign or newer file refused) and
 * its reader; both NULL on failure. */
int histcli_open(const char *file, struct store **st, struct history **h);
void histcli_close(struct store *st, struct history *h);

#endif
