/*
 * fuzz_targets.c -- libFuzzer harness for the target-file parser
 * (targets_parse_buf), with and without --allow-large.  Beyond "no crash,
 * no leak", it checks what the parser promises:
 *   - it fails exactly when it reported errors, and then adds no entry;
 *   - one error line per reported error, each "f.txt:LINE: ...", printable;
 *   - every entry is well-formed (port, kind, family, prefix size, name);
 *   - every entry's as_given text parses again, alone, to the same entry;
 *   - the first and last address of a prefix lie inside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "targets.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void
check_errors(const struct targets *t)
{
	size_t lines = 0;

	if (t->nerrors == 0) {
		CHECK(t->errors.p == NULL);
		return;
	}
	CHECK(t->errors.p != NULL && strlen(t->errors.p) == t->errors.len);
	for (const char *p = t->errors.p; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n') {
			lines++;
			continue;
		}
		/* network/file bytes must come out escaped */
		CHECK(c >= 0x20 && c < 0x7f);
	}
	CHECK(lines == t->nerrors);
	CHECK(t->errors.p[t->errors.len - 1] == '\n');
	for (const char *p = t->errors.p; *p != '\0'; p = strchr(p, '\n') + 1)
		CHECK(strncmp(p, "f.txt:", 6) == 0);
}

static void
check_entry(const struct target *tg, const struct targets_opts *o)
{
	struct targets again;
	struct addr a;

	CHECK(tg->port >= 1);
	CHECK(tg->as_given != NULL && strlen(tg->as_given) <= TARGETS_TEXT_MAX);
	CHECK(tg->line >= 1);
	switch (tg->kind) {
	case TARGET_NAME:
		CHECK(tg->name != NULL);
		CHECK(strlen(tg->name) >= 1 && strlen(tg->name) <= TARGETS_NAME_MAX + 1);
		CHECK(target_count(tg) == 1);
		CHECK(target_address(tg, 0, &a) == -1);
		break;
	case TARGET_ADDR:
		CHECK(tg->name == NULL);
		CHECK(addr_len(&tg->addr) * 8 == tg->plen);
		CHECK(target_count(tg) == 1);
		CHECK(target_address(tg, 0, &a) == 0 && addr_equal(&a, &tg->addr));
		break;
	case TARGET_PREFIX:
		CHECK(tg->name == NULL);
		CHECK(addr_len(&tg->addr) != 0 && tg->plen < addr_len(&tg->addr) * 8);
		CHECK(target_count(tg) >= 2 && target_count(tg) <= TARGETS_MAX_EXPANSION);
		CHECK(o->allow_large || target_count(tg) <= TARGETS_LARGE);
		CHECK(target_address(tg, 0, &a) == 0 && addr_equal(&a, &tg->addr));
		CHECK(target_address(tg, target_count(tg) - 1, &a) == 0);
		CHECK(addr_in_prefix(&a, &tg->addr, tg->plen) && !addr_equal(&a, &tg->addr));
		CHECK(target_address(tg, target_count(tg), &a) == -1);
		break;
	default:
		CHECK(0);
	}

	/* the same text alone, as a command-line target, gives the same */
	targets_init(&again);
	CHECK(targets_parse_spec(&again, tg->as_given, o) == 0);
	CHECK(again.n == 1 && again.nerrors == 0);
	CHECK(again.v[0].kind == tg->kind && again.v[0].port == tg->port);
	CHECK(addr_equal(&again.v[0].addr, &tg->addr) && again.v[0].plen == tg->plen);
	CHECK((tg->name == NULL) == (again.v[0].name == NULL));
	CHECK(tg->name == NULL || strcmp(tg->name, again.v[0].name) == 0);
	targets_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct targets_opts opts[] = { { false, 0 }, { true, 443 } };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct targets t;
		struct targets_iter it;
		struct addr a;
		size_t walked = 0;
		int rc;

		targets_init(&t);
		rc = targets_parse_buf(&t, (const char *)data, size, "f.txt", &opts[i]);
		CHECK((rc == 0) == (t.nerrors == 0));
		if (rc != 0)
			CHECK(t.n == 0);
		check_errors(&t);
		for (size_t k = 0; k < t.n; k++)
			check_entry(&t.v[k], &opts[i]);
		/* a bounded walk: the iterator yields entries in order */
		targets_iter_init(&it, &t);
		while (walked < 1024 && targets_iter_next(&it, &a) != NULL)
			walked++;
		CHECK(t.n == 0 || walked > 0);
		targets_free(&t);
	}
	return 0;
}
