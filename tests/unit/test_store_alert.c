/*
 * test_store_alert.c -- the daemon's open alerts in the store
 * (store_alert.c): written, updated and cleared through the batched
 * writer, read back by another connection after the writer closed, per
 * vantage, as a restarted daemon reads them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "store.h"
#include "storegen.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	return storegen_scratch(dir, sizeof(dir), "test_store_alert");
}

static int
teardown(void **state)
{
	(void)state;
	return storegen_scratch_remove(dir);
}

static struct store *
open_ok(const char *file, enum store_mode mode)
{
	char err[STORE_ERRLEN] = "";
	struct store *st = store_open(file, mode, NULL, err, sizeof(err));

	if (st == NULL)
		fail_msg("store_open %s: %s", file, err);
	return st;
}

/* What store_alert_each gave, one line each. */
struct seen {
	char text[2048];
	int n;
};

static void
collect(void *arg, const struct store_alert *a)
{
	struct seen *s = arg;
	size_t off = strlen(s->text);

	snprintf(s->text + off, sizeof(s->text) - off, "%s %s %s %s:%u %s %s %s %d %s %s %u %lld\n",
	    a->vantage, a->kind, a->target != NULL ? a->target : "-", a->address, a->port,
	    a->state, a->scales, a->hop_address != NULL ? a->hop_address : "-", a->hop_index,
	    a->incident != NULL ? a->incident : "-", a->reason != NULL ? a->reason : "-",
	    a->paths, (long long)a->raised_ns);
	s->n++;
}

static void
test_put_read_back(void **state)
{
	char file[128];
	struct store *st;
	struct store_alert a = { .vantage = "lab", .kind = "path", .address = "198.18.100.11",
	    .port = 80, .target = "ws0-in.lab", .state = "rewritten",
	    .scales = "7:rewritten,14:rewritten", .hop_index = 3, .hop_address = "198.18.3.2",
	    .raised_ns = 100, .changed_ns = 100 };
	struct store_alert b = a, c = a, inc = { .vantage = "lab", .kind = "incident",
	    .address = "198.18.2.2", .port = 0, .state = "stripped", .scales = "",
	    .hop_index = 2, .hop_address = "198.18.2.2", .paths = 64, .raised_ns = 300,
	    .changed_ns = 300 };
	struct seen s;

	(void)state;
	snprintf(file, sizeof(file), "%s/alerts.sqlite", dir);
	st = open_ok(file, STORE_WRITE);
	b.address = "fd00:5ca1:100::11";
	b.raised_ns = b.changed_ns = 200;
	c.vantage = "elsewhere";
	assert_int_equal(store_alert_put(st, &a, false), 0);
	assert_int_equal(store_alert_put(st, &b, false), 0);
	assert_int_equal(store_alert_put(st, &c, false), 0);
	assert_int_equal(store_alert_put(st, &inc, false), 0);
	/* a change: the same key, a new state; raised_ns stays the first */
	a.state = "stripped";
	a.scales = "7:stripped,14:rewritten";
	a.incident = "198.18.2.2";
	a.raised_ns = 999;
	a.changed_ns = 150;
	assert_int_equal(store_alert_put(st, &a, false), 0);
	/* a clear: the row goes */
	assert_int_equal(store_alert_put(st, &b, true), 0);
	/* committed at once: another connection sees them while the writer runs */
	{
		struct store *r = open_ok(file, STORE_READ);

		memset(&s, 0, sizeof(s));
		assert_int_equal(store_alert_each(r, "lab", collect, &s), 2);
		assert_int_equal(store_close(r, NULL, 0), 0);
	}
	/* without a key: refused, nothing written */
	c.address = NULL;
	assert_int_not_equal(store_alert_put(st, &c, false), 0);
	assert_int_equal(store_close(st, NULL, 0), 0);

	st = open_ok(file, STORE_READ);
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_alert_each(st, "lab", collect, &s), 2);
	print_message("%s", s.text);
	assert_string_equal(s.text,
	    "lab path ws0-in.lab 198.18.100.11:80 stripped 7:stripped,14:rewritten 198.18.3.2 3 "
	    "198.18.2.2 - 0 100\n"
	    "lab incident - 198.18.2.2:0 stripped  198.18.2.2 2 - - 64 300\n");
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_alert_each(st, NULL, collect, &s), 3);
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_alert_each(st, "nobody", collect, &s), 0);
	assert_int_equal(store_close(st, NULL, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_read_back),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
