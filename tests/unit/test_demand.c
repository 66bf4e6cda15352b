/*
 * test_demand.c -- on-demand requests (prober/daemon/demand_req.c,
 * demand_rate.c): a table of requests and what each is (whole, waiting,
 * refused, too large) and the first verdict of its growing prefixes the
 * whole's, fed a byte at a time the same, each byte judged once; which
 * targets each on-demand
 * mode lets through and on which ports; each user's rate in a sliding
 * minute, exact at its edge, and the table of users bounded; a request
 * refused for another reason costs no rate; the rate's clock monotonic;
 * the requests in flight capped in all and for each user.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "conf.h"
#include "demand_rate.h"
#include "demand_req.h"

#define M "scaleprobe-demand 1\n"

struct row {
	const char *in;
	size_t max;		/* 0: DEMAND_REQ_MAX */
	enum demand_parse want;
	size_t ntargets;
	int json;
	const char *why;	/* a part of why, for the refusals */
};

static const struct row rows[] = {
	/* whole */
	{ M "target clean.lab\n\n", 0, DEMAND_OK, 1, 0, NULL },
	{ M "format json\ntarget 198.18.100.1\ntarget [fd00::1]:443\n\n", 0, DEMAND_OK, 2, 1,
	  NULL },
	{ M "format text\ntarget a:80\n\n", 0, DEMAND_OK, 1, 0, NULL },
	/* waiting */
	{ "", 0, DEMAND_MORE, 0, 0, NULL },
	{ "scaleprobe-dem", 0, DEMAND_MORE, 0, 0, NULL },
	{ M, 0, DEMAND_MORE, 0, 0, NULL },
	{ M "target clean.lab\n", 0, DEMAND_MORE, 0, 0, NULL },
	{ M "target clean.l", 0, DEMAND_MORE, 0, 0, NULL },
	/* garbled */
	{ "GET / HTTP/1.1\r\n\r\n", 0, DEMAND_BAD, 0, 0, "first line" },
	{ "scaleprobe-demand 2\n", 0, DEMAND_BAD, 0, 0, "first line" },
	{ "\x00\x01\x02", 0, DEMAND_BAD, 0, 0, "first line" },
	{ M "\n", 0, DEMAND_BAD, 0, 0, "no target" },
	{ M "target a\n\nx", 0, DEMAND_BAD, 0, 0, "after the request" },
	{ M "target a b\n\n", 0, DEMAND_BAD, 0, 0, "one word" },
	{ M "target \n\n", 0, DEMAND_BAD, 0, 0, "one word" },
	{ M "target a\r\n\n", 0, DEMAND_BAD, 0, 0, "control byte" },
	{ M "target a\x1b[2J\n\n", 0, DEMAND_BAD, 0, 0, "control byte" },
	{ M "target \xc3\xa9\n\n", 0, DEMAND_BAD, 0, 0, "above ASCII" },
	{ M "target a\nformat json\n\n", 0, DEMAND_BAD, 0, 0, "format must be" },
	{ M "format xml\ntarget a\n\n", 0, DEMAND_BAD, 0, 0, "json or text" },
	{ M "status\n\n", 0, DEMAND_BAD, 0, 0, "neither" },
	{ M "target\n\n", 0, DEMAND_BAD, 0, 0, "neither" },
	/* bounds */
	{ M "target clean.lab\n", 37, DEMAND_TOO_LARGE, 0, 0, "within 37 bytes" },
	{ "scaleprobe", 10, DEMAND_TOO_LARGE, 0, 0, "within 10 bytes" },
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* A row's bytes (the one that begins with a NUL: its three bytes) and limit. */
static size_t
row_len(const struct row *r, size_t *max)
{
	*max = r->max ? r->max : DEMAND_REQ_MAX;
	return r->in[0] == '\0' && r->want == DEMAND_BAD ? 3 : strlen(r->in);
}

/* As the server reads: every prefix of a request waits or fails as the
 * whole does, never differently, but for a whole request followed by
 * more bytes (one request a connection). */
static void
prefixes(struct demand_req *q, const char *in, size_t len, size_t max,
    enum demand_parse whole)
{
	char why[256];

	for (size_t k = 0; k < len; k++) {
		enum demand_parse p = demand_req_parse(in, k, max, q, why, sizeof(why));

		if (p == DEMAND_MORE)
			continue;
		if (p == DEMAND_OK && whole == DEMAND_BAD && q->used == k) {
			assert_int_equal(demand_req_parse(in, len, max, q, why, sizeof(why)),
			    DEMAND_BAD);
			assert_non_null(strstr(why, "after the request"));
		} else if (p != whole)
			fail_msg("\"%s\": prefix %zu is %d, the whole %d", in, k, p, whole);
		return;
	}
}

static void
test_table(void **state)
{
	struct demand_req *q = malloc(sizeof(*q));
	char why[256];

	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];
		size_t max, len = row_len(r, &max);
		enum demand_parse got = demand_req_parse(r->in, len, max, q, why, sizeof(why));

		if (got != r->want)
			fail_msg("row %zu: %d, not %d (%s)", i, got, r->want, why);
		if (r->want == DEMAND_OK) {
			assert_int_equal(q->n, r->ntargets);
			assert_int_equal(q->json, r->json);
			assert_int_equal(q->used, len);
		}
		if (i == 2)
			assert_string_equal(q->target[0], "a:80");
		if (r->why != NULL && strstr(why, r->why) == NULL)
			fail_msg("row %zu: why \"%s\" lacks \"%s\"", i, why, r->why);
		prefixes(q, r->in, len, max, got);
	}
	free(q);
}

