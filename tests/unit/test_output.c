/*
 * test_output.c -- the two forms of a result against expected text, byte
 * for byte: the NDJSON contract (every field present, null where nothing
 * was measured, the order fixed) and the readable table, for a clean path
 * with its window tests, a closed IPv6 port, a silent path whose capture
 * failed, and a path through a SYN proxy (the syn-proxy side finding);
 * a target, an error and a reason of control characters, printed escaped;
 * a path of several flows: each flow's verdict and hop counted together in
 * the text, and the branch in both forms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "infer.h"
#include "json.h"
#include "output.h"

static struct addr
A(const char *s)
{
	struct addr a;

	assert_int_equal(addr_parse(s, &a), 0);
	return a;
}

static void
answered(struct variant_obs *o, int scale, enum reply_kind kind, int ws)
{
	memset(o, 0, sizeof(*o));
	o->scale = scale;
	o->reply = kind;
	o->attempts = 1;
	o->rtt_us = 1500;
	o->sa.wscale = -1;
	o->sa.mss = -1;
	if (kind == REPLY_SYNACK) {
		o->sa.present = true;
		o->sa.wscale = ws;
		o->sa.mss = 1460;
		o->sa.sack = true;
		o->sa.ts = true;
		o->sa.window = 65160;
		o->sa.ttl = 59;
	}
}

/* A path result as the engine hands it over, inferred. */
static void
make(struct path_result *r, const char *target, const char *dst, const char *src,
    uint16_t port, enum reply_kind kind)
{
	static const int scales[3] = { 0, 7, 14 };

	memset(r, 0, sizeof(*r));
	r->target = target;
	r->dst = A(dst);
	r->src = A(src);
	r->port = port;
	r->time.tv_sec = 1764763200;		/* 2025-12-03T12:00:00Z */
	r->time.tv_nsec = 123456789;
	answered(&r->control, -1, kind, -1);
	r->nscales = 3;
	for (int i = 0; i < 3; i++)
		answered(&r->scales[i], scales[i], kind, 7);
}

static char *
as_json(const struct path_result *r)
{
	struct json j;
	const char *text;
	size_t len;
	char *s;

	json_init(&j);
	output_json(&j, r, "lab");
	assert_true(json_ok(&j));
	text = json_text(&j, &len);
	s = strndup(text, len);
	json_free(&j);
	return s;
}

static char *
as_text(const struct path_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	output_text(f, r);
	fclose(f);
	return buf;
}

static void
check(const char *what, char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n got: %s\nwant: %s", what, got, want);
	free(got);
}

/* The clean path: SYN-ACKs with window scale, window tests exact. */
static void
clean(struct path_result *r)
{
	make(r, "clean.lab", "198.18.100.1", "198.18.1.1", 80, REPLY_SYNACK);
	for (int i = 0; i < 3; i++) {
		int s = r->scales[i].scale;

		r->window[i].ran = true;
		r->window[i].synack = true;
		r->window[i].scale_effective = s;
		r->window[i].scale_effective_min = s;
		r->window[i].flight_bytes = s == 14 ? 16384 : 8192;
		r->window[i].w = (uint16_t)(s == 0 ? 8192 : s == 7 ? 64 : 1);
		r->window[i].rounds = 3;
	}
	infer_path(r);
}

/* A closed IPv6 port: every SYN reset. */
static void
closed6(struct path_result *r)
{
	make(r, "[fd00:5ca1:100::3]:9", "fd00:5ca1:100::3", "fd00:5ca1:1::1", 9, REPLY_RST);
	infer_path(r);
}

/* Silence while the capture failed: inconclusive, with the reason. */
static void
capture_failed(struct path_result *r)
{
	make(r, "198.18.100.4", "198.18.100.4", "198.18.1.1", 80, REPLY_NONE);
	r->control.attempts = r->scales[0].attempts = 3;
	r->scales[1].attempts = r->scales[2].attempts = 3;
	r->send_failures = 2;
	snprintf(r->capture_error, sizeof(r->capture_error), "east: The interface disappeared");
	infer_path(r);
}

/* Through a SYN proxy (hop 6): its SYN-ACKs (window 0, wscale 5, MSS
 * 1400, TTL 59) and the server's data (TTL 58); the shift sent applied. */
