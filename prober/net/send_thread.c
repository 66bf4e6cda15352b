/*
 * send_thread.c -- the sending thread: it takes the packets the loop
 * publishes on the ring (send_ring.h) and hands them to the kernel, one
 * sendmmsg() per run of up to a batch of one family.  On a veth or
 * loopback path the kernel does the peer's work inside that call (its
 * SYN-ACK, our capture of it), so the loop that builds packets, reads
 * the capture and runs the engine no longer waits for it.  Also the
 * loop's side of the waiting: for room, for an empty ring, and the start
 * and the end of the thread.
 */
#define _GNU_SOURCE		/* sendmmsg, struct mmsghdr */

#include <sys/socket.h>

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "send_int.h"

int
send_fd(const struct sender *s, int family)
{
	return family == ADDR_V4 ? s->fd4 : s->fd6;
}

/* The destination of a slot's packet, read from its IP header. */
static socklen_t
send_slot_to(const struct send_slot *sl, struct sockaddr_storage *ss)
{
	struct addr dst;

	memset(&dst, 0, sizeof(dst));
	dst.family = sl->family;
	if (sl->family == ADDR_V4)
		memcpy(dst.bytes, sl->pkt + IP4_DST, 4);
	else
		memcpy(dst.bytes, sl->pkt + IP6_DST, 16);
	return send_sockaddr(&dst, ss);
}

/* The time the packets of ring's indexes [first, first + n) leave, for
 * sender_left_at: taken before the sendmmsg that hands them over, so
 * never after they left (on a veth the peer answers inside the call). */
static void
send_stamp(struct sender *s, struct send_ring *ring, uint32_t first, uint32_t n)
{
	int fam = ring == &s->ring[1];
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	for (uint32_t i = 0; i < n; i++)
		atomic_store_explicit(&s->left[fam][(first + i) & (SEND_LEFT_LOG - 1)], t,
		    memory_order_relaxed);
	atomic_store_explicit(&s->stamped[fam], first + n, memory_order_release);
}

/*
 * Sends the oldest up to a batch of ring's ready slots (ready > 0) and
 * frees them; a packet the kernel refuses is counted and
 * skipped, the rest still go.  Consumer side (or the loop when there is
 * no thread).
 */
static void
send_out_batch(struct sender *s, struct send_ring *ring, uint32_t ready)
{
	struct send_out *o = &s->out;
	uint32_t n = ready < (uint32_t)s->cfg.batch ? ready : (uint32_t)s->cfg.batch;
	int fam = send_ring_peek(ring, 0)->family, fd = send_fd(s, fam);
	int k = 0, off = 0, segs = 0, sent = 0, r;
	uint32_t first = atomic_load_explicit(&ring->head, memory_order_relaxed);

	while ((uint32_t)k < n) {
		struct send_slot *sl = send_ring_peek(ring, (uint32_t)k);

		o->iov[k].iov_base = sl->pkt;
		o->iov[k].iov_len = sl->len;
		o->msgs[k].msg_hdr.msg_namelen = send_slot_to(sl, &o->to[k]);
		k++;
	}
	send_stamp(s, ring, first, (uint32_t)k);
	while (off < k) {
		r = sendmmsg(fd, o->msgs + off, (unsigned)(k - off), 0);
		if (r > 0) {
			for (int i = off; i < off + r; i++)
				segs += send_ring_peek(ring, (uint32_t)i)->is_seg;
			off += r;
			sent += r;
			atomic_fetch_add_explicit(&s->batches, 1, memory_order_relaxed);
		} else if (r == -1 && errno == EINTR) {
			continue;
		} else {
			/* sendmmsg reports the first failure only: skip it */
			atomic_store_explicit(&s->lasterr, r == -1 ? errno : EIO,
			    memory_order_relaxed);
			atomic_fetch_add_explicit(&s->errors, 1, memory_order_relaxed);
			off++;
		}
	}
	atomic_fetch_add_explicit(&s->syns, (uint64_t)(sent - segs), memory_order_relaxed);
	atomic_fetch_add_explicit(&s->segments, (uint64_t)segs, memory_order_relaxed);
	send_ring_pop(ring, (uint32_t)k);
}

/* Packets on ring not yet handed to the kernel. */
static uint32_t
send_held(const struct send_ring *ring)
{
	return send_ring_size(ring) - send_ring_room(ring);
}

/* The loop may put another packet on ring. */
static bool
send_may_hold(struct sender *s, const struct send_ring *ring)
{
	return send_held(ring) < atomic_load_explicit(&s->limit, memory_order_relaxed);
}

/* What the loop waits for when it may not: a quarter of the limit
 * free, so that the two threads do not take turns a packet at a time.
 * held: send_held() on the loop's side; on the thread's, the slots
 * published and not sent (the loop published all it pushed before it
 * waits, and the thread may not read the loop's count of them). */
static bool
send_roomy(struct sender *s, uint32_t held)
{
	uint32_t lim = atomic_load_explicit(&s->limit, memory_order_relaxed);

	return held + (lim / 4 > 0 ? lim / 4 : 1) <= lim;
}

void
sender_set_limit(struct sender *s, uint32_t limit)
{
	uint32_t size = SEND_RING_SLOTS;

	if (limit == 0 || limit > size)
		limit = size;
	atomic_store_explicit(&s->limit, limit, memory_order_relaxed);
}

/* Consumer: the loop may wait for room or for the rings to empty. */
static void
send_tell_room(struct sender *s)
{
	bool roomy = false;

	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&s->waiting))
		return;
	for (int i = 0; i < 2; i++)
		roomy |= s->ring[i].slots != NULL &&
		    send_roomy(s, send_ring_ready(&s->ring[i]));
	if (roomy) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_signal(&s->room);
		pthread_mutex_unlock(&s->mu);
	}
}

