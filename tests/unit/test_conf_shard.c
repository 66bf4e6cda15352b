/*
 * test_conf_shard.c -- sharded groups in scaleprobe.conf: shard and
 * replicas parsed, printed back and refused with their exact "file:line:"
 * errors; a vantage marked owner of exactly what shard.h gives it, every
 * target owned by K of three vantages, a prefix owned whole, a vantage
 * not among the names refused, and a group without shard left whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"
#include "shard.h"

/* Parses text as "t.conf", then marks it for vantage (NULL: not);
 * returns the errors' text (malloc'd, "" if none). */
static char *
parse(struct conf *c, const char *text, const char *vantage, int *rc)
{
	struct conf_errors e = { NULL, 0 };
	char *out;

	conf_init(c);
	*rc = conf_parse(c, text, strlen(text), "t.conf", &e);
	if (*rc == 0 && vantage != NULL)
		*rc = conf_shard_apply(c, vantage, "t.conf", &e);
	out = conf_errors_text(&e);
	conf_errors_free(&e);
	return out;
}

static void
test_parse_print(void **state)
{
	struct conf c, c2;
	char *err, *p1, *p2;
	int rc;

	(void)state;
	err = parse(&c, "group g {\n shard b a\n shard \"c.example\" d\n replicas 3\n"
	    " target 198.18.9.9\n}\ngroup h {\n target 198.18.9.8\n}\n", NULL, &rc);
	assert_string_equal(err, "");
	assert_int_equal(rc, 0);
	assert_int_equal(c.groups[0].nshard, 4);
	assert_string_equal(c.groups[0].shard[2], "c.example");
	assert_int_equal(c.groups[0].shard_line[3], 3);
	assert_int_equal(c.groups[0].replicas, 3);
	assert_int_equal(c.groups[1].nshard, 0);
	assert_int_equal(c.groups[1].replicas, 1);	/* the default */
	p1 = conf_print(&c);
	assert_non_null(strstr(p1, "\tshard b a c.example d\n\treplicas 3\n"));
	assert_null(strstr(strstr(p1, "group h"), "shard"));	/* unsharded: none */
	free(err);
	err = parse(&c2, p1, NULL, &rc);
	assert_string_equal(err, "");
	p2 = conf_print(&c2);
	assert_string_equal(p1, p2);
	free(err);
	free(p1);
	free(p2);
	conf_free(&c);
	conf_free(&c2);
}