static void
proxied(struct path_result *r)
{
	make(r, "synproxy.lab", "198.18.103.1", "198.18.1.1", 80, REPLY_SYNACK);
	r->control.sa.mss = 1400;
	r->control.sa.window = 0;
	for (int i = 0; i < 3; i++) {
		int s = r->scales[i].scale;

		r->scales[i].sa.wscale = 5;
		r->scales[i].sa.mss = 1400;
		r->scales[i].sa.window = 0;
		r->window[i].ran = true;
		r->window[i].synack = true;
		r->window[i].scale_effective = s;
		r->window[i].scale_effective_min = s;
		r->window[i].flight_bytes = s == 14 ? 16384 : 8192;
		r->window[i].w = (uint16_t)(s == 0 ? 8192 : s == 7 ? 64 : 1);
		r->window[i].rounds = 3;
		r->window[i].syn_proxy = true;
		r->window[i].synack_window = 0;
		r->window[i].synack_ttl = 59;
		r->window[i].data_ttl = 58;
	}
	infer_path(r);
}

static void (*const cases[])(struct path_result *) = { clean, closed6, capture_failed, proxied };
static const char *const want_json[] = {
	/* clean */
	    "{\"target\":\"clean.lab\",\"address\":\"198.18.100.1\",\"port\":80,\"family"
	    "\":\"ipv4\",\"vantage\":\"lab\",\"time\":\"2025-12-03T12:00:00.123Z\",\"cont"
	    "rol\":{\"reply\":\"syn-ack\",\"syn_ack\":{\"present\":true,\"wscale\":null,"
	    "\"mss\":1460,\"sack\":true,\"ts\":true}},\"scales\":[{\"scale_sent\":0,\"rep"
	    "ly\":\"syn-ack\",\"icmp\":null,\"syn_ack\":{\"present\":true,\"wscale\":7,\""
	    "mss\":1460,\"sack\":true,\"ts\":true},\"scale_quoted\":null,\"scale_effectiv"
	    "e\":0,\"scale_effective_min\":0,\"flight_bytes\":8192,\"verdict\":\"ok\",\"r"
	    "eason\":\"the SYN-ACK carries window scale and the server applied 0\",\"hop"
	    "\":null,\"side_findings\":[]},{\"scale_sent\":7,\"reply\":\"syn-ack\",\"icmp"
	    "\":null,\"syn_ack\":{\"present\":true,\"wscale\":7,\"mss\":1460,\"sack\":tru"
	    "e,\"ts\":true},\"scale_quoted\":null,\"scale_effective\":7,\"scale_effective"
	    "_min\":7,\"flight_bytes\":8192,\"verdict\":\"ok\",\"reason\":\"the SYN-ACK c"
	    "arries window scale and the server applied 7\",\"hop\":null,\"side_findings"
	    "\":[]},{\"scale_sent\":14,\"reply\":\"syn-ack\",\"icmp\":null,\"syn_ack\":{"
	    "\"present\":true,\"wscale\":7,\"mss\":1460,\"sack\":true,\"ts\":true},\"scal"
	    "e_quoted\":null,\"scale_effective\":14,\"scale_effective_min\":14,\"flight_b"
	    "ytes\":16384,\"verdict\":\"ok\",\"reason\":\"the SYN-ACK carries window scal"
	    "e and the server applied 14\",\"hop\":null,\"side_findings\":[]}],\"hops\":n"
	    "ull,\"capture_drops\":0,\"send_failures\":0,\"capture_error\":null}",
	/* closed6 */
	    "{\"target\":\"[fd00:5ca1:100::3]:9\",\"address\":\"fd00:5ca1:100::3\",\"port"
	    "\":9,\"family\":\"ipv6\",\"vantage\":\"lab\",\"time\":\"2025-12-03T12:00:00."
	    "123Z\",\"control\":{\"reply\":\"rst\",\"syn_ack\":null},\"scales\":[{\"scale"
	    "_sent\":0,\"reply\":\"rst\",\"icmp\":null,\"syn_ack\":{\"present\":false,\"w"
	    "scale\":null,\"mss\":null,\"sack\":null,\"ts\":null},\"scale_quoted\":null,"
	    "\"scale_effective\":null,\"scale_effective_min\":null,\"flight_bytes\":null,"
	    "\"verdict\":\"closed\",\"reason\":\"both SYNs were answered with a reset: th"
	    "e port is closed\",\"hop\":null,\"side_findings\":[]},{\"scale_sent\":7,\"re"
	    "ply\":\"rst\",\"icmp\":null,\"syn_ack\":{\"present\":false,\"wscale\":null,"
	    "\"mss\":null,\"sack\":null,\"ts\":null},\"scale_quoted\":null,\"scale_effect"
	    "ive\":null,\"scale_effective_min\":null,\"flight_bytes\":null,\"verdict\":\""
	    "closed\",\"reason\":\"both SYNs were answered with a reset: the port is clos"
	    "ed\",\"hop\":null,\"side_findings\":[]},{\"scale_sent\":14,\"reply\":\"rst\""
	    ",\"icmp\":null,\"syn_ack\":{\"present\":false,\"wscale\":null,\"mss\":null,"
	    "\"sack\":null,\"ts\":null},\"scale_quoted\":null,\"scale_effective\":null,\""
	    "scale_effective_min\":null,\"flight_bytes\":null,\"verdict\":\"closed\",\"re"
	    "ason\":\"both SYNs were answered with a reset: the port is closed\",\"hop\":"
	    "null,\"side_findings\":[]}],\"hops\":null,\"capture_drops\":0,\"send_failure"
	    "s\":0,\"capture_error\":null}",
	/* capture_failed */
	    "{\"target\":\"198.18.100.4\",\"address\":\"198.18.100.4\",\"port\":80,\"fami"
	    "ly\":\"ipv4\",\"vantage\":\"lab\",\"time\":\"2025-12-03T12:00:00.123Z\",\"co"
	    "ntrol\":{\"reply\":\"none\",\"syn_ack\":null},\"scales\":[{\"scale_sent\":0,"
	    "\"reply\":\"none\",\"icmp\":null,\"syn_ack\":{\"present\":false,\"wscale\":n"
	    "ull,\"mss\":null,\"sack\":null,\"ts\":null},\"scale_quoted\":null,\"scale_ef"
	    "fective\":null,\"scale_effective_min\":null,\"flight_bytes\":null,\"verdict"
	    "\":\"inconclusive\",\"reason\":\"the capture failed while the path was probe"
	    "d (east: The interface disappeared): replies may have been missed\",\"hop\":"
	    "null,\"side_findings\":[]},{\"scale_sent\":7,\"reply\":\"none\",\"icmp\":nul"
	    "l,\"syn_ack\":{\"present\":false,\"wscale\":null,\"mss\":null,\"sack\":null,"
	    "\"ts\":null},\"scale_quoted\":null,\"scale_effective\":null,\"scale_effectiv"
	    "e_min\":null,\"flight_bytes\":null,\"verdict\":\"inconclusive\",\"reason\":"
	    "\"the capture failed while the path was probed (east: The interface disappea"
	    "red): replies may have been missed\",\"hop\":null,\"side_findings\":[]},{\"s"
	    "cale_sent\":14,\"reply\":\"none\",\"icmp\":null,\"syn_ack\":{\"present\":fal"
	    "se,\"wscale\":null,\"mss\":null,\"sack\":null,\"ts\":null},\"scale_quoted\":"
	    "null,\"scale_effective\":null,\"scale_effective_min\":null,\"flight_bytes\":"
	    "null,\"verdict\":\"inconclusive\",\"reason\":\"the capture failed while the "
	    "path was probed (east: The interface disappeared): replies may have been mis"
	    "sed\",\"hop\":null,\"side_findings\":[]}],\"hops\":null,\"capture_drops\":0,"
	    "\"send_failures\":2,\"capture_error\":\"east: The interface disappeared\"}",
	/* proxied */
	    "{\"target\":\"synproxy.lab\",\"address\":\"198.18.103.1\",\"port\":80,\"family\":\"ipv4\","
	    "\"vantage\":\"lab\",\"time\":\"2025-12-03T12:00:00.123Z\",\"control\":{\"reply\":\"syn-ac"
	    "k\",\"syn_ack\":{\"present\":true,\"wscale\":null,\"mss\":1400,\"sack\":true,\"ts\":true}"
	    "},\"scales\":[{\"scale_sent\":0,\"reply\":\"syn-ack\",\"icmp\":null,\"syn_ack\":{\"presen"
	    "t\":true,\"wscale\":5,\"mss\":1400,\"sack\":true,\"ts\":true},\"scale_quoted\":null,\"sc"
	    "ale_effective\":0,\"scale_effective_min\":0,\"flight_bytes\":8192,\"verdict\":\"ok\","
	    "\"reason\":\"the SYN-ACK carries window scale and the server applied 0\",\"hop\":n"
	    "ull,\"side_findings\":[{\"kind\":\"syn-proxy\",\"detail\":\"syn-ack window 0, ttl 59,"
	    " data ttl 58\",\"hop_index\":6,\"hop_address\":null}]},{\"scale_sent\":7,\"reply\":\"s"
	    "yn-ack\",\"icmp\":null,\"syn_ack\":{\"present\":true,\"wscale\":5,\"mss\":1400,\"sack\":t"
	    "rue,\"ts\":true},\"scale_quoted\":null,\"scale_effective\":7,\"scale_effective_min\""
	    ":7,\"flight_bytes\":8192,\"verdict\":\"ok\",\"reason\":\"the SYN-ACK carries window s"
	    "cale and the server applied 7\",\"hop\":null,\"side_findings\":[{\"kind\":\"syn-prox"
	    "y\",\"detail\":\"syn-ack window 0, ttl 59, data ttl 58\",\"hop_index\":6,\"hop_addre"
	    "ss\":null}]},{\"scale_sent\":14,\"reply\":\"syn-ack\",\"icmp\":null,\"syn_ack\":{\"prese"
	    "nt\":true,\"wscale\":5,\"mss\":1400,\"sack\":true,\"ts\":true},\"scale_quoted\":null,\"s"
	    "cale_effective\":14,\"scale_effective_min\":14,\"flight_bytes\":16384,\"verdict\":\""
	    "ok\",\"reason\":\"the SYN-ACK carries window scale and the server applied 14\",\"h"
	    "op\":null,\"side_findings\":[{\"kind\":\"syn-proxy\",\"detail\":\"syn-ack window 0, tt"
	    "l 59, data ttl 58\",\"hop_index\":6,\"hop_address\":null}]}],\"hops\":null,\"capture"
	    "_drops\":0,\"send_failures\":0,\"capture_error\":null}",
};