/* One batch of each family that has packets ready; whether any had. */
static bool
send_out_some(struct sender *s)
{
	bool any = false;
	uint32_t ready;

	for (int i = 0; i < 2; i++)
		if (s->ring[i].slots != NULL && (ready = send_ring_ready(&s->ring[i])) > 0) {
			send_out_batch(s, &s->ring[i], ready);
			any = true;
		}
	return any;
}

static bool
send_any_ready(struct sender *s)
{
	for (int i = 0; i < 2; i++)
		if (s->ring[i].slots != NULL && send_ring_ready(&s->ring[i]) > 0)
			return true;
	return false;
}

static void *
send_thread_main(void *arg)
{
	struct sender *s = arg;

	/* its own name in top -H, perf and /proc; named by itself (prctl):
	 * a daemon that changed its uid may no longer write another
	 * thread's comm */
	(void)pthread_setname_np(pthread_self(), "scaleprobe-send");
	for (;;) {
		if (send_out_some(s)) {
			send_tell_room(s);
			continue;
		}
		/* stop is set after the last publish: past it, one more look
		 * at the ring sees everything the loop pushed */
		if (atomic_load(&s->stop)) {
			if (send_any_ready(s))
				continue;
			break;
		}
		/* the flag first, then a last look: the loop publishes, then
		 * looks at the flag (both fenced), so one of us sees the other */
		pthread_mutex_lock(&s->mu);
		atomic_store(&s->sleeping, true);
		atomic_thread_fence(memory_order_seq_cst);
		while (!send_any_ready(s) && !atomic_load(&s->stop))
			pthread_cond_wait(&s->wake, &s->mu);
		atomic_store(&s->sleeping, false);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

/* Starts the thread at the first packet (send_int.h says why); without
 * one the loop sends the ring itself. */
static void
send_start(struct sender *s)
{
	pthread_attr_t attr;
	sigset_t all, old;

	s->started = true;
	if (pthread_attr_init(&attr) != 0)
		return;
	(void)pthread_attr_setstacksize(&attr, SEND_THREAD_STACK);
	/* signals stay the loop's (libevent's handlers) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->threaded = pthread_create(&s->thread, &attr, send_thread_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

static bool
send_all_empty(struct sender *s)
{
	for (int i = 0; i < 2; i++)
		if (s->ring[i].slots != NULL && !send_ring_empty(&s->ring[i]))
			return false;
	return true;
}

/* Loop: waits under the lock until ring has room (send_roomy) or, ring
 * NULL, every ring is empty; the thread signals room after a batch it
 * frees while waiting is set and a ring is roomy. */
static void
send_wait(struct sender *s, struct send_ring *ring)
{
	pthread_mutex_lock(&s->mu);
	atomic_store(&s->waiting, true);
	atomic_thread_fence(memory_order_seq_cst);
	while (ring != NULL ? !send_roomy(s, send_held(ring)) : !send_all_empty(s))
		pthread_cond_wait(&s->room, &s->mu);
	atomic_store(&s->waiting, false);
	pthread_mutex_unlock(&s->mu);
}

void
send_kick(struct sender *s, bool wait)
{
	if (!s->started)
		send_start(s);
	for (int i = 0; i < 2; i++)
		if (s->ring[i].slots != NULL)
			(void)send_ring_publish(&s->ring[i]);
	if (!s->threaded) {
		while (send_out_some(s))
			;
		return;
	}
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&s->sleeping)) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->mu);
	}
	if (wait)
		send_wait(s, NULL);
}

struct send_slot *
send_slot_get(struct sender *s, int family)
{
	struct send_ring *ring = send_ring_of(s, family);

	if (send_may_hold(s, ring))
		return send_ring_slot(ring);
	send_kick(s, false);
	if (s->threaded)
		send_wait(s, ring);
	return send_ring_slot(ring);
}

void
send_push(struct sender *s, int family)
{
	struct send_ring *ring = send_ring_of(s, family);

	send_ring_push(ring);
	s->pushed++;
	s->last_id = ((uint64_t)(family == ADDR_V6) << 32 | (ring->filled - 1)) + 1;
	if (send_ring_unpublished(ring) >= (uint32_t)s->cfg.batch)
		send_kick(s, false);
}

uint64_t
sender_last_id(const struct sender *s)
{
	return s->last_id;
}

uint64_t
sender_left_at(struct sender *s, uint64_t id)
{
	int fam;
	uint32_t idx;
	const struct send_ring *ring;

	if (id == 0 || id - 1 > (1ull << 33) - 1)
		return 0;
	fam = (int)((id - 1) >> 32);
	idx = (uint32_t)(id - 1);
	ring = &s->ring[fam];
	if (ring->slots == NULL || ring->filled - idx > SEND_LEFT_LOG ||
	    ring->filled - idx == 0)
		return 0;	/* long gone from the log, or never filled */
	/* acquire: the stamp below was stored before stamped */
	if (atomic_load_explicit(&s->stamped[fam], memory_order_acquire) - idx - 1 >=
	    SEND_LEFT_LOG)
		return 0;	/* not left yet */
	return atomic_load_explicit(&s->left[fam][idx & (SEND_LEFT_LOG - 1)],
	    memory_order_relaxed);
}

/* Sends what is left and ends the thread (sender_close). */
void
send_thread_stop(struct sender *s)
{
	if (!s->started)
		return;
	send_kick(s, false);
	if (!s->threaded)
		return;
	pthread_mutex_lock(&s->mu);
	atomic_store(&s->stop, true);
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->threaded = false;
}
