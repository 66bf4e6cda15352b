/*
 * fuzz_conf.c -- libFuzzer harness for scaleprobe.conf's parser
 * (conf_parse) and its print-back (conf_print).  Beyond "no crash, no
 * leak", it checks what they promise:
 *   - the parse fails exactly when it reported an error;
 *   - every error is one printable line "f.conf:LINE: ..." with LINE
 *     within the text, in the order of the lines;
 *   - a configuration that parses prints back to text that parses clean
 *     and prints back byte for byte the same (idempotent), with the same
 *     groups and targets;
 *   - marked for vantage "b", each sharded group owns at most its targets
 *     as written, and an error is a line of the text;
 *   - the same bytes as an opt-out list: it fails exactly when it reported
 *     an error, and then keeps nothing; each range kept lies in itself.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void
check_errors(const struct conf_errors *e, const uint8_t *data, size_t size)
{
	unsigned lines = 1;
	char *text;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	for (size_t i = 0; i < e->n; i++) {
		CHECK(e->v[i].line >= 1 && e->v[i].line <= lines);
		CHECK(i == 0 || e->v[i - 1].line <= e->v[i].line);
		for (const char *p = e->v[i].msg; *p != '\0'; p++)
			CHECK((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
	}
	text = conf_errors_text(e);
	for (const char *p = text; *p != '\0'; p = strchr(p, '\n') + 1)
		CHECK(strncmp(p, "f.conf:", 7) == 0);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_errors e = { NULL, 0 };
	struct conf c, again;
	char *p1, *p2;
	int rc;

	conf_init(&c);
	rc = conf_parse(&c, (const char *)data, size, "f.conf", &e);
	CHECK((rc == 0) == (e.n == 0));
	check_errors(&e, data, size);
	conf_errors_free(&e);
	if (rc == 0) {
		p1 = conf_print(&c);
		conf_init(&again);
		CHECK(conf_parse(&again, p1, strlen(p1), "p.conf", &e) == 0);
		p2 = conf_print(&again);
		CHECK(strcmp(p1, p2) == 0);
		CHECK(again.ngroups == c.ngroups);
		for (size_t i = 0; i < c.ngroups; i++) {
			CHECK(strcmp(again.groups[i].name, c.groups[i].name) == 0);
			CHECK(again.groups[i].targets.n == c.groups[i].targets.n);
			CHECK(again.groups[i].interval == c.groups[i].interval);
			CHECK(again.groups[i].jitter == c.groups[i].jitter);
			CHECK(again.groups[i].nshard == c.groups[i].nshard);
			CHECK(again.groups[i].replicas == c.groups[i].replicas);
		}
		rc = conf_shard_apply(&c, "b", "f.conf", &e);
		CHECK((rc == 0) == (e.n == 0));
		check_errors(&e, data, size);
		conf_errors_free(&e);
		for (size_t i = 0; i < c.ngroups; i++)
			CHECK(c.groups[i].shard_owned <= c.groups[i].shard_total &&
			    c.groups[i].shard_total <= c.groups[i].targets.n);
		CHECK(again.probe.rate == c.probe.rate && again.probe.timeout == c.probe.timeout);
		free(p1);
		free(p2);
		conf_free(&again);
	}
	conf_free(&c);

	{
		struct conf_prefix *v = NULL;
		size_t n = 0;

		rc = conf_optout_parse(&v, &n, (const char *)data, size, "f.conf", &e);
		CHECK((rc == 0) == (e.n == 0));
		check_errors(&e, data, size);
		CHECK(rc == 0 || (v == NULL && n == 0));
		for (size_t i = 0; i < n; i++) {
			CHECK(addr_in_prefix(&v[i].net, &v[i].net, v[i].plen));
			CHECK(v[i].line >= 1);
			free(v[i].text);
		}
		free(v);
		conf_errors_free(&e);
	}
	return 0;
}
