/*
 * test_send_ring.c -- the ring between the loop and the sending thread:
 * sizes refused, a table of push / publish / pop steps with what each
 * side sees after each (nothing unpublished is visible, a full ring gives
 * no slot, order kept across the wrap of the slots and of the free-running
 * indexes), and one producer and one consumer thread passing a million
 * packets in order (built with clang -fsanitize=thread it is the race
 * check of the ring; the report of its branch has the command).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "send_ring.h"

static void
test_init(void **state)
{
	static const struct { uint32_t n; int want; } cases[] = {
		{ 0, -1 }, { 1, -1 }, { 2, 0 }, { 3, -1 }, { 6, -1 }, { 8, 0 },
		{ 4096, 0 }, { 4097, -1 }, { SEND_RING_MAX, 0 },
		{ SEND_RING_MAX * 2, -1 }, { UINT32_MAX, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct send_ring r;
		int rc = send_ring_init(&r, cases[i].n);

		if (rc != cases[i].want)
			fail_msg("size %u: %d, want %d", cases[i].n, rc, cases[i].want);
		if (rc == 0) {
			assert_int_equal(send_ring_size(&r), cases[i].n);
			assert_int_equal(send_ring_room(&r), cases[i].n);
			assert_true(send_ring_empty(&r));
			assert_int_equal(send_ring_ready(&r), 0);
		}
		send_ring_free(&r);
	}
}

/* One step of the table: the producer pushes push packets (numbered on
 * from the last), publishes or not, the consumer pops pop of the oldest
 * (checking their numbers); then what each side sees. */
struct step {
	uint32_t push;
	int publish;
	uint32_t pop;
	uint32_t ready, room, unpublished;
	int empty, slot;		/* send_ring_empty, slot != NULL */
};

static void
run_steps(uint32_t size, uint32_t start, const struct step *st, size_t n)
{
	struct send_ring r;
	uint32_t next = 0, want = 0;

	assert_int_equal(send_ring_init(&r, size), 0);
	/* the free-running indexes start where asked: near the wrap of
	 * uint32_t, where a full and an empty ring must still differ */
	r.filled = start;
	atomic_store(&r.tail, start);
	atomic_store(&r.head, start);
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < st[i].push; k++) {
			struct send_slot *sl = send_ring_slot(&r);

			if (sl == NULL)
				fail_msg("step %zu: no slot for push %u", i, k);
			memset(sl, 0, sizeof(*sl));
			memcpy(sl->pkt, &next, sizeof(next));
			sl->len = (uint16_t)(next % 80);
			next++;
			send_ring_push(&r);
		}
		if (st[i].publish)
			(void)send_ring_publish(&r);
		for (uint32_t k = 0; k < st[i].pop; k++) {
			uint32_t got;

			memcpy(&got, send_ring_peek(&r, k)->pkt, sizeof(got));
			if (got != want + k)
				fail_msg("step %zu: slot %u holds %u, want %u", i, k, got, want + k);
		}
		send_ring_pop(&r, st[i].pop);
		want += st[i].pop;
		if (send_ring_ready(&r) != st[i].ready || send_ring_room(&r) != st[i].room ||
		    send_ring_unpublished(&r) != st[i].unpublished ||
		    send_ring_empty(&r) != (st[i].empty != 0) ||
		    (send_ring_slot(&r) != NULL) != (st[i].slot != 0))
			fail_msg("step %zu: ready %u room %u unpublished %u empty %d slot %d; "
			    "want %u %u %u %d %d", i, send_ring_ready(&r), send_ring_room(&r),
			    send_ring_unpublished(&r), send_ring_empty(&r),
			    send_ring_slot(&r) != NULL, st[i].ready, st[i].room,
			    st[i].unpublished, st[i].empty, st[i].slot);
	}
	send_ring_free(&r);
}

static const struct step steps[] = {
	/* push  pub pop   ready room unpub empty slot */
	{ 3,     0,  0,    0,    5,   3,    0,    1 },	/* unpublished: unseen */
	{ 0,     1,  0,    3,    5,   0,    0,    1 },	/* published: all three */
	{ 0,     0,  2,    1,    7,   0,    0,    1 },
	{ 5,     0,  0,    1,    2,   5,    0,    1 },
	{ 2,     1,  0,    8,    0,   0,    0,    0 },	/* full: no slot */
	{ 0,     0,  1,    7,    1,   0,    0,    1 },	/* one freed: one slot */
	{ 1,     1,  8,    0,    8,   0,    1,    1 },	/* across the slots' wrap */
	{ 8,     1,  8,    0,    8,   0,    1,    1 },	/* a whole ring at once */
	{ 8,     1,  0,    8,    0,   0,    0,    0 },
	{ 0,     1,  8,    0,    8,   0,    1,    1 },	/* publish of nothing */
};

static void
test_steps(void **state)
{
	(void)state;
	run_steps(8, 0, steps, sizeof(steps) / sizeof(steps[0]));
	/* the same where the uint32_t indexes wrap during the steps */
	run_steps(8, UINT32_MAX - 5, steps, sizeof(steps) / sizeof(steps[0]));
}

/* A ring of the smallest size: one in, one out, over and over. */
static void
test_smallest(void **state)
{
	struct step st[64];

	(void)state;
	for (size_t i = 0; i < 64; i++)
		st[i] = (struct step){ i % 2 ? 0 : 2, 1, i % 2 ? 2 : 0,
		    i % 2 ? 0 : 2, i % 2 ? 2 : 0, 0, i % 2, i % 2 };
	run_steps(2, 0, st, 64);
}

#define THREAD_PACKETS 1000000u

struct pair {
	struct send_ring r;
	uint32_t bad;			/* the first number out of order + 1 */
	uint32_t got;
};

/* The consumer: pops in runs of up to 64 as the sending thread does. */
static void *
consumer(void *arg)
{
	struct pair *p = arg;

	while (p->got < THREAD_PACKETS) {
		uint32_t n = send_ring_ready(&p->r), v;

		if (n == 0) {
			sched_yield();
			continue;
		}
		if (n > 64)
			n = 64;
		for (uint32_t k = 0; k < n; k++) {
			const struct send_slot *sl = send_ring_peek(&p->r, k);

			memcpy(&v, sl->pkt, sizeof(v));
			if (p->bad == 0 && (v != p->got + k || sl->len != v % 61))
				p->bad = p->got + k + 1;
		}
		p->got += n;
		send_ring_pop(&p->r, n);
	}
	return NULL;
}

static void
test_threads(void **state)
{
	struct pair p;
	pthread_t t;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(send_ring_init(&p.r, 256), 0);
	assert_int_equal(pthread_create(&t, NULL, consumer, &p), 0);
	for (uint32_t i = 0; i < THREAD_PACKETS; i++) {
		struct send_slot *sl;

		while ((sl = send_ring_slot(&p.r)) == NULL) {
			(void)send_ring_publish(&p.r);
			sched_yield();
		}
		memcpy(sl->pkt, &i, sizeof(i));
		sl->len = (uint16_t)(i % 61);
		send_ring_push(&p.r);
		if (send_ring_unpublished(&p.r) >= 48)
			(void)send_ring_publish(&p.r);
	}
	(void)send_ring_publish(&p.r);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (p.bad != 0)
		fail_msg("packet %u came out of order or torn", p.bad - 1);
	assert_int_equal(p.got, THREAD_PACKETS);
	assert_true(send_ring_empty(&p.r));
	send_ring_free(&p.r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_smallest),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
