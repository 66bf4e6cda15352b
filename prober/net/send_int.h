/*
 * send_int.h -- what send.c (the templates, the sockets, the SYNs),
 * send_thread.c (the sending thread) and send_segment.c (every other
 * segment) share and nothing else sees: the layout of the packets built,
 * the sender's state, and the ring that carries every packet to the
 * sending thread.  Its includer defines _GNU_SOURCE first (struct
 * mmsghdr).
 */
#ifndef SCALEPROBE_SEND_INT_H
#define SCALEPROBE_SEND_INT_H

#include <sys/socket.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "send.h"
#include "send_ring.h"

#define SEND_OPT_LEN		20	/* MSS 4, SACK-perm 2, TS 10, NOP, WS 3 */
#define SEND_TCP_LEN		(20 + SEND_OPT_LEN)
#define SEND_IP4_LEN		20
#define SEND_IP6_LEN		40
#define SEND_SYN4_LEN		(SEND_IP4_LEN + SEND_TCP_LEN)	/* 60 */
#define SEND_SYN6_LEN		(SEND_IP6_LEN + SEND_TCP_LEN)	/* 80 */
#define SEND_SLOT		SEND_SYN6_LEN
_Static_assert(SEND_SLOT == SEND_RING_PKT, "a ring slot holds an IPv6 SYN");
#define SEND_SEGMENT_MAX	1500	/* whole packet of sender_segment */
#define SEND_DEFAULT_MSS	1460
#define SEND_DEFAULT_WINDOW	64240
#define SEND_DEFAULT_BATCH	64
#define SEND_MAX_BATCH		1024
#define SEND_TEMPLATE_TTL	64	/* replaced per probe */
#define SEND_SNDBUF		(4 * 1024 * 1024)

/* Offsets in the TCP header and its option area (send.h's layout). */
#define TCP_PORTS		0
#define TCP_SEQ			4
#define TCP_ACK			8
#define TCP_OFF			12
#define TCP_FLAGS		13
#define TCP_WIN			14
#define TCP_CSUM		16
#define TCP_TSVAL		28	/* 20 + MSS 4 + SACK-perm 2 + kind, len */

#define IP4_TOTLEN		2
#define IP4_TTL			8
#define IP4_CSUM		10
#define IP4_SRC			12
#define IP4_DST			16
#define IP6_PLEN		4
#define IP6_HLIM		7
#define IP6_SRC			8
#define IP6_DST			24

#define SEND_RING_SLOTS		256	/* packets between the loop and the
					   sending thread: 21 KiB; deeper
					   measured slower (cache, and the
					   lag counts in every timeout) */
#define SEND_THREAD_STACK	(256 * 1024)
#define SEND_LEFT_LOG		4096	/* packets whose leaving time is kept,
					   per family (sender_left_at): 32 KiB,
					   a window test's SYN-ACK is read
					   long before 4,096 more leave */
_Static_assert((SEND_LEFT_LOG & (SEND_LEFT_LOG - 1)) == 0 &&
    SEND_LEFT_LOG >= 2 * SEND_RING_SLOTS, "the log is a power of two past the ring");

/* The sending thread's sendmmsg arguments: one batch, one family, its
 * packets read in place from the ring's slots. */
struct send_out {
	struct mmsghdr		*msgs;
	struct iovec		*iov;
	struct sockaddr_storage	*to;
};

/*
 * The loop (the producer) builds every packet into a slot of ring and
 * publishes a batch at a time; the sending thread (the consumer) hands
 * them to the kernel.  The thread sleeps on wake when the ring is empty,
 * the loop on room when it is full (or while it waits for the ring to
 * empty: a segment too long for a slot, new templates, close); the
 * flags say who sleeps, so neither takes the lock on the fast path.
 * Started at the first packet, not at open: a daemon drops its
 * privileges between the two, and a thread keeps the capabilities it
 * was created with.  When it cannot start, the loop sends the ring
 * itself at each publish (threaded false).
 */
struct sender {
	struct send_config	 cfg;
	uint8_t			 tmpl4[SEND_MAX_VARIANTS][SEND_SYN4_LEN];
	uint8_t			 tmpl6[SEND_MAX_VARIANTS][SEND_SYN6_LEN];
	int			 fd4, fd6;	/* -1: family not opened */
	struct send_ring	 ring[2];	/* IPv4's, IPv6's (slots NULL when
					   the family is not opened): order
					   matters within a family only */
	uint64_t		 pushed;	/* packets handed over (loop's) */
	uint64_t		 pushed_told;	/* ... at the last flush */
	struct send_out		 out;		/* the consumer's */
	bool			 started;	/* the thread was tried */
	bool			 threaded;	/* ... and runs */
	pthread_t		 thread;
	pthread_mutex_t		 mu;
	pthread_cond_t		 wake, room;
	atomic_bool		 sleeping;	/* the thread waits on wake */
	atomic_bool		 waiting;	/* the loop waits on room */
	atomic_bool		 stop;		/* close: send what is left, end */
	_Atomic uint64_t	 syns, segments, errors, batches;
	atomic_int		 lasterr;	/* the last send error's errno */
	_Atomic uint32_t	 limit;		/* packets a ring may hold
					   (sender_set_limit) */
	uint64_t		 errors_told;	/* errors at the last flush (loop's) */
	/* When each packet left: the thread's clock just before the
	 * sendmmsg that took it, by its ring index (masked), and how far
	 * the stamps go (the ring's index of the first not stamped).  The
	 * loop reads a stamp only while its slot cannot have been reused:
	 * the loop itself fills the packets that would. */
	_Atomic uint64_t	 left[2][SEND_LEFT_LOG];
	_Atomic uint32_t	 stamped[2];
	uint64_t		 last_id;	/* sender_last_id (loop's) */
};

/* Loop side: a free slot for a packet of family (waits for one while its
 * ring is full), to be filled then pushed with send_push. */
struct send_slot *send_slot_get(struct sender *s, int family);
void send_push(struct sender *s, int family);
/* Loop side: publishes what is pushed and makes it leave; with wait, does
 * not return before every packet has been handed to the kernel. */
void send_kick(struct sender *s, bool wait);
/* Sends what is left and ends the thread (sender_close). */
void send_thread_stop(struct sender *s);
/* The fd of family (ADDR_V4 / ADDR_V6); -1 when not opened. */
int send_fd(const struct sender *s, int family);
static inline struct send_ring *
send_ring_of(struct sender *s, int family)
{
	return &s->ring[family == ADDR_V6];
}

/* The sockaddr of dst for sendto / sendmmsg; its length. */
socklen_t send_sockaddr(const struct addr *dst, struct sockaddr_storage *ss);

#endif
