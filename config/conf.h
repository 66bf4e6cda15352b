/*
 * conf.h -- scaleprobe.conf(5): the file read into a struct conf, every
 * error as "file:line: what was expected", all of them in one pass; the
 * configuration printed back normalized; the files it names read.
 *
 *   # comment
 *   rate 100
 *   allow 198.18.0.0/15
 *   payload 8080 "/etc/scaleprobe/get-8080.txt"
 *   group "web" {
 *           interval 1h
 *           jitter 5m
 *           target www.example.org 198.51.100.0/28:443
 *           file "/etc/scaleprobe/web.txt"
 *   }
 *
 * One statement a line: a key and its values, words or "quoted strings"
 * (\" and \\ inside); "group NAME {" opens a group, "}" alone closes it.
 * Keys and their values are the settings table's (settings.h).
 *
 * conf_parse() is pure (the text in, the struct and errors out);
 * conf_load() reads the file and the files it names (conf_file.c).
 */
#ifndef SCALEPROBE_CONF_H
#define SCALEPROBE_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

/* Every error of a parse, in the order of their lines. */
struct conf_error {
	char *fname;
	unsigned line;		/* 0: no line (an unreadable file) */
	char *msg;		/* printable: bytes of the file escaped */
	size_t seq;		/* the order found, for errors of one line */
};

struct conf_errors {
	struct conf_error *v;
	size_t n;
};

void conf_errors_add(struct conf_errors *e, const char *fname, unsigned line,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "file:line: msg\n" for each, in order (malloc'd; "" when none). */
char *conf_errors_text(const struct conf_errors *e);
void conf_errors_free(struct conf_errors *e);

/*
 * Parses a configuration's text (need not be NUL-terminated, may hold any
 * byte) into c, which conf_init() prepared; fname names it in errors.
 * Inline targets are parsed into each group's targets; files are only
 * named.  Returns 0, or -1 with every error added to e.
 */
int conf_parse(struct conf *c, const char *buf, size_t len, const char *fname,
    struct conf_errors *e);

/*
 * The configuration as a file that parses back to the same settings:
 * every top-level setting (defaults included) in the table's order, then
 * each group.  malloc'd.
 */
char *conf_print(const struct conf *c);

/* The settings that shape results, in one line ("scales=0,7,14 rate=100
 * ..."), as the store keeps them per run: the CLI's probe and the daemon
 * write the same text, so their runs compare. */
void conf_shaping(const struct conf *c, char *buf, size_t len);

/* An opt-out list's text: one CIDR a line, '#' comments.  Pure. */
int conf_optout_parse(struct conf_prefix **v, size_t *n, const char *buf, size_t len,
    const char *fname, struct conf_errors *e);

/*
 * Targets with the ports setting (conf_targets.c): a target that names no
 * port is added once for each of ports[0..nports).  Errors as targets.h's.
 * conf_targets_buf sets *nwritten to the entries the text holds (before
 * the other ports were added).
 */
int conf_targets_spec(struct targets *t, const char *spec, bool allow_large,
    const uint16_t *ports, int nports);
int conf_targets_buf(struct targets *t, const char *buf, size_t len, const char *fname,
    bool allow_large, const uint16_t *ports, int nports, size_t *nwritten);

/* The allow, block and opt-out lists as a blocklist (conf_blocklist.c). */
struct blocklist;
struct blocklist *conf_blocklist(const struct conf *c);

/*
 * Sharded groups (conf_shard.c): for the daemon of vantage, each group
 * with shard names gets mine[] (per targets.v[]: whether rendezvous
 * hashing of the target as written gives it to vantage), shard_total and
 * shard_owned, and sel, the cut a streamed file's walk makes; a vantage
 * not among a group's names is an error at its line.  Returns 0, or -1.
 */
int conf_shard_apply(struct conf *c, const char *vantage, const char *fname,
    struct conf_errors *e);
/* The sharded groups' streamed files (conf_file.c), after conf_shard_apply:
 * each read through once, cut as the daemon's walk cuts it, its targets
 * added to shard_total and shard_owned.  A file that cannot be read
 * through is an error at its line.  Returns 0, or -1. */
int conf_shard_files(struct conf *c, const char *fname, struct conf_errors *e);
unsigned conf_shard_replicas(const struct conf_group *g);	/* min(K, names) */
/* "# group G: 3,312 of 10,000 targets are this vantage's (shard of 3,
 * replicas 1)\n" for each sharded group: a comment, so the text printed
 * before it still parses back. */
void conf_shard_summary(struct strbuf *b, const struct conf *c);

/* --- conf_file.c: the I/O ------------------------------------------------ */

/*
 * Reads path into a NUL-terminated buffer (*buf, malloc'd), at most max
 * bytes; regular: refuse anything but a regular file (a payload), else
 * only directories (a target list may come from a pipe: -f <(...)).
 * Returns 0, or -1 with "path: why" in err.
 */
int conf_read_text(const char *path, size_t max, bool regular, char **buf, size_t *len,
    char *err, size_t errlen);

/* Reads and parses path, then conf_load_files().  Returns 0, or -1. */
int conf_load(struct conf *c, const char *path, struct conf_errors *e);

/*
 * Reads what the settings name: each payload not yet read, each group's
 * target files (into its targets; a target given twice, as written, is an
 * error), the opt-out list.  Errors of command-line settings (line 0)
 * read "--payload: FILE: why".  Returns 0, or -1.
 */
int conf_load_files(struct conf *c, const char *fname, struct conf_errors *e);

/* Reads each payload not yet read (conf_load_files' first step). */
int conf_load_payloads(struct conf *c, const char *fname, struct conf_errors *e);

/* Reads the opt-out list (again, on the daemon's reload) and replaces
 * c's; keeps the old list on an error.  fname: the configuration, named
 * with the opt-out line when the file cannot be read. */
int conf_optout_read(struct conf *c, const char *fname, struct conf_errors *e);

#endif
