/*
 * test_targets.c -- target specs (every form, every refusal), target files
 * (comments, all errors in one pass with file:line, nothing added on
 * failure), the lazy walk over prefixes, and reading a real file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "targets.h"

static const struct targets_opts defaults = { false, 0 };
static const struct targets_opts large = { true, 0 };

struct spec_case {
	const char *spec;
	int kind;		/* enum target_kind, or -1: an error */
	const char *addr;	/* ADDR/PREFIX: canonical text */
	unsigned plen;
	const char *name;
	uint16_t port;
	const char *error;	/* the whole error line, without '\n' */
};

#define OK_ADDR(s, a, p) { s, TARGET_ADDR, a, 0, NULL, p, NULL }
#define OK_PFX(s, a, l, p) { s, TARGET_PREFIX, a, l, NULL, p, NULL }
#define OK_NAME(s, n, p) { s, TARGET_NAME, NULL, 0, n, p, NULL }
#define BAD(s, e) { s, -1, NULL, 0, NULL, 0, e }

static const struct spec_case spec_cases[] = {
	OK_ADDR("198.18.0.1", "198.18.0.1", 80),
	OK_ADDR("198.18.0.1:443", "198.18.0.1", 443),
	OK_ADDR("198.18.0.1:65535", "198.18.0.1", 65535),
	OK_ADDR("198.18.0.1:1", "198.18.0.1", 1),
	OK_ADDR("fd00::1", "fd00::1", 80),
	OK_ADDR("FD00:0:0::1", "fd00::1", 80),
	OK_ADDR("[fd00::1]:8080", "fd00::1", 8080),
	OK_ADDR("[fd00::1]", "fd00::1", 80),
	OK_ADDR("::ffff:198.18.0.1", "::ffff:198.18.0.1", 80),
	OK_ADDR("198.18.0.1/32", "198.18.0.1", 80),
	OK_ADDR("fd00::7/128", "fd00::7", 80),
	OK_ADDR("  198.18.0.1\t", "198.18.0.1", 80),
	OK_PFX("198.18.0.0/24", "198.18.0.0", 24, 80),
	OK_PFX("198.18.0.0/24:443", "198.18.0.0", 24, 443),
	OK_PFX("198.18.0.128/31", "198.18.0.128", 31, 80),
	OK_PFX("fd00::/120", "fd00::", 120, 80),
	OK_PFX("[fd00::100/120]:22", "fd00::100", 120, 22),
	OK_NAME("server.lab", "server.lab", 80),
	OK_NAME("server.lab:443", "server.lab", 443),
	OK_NAME("localhost", "localhost", 80),
	OK_NAME("a-b.example.org.", "a-b.example.org.", 80),
	OK_NAME("xn--bcher-kva.example", "xn--bcher-kva.example", 80),
	OK_NAME("3com.com", "3com.com", 80),
	OK_NAME("host.123a", "host.123a", 80),

	BAD("198.18.0.1:0", "198.18.0.1:0: port out of range (expected 1..65535)"),
	BAD("198.18.0.1:65536", "198.18.0.1:65536: port out of range (expected 1..65535)"),
	BAD("198.18.0.1:999999999999", "198.18.0.1:999999999999: port out of range (expected 1..65535)"),
	BAD("198.18.0.1:http", "198.18.0.1:http: port is not a number (expected 1..65535)"),
	BAD("198.18.0.1:-1", "198.18.0.1:-1: port is not a number (expected 1..65535)"),
	BAD("198.18.0.1:+80", "198.18.0.1:+80: port is not a number (expected 1..65535)"),
	BAD("198.18.0.1:", "198.18.0.1:: missing port after ':' (expected 1..65535)"),
	BAD(":80", ":80: missing host before ':'"),
	BAD("[fd00::1]:", "[fd00::1]:: missing port after ':' (expected 1..65535)"),
	BAD("[fd00::1]:0", "[fd00::1]:0: port out of range (expected 1..65535)"),
	BAD("[fd00::1", "[fd00::1: missing ']' (expected [IPV6]:PORT)"),
	BAD("[fd00::1]80", "[fd00::1]80: expected ':PORT' after ']'"),
	BAD("[198.18.0.1]:80", "[198.18.0.1]:80: brackets are for IPv6 addresses only"),
	BAD("[fd00::zz]:80", "[fd00::zz]:80: not an IPv4 or IPv6 address"),
	BAD("fd00::1:80:x", "fd00::1:80:x: not an IPv6 address (write [IPV6]:PORT to give a port)"),
	BAD("198.18.0.0/33", "198.18.0.0/33: prefix length too long for IPv4 (at most 32)"),
	BAD("fd00::/129", "fd00::/129: prefix length too long for IPv6 (at most 128)"),
	BAD("198.18.0.0/", "198.18.0.0/: prefix length is not a number"),
	BAD("198.18.0.0/x", "198.18.0.0/x: prefix length is not a number"),
	BAD("198.18.0.0/+8", "198.18.0.0/+8: prefix length is not a number"),
	BAD("198.18.0.1/24", "198.18.0.1/24: host bits set after the prefix length"),
	BAD("198.18.0.0/16", "198.18.0.0/16: prefix has 65536 addresses; more than 256 need --allow-large"),
	BAD("198.18.0.0/23", "198.18.0.0/23: prefix has 512 addresses; more than 256 need --allow-large"),
	BAD("fd00::/64", "fd00::/64: prefix has 2^64 addresses, at most 2^32 can be probed"),
	BAD("server.lab/24", "server.lab/24: not an IPv4 or IPv6 address"),
	BAD("198.18.0.256", "198.18.0.256: not an IPv4 address, and a host name cannot end in a number"),
	BAD("10.1", "10.1: not an IPv4 address, and a host name cannot end in a number"),
	BAD("under_score.lab", "under_score.lab: '_' cannot appear in a host name (expected letters, digits, '-' and '.')"),
	BAD("sp\x01" "ce.lab", "sp\\x01ce.lab: '\\x01' cannot appear in a host name (expected letters, digits, '-' and '.')"),
	BAD("caf\xc3\xa9.lab", "caf\\xc3\\xa9.lab: '\\xc3' cannot appear in a host name (expected letters, digits, '-' and '.')"),
	BAD("-lead.lab", "-lead.lab: host name label starts or ends with '-'"),
	BAD("trail-.lab", "trail-.lab: host name label starts or ends with '-'"),
	BAD("a..lab", "a..lab: empty label in host name"),
	BAD(".lab", ".lab: empty label in host name"),
	BAD(".", ".: empty host name"),
	BAD("", "empty target"),
	BAD("   ", "empty target"),
	BAD("a.lab b.lab", "a.lab: expected one target, found more text after it"),
	BAD("a#b", "a#b: '#' cannot appear in a host name (expected letters, digits, '-' and '.')"),
};

