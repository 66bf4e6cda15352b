/*
 * test_evidence.c -- the evidence a result carries (prober/lib/evidence.c):
 * kept within its bounds (first answer wins, the byte bound marks it
 * truncated), packed and unpacked unchanged, and every malformed stored
 * form refused with its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "evidence.h"

static void
test_bounds(void **state)
{
	struct path_evidence *ev = NULL;
	uint8_t pkt[EVIDENCE_MAX_PACKET + 100];
	int kept = 0;

	(void)state;
	memset(pkt, 0xab, sizeof(pkt));
	assert_int_equal(evidence_add(&ev, 0, 3, EVIDENCE_QUOTE, "ttl=3", pkt, 68), 0);
	/* the first answer is the one judged: a second is not kept */
	assert_int_equal(evidence_add(&ev, 0, 3, EVIDENCE_QUOTE, "ttl=3", pkt, 90), 1);
	assert_int_equal(evidence_find(ev, 0, 3, EVIDENCE_QUOTE)->len, 68);
	assert_null(evidence_find(ev, 0, 3, EVIDENCE_REPLY));
	/* one packet at most EVIDENCE_MAX_PACKET bytes */
	assert_int_equal(evidence_add(&ev, 1, 0, EVIDENCE_REPLY, NULL, pkt, sizeof(pkt)), 0);
	assert_int_equal(evidence_find(ev, 1, 0, EVIDENCE_REPLY)->len, EVIDENCE_MAX_PACKET);
	/* the byte bound: what does not fit is left out, and said so */
	for (int t = 1; t <= 30; t++)
		if (evidence_add(&ev, 2, t, EVIDENCE_QUOTE, NULL, pkt, 1400) == 0)
			kept++;
	assert_true(ev->truncated);
	assert_true(ev->used <= EVIDENCE_MAX_BYTES);
	assert_int_equal(kept, (EVIDENCE_MAX_BYTES - 68 - EVIDENCE_MAX_PACKET) / 1400);
	evidence_free(&ev);
	assert_null(ev);
}

static void
test_roundtrip(void **state)
{
	struct path_evidence *ev = NULL, *back = NULL;
	static uint8_t buf[EVIDENCE_PACKED_MAX];
	const char *why = NULL;
	uint8_t pkt[200];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	evidence_add(&ev, -1, 0, EVIDENCE_SYN, "attempts=2", pkt, 60);
	evidence_add(&ev, 2, 7, EVIDENCE_QUOTE, "ttl=7 isn=0badcafe", pkt + 10, 120);
	evidence_add(&ev, 0, 0, EVIDENCE_REPLY, "", pkt, 0);
	n = evidence_pack(ev, buf, sizeof(buf));
	assert_int_equal(n, 3 * EVIDENCE_RECORD_HEAD + 10 + 18 + 60 + 120);
	assert_int_equal(evidence_unpack(buf, n, &back, &why), 0);
	assert_int_equal(back->n, ev->n);
	for (int i = 0; i < ev->n; i++) {
		const struct evidence_item *a = &ev->item[i], *b = &back->item[i];

		assert_int_equal(a->variant, b->variant);
		assert_int_equal(a->ttl, b->ttl);
		assert_int_equal(a->kind, b->kind);
		assert_string_equal(a->fields, b->fields);
		assert_int_equal(a->len, b->len);
		assert_memory_equal(ev->bytes + a->off, back->bytes + b->off, a->len);
	}
	/* a buffer too small takes the items that fit, whole */
	assert_int_equal(evidence_pack(ev, buf, EVIDENCE_RECORD_HEAD + 10 + 60 + 5),
	    EVIDENCE_RECORD_HEAD + 10 + 60);
	evidence_free(&ev);
	evidence_free(&back);
}

static void
test_malformed(void **state)
{
	static const struct {
		const char *name;
		uint8_t b[16];
		size_t len;
		const char *why;
	} cases[] = {
		{ "head cut", { 1, 1, 3, 0, 0 }, 5, "head is cut short" },
		{ "kind 3", { 3, 1, 3, 0, 0, 0 }, 6, "unknown record kind" },
		{ "fields 24", { 1, 1, 3, EVIDENCE_FIELDS, 0, 0 }, 6, "fields are too long" },
		{ "packet past the end", { 1, 1, 3, 0, 0, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 },
		  16, "runs past the end" },
		{ "fields past the end", { 1, 1, 3, 12, 0, 0, 'a', 'b' }, 8, "runs past the end" },
		{ "second head cut", { 2, 0, 0, 0, 0, 1, 0x45, 9 }, 8, "head is cut short" },
		{ "fields with a NUL", { 1, 1, 3, 2, 0, 0, 'a', 0 }, 8, "not printable" },
		{ "a packet twice", { 2, 0, 0, 0, 0, 1, 0x45, 2, 0, 0, 0, 0, 1, 0x45 }, 14,
		  "two records of one packet" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct path_evidence *ev = (struct path_evidence *)1;
		const char *why = NULL;

		if (evidence_unpack(cases[i].b, cases[i].len, &ev, &why) != -1 || ev != NULL ||
		    why == NULL || strstr(why, cases[i].why) == NULL)
			fail_msg("%s: %s", cases[i].name, why ? why : "accepted");
	}
	/* more records than a result holds */
	{
		static uint8_t b[(EVIDENCE_MAX_ITEMS + 1) * EVIDENCE_RECORD_HEAD];
		struct path_evidence *ev = NULL;
		const char *why = NULL;

		for (int i = 0; i <= EVIDENCE_MAX_ITEMS; i++)
			b[i * EVIDENCE_RECORD_HEAD + 2] = (uint8_t)i;	/* distinct ttl */
		for (int i = 0; i <= EVIDENCE_MAX_ITEMS; i++)
			b[i * EVIDENCE_RECORD_HEAD + 1] = (uint8_t)(i >> 8);
		assert_int_equal(evidence_unpack(b, sizeof(b), &ev, &why), -1);
		assert_non_null(strstr(why, "more records"));
	}
	/* a packet longer than any kept */
	{
		static uint8_t b[EVIDENCE_RECORD_HEAD + EVIDENCE_MAX_PACKET + 1] = {
			1, 1, 3, 0, (EVIDENCE_MAX_PACKET + 1) >> 8, (EVIDENCE_MAX_PACKET + 1) & 0xff };
		struct path_evidence *ev = NULL;
		const char *why = NULL;

		assert_int_equal(evidence_unpack(b, sizeof(b), &ev, &why), -1);
		assert_non_null(strstr(why, "longer than any kept"));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
