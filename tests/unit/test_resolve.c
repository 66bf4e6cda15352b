/*
 * test_resolve.c -- the resolver's queue on a hosts file of its own (no
 * query leaves the process: every name is in the file): a thousand names
 * with at most eight at once all answered, each once, never from inside
 * resolver_query; a name with A and AAAA gives both; freeing the resolver
 * with names still queued calls nothing back; freeing it, outside the
 * loop as a stopping daemon does, with names asked of a nameserver that
 * cannot answer returns at once and calls nothing back.  That last test
 * runs in a network namespace of its own with no interface up (as root;
 * skipped otherwise): the queries it makes go nowhere.
 */
#define _GNU_SOURCE	/* unshare */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <event2/event.h>
#include <cmocka.h>

#include "resolve.h"

#define NAMES 1000

struct seen {
	struct event_base *base;
	struct resolver *r;
	int answers, inside_query, max_pending_seen;
	bool querying;
	struct addr got[NAMES][2];
	size_t ngot[NAMES];
	const char *error[NAMES];
};

static char names[NAMES][32];
static char hosts_path[] = "/tmp/test_resolve_hosts.XXXXXX";
static char conf_path[] = "/tmp/test_resolve_conf.XXXXXX";

static void
on_answer(void *arg, void *tag, const struct addr *addrs, size_t n, const char *error)
{
	struct seen *s = arg;
	size_t i = (size_t)(uintptr_t)tag;

	if (s->querying)
		s->inside_query++;
	assert_true(i < NAMES);
	assert_int_equal(s->ngot[i], 0);
	s->ngot[i] = n;
	for (size_t k = 0; k < n && k < 2; k++)
		s->got[i][k] = addrs[k];
	s->error[i] = error;
	if (++s->answers == NAMES)
		event_base_loopexit(s->base, NULL);
}

static int
setup(void **state)
{
	FILE *f;
	int fd;

	(void)state;
	if ((fd = mkstemp(hosts_path)) < 0 || (f = fdopen(fd, "w")) == NULL)
		return -1;
	fprintf(f, "# names of the test\n");
	for (int i = 0; i < NAMES; i++) {
		snprintf(names[i], sizeof(names[i]), "h%d.test", i);
		fprintf(f, "198.19.%d.%d %s\n", i / 256, i % 256, names[i]);
	}
	fprintf(f, "198.18.0.1 dual.test\nfd00::1 dual.test\n");
	fclose(f);
	/* no nameserver: nothing is asked of the network */
	if ((fd = mkstemp(conf_path)) < 0 || (f = fdopen(fd, "w")) == NULL)
		return -1;
	fprintf(f, "options timeout:1 attempts:1\n");
	fclose(f);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(hosts_path);
	unlink(conf_path);
	return 0;
}

static struct resolver *
new_resolver(struct event_base *base, size_t max_pending)
{
	struct resolver_config c;
	char err[256];
	struct resolver *r;

	memset(&c, 0, sizeof(c));
	c.resolv_conf = conf_path;
	c.hosts = hosts_path;
	c.max_pending = max_pending;
	r = resolver_new(base, &c, err, sizeof(err));
	if (r == NULL)
		fail_msg("resolver_new: %s", err);
	return r;
}

static void
test_many(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	s->base = event_base_new();
	s->r = new_resolver(s->base, 8);
	s->querying = true;
	for (size_t i = 0; i < NAMES; i++)
		resolver_query(s->r, names[i], (void *)(uintptr_t)i, on_answer, s);
	s->querying = false;
	assert_int_equal(resolver_pending(s->r), NAMES);
	assert_int_equal(s->answers, 0);
	event_base_dispatch(s->base);
	assert_int_equal(s->answers, NAMES);
	assert_int_equal(s->inside_query, 0);
	assert_int_equal(resolver_pending(s->r), 0);
	for (int i = 0; i < NAMES; i++) {
		char want[32], buf[ADDR_STRLEN];

		snprintf(want, sizeof(want), "198.19.%d.%d", i / 256, i % 256);
		assert_int_equal(s->ngot[i], 1);
		assert_null(s->error[i]);
		assert_string_equal(addr_format(&s->got[i][0], buf, sizeof(buf)), want);
	}
	resolver_free(s->r);
	event_base_free(s->base);
	free(s);
}