static void
test_specs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(spec_cases) / sizeof(spec_cases[0]); i++) {
		const struct spec_case *c = &spec_cases[i];
		struct targets t;
		int rc;

		targets_init(&t);
		rc = targets_parse_spec(&t, c->spec, &defaults);
		if (c->kind == -1) {
			char want[512];

			snprintf(want, sizeof(want), "%s\n", c->error);
			if (rc != -1 || t.n != 0 || t.nerrors != 1 ||
			    strcmp(strbuf_str(&t.errors), want) != 0)
				fail_msg("'%s': rc %d n %zu errors '%s', want '%s'",
				    c->spec, rc, t.n, t.errors.p ? t.errors.p : "(none)",
				    c->error);
		} else {
			const struct target *tg = &t.v[0];
			char buf[ADDR_STRLEN];

			if (rc != 0 || t.n != 1 || t.nerrors != 0)
				fail_msg("'%s': rc %d n %zu errors '%s'", c->spec, rc,
				    t.n, strbuf_str(&t.errors));
			assert_int_equal(tg->kind, c->kind);
			assert_int_equal(tg->port, c->port);
			assert_int_equal(tg->line, 0);
			if (c->kind == TARGET_NAME) {
				assert_string_equal(tg->name, c->name);
			} else {
				assert_null(tg->name);
				assert_string_equal(addr_format(&tg->addr, buf,
				    sizeof(buf)), c->addr);
				if (c->kind == TARGET_PREFIX)
					assert_int_equal(tg->plen, c->plen);
				else
					assert_int_equal(tg->plen,
					    tg->addr.family == ADDR_V4 ? 32 : 128);
			}
		}
		targets_free(&t);
	}
}