static const char *const want_text[] = {
	/* clean */
	    "198.18.100.1:80 (clean.lab)\n"
	    "  scale   reply        wscale mss   sack ts   quoted  applied verdict\n"
	    "  control syn-ack      -      1460  yes  yes\n"
	    "  0       syn-ack      7      1460  yes  yes  -       0       ok\n"
	    "  7       syn-ack      7      1460  yes  yes  -       7       ok\n"
	    "  14      syn-ack      7      1460  yes  yes  -       14      ok\n",
	/* closed6 */
	    "[fd00:5ca1:100::3]:9\n"
	    "  scale   reply        wscale mss   sack ts   quoted  applied verdict\n"
	    "  control rst                               \n"
	    "  0       rst                                 -       -       closed\n"
	    "  7       rst                                 -       -       closed\n"
	    "  14      rst                                 -       -       closed\n"
	    "  closed: both SYNs were answered with a reset: the port is closed\n",
	/* capture_failed */
	    "198.18.100.4:80  2 packets could not be sent  capture failed (east: The inte"
	    "rface disappeared)\n"
	    "  scale   reply        wscale mss   sack ts   quoted  applied verdict\n"
	    "  control none                              \n"
	    "  0       none                                -       -       inconclusive\n"
	    "  7       none                                -       -       inconclusive\n"
	    "  14      none                                -       -       inconclusive\n"
	    "  inconclusive: the capture failed while the path was probed (east: The inte"
	    "rface disappeared): replies may have been missed\n",
	/* proxied */
	    "198.18.103.1:80 (synproxy.lab)\n"
	    "  scale   reply        wscale mss   sack ts   quoted  applied verdict\n"
	    "  control syn-ack      -      1400  yes  yes\n"
	    "  0       syn-ack      5      1400  yes  yes  -       0       ok\n"
	    "  7       syn-ack      5      1400  yes  yes  -       7       ok\n"
	    "  14      syn-ack      5      1400  yes  yes  -       14      ok\n"
	    "  syn-proxy: a SYN proxy at hop 6 answered the handshake (syn-ack window 0, "
	    "ttl 59, data ttl 58): the SYN-ACK options are its own, not the server's\n",
};

