/*
 * send_ring.h -- the bounded queue between the loop, which builds packets,
 * and the sending thread, which hands them to the kernel (send.c): one
 * producer, one consumer, a power-of-two number of fixed slots, no lock.
 * The producer fills slots and makes them visible in one store
 * (send_ring_publish), so the consumer never sees half a batch; the
 * consumer frees slots in one store (send_ring_pop).  Pure: the waiting
 * on an empty or full ring is the caller's.
 */
#ifndef SCALEPROBE_SEND_RING_H
#define SCALEPROBE_SEND_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SEND_RING_PKT		80	/* the longest packet of a slot: an
					   IPv6 SYN with options (send_int.h) */
#define SEND_RING_MIN		2
#define SEND_RING_MAX		65536

/* One packet: whole, IP header first. */
struct send_slot {
	uint8_t pkt[SEND_RING_PKT];
	uint16_t len;
	uint8_t family;			/* ADDR_V4 or ADDR_V6 */
	uint8_t is_seg;			/* a segment (RST, ACK), not a SYN */
};

struct send_ring {
	struct send_slot *slots;
	uint32_t mask;			/* slots - 1 */
	uint32_t filled;		/* producer's: slots filled, published
					   or not (free-running) */
	_Atomic uint32_t tail;		/* published: the consumer may read
					   slots below it */
	_Atomic uint32_t head;		/* consumed: the producer may reuse
					   slots below it + size */
};

/* A ring of n slots (n a power of two, SEND_RING_MIN..SEND_RING_MAX):
 * 0, or -1 (bad n, or no memory). */
int send_ring_init(struct send_ring *r, uint32_t n);
void send_ring_free(struct send_ring *r);
uint32_t send_ring_size(const struct send_ring *r);

/* Producer: the next free slot, NULL when every slot is filled or held
 * by the consumer; send_ring_push() after filling it. */
struct send_slot *send_ring_slot(struct send_ring *r);
void send_ring_push(struct send_ring *r);
/* Producer: the slots pushed so far become the consumer's; the number
 * pushed and not yet published before the call. */
uint32_t send_ring_publish(struct send_ring *r);
/* Producer: every published slot consumed (nothing unpublished either). */
bool send_ring_empty(const struct send_ring *r);
/* Producer: slots free for send_ring_slot (0 when full). */
uint32_t send_ring_room(const struct send_ring *r);
/* Producer: slots pushed and not yet published. */
uint32_t send_ring_unpublished(const struct send_ring *r);

/* Consumer: slots published and not consumed; slot i of them (0 the
 * oldest, i < send_ring_ready()); frees the n oldest. */
uint32_t send_ring_ready(const struct send_ring *r);
struct send_slot *send_ring_peek(struct send_ring *r, uint32_t i);
void send_ring_pop(struct send_ring *r, uint32_t n);

#endif