static void
test_refused(void **state)
{
	static const struct { const char *text, *vantage, *want; } cases[] = {
		{ "group g {\n shard a b\n shard c a\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:3: shard: 'a' already given on line 2\n" },
		{ "group g {\n shard a \"b c\"\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:2: shard: 'b c' is not a vantage name of 1..255 visible "
		  "characters\n" },
		{ "group g {\n shard \"\"\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:2: shard: '' is not a vantage name of 1..255 visible "
		  "characters\n" },
		{ "group g {\n shard\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:2: shard: expected NAME\n" },
		{ "shard a\n", NULL, "t.conf:1: shard: allowed only inside a group { }\n" },
		{ "group g {\n shard a\n replicas 0\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:3: replicas: '0' is not a count of vantages in 1..16\n" },
		{ "group g {\n shard a\n replicas 17\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:3: replicas: '17' is not a count of vantages in 1..16\n" },
		{ "group g {\n shard a\n replicas 1\n replicas 2\n target 198.18.9.9\n}\n",
		  NULL, "t.conf:4: replicas: already set on line 3\n" },
		{ "group g {\n replicas 2\n target 198.18.9.9\n}\n", NULL,
		  "t.conf:2: replicas: group 'g' has no shard (expected shard NAME... "
		  "first)\n" },
		{ "group g {\n target 198.18.9.9\n shard a b\n}\n", "c",
		  "t.conf:3: shard: this vantage, 'c', is not one of group 'g''s shard "
		  "names (expected it among them, or vantage NAME)\n" },
		{ "group g {\n target 198.18.9.9\n shard a b\n}\n", "ab", "t.conf:3: shard: "
		  "this vantage, 'ab', is not one of group 'g''s shard names (expected it "
		  "among them, or vantage NAME)\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct conf c;
		int rc;
		char *err = parse(&c, cases[i].text, cases[i].vantage, &rc);

		if (strcmp(err, cases[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].want);
		assert_int_equal(rc, -1);
		free(err);
		conf_free(&c);
	}
}

/* SHARD_MAX_VANTAGES names and no more */
static void
test_many(void **state)
{
	struct strbuf b = { 0 };
	struct conf c;
	char *err;
	int rc;

	(void)state;
	strbuf_printf(&b, "group g {\n target 198.18.9.9\n");
	for (int i = 0; i < SHARD_MAX_VANTAGES; i++)
		strbuf_printf(&b, " shard v%d\n", i);
	strbuf_printf(&b, "}\n");
	err = parse(&c, strbuf_str(&b), "v7", &rc);
	assert_string_equal(err, "");
	assert_int_equal(c.groups[0].nshard, SHARD_MAX_VANTAGES);
	free(err);
	conf_free(&c);
	strbuf_free(&b);
	strbuf_printf(&b, "group g {\n target 198.18.9.9\n");
	for (int i = 0; i <= SHARD_MAX_VANTAGES; i++)
		strbuf_printf(&b, " shard v%d\n", i);
	strbuf_printf(&b, "}\n");
	err = parse(&c, strbuf_str(&b), NULL, &rc);
	assert_string_equal(err, "t.conf:259: shard: more than 256 vantages\n");
	free(err);
	conf_free(&c);
	strbuf_free(&b);
}

/* Three vantages, 300 targets, K = 2: each marks what shard_owns gives it,
 * and every target is marked by exactly two; a prefix and a target with
 * two ports are one decision each. */
static void
test_marks(void **state)
{
	static const char *const names[] = { "a", "b", "c" };
	struct strbuf b = { 0 };
	unsigned owners[301] = { 0 };
	size_t sum = 0;

	(void)state;
	strbuf_printf(&b, "group g {\n ports 80,443\n shard c a\n shard b\n replicas 2\n"
	    " target 198.18.7.0/30\n");
	for (int i = 0; i < 299; i++)
		strbuf_printf(&b, " target 198.18.%d.%d\n", 8 + i / 200, 1 + i % 200);
	strbuf_printf(&b, "}\ngroup whole {\n target 198.18.20.1\n}\n");
	for (size_t v = 0; v < 3; v++) {
		struct conf c;
		struct conf_group *g;
		char *err, sum_line[200];
		struct strbuf s = { 0 };
		int rc;
		size_t spec = 0;

		err = parse(&c, strbuf_str(&b), names[v], &rc);
		assert_string_equal(err, "");
		assert_int_equal(rc, 0);
		g = &c.groups[0];
		assert_non_null(g->mine);
		assert_int_equal(g->shard_total, 300);
		/* the prefix (one entry, walked later) and 299 addresses, x 2 ports */
		assert_int_equal(g->targets.n, 300 * 2);
		for (size_t t = 0; t < g->targets.n; t++) {
			const char *as = g->targets.v[t].as_given;

			if (t > 0 && strcmp(as, g->targets.v[t - 1].as_given) != 0)
				spec++;
			else if (t > 0)
				assert_int_equal(g->mine[t], g->mine[t - 1]);	/* whole */
			/* the order of the names is not the hash's business */
			assert_int_equal(g->mine[t], shard_owns(as, names, 3, 2, v));
			if (t == 0 || strcmp(as, g->targets.v[t - 1].as_given) != 0)
				owners[spec] += g->mine[t];
		}
		assert_int_equal(spec, 299);
		sum += g->shard_owned;
		assert_true(g->shard_owned > 100 && g->shard_owned < 300);
		assert_null(c.groups[1].mine);		/* not sharded: every target */
		conf_shard_summary(&s, &c);
		snprintf(sum_line, sizeof(sum_line), "# group g: %zu of 300 targets are this "
		    "vantage's (shard of 3, replicas 2)\n", g->shard_owned);
		assert_string_equal(strbuf_str(&s), sum_line);
		strbuf_free(&s);
		free(err);
		conf_free(&c);
	}
	assert_int_equal(sum, 600);
	for (size_t i = 0; i < 300; i++)
		if (owners[i] != 2)
			fail_msg("target %zu has %u owners", i, owners[i]);
	strbuf_free(&b);
}

/* replicas above the names: every vantage owns every target; thousands
 * grouped in the summary */
static void
test_capped(void **state)
{
	struct strbuf b = { 0 }, s = { 0 };
	struct conf c;
	char *err;
	int rc;

	(void)state;
	strbuf_printf(&b, "allow-large yes\ngroup g {\n shard a b\n replicas 5\n");
	for (int i = 0; i < 1234; i++)
		strbuf_printf(&b, " target 198.18.%d.%d\n", 10 + i / 250, 1 + i % 250);
	strbuf_printf(&b, "}\n");
	err = parse(&c, strbuf_str(&b), "b", &rc);
	assert_string_equal(err, "");
	assert_int_equal(conf_shard_replicas(&c.groups[0]), 2);
	assert_int_equal(c.groups[0].shard_owned, 1234);
	conf_shard_summary(&s, &c);
	assert_string_equal(strbuf_str(&s), "# group g: 1,234 of 1,234 targets are this "
	    "vantage's (shard of 2, replicas 2)\n");
	free(err);
	conf_free(&c);
	strbuf_free(&b);
	strbuf_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_print),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
