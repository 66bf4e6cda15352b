/*
 * log.h -- logging as OpenBSD's log.c, and allocation that cannot fail.
 *
 * Messages go to stderr (CLI, daemon in the foreground) or to syslog
 * (daemon).  log_warn appends strerror(errno); fatal and fatalx log and
 * exit with LOG_FATAL_STATUS.  Anything that came from the network is
 * passed through log_escape() before it is printed; and every line's
 * control characters are escaped as it goes out (textsafe.h: newlines and
 * backslashes kept), whatever its parts were.
 *
 * xmalloc and friends call fatal() when memory runs out (tmux style), so
 * callers never check for NULL.
 */
#ifndef SCALEPROBE_LOG_H
#define SCALEPROBE_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* Exit status of fatal()/fatalx(): the CLI's "usage or runtime error"
 * (status 1 means "a path problem found" there, so it must not be used). */
#define LOG_FATAL_STATUS 2

#define LOG_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * debug != 0: log to stderr, each line prefixed "ident: " (no prefix when
 * ident is NULL or empty).  debug == 0: syslog(3), facility LOG_DAEMON.
 * verbose: log_debug() prints only when verbose >= 1.
 * Before log_init() is called, logging goes to stderr without a prefix.
 */
void log_init(int debug, int verbose, const char *ident);
void log_setverbose(int verbose);
int log_getverbose(void);

void log_warn(const char *fmt, ...) LOG_PRINTF(1, 2);	/* ": strerror(errno)" added */
void log_warnx(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_debug(const char *fmt, ...) LOG_PRINTF(1, 2);
void vlog(int pri, const char *fmt, va_list ap) LOG_PRINTF(2, 0);
void fatal(const char *fmt, ...) LOG_PRINTF(1, 2) __attribute__((noreturn));
void fatalx(const char *fmt, ...) LOG_PRINTF(1, 2) __attribute__((noreturn));

/* Room log_escape() needs for n input bytes, with the NUL. */
#define LOG_ESCAPE_SIZE(n) (4 * (n) + 1)

/*
 * Writes src[0..len) into dst as printable ASCII: bytes 0x20..0x7e as they
 * are except the backslash (written "\\"), every other byte "\xNN", so
 * the output is unambiguous and cannot move a terminal's cursor.  Stops
 * at a whole escape when dst is full; always NUL-terminates (dstlen > 0).
 * Returns dst.
 */
char *log_escape(char *dst, size_t dstlen, const void *src, size_t len);

/*
 * Allocation: on failure these call fatal(), so they never return NULL.
 * Zero sizes are a programming error and fatalx() (tmux does the same).
 * xreallocarray() also refuses n * size overflow.
 */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t maxlen);
int xasprintf(char **ret, const char *fmt, ...) LOG_PRINTF(2, 3);

#endif
