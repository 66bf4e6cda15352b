/*
 * test_portplan.c -- the port plan (portplan.h): the blocks and the room a
 * plan costs, F = 1 with 32 slots is the old layout port for port, every
 * (flow, variant, connection) has its own port and decodes back, and any
 * port outside the plan is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "portplan.h"

/* ports, blocks and processes above Linux's default range (32768-60999:
 * blocks 954..1023, 70 of them) for plans worth knowing */
static void
test_blocks_and_room(void **state)
{
	static const struct {
		int flows, variants;
		unsigned blocks, room;
	} t[] = {
		{ 1, 32, 1, 70 },	/* before flows: the guard's one block */
		{ 1, 4, 1, 70 },	/* control + 0, 7, 14 */
		{ 6, 4, 1, 70 },	/* MDA 95 %, 2 next hops: 48 ports */
		{ 8, 4, 1, 70 },	/* 64 ports exactly */
		{ 11, 4, 2, 35 },	/* MDA 95 %, 3 next hops: 88 ports */
		{ 16, 4, 2, 35 },	/* 4 next hops: 128 ports */
		{ 11, 32, 11, 6 },	/* every slot for 11 flows: 704 ports */
		{ 16, 32, 16, 4 },
		{ 64, 32, 64, 1 },	/* the largest plan: 4,096 ports */
		{ 0, 4, 0, 0 }, { 65, 4, 0, 0 }, { 1, 0, 0, 0 }, { 1, 33, 0, 0 },
		{ -1, 4, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(portplan_blocks(t[i].flows, t[i].variants), t[i].blocks);
		assert_int_equal(portplan_room(60999, t[i].flows, t[i].variants), t[i].room);
	}
	/* a range ending on a block edge, one past it, none left */
	assert_int_equal(portplan_room(65471, 1, 4), 1);
	assert_int_equal(portplan_room(65472, 1, 4), 0);
	assert_int_equal(portplan_room(65535, 1, 4), 0);
	assert_int_equal(portplan_room(1023, 64, 32), 15);
	assert_int_equal(portplan_room(0, 1, 1), 1023);
}

static void
test_init_refuses(void **state)
{
	static const struct {
		unsigned lo;
		int flows, variants;
		const char *why;
	} t[] = {
		{ 61056, 0, 4, "flows 1..64" },
		{ 61056, 65, 4, "flows 1..64" },
		{ 61056, 1, 0, "variants 1..32" },
		{ 61056, 1, 33, "variants 1..32" },
		{ 61057, 1, 4, "not on a block" },
		{ 65472, 11, 4, "past port 65535" },	/* 2 blocks from the last one */
		{ 61504, 64, 32, "past port 65535" },	/* 4,096 ports: 61440 at the latest */
	};
	struct portplan pp;
	char err[160];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		err[0] = '\0';
		assert_int_equal(portplan_init(&pp, (uint16_t)t[i].lo, t[i].flows,
		    t[i].variants, err, sizeof(err)), -1);
		assert_non_null(strstr(err, t[i].why));
		assert_null(strchr(err, '\n'));
	}
	assert_int_equal(portplan_init(&pp, 65472, 8, 4, err, sizeof(err)), 0);
	assert_int_equal(portplan_init(&pp, 61440, 64, 32, err, sizeof(err)), 0);
	assert_int_equal(pp.lo, 61440);
	assert_int_equal(pp.flows, 64);
	assert_int_equal(pp.variants, 32);
}

/* F = 1, V = 32: variant v at lo + v, its second connection at lo + 32 + v,
 * as engine_match.c and the guard's filter read ports before flows */
static void
test_one_flow_is_the_old_layout(void **state)
{
	struct portplan pp;
	char err[160];
	int f, v;
	enum portplan_conn c;

	(void)state;
	assert_int_equal(portplan_init(&pp, 61056, 1, 32, err, sizeof(err)), 0);
	for (int i = 0; i < 32; i++) {
		assert_int_equal(portplan_port(&pp, 0, i, PORTPLAN_FIRST), 61056 + i);
		assert_int_equal(portplan_port(&pp, 0, i, PORTPLAN_SECOND), 61056 + 32 + i);
	}
	for (unsigned p = 61056; p < 61056 + 64; p++) {
		assert_true(portplan_decode(&pp, (uint16_t)p, &f, &v, &c));
		assert_int_equal(f, 0);
		assert_int_equal(v, (int)(p - 61056) % 32);
		assert_int_equal(c, p - 61056 >= 32 ? PORTPLAN_SECOND : PORTPLAN_FIRST);
	}
}

/* every probe of a plan has its own port inside the claimed blocks, and
 * decodes back to itself; every other port is refused */
static void
test_round_trip(void **state)
{
	static const int plans[][2] = {
		{ 1, 1 }, { 1, 4 }, { 6, 4 }, { 11, 4 }, { 16, 4 }, { 11, 32 },
		{ 64, 32 }, { 7, 3 },
	};
	static uint8_t seen[65536];
	struct portplan pp;
	char err[160];
	int f, v;
	enum portplan_conn c;

	(void)state;
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		int F = plans[i][0], V = plans[i][1];
		uint16_t lo = F * V * 2 > 2048 ? 61440 : 61056;
		unsigned used = 0, end = lo + portplan_blocks(F, V) * PORTPLAN_BLOCK;

		assert_int_equal(portplan_init(&pp, lo, F, V, err, sizeof(err)), 0);
		memset(seen, 0, sizeof(seen));
		for (int ff = 0; ff < F; ff++)
			for (int vv = 0; vv < V; vv++)
				for (int cc = 0; cc < 2; cc++) {
					uint16_t p = portplan_port(&pp, ff, vv, (enum portplan_conn)cc);

					assert_true(p >= lo && p < end);
					assert_int_equal(seen[p], 0);
					seen[p] = 1;
					used++;
					assert_true(portplan_decode(&pp, p, &f, &v, &c));
					assert_int_equal(f, ff);
					assert_int_equal(v, vv);
					assert_int_equal(c, cc);
				}
		assert_int_equal(used, 2u * (unsigned)F * (unsigned)V);
		/* hostile ports: every port not handed out is refused */
		for (unsigned p = 0; p < 65536; p++)
			if (!seen[p])
				assert_false(portplan_decode(&pp, (uint16_t)p, &f, &v, &c));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks_and_room),
		cmocka_unit_test(test_init_refuses),
		cmocka_unit_test(test_one_flow_is_the_old_layout),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