/* as_given is the target as written (trimmed), for the JSON "target". */
static void
test_as_given(void **state)
{
	struct targets t;

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, " [FD00::1]:443 ", &defaults), 0);
	assert_string_equal(t.v[0].as_given, "[FD00::1]:443");
	targets_free(&t);
}

static void
test_large_and_default_port(void **state)
{
	struct targets t;
	const struct targets_opts p443 = { false, 443 };

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, "198.19.0.0/16", &large), 0);
	assert_int_equal(target_count(&t.v[0]), 65536);
	assert_int_equal(targets_parse_spec(&t, "0.0.0.0/0", &large), 0);
	assert_int_equal(target_count(&t.v[1]), 1ULL << 32);
	assert_int_equal(targets_parse_spec(&t, "fd00::/96", &large), 0);
	assert_int_equal(target_count(&t.v[2]), 1ULL << 32);
	assert_int_equal(targets_parse_spec(&t, "fd00::/95", &large), -1);
	assert_string_equal(strbuf_str(&t.errors),
	    "fd00::/95: prefix has 2^33 addresses, at most 2^32 can be probed\n");
	/* exactly 256 needs no flag */
	assert_int_equal(targets_parse_spec(&t, "198.18.0.0/24", &defaults), 0);
	assert_int_equal(target_count(&t.v[3]), 256);
	assert_int_equal(targets_parse_spec(&t, "server.lab", &p443), 0);
	assert_int_equal(t.v[4].port, 443);
	assert_int_equal(target_count(&t.v[4]), 1);
	assert_int_equal(t.n, 5);
	targets_free(&t);
}

static void
test_name_lengths(void **state)
{
	char name[300];
	struct targets t;

	(void)state;
	targets_init(&t);
	/* a 63-character label is fine, 64 is not */
	memset(name, 'a', 63);
	strcpy(name + 63, ".lab");
	assert_int_equal(targets_parse_spec(&t, name, &defaults), 0);
	memset(name, 'a', 64);
	strcpy(name + 64, ".lab");
	assert_int_equal(targets_parse_spec(&t, name, &defaults), -1);
	assert_non_null(strstr(strbuf_str(&t.errors), ": host name label longer than 63 characters\n"));
	/* 253 characters (four labels of 63 and one of 1) are fine, and with
	 * a final dot too; 255 are not */
	for (int i = 0; i < 4; i++) {
		memset(name + 64 * i, 'b', 63);
		name[64 * i + 63] = '.';
	}
	name[256] = '\0';
	name[253] = '\0';
	name[252] = 'c';
	assert_int_equal(strlen(name), 253);
	assert_int_equal(targets_parse_spec(&t, name, &defaults), 0);
	strcat(name, ".");
	assert_int_equal(targets_parse_spec(&t, name, &defaults), 0);
	name[253] = 'd';
	name[254] = 'e';
	name[255] = '\0';
	assert_int_equal(targets_parse_spec(&t, name, &defaults), -1);
	assert_non_null(strstr(strbuf_str(&t.errors), ": host name longer than 253 characters\n"));
	assert_int_equal(t.n, 3);
	assert_int_equal(t.nerrors, 2);
	targets_free(&t);
}

