/*
 * test_notify.c -- the notification protocol against a datagram socket the
 * test reads, as a service manager would: path and abstract addresses,
 * the watchdog's interval and whose it is, and silence without a manager.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "notify.h"

/* A manager's socket: bound at path (or abstract when it starts with
 * '@'); returns its descriptor. */
static int
manager(const char *name)
{
	struct sockaddr_un sa;
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, name, len);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	else
		unlink(name);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0);
	return fd;
}

static void
expect(int fd, const char *want)
{
	char buf[512];
	ssize_t r = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(r >= 0);
	buf[r] = '\0';
	assert_string_equal(buf, want);
}

static void
test_path_socket(void **state)
{
	char path[64];
	int fd;
	struct notify *n;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_notify.%d", (int)getpid());
	fd = manager(path);
	setenv("NOTIFY_SOCKET", path, 1);
	n = notify_open();
	assert_true(notify_enabled(n));
	assert_int_equal(notify_send(n, "READY=1\nSTATUS=2 targets due, 0 in flight"), 0);
	expect(fd, "READY=1\nSTATUS=2 targets due, 0 in flight");
	assert_int_equal(notify_send(n, "WATCHDOG=1"), 0);
	expect(fd, "WATCHDOG=1");
	assert_int_equal(notify_send(n, "STOPPING=1"), 0);
	expect(fd, "STOPPING=1");
	notify_close(n);
	close(fd);
	unlink(path);
	unsetenv("NOTIFY_SOCKET");
}

static void
test_abstract_socket(void **state)
{
	char name[64];
	int fd;
	struct notify *n;

	(void)state;
	snprintf(name, sizeof(name), "@test_notify/%d", (int)getpid());
	fd = manager(name);
	setenv("NOTIFY_SOCKET", name, 1);
	n = notify_open();
	assert_true(notify_enabled(n));
	assert_int_equal(notify_send(n, "READY=1"), 0);
	expect(fd, "READY=1");
	notify_close(n);
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}

/* No manager, or an address no manager could have: every call a no-op. */
static void
test_without_manager(void **state)
{
	static const char *bad[] = { NULL, "", "relative/path", "x" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct notify *n;

		if (bad[i] == NULL)
			unsetenv("NOTIFY_SOCKET");
		else
			setenv("NOTIFY_SOCKET", bad[i], 1);
		n = notify_open();
		assert_non_null(n);
		assert_false(notify_enabled(n));
		assert_int_equal(notify_send(n, "READY=1"), 0);
		notify_close(n);
	}
	unsetenv("NOTIFY_SOCKET");
}

static void
test_watchdog(void **state)
{
	char pid[32];
	struct notify *n;

	(void)state;
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "30000000", 1);
	n = notify_open();
	assert_int_equal(notify_watchdog_usec(n), 30000000);
	notify_close(n);
	/* ours by PID */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	n = notify_open();
	assert_int_equal(notify_watchdog_usec(n), 30000000);
	notify_close(n);
	/* another process's */
	snprintf(pid, sizeof(pid), "%d", (int)getpid() + 1);
	setenv("WATCHDOG_PID", pid, 1);
	n = notify_open();
	assert_int_equal(notify_watchdog_usec(n), 0);
	notify_close(n);
	/* not a number */
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "30s", 1);
	n = notify_open();
	assert_int_equal(notify_watchdog_usec(n), 0);
	notify_close(n);
	unsetenv("WATCHDOG_USEC");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_socket),
		cmocka_unit_test(test_abstract_socket),
		cmocka_unit_test(test_without_manager),
		cmocka_unit_test(test_watchdog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