static void
test_json(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct path_result r;

		cases[i](&r);
		check("json", as_json(&r), want_json[i]);
	}
}

static void
test_text(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct path_result r;

		cases[i](&r);
		check("text", as_text(&r), want_text[i]);
	}
}

/* Every path is one line of NDJSON: no newline inside, however strange
 * the target a user gave (escaped, not cut). */
static void
test_json_one_line(void **state)
{
	struct path_result r;
	char *s;

	(void)state;
	clean(&r);
	r.target = "odd\n\"name\"\t\x01";
	s = as_json(&r);
	assert_null(strchr(s, '\n'));
	assert_non_null(strstr(s, "\"target\":\"odd\\n\\\"name\\\"\\t\\u0001\""));
	free(s);
}

/* The text for people carries no control character of a target's name, a
 * capture's error or a reason: each printed escaped (textsafe.h). */
static void
test_text_escaped(void **state)
{
	struct path_result r;
	char *s;

	(void)state;
	capture_failed(&r);
	r.target = "odd\x1b[2J\x07name";
	snprintf(r.capture_error, sizeof(r.capture_error), "e\x1b]0;owned\x07\xc2\x9b" "31m\r");
	snprintf(r.verdicts[0].reason, sizeof(r.verdicts[0].reason), "seen\nFORGED\x1b[1m");
	s = as_text(&r);
	for (const char *p = s; *p != '\0'; p++)
		if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f ||
		    ((unsigned char)*p == 0xc2 && (unsigned char)p[1] >= 0x80 &&
		    (unsigned char)p[1] <= 0x9f))
			fail_msg("control byte 0x%02x at %zu in: %s", (unsigned char)*p,
			    (size_t)(p - s), s);
	assert_non_null(strstr(s, " (odd\\x1b[2J\\x07name)"));
	assert_non_null(strstr(s, "capture failed (e\\x1b]0;owned\\x07\\u009b31m\\x0d)"));
	assert_non_null(strstr(s, ": seen\\nFORGED\\x1b[1m\n"));
	free(s);
}