/* A text past TARGETS_TEXT_MAX is refused, shown cut at 80 bytes. */
static void
test_overlong_text(void **state)
{
	char text[400], want[200];
	struct targets t;

	(void)state;
	memset(text, 'x', 301);
	text[301] = '\0';
	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, text, &defaults), -1);
	snprintf(want, sizeof(want), "%.80s...: target longer than 300 characters\n", text);
	assert_string_equal(strbuf_str(&t.errors), want);
	targets_free(&t);
}

static const char good_file[] =
    "# lab targets\n"
    "\n"
    "198.18.1.10\n"
    "   server.lab:443   # the TLS one\n"
    "\t[fd00:1::10]:8080\r\n"
    "198.18.2.0/30\n"
    "#198.18.9.9\n"
    "fd00::1";		/* no final newline */

static void
test_file_good(void **state)
{
	struct targets t;

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_buf(&t, good_file, strlen(good_file),
	    "lab.txt", &defaults), 0);
	assert_int_equal(t.n, 5);
	assert_null(t.errors.p);
	assert_string_equal(t.v[0].as_given, "198.18.1.10");
	assert_int_equal(t.v[0].line, 3);
	assert_string_equal(t.v[1].name, "server.lab");
	assert_int_equal(t.v[1].port, 443);
	assert_int_equal(t.v[1].line, 4);
	assert_string_equal(t.v[2].as_given, "[fd00:1::10]:8080");
	assert_int_equal(t.v[2].port, 8080);
	assert_int_equal(t.v[3].kind, TARGET_PREFIX);
	assert_int_equal(t.v[3].line, 6);
	assert_int_equal(t.v[4].line, 8);
	targets_free(&t);
}

static const char bad_file[] =
    "198.18.1.10\n"
    "198.18.1.11:0\n"
    "# fine\n"
    "bad_name.lab\n"
    "198.18.0.0/16\n"
    "two targets\n"
    "ok.lab\n"
    "[fd00::1\n";

/* Every error of the file, in order, with its line; no entry added. */
static void
test_file_errors_one_pass(void **state)
{
	struct targets t;

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, "kept.lab", &defaults), 0);
	assert_int_equal(targets_parse_buf(&t, bad_file, strlen(bad_file), "t.txt",
	    &defaults), -1);
	assert_int_equal(t.nerrors, 5);
	assert_string_equal(strbuf_str(&t.errors),
	    "t.txt:2: 198.18.1.11:0: port out of range (expected 1..65535)\n"
	    "t.txt:4: bad_name.lab: '_' cannot appear in a host name (expected letters, digits, '-' and '.')\n"
	    "t.txt:5: 198.18.0.0/16: prefix has 65536 addresses; more than 256 need --allow-large\n"
	    "t.txt:6: two: expected one target per line, found more text after it\n"
	    "t.txt:8: [fd00::1: missing ']' (expected [IPV6]:PORT)\n");
	/* what was there before stays, nothing of the failed file */
	assert_int_equal(t.n, 1);
	assert_string_equal(t.v[0].name, "kept.lab");
	targets_free(&t);
}

/* Bytes a file may hold: NUL, binary junk, an empty file. */
static void
test_file_hostile_bytes(void **state)
{
	static const char nul[] = "198.18.0.1\nab\0cd\n\xff\xfe\n";
	struct targets t;

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_buf(&t, nul, sizeof(nul) - 1, "b.txt", &defaults), -1);
	assert_string_equal(strbuf_str(&t.errors),
	    "b.txt:2: ab\\x00cd: NUL byte in target\n"
	    "b.txt:3: \\xff\\xfe: '\\xff' cannot appear in a host name (expected letters, digits, '-' and '.')\n");
	targets_free(&t);

	targets_init(&t);
	assert_int_equal(targets_parse_buf(&t, "", 0, "empty.txt", &defaults), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(targets_parse_buf(&t, "\n\n# only comments\n", 18,
	    "c.txt", &defaults), 0);
	assert_int_equal(t.n, 0);
	targets_free(&t);
}