/* Fed as the server reads, one byte more each time: every row's verdict
 * and request the whole parse's. */
static void
test_feed(void **state)
{
	struct demand_req *q = malloc(sizeof(*q)), *w = malloc(sizeof(*w));
	char why[256], wwhy[256];

	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		struct demand_parser p;
		size_t max, len = row_len(&rows[i], &max), k;
		enum demand_parse got = DEMAND_MORE, whole;

		whole = demand_req_parse(rows[i].in, len, max, w, wwhy, sizeof(wwhy));
		demand_parser_init(&p, q);
		for (k = 0; k <= len && got == DEMAND_MORE; k++)
			got = demand_req_feed(&p, rows[i].in, k, max, why, sizeof(why));
		/* a whole request followed by more: OK at its end, as a prefix */
		if (got == DEMAND_OK && whole == DEMAND_BAD && q->used < len)
			continue;
		if (got != whole || strcmp(why, wwhy) != 0)
			fail_msg("row %zu fed: %d (%s), whole %d (%s)", i, got, why, whole, wwhy);
		if (got == DEMAND_OK && (q->n != w->n || q->json != w->json ||
		    memcmp(q->target, w->target, sizeof(q->target)) != 0))
			fail_msg("row %zu fed: another request", i);
	}
	free(q);
	free(w);
}

/* A client trickling its request a byte a read costs each byte once: the
 * lines judged are not read again (here, garbled after they were judged,
 * the request still parses), and the request is not emptied again (its
 * targets kept). */
static void
test_feed_once(void **state)
{
	static const char req[] = M "format json\ntarget 198.19.4.1:9\ntarget clean.lab\n\n";
	struct demand_req *q = malloc(sizeof(*q));
	struct demand_parser p;
	char buf[sizeof(req)], why[256];
	size_t len = sizeof(req) - 1, cut = strlen(M "format json\ntarget 198.19.4.1:9\ntar");
	enum demand_parse got = DEMAND_MORE;

	(void)state;
	memcpy(buf, req, sizeof(req));
	demand_parser_init(&p, q);
	for (size_t k = 0; k <= cut; k++)
		assert_int_equal(demand_req_feed(&p, buf, k, DEMAND_REQ_MAX, why, sizeof(why)),
		    DEMAND_MORE);
	memset(buf, 0x01, strlen(M "format json\ntarget 198.19.4.1:9\n"));
	for (size_t k = cut + 1; k <= len && got == DEMAND_MORE; k++)
		got = demand_req_feed(&p, buf, k, DEMAND_REQ_MAX, why, sizeof(why));
	if (got != DEMAND_OK)
		fail_msg("the judged lines read again: %d (%s)", got, why);
	assert_int_equal(q->n, 2);
	assert_true(q->json);
	assert_string_equal(q->target[0], "198.19.4.1:9");
	assert_string_equal(q->target[1], "clean.lab");
	free(q);
}