/* Three flows, scale 7 rewritten at 198.18.31.2 (hop 3) on two of them:
 * the text counts each flow's answer per scale and names the branch, the
 * JSON has it as an object. */
static void
test_flows(void **state)
{
	struct path_result *r = calloc(1, sizeof(*r));
	struct flow_answer fa[3];
	struct flow_branch b[RESULT_MAX_SCALES];
	char *got;

	(void)state;
	assert_non_null(r);
	clean(r);
	memset(fa, 0, sizeof(fa));
	memset(b, 0, sizeof(b));
	for (int f = 0; f < 3; f++) {
		fa[f].sport = (uint16_t)(40000 + f);
		for (int i = 0; i < 3; i++) {
			fa[f].verdict[i] = VERDICT_OK;
			fa[f].hop_index[i] = -1;
		}
	}
	for (int f = 1; f < 3; f++) {
		fa[f].verdict[1] = VERDICT_REWRITTEN;
		fa[f].hop_index[1] = 3;
		fa[f].hop_address[1] = A("198.18.31.2");
	}
	b[1].hop_index = 3;
	b[1].nproblem = 1;
	b[1].problem[0] = A("198.18.31.2");
	b[1].nclean = 2;
	b[1].clean[0] = A("198.18.32.2");
	b[1].clean[1] = A("198.18.33.2");
	r->verdicts[1].verdict = VERDICT_REWRITTEN;
	r->flows = 3;
	r->flows_affected[1] = 2;
	r->flow_answers = fa;
	r->flow_branch = b;
	got = as_text(r);
	if (strstr(got, "  scale 0 flows: ok x3\n") == NULL ||
	    strstr(got, "  scale 7 flows: ok x1, rewritten at hop 3 (198.18.31.2) x2\n"
	    "    branch at hop 3: via 198.18.31.2 rewritten; via 198.18.32.2, 198.18.33.2 not\n")
	    == NULL)
		fail_msg("text: %s", got);
	free(got);
	got = as_json(r);
	if (strstr(got, "\"flows_affected\":2,\"branch\":{\"hop_index\":3,"
	    "\"problem\":[\"198.18.31.2\"],\"clean\":[\"198.18.32.2\",\"198.18.33.2\"]}") == NULL ||
	    strstr(got, "\"flows_affected\":0,\"hop\"") == NULL)
		fail_msg("json: %s", got);
	free(got);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json_one_line),
		cmocka_unit_test(test_text_escaped),
		cmocka_unit_test(test_flows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