static void
test_iter(void **state)
{
	static const char *const want[] = {
		"198.18.0.252", "198.18.0.253", "198.18.0.254", "198.18.0.255",
		"-", "fd00::1", "fd00::fe", "fd00::ff", "198.18.3.4",
	};
	static const char list[] = "198.18.0.252/30\nname.lab\nfd00::1\n"
	    "[fd00::fe/127]:443\n198.18.3.4\n";
	struct targets t;
	struct targets_iter it;
	const struct target *tg;
	struct addr a;
	size_t n = 0;
	char buf[ADDR_STRLEN];

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_buf(&t, list, strlen(list), "i.txt", &defaults), 0);
	targets_iter_init(&it, &t);
	while ((tg = targets_iter_next(&it, &a)) != NULL) {
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_string_equal(addr_format(&a, buf, sizeof(buf)), want[n]);
		if (n == 4)
			assert_string_equal(tg->name, "name.lab");
		if (n == 6 || n == 7)
			assert_int_equal(tg->port, 443);
		n++;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	assert_null(targets_iter_next(&it, &a));
	targets_free(&t);
}

/* Carries across bytes, and the last address of a big prefix. */
static void
test_target_address(void **state)
{
	struct targets t;
	struct addr a;
	char buf[ADDR_STRLEN];

	(void)state;
	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, "198.18.0.0/15", &large), 0);
	assert_int_equal(target_address(&t.v[0], 256, &a), 0);
	assert_string_equal(addr_format(&a, buf, sizeof(buf)), "198.18.1.0");
	assert_int_equal(target_address(&t.v[0], 131071, &a), 0);
	assert_string_equal(addr_format(&a, buf, sizeof(buf)), "198.19.255.255");
	assert_int_equal(target_address(&t.v[0], 131072, &a), -1);
	assert_int_equal(targets_parse_spec(&t, "fd00::ff00:0/96", &large), -1);
	assert_string_equal(strbuf_str(&t.errors),
	    "fd00::ff00:0/96: host bits set after the prefix length\n");
	targets_free(&t);

	targets_init(&t);
	assert_int_equal(targets_parse_spec(&t, "fd00::/96", &large), 0);
	assert_int_equal(target_address(&t.v[0], 0xffffffffULL, &a), 0);
	assert_string_equal(addr_format(&a, buf, sizeof(buf)), "fd00::ffff:ffff");
	assert_int_equal(target_address(&t.v[0], 0x10203ULL, &a), 0);
	assert_string_equal(addr_format(&a, buf, sizeof(buf)), "fd00::1:203");
	assert_int_equal(targets_parse_spec(&t, "name.lab", &defaults), 0);
	assert_int_equal(target_address(&t.v[1], 0, &a), -1);
	targets_free(&t);
}

static void
test_read_file(void **state)
{
	char path[] = "/tmp/test_targets.XXXXXX";
	struct targets t;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, "198.18.0.1:443\nbad:port\n", 24), 24);
	close(fd);
	targets_init(&t);
	assert_int_equal(targets_read_file(&t, path, &defaults), -1);
	{
		char want[200];

		snprintf(want, sizeof(want), "%s:2: bad:port: port is not a number "
		    "(expected 1..65535)\n", path);
		assert_string_equal(strbuf_str(&t.errors), want);
	}
	targets_free(&t);
	unlink(path);

	targets_init(&t);
	assert_int_equal(targets_read_file(&t, "/nonexistent/targets.txt", &defaults), -1);
	assert_string_equal(strbuf_str(&t.errors), "/nonexistent/targets.txt: No such file or directory\n");
	assert_int_equal(t.nerrors, 1);
	targets_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_specs),
		cmocka_unit_test(test_as_given),
		cmocka_unit_test(test_large_and_default_port),
		cmocka_unit_test(test_name_lengths),
		cmocka_unit_test(test_overlong_text),
		cmocka_unit_test(test_file_good),
		cmocka_unit_test(test_file_errors_one_pass),
		cmocka_unit_test(test_file_hostile_bytes),
		cmocka_unit_test(test_iter),
		cmocka_unit_test(test_target_address),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