/* 64 targets parse, a 65th does not; the most bytes are refused. */
static void
test_bounds(void **state)
{
	struct demand_req *q = malloc(sizeof(*q));
	char buf[DEMAND_REQ_MAX + 64], why[256], big[400];
	size_t n;

	(void)state;
	n = (size_t)snprintf(buf, sizeof(buf), M);
	for (int i = 0; i < DEMAND_TARGETS_MAX; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "target 198.18.100.%d\n", i);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n");
	assert_int_equal(demand_req_parse(buf, n, DEMAND_REQ_MAX, q, why, sizeof(why)),
	    DEMAND_OK);
	assert_int_equal(q->n, DEMAND_TARGETS_MAX);
	n--;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "target x\n\n");
	assert_int_equal(demand_req_parse(buf, n, DEMAND_REQ_MAX, q, why, sizeof(why)),
	    DEMAND_BAD);
	assert_non_null(strstr(why, "more than 64 targets"));
	/* a target of 301 bytes, and a line that never ends */
	memset(big, 'a', sizeof(big));
	n = (size_t)snprintf(buf, sizeof(buf), M "target %.*s\n\n", 301, big);
	assert_int_equal(demand_req_parse(buf, n, DEMAND_REQ_MAX, q, why, sizeof(why)),
	    DEMAND_BAD);
	n = (size_t)snprintf(buf, sizeof(buf), M "target %.*s", 399, big);
	assert_int_equal(demand_req_parse(buf, n, DEMAND_REQ_MAX, q, why, sizeof(why)),
	    DEMAND_BAD);
	free(q);
}

static void
test_has_port(void **state)
{
	(void)state;
	assert_false(demand_spec_has_port("clean.lab"));
	assert_true(demand_spec_has_port("clean.lab:443"));
	assert_false(demand_spec_has_port("198.18.100.1"));
	assert_true(demand_spec_has_port("198.18.100.1:80"));
	assert_false(demand_spec_has_port("fd00::1"));
	assert_true(demand_spec_has_port("[fd00::1]:80"));
	assert_false(demand_spec_has_port("[fd00::1]"));
}

static const char conf_text[] =
	"ports 80,443\n"
	"group \"a\" {\n"
	"	ports 80\n"
	"	target clean.lab\n"
	"	target 198.18.100.1\n"
	"	target 198.19.0.0/24\n"
	"}\n"
	"group \"b\" {\n"
	"	target clean.lab:8080\n"
	"	target [fd00::5]:443\n"
	"}\n";

struct scope_row {
	int mode;
	const char *spec;
	const char *ports;	/* "80,8080", or NULL: refused */
	const char *why;
};

#define SCOPE(m, s, p, w) { ON_DEMAND_ ## m, s, p, w }

static const struct scope_row scope_rows[] = {
	SCOPE(GROUP_TARGETS, "clean.lab", "80,8080", NULL),
	SCOPE(GROUP_TARGETS, "CLEAN.lab.", "80,8080", NULL),
	SCOPE(GROUP_TARGETS, "clean.lab:8080", "8080", NULL),
	SCOPE(GROUP_TARGETS, "clean.lab:443", NULL, "no group probes it on that port"),
	SCOPE(GROUP_TARGETS, "198.18.100.1", "80", NULL),
	SCOPE(GROUP_TARGETS, "198.19.0.77:80", "80", NULL),
	SCOPE(GROUP_TARGETS, "198.18.100.2", NULL, "not a target of any group"),
	SCOPE(GROUP_TARGETS, "ws0-in.lab", NULL, "not a target of any group"),
	SCOPE(GROUP_TARGETS, "[fd00::5]:443", "443", NULL),
	SCOPE(GROUP_TARGETS, "fd00::5", "443", NULL),
	SCOPE(GROUP_TARGETS, "198.19.0.0/28", NULL, "a prefix"),
	SCOPE(ALLOWED, "ws0-in.lab", "80,443", NULL),
	SCOPE(ALLOWED, "198.18.100.2:9", "9", NULL),
	SCOPE(ALLOWED, "198.19.0.0/28", NULL, "a prefix"),
	SCOPE(OFF, "clean.lab", NULL, "on-demand is off"),
};