static void
on_dual(void *arg, void *tag, const struct addr *addrs, size_t n, const char *error)
{
	struct seen *s = arg;

	(void)tag;
	assert_null(error);
	assert_int_equal(n, 2);
	s->got[0][0] = addrs[0];
	s->got[0][1] = addrs[1];
	s->answers++;
	event_base_loopexit(s->base, NULL);
}

static void
test_dual(void **state)
{
	struct seen *s = calloc(1, sizeof(*s));
	int v4, v6;

	(void)state;
	assert_non_null(s);
	s->base = event_base_new();
	s->r = new_resolver(s->base, 0);
	resolver_query(s->r, "dual.test", NULL, on_dual, s);
	event_base_dispatch(s->base);
	assert_int_equal(s->answers, 1);
	v4 = (s->got[0][0].family == ADDR_V4) + (s->got[0][1].family == ADDR_V4);
	v6 = (s->got[0][0].family == ADDR_V6) + (s->got[0][1].family == ADDR_V6);
	assert_int_equal(v4, 1);
	assert_int_equal(v6, 1);
	resolver_free(s->r);
	event_base_free(s->base);
	free(s);
}

static void
on_never(void *arg, void *tag, const struct addr *addrs, size_t n, const char *error)
{
	(void)arg;
	(void)tag;
	(void)addrs;
	(void)n;
	(void)error;
	fail_msg("a callback after resolver_free");
}

/* Freed with everything still queued: nothing is called back, nothing
 * leaks (the sanitizers' build says). */
static void
test_free_pending(void **state)
{
	struct event_base *base = event_base_new();
	struct resolver *r = new_resolver(base, 4);

	(void)state;
	for (size_t i = 0; i < 100; i++)
		resolver_query(r, names[i], NULL, on_never, NULL);
	assert_int_equal(resolver_pending(r), 100);
	resolver_free(r);
	event_base_loop(base, EVLOOP_NONBLOCK);
	event_base_free(base);
}

static void
on_alarm(int sig)
{
	(void)sig;
	/* cmocka cannot fail from a signal handler: say it and end */
	static const char msg[] = "FAIL: resolver_free did not return within 5 s\n";
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(1);
}

/* Names in flight at a nameserver when the loop has already stopped: the
 * cancels' answers would come through the loop, so resolver_free must not
 * wait for them. */
static void
test_free_running(void **state)
{
	struct event_base *base = event_base_new();
	struct resolver_config c;
	struct resolver *r;
	char err[256];

	(void)state;
	/* the queries below are sent: nowhere, in a namespace of our own
	 * whose loopback is down */
	if (unshare(CLONE_NEWNET) != 0) {
		event_base_free(base);
		if (errno == EPERM)
			skip();
		fail_msg("unshare(CLONE_NEWNET): %s", strerror(errno));
	}
	memset(&c, 0, sizeof(c));
	c.resolv_conf = conf_path;
	c.hosts = hosts_path;
	c.nameserver = "198.18.0.53:53";
	c.max_pending = 4;
	r = resolver_new(base, &c, err, sizeof(err));
	if (r == NULL)
		fail_msg("resolver_new: %s", err);
	for (size_t i = 0; i < 8; i++)
		resolver_query(r, "nowhere.invalid", NULL, on_never, NULL);
	/* one pass of the loop starts four; it has stopped when the
	 * resolver is freed, as a daemon's has after SIGTERM */
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(resolver_pending(r), 8);
	signal(SIGALRM, on_alarm);
	alarm(5);
	resolver_free(r);
	alarm(0);
	/* the cancels' answers, delivered: nothing called back, the detached
	 * resolver freed by the last one (the sanitizers' build says) */
	event_base_loop(base, EVLOOP_NONBLOCK);
	event_base_loop(base, EVLOOP_NONBLOCK);
	event_base_free(base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_dual),
		cmocka_unit_test(test_free_pending),
		cmocka_unit_test(test_free_running),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
