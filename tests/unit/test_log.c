/*
 * test_log.c -- what each log function prints on stderr (captured through
 * a temporary file), fatal's exit status, verbosity, errno kept, the
 * escaping of network strings, and the x-allocators.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

static char captured[4096];

/* Runs fn with stderr sent to a temporary file; its text in captured. */
static void
capture(void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), 2) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(captured, 1, sizeof(captured) - 1, tmp);
	captured[n] = '\0';
	fclose(tmp);
}

static void
emit_all(void)
{
	log_warnx("warnx %d", 1);
	errno = ENOENT;
	log_warn("open %s", "/x");
	log_info("info %s", "two");
	log_debug("debug hidden");
}

static void
test_levels(void **state)
{
	(void)state;
	log_init(1, 0, "scaleprobe");
	capture(emit_all);
	assert_string_equal(captured,
	    "scaleprobe: warnx 1\n"
	    "scaleprobe: open /x: No such file or directory\n"
	    "scaleprobe: info two\n");
}

static void
emit_debug(void)
{
	log_debug("debug %u", 7u);
}

static void
test_verbosity_and_ident(void **state)
{
	(void)state;
	log_init(1, 1, NULL);
	assert_int_equal(log_getverbose(), 1);
	capture(emit_debug);
	assert_string_equal(captured, "debug 7\n");
	log_setverbose(0);
	capture(emit_debug);
	assert_string_equal(captured, "");
	log_init(1, 2, "");
	capture(emit_debug);
	assert_string_equal(captured, "debug 7\n");
}

static int errno_after;

static void
emit_keeps_errno(void)
{
	errno = EACCES;
	log_warn("first");
	log_warnx("second");
	log_info("third");
	errno_after = errno;
}

static void
test_errno_kept(void **state)
{
	(void)state;
	log_init(1, 0, "t");
	capture(emit_keeps_errno);
	assert_int_equal(errno_after, EACCES);
	assert_string_equal(captured, "t: first: Permission denied\nt: second\nt: third\n");
}

/* Long messages are not cut. */
static void
emit_long(void)
{
	char big[3000];

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_warnx("%s", big);
}

static void
test_long_message(void **state)
{
	(void)state;
	log_init(1, 0, NULL);
	capture(emit_long);
	assert_int_equal(strlen(captured), 3000);
	assert_int_equal(captured[2998], 'z');
	assert_int_equal(captured[2999], '\n');
}

/* Whatever a message quotes, its controls go out escaped: a name with a
 * screen-clearing escape, a C1 CSI, a bell; newlines and what log_escape
 * already escaped (its backslashes) stay as they are. */
static void
emit_controls(void)
{
	char shown[LOG_ESCAPE_SIZE(4)];

	log_warnx("target %s: %s", "evil\x1b[2J\xc2\x9b" "31m\a", "line one\nline two\r");
	log_info("%s", log_escape(shown, sizeof(shown), "\x1b\\", 2));
}

static void
test_line_escaped(void **state)
{
	(void)state;
	log_init(1, 0, "d");
	capture(emit_controls);
	assert_string_equal(captured,
	    "d: target evil\\x1b[2J\\u009b31m\\x07: line one\nline two\\x0d\n"
	    "d: \\x1b\\\\\n");
}

/* fatal and fatalx exit with LOG_FATAL_STATUS after one line. */
static void
run_fatal(int with_errno, const char *want)
{
	int fds[2], status;
	pid_t pid;
	char buf[256];
	ssize_t n;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		log_init(1, 0, "scaleprobe");
		if (with_errno) {
			errno = ENOMEM;
			fatal("allocating %d", 5);
		}
		fatalx("bad %s", "config");
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), LOG_FATAL_STATUS);
	assert_int_equal(LOG_FATAL_STATUS, 2);
	assert_string_equal(buf, want);
}

static void
test_fatal(void **state)
{
	(void)state;
	run_fatal(1, "scaleprobe: fatal: allocating 5: Cannot allocate memory\n");
	run_fatal(0, "scaleprobe: fatal: bad config\n");
}

struct esc_case {
	const char *in;
	size_t len;
	const char *out;
};

#define E(s, o) { s, sizeof(s) - 1, o }

static const struct esc_case esc_cases[] = {
	E("", ""),
	E("GET / HTTP/1.1", "GET / HTTP/1.1"),
	E("a\\b", "a\\\\b"),
	E("\r\n", "\\x0d\\x0a"),
	E("\x1b[2J", "\\x1b[2J"),		/* a terminal escape, defused */
	E("\0\x7f\x80\xff", "\\x00\\x7f\\x80\\xff"),
	E("~ }", "~ }"),
};

static void
test_escape(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
		char buf[64];

		assert_ptr_equal(log_escape(buf, sizeof(buf), esc_cases[i].in,
		    esc_cases[i].len), buf);
		assert_string_equal(buf, esc_cases[i].out);
	}
}

/* A full destination stops at a whole escape, NUL-terminated. */
static void
test_escape_truncation(void **state)
{
	char buf[LOG_ESCAPE_SIZE(3)];
	char small[6];

	(void)state;
	assert_int_equal(sizeof(buf), 13);
	log_escape(buf, sizeof(buf), "\xff\xfe\xfd", 3);
	assert_string_equal(buf, "\\xff\\xfe\\xfd");
	log_escape(small, sizeof(small), "\xff\xfe\xfd", 3);
	assert_string_equal(small, "\\xff");
	log_escape(small, sizeof(small), "abcdefgh", 8);
	assert_string_equal(small, "abcde");
	log_escape(small, 1, "abc", 3);
	assert_string_equal(small, "");
}

static void
test_xalloc(void **state)
{
	char *s, *p;
	int *v;

	(void)state;
	s = xstrdup("probe");
	assert_string_equal(s, "probe");
	free(s);
	s = xstrndup("probe", 3);
	assert_string_equal(s, "pro");
	free(s);
	s = xstrndup("ab", 10);
	assert_string_equal(s, "ab");
	free(s);
	v = xcalloc(4, sizeof(*v));
	assert_int_equal(v[0] | v[1] | v[2] | v[3], 0);
	v = xreallocarray(v, 1000, sizeof(*v));
	v[999] = 42;
	assert_int_equal(v[999], 42);
	free(v);
	p = xmalloc(3);
	p = xrealloc(p, 10);
	memcpy(p, "123456789", 10);
	assert_string_equal(p, "123456789");
	free(p);
	assert_int_equal(xasprintf(&s, "%s-%03d", "scale", 7), 9);
	assert_string_equal(s, "scale-007");
	free(s);
}

/* An overflowing array size is fatal, not a short allocation. */
static void
test_xreallocarray_overflow(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 2);
		xreallocarray(NULL, SIZE_MAX / 2, 4);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), LOG_FATAL_STATUS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_verbosity_and_ident),
		cmocka_unit_test(test_errno_kept),
		cmocka_unit_test(test_long_message),
		cmocka_unit_test(test_line_escaped),
		cmocka_unit_test(test_fatal),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_truncation),
		cmocka_unit_test(test_xalloc),
		cmocka_unit_test(test_xreallocarray_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