static void
test_scope(void **state)
{
	struct conf c;
	struct conf_errors e = { NULL, 0 };

	(void)state;
	conf_init(&c);
	assert_int_equal(c.on_demand, ON_DEMAND_GROUP_TARGETS);
	assert_int_equal(c.on_demand_rate, 10);
	assert_int_equal(c.on_demand_targets, 16);
	assert_int_equal(conf_parse(&c, conf_text, strlen(conf_text), "t.conf", &e), 0);
	for (size_t i = 0; i < sizeof(scope_rows) / sizeof(scope_rows[0]); i++) {
		const struct scope_row *r = &scope_rows[i];
		struct targets t;
		struct targets_opts o = { false, 0 };
		uint16_t ports[CONF_MAX_PORTS];
		char why[256] = "", got[64] = "";
		int n;

		c.on_demand = r->mode;
		targets_init(&t);
		assert_int_equal(targets_parse_spec(&t, r->spec, &o), 0);
		n = demand_ports(&c, &t.v[0], demand_spec_has_port(r->spec), ports, why,
		    sizeof(why));
		for (int k = 0; k < n; k++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", k ? "," : "",
			    ports[k]);
		if (r->ports == NULL ? n != 0 : strcmp(got, r->ports) != 0)
			fail_msg("row %zu (%s): ports \"%s\", not \"%s\" (%s)", i, r->spec, got,
			    r->ports ? r->ports : "refused", why);
		if (r->why != NULL && strstr(why, r->why) == NULL)
			fail_msg("row %zu: why \"%s\" lacks \"%s\"", i, why, r->why);
		targets_free(&t);
	}
	conf_free(&c);
}

#define S 1000000000ull
#define T0 (1000 * S)

/* A request of uid at t (times times, uid and t stepped each time), and
 * what it should get; wait checked when not 0. */
struct step {
	uint32_t uid;
	uint64_t t;
	enum demand_rate_verdict want;
	uint64_t wait;
	unsigned times;
	uint32_t uid_step;
	uint64_t t_step;
};

static void
steps(unsigned limit, const struct step *v, size_t n)
{
	struct demand_rate r;
	uint64_t wait;

	demand_rate_init(&r, limit);
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < (v[i].times ? v[i].times : 1); k++) {
			enum demand_rate_verdict got = demand_rate_take(&r, v[i].uid + k * v[i].uid_step,
			    v[i].t + k * v[i].t_step, &wait);

			if (got != v[i].want || (v[i].wait != 0 && wait != v[i].wait))
				fail_msg("limit %u, step %zu.%u: %d (wait %llu), not %d", limit, i, k,
				    got, (unsigned long long)wait, v[i].want);
		}
	demand_rate_free(&r);
}

/* 10 a minute: the 11th refused until the first leaves the window, to the
 * nanosecond; another user unaffected. */
static const struct step ten[] = {
	{ 1000, T0, DEMAND_RATE_OK, 0, 10, 0, S },
	{ 1000, T0 + 10 * S, DEMAND_RATE_USER, 50 * S, 1, 0, 0 },
	{ 1001, T0 + 10 * S, DEMAND_RATE_OK, 0, 1, 0, 0 },
	{ 1000, T0 + 60 * S - 1, DEMAND_RATE_USER, 1, 1, 0, 0 },
	{ 1000, T0 + 60 * S, DEMAND_RATE_OK, 0, 1, 0, 0 },
	/* the next one is refused again: the second request is 59 s old */
	{ 1000, T0 + 60 * S, DEMAND_RATE_USER, S, 1, 0, 0 },
	{ 1000, T0 + 61 * S, DEMAND_RATE_OK, 0, 1, 0, 0 },
};

/* DEMAND_RATE_USERS users in a minute fill the table; a minute later
 * their places are free again. */
static const struct step users[] = {
	{ 0, T0, DEMAND_RATE_OK, 0, DEMAND_RATE_USERS, 1, 0 },
	{ 9999, T0 + S, DEMAND_RATE_FULL, 0, 1, 0, 0 },
	{ 3, T0 + S, DEMAND_RATE_USER, 59 * S, 1, 0, 0 },
	{ 9999, T0 + 60 * S, DEMAND_RATE_OK, 0, 1, 0, 0 },
};

