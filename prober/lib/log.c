/*
 * log.c -- stderr or syslog logging in the manner of OpenBSD's log.c (every
 * line's controls escaped), the escaping of network strings for printing
 * (textsafe's ASCII form), and x-allocation that calls fatal() instead of
 * returning NULL.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"
#include "textsafe.h"

static int log_debug_mode = 1;	/* stderr until log_init() says otherwise */
static int log_verbose;
static const char *log_ident;

void
log_init(int debug, int verbose, const char *ident)
{
	log_debug_mode = debug;
	log_verbose = verbose;
	log_ident = (ident != NULL && *ident != '\0') ? ident : NULL;
	if (!debug)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();	/* before any chroot: syslog's time stamps stay local */
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return log_verbose;
}

/* Formats into a heap string; NULL only when memory is gone (then the
 * caller logs the bare format, which is better than nothing). */
static char *log_vformat(const char *fmt, va_list ap) LOG_PRINTF(1, 0);

static char *
log_vformat(const char *fmt, va_list ap)
{
	va_list ap2;
	char *s;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return NULL;
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

/* One finished line out; errno is the caller's and stays as it was.
 * Whatever a message quotes (a target's name, a reason, a file's name, a
 * device's) cannot drive the terminal or the journal's reader: its
 * controls are escaped here, once for every line (textsafe.h); newlines
 * stay (a message may be several lines), and so do backslashes, which
 * log_escape already wrote for what it escaped. */
static void
log_emit(int pri, const char *raw)
{
	size_t len = strlen(raw);
	char *msg = len < SIZE_MAX / 4 ? malloc(TEXTSAFE_SIZE(len)) : NULL;

	if (msg != NULL)
		textsafe(msg, TEXTSAFE_SIZE(len), raw, len,
		    TEXTSAFE_LINES | TEXTSAFE_KEEP_BACKSLASH);
	if (log_debug_mode) {
		if (log_ident != NULL)
			fprintf(stderr, "%s: %s\n", log_ident,
			    msg != NULL ? msg : "(a message lost: out of memory)");
		else
			fprintf(stderr, "%s\n", msg != NULL ? msg : "(a message lost: out of memory)");
		fflush(stderr);
	} else
		syslog(pri, "%s", msg != NULL ? msg : "(a message lost: out of memory)");
	free(msg);
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	char *msg = log_vformat(fmt, ap);

	log_emit(pri, msg != NULL ? msg : fmt);
	free(msg);
	errno = saved_errno;
}

/* The message with ": strerror(e)" appended (e == 0: nothing appended). */
static void log_verr(int pri, int e, const char *prefix, const char *fmt, va_list ap)
    LOG_PRINTF(4, 0);

static void
log_verr(int pri, int e, const char *prefix, const char *fmt, va_list ap)
{
	char *msg = log_vformat(fmt, ap);
	const char *m = msg != NULL ? msg : fmt;
	char *line = NULL;
	size_t need;

	need = strlen(prefix) + strlen(m) + (e ? 2 + strlen(strerror(e)) : 0) + 1;
	if ((line = malloc(need)) != NULL) {
		if (e)
			snprintf(line, need, "%s%s: %s", prefix, m, strerror(e));
		else
			snprintf(line, need, "%s%s", prefix, m);
	}
	log_emit(pri, line != NULL ? line : m);
	free(line);
	free(msg);
}

void
log_warn(const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_ERR, saved_errno, "", fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_CRIT, saved_errno, "fatal: ", fmt, ap);
	va_end(ap);
	exit(LOG_FATAL_STATUS);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_verr(LOG_CRIT, 0, "fatal: ", fmt, ap);
	va_end(ap);
	exit(LOG_FATAL_STATUS);
}

char *
log_escape(char *dst, size_t dstlen, const void *src, size_t len)
{
	return textsafe(dst, dstlen, src, len, TEXTSAFE_ASCII);
}

void *
xmalloc(size_t size)
{
	void *p;

	if (size == 0)
		fatalx("xmalloc: zero size");
	if ((p = malloc(size)) == NULL)
		fatal("xmalloc: allocating %zu bytes", size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		fatalx("xcalloc: zero size");
	if ((p = calloc(n, size)) == NULL)
		fatal("xcalloc: allocating %zu * %zu bytes", n, size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	return xreallocarray(ptr, 1, size);
}

void *
xreallocarray(void *ptr, size_t n, size_t size)
{
	void *p;

	if (n == 0 || size == 0)
		fatalx("xreallocarray: zero size");
	if (SIZE_MAX / n < size) {
		errno = ENOMEM;
		fatal("xreallocarray: %zu * %zu bytes overflow", n, size);
	}
	if ((p = realloc(ptr, n * size)) == NULL)
		fatal("xreallocarray: allocating %zu * %zu bytes", n, size);
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *
xstrndup(const char *s, size_t maxlen)
{
	size_t n = strnlen(s, maxlen);
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap, ap2;
	int n;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		fatal("xasprintf");
	*ret = xmalloc((size_t)n + 1);
	vsnprintf(*ret, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return n;
}
