/*
 * send_ring.c -- the single-producer single-consumer ring of send_ring.h.
 * Indexes run free (uint32_t, wrapping) and are masked on use, so a full
 * ring (filled - head == size) and an empty one (tail == head) differ.
 * tail is stored with release after the slots are written and loaded with
 * acquire before they are read; head the same way the other way round,
 * so a slot is never reused while the consumer still reads it.
 */
#include <stdlib.h>

#include "send_ring.h"

int
send_ring_init(struct send_ring *r, uint32_t n)
{
	r->slots = NULL;
	if (n < SEND_RING_MIN || n > SEND_RING_MAX || (n & (n - 1)) != 0)
		return -1;
	if ((r->slots = calloc(n, sizeof(*r->slots))) == NULL)
		return -1;
	r->mask = n - 1;
	r->filled = 0;
	atomic_init(&r->tail, 0);
	atomic_init(&r->head, 0);
	return 0;
}

void
send_ring_free(struct send_ring *r)
{
	free(r->slots);
	r->slots = NULL;
}

uint32_t
send_ring_size(const struct send_ring *r)
{
	return r->mask + 1;
}

struct send_slot *
send_ring_slot(struct send_ring *r)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	if (r->filled - head > r->mask)
		return NULL;		/* every slot filled, not all consumed */
	return &r->slots[r->filled & r->mask];
}

void
send_ring_push(struct send_ring *r)
{
	r->filled++;
}

uint32_t
send_ring_publish(struct send_ring *r)
{
	uint32_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	atomic_store_explicit(&r->tail, r->filled, memory_order_release);
	return r->filled - tail;
}

bool
send_ring_empty(const struct send_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) == r->filled;
}

uint32_t
send_ring_room(const struct send_ring *r)
{
	return r->mask + 1 - (r->filled - atomic_load_explicit(&r->head, memory_order_acquire));
}

uint32_t
send_ring_unpublished(const struct send_ring *r)
{
	return r->filled - atomic_load_explicit(&r->tail, memory_order_relaxed);
}

uint32_t
send_ring_ready(const struct send_ring *r)
{
	return atomic_load_explicit(&r->tail, memory_order_acquire) -
	    atomic_load_explicit(&r->head, memory_order_relaxed);
}

struct send_slot *
send_ring_peek(struct send_ring *r, uint32_t i)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);

	return &r->slots[(head + i) & r->mask];
}

void
send_ring_pop(struct send_ring *r, uint32_t n)
{
	uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);

	atomic_store_explicit(&r->head, head + n, memory_order_release);
}