static void
test_rate(void **state)
{
	(void)state;
	steps(10, ten, sizeof(ten) / sizeof(ten[0]));
	steps(1, users, sizeof(users) / sizeof(users[0]));
}

/* A request refused for another reason (nothing to probe, no route, the
 * store) is judged by check, which counts nothing: limit 1, any number
 * of checks leave the one take; and checks of new users claim no place
 * in the table. */
static void
test_rate_check(void **state)
{
	struct demand_rate r;
	uint64_t wait;

	(void)state;
	demand_rate_init(&r, 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(demand_rate_check(&r, 1000, T0 + (uint64_t)i, &wait),
		    DEMAND_RATE_OK);
	assert_int_equal(demand_rate_take(&r, 1000, T0 + 5, &wait), DEMAND_RATE_OK);
	assert_int_equal(demand_rate_check(&r, 1000, T0 + 6, &wait), DEMAND_RATE_USER);
	assert_int_equal(demand_rate_take(&r, 1000, T0 + 6, &wait), DEMAND_RATE_USER);
	for (uint32_t u = 1; u <= 3 * DEMAND_RATE_USERS; u++)
		assert_int_equal(demand_rate_check(&r, u, T0 + 7, &wait), DEMAND_RATE_OK);
	for (uint32_t u = 1; u < DEMAND_RATE_USERS; u++)
		assert_int_equal(demand_rate_take(&r, u, T0 + 8, &wait), DEMAND_RATE_OK);
	assert_int_equal(demand_rate_check(&r, 99999, T0 + 9, &wait), DEMAND_RATE_FULL);
	demand_rate_free(&r);
}

/* The rate's clock is the monotonic one: a step of the wall clock (back
 * a day, say) neither refuses users nor keeps them in the table. */
static void
test_rate_clock(void **state)
{
	struct timespec a, b;
	uint64_t lo, hi, now;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	now = demand_rate_now_ns();
	clock_gettime(CLOCK_MONOTONIC, &b);
	lo = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
	hi = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
	if (now < lo || now > hi)
		fail_msg("the rate's clock %llu is not CLOCK_MONOTONIC's [%llu, %llu]",
		    (unsigned long long)now, (unsigned long long)lo, (unsigned long long)hi);
}

/* Requests in flight: DEMAND_RUNS_MAX in all, DEMAND_USER_RUNS_MAX a
 * user, whatever the rate allows. */
static const struct {
	size_t all, user;
	enum demand_admit want;
} admits[] = {
	{ 0, 0, DEMAND_ADMIT_OK },
	{ 1, 1, DEMAND_ADMIT_OK },
	{ 7, 1, DEMAND_ADMIT_OK },
	{ 2, 2, DEMAND_ADMIT_USER_BUSY },
	{ 7, 2, DEMAND_ADMIT_USER_BUSY },
	{ 3, 3, DEMAND_ADMIT_USER_BUSY },
	{ 8, 0, DEMAND_ADMIT_BUSY },
	{ 8, 2, DEMAND_ADMIT_BUSY },
	{ 9, 1, DEMAND_ADMIT_BUSY },
};

static void
test_admit(void **state)
{
	size_t held = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(admits) / sizeof(admits[0]); i++) {
		enum demand_admit got = demand_admit(admits[i].all, admits[i].user);

		if (got != admits[i].want)
			fail_msg("row %zu: %zu in flight, %zu the user's: %d, not %d", i,
			    admits[i].all, admits[i].user, got, admits[i].want);
	}
	/* one user at the default rate (10 a minute) holds at most
	 * DEMAND_USER_RUNS_MAX of the DEMAND_RUNS_MAX places */
	for (int k = 0; k < 10; k++)
		held += demand_admit(held, held) == DEMAND_ADMIT_OK;
	assert_int_equal(held, DEMAND_USER_RUNS_MAX);
	assert_true(DEMAND_USER_RUNS_MAX < DEMAND_RUNS_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_feed),
		cmocka_unit_test(test_feed_once),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_has_port),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_rate_check),
		cmocka_unit_test(test_rate_clock),
		cmocka_unit_test(test_admit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
