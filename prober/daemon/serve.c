/*
 * serve.c -- a bounded stream server on the daemon's loop (serve.h).
 * Nothing a client does can grow the daemon or stall it: connections are
 * capped (one closed for each new one, chosen so that a crowd of idle or
 * slow clients cannot lock a scraper out), each has one deadline from
 * accept to done, its request buffer has a fixed size, and replies go out
 * through write events on non-blocking sockets.  When accept() fails for want of
 * descriptors, a reserve descriptor is given up to take and close the
 * waiting connection, and accepting pauses briefly instead of spinning.
 */
#define _GNU_SOURCE		/* accept4 */
#include <sys/socket.h>

#include <sys/types.h>

#include <errno.h>
#include <stdbool.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "serve.h"

/* accepts per wake-up: the loop serves the clients' reads in between */
#define SERVE_ACCEPT_BATCH 16
#define SERVE_PAUSE_MS 100
/* how long a client that has sent nothing is spared while others can go:
 * a scraper's request follows its handshake within this */
#define SERVE_GRACE_MS 200

struct serve_client {
	struct serve *s;
	int fd;
	struct event *ev;
	struct timespec born, deadline;
	char *in;
	size_t in_len;
	char *out;
	size_t out_len, out_off, out_cap;
	bool graced;			/* handled with nothing sent */
	bool held, ended;		/* SERVE_HOLD; serve_end since */
	bool shut;			/* held, and its peer ended its side */
	void (*gone)(void *owner);
	void *owner;
	void *state;			/* the handler's (serve_state) */
	struct serve_client *prev, *next;	/* in accept order: the oldest first */
};

struct serve {
	struct serve_conf c;
	struct event_base *base;
	int lfd, reserve;
	struct event *lev, *pause;
	struct serve_client *head, *tail;
	size_t n;
	time_t warned;
};

static void conn_event(evutil_socket_t fd, short what, void *arg);

static int
reserve_open(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void
conn_close(struct serve_client *k)
{
	struct serve *s = k->s;

	if (k->held && !k->ended && k->gone != NULL)
		k->gone(k->owner);
	if (k->prev != NULL)
		k->prev->next = k->next;
	else
		s->head = k->next;
	if (k->next != NULL)
		k->next->prev = k->prev;
	else
		s->tail = k->prev;
	s->n--;
	if (k->ev != NULL)
		event_free(k->ev);
	close(k->fd);
	free(k->state);
	free(k->in);
	free(k->out);
	free(k);
}

/* Milliseconds left until k's deadline (<= 0: passed). */
static long long
ms_left(const struct serve_client *k)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (k->deadline.tv_sec - now.tv_sec) * 1000LL +
	    (k->deadline.tv_nsec - now.tv_nsec) / 1000000;
}

/* Waits for what (EV_READ or EV_WRITE, or 0: the deadline alone) until
 * the deadline; -1 when it has passed or the event cannot be set. */
static int
conn_wait(struct serve_client *k, short what)
{
	struct timespec now;
	struct timeval tv;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = ms_left(k);
	if (ms <= 0)
		return -1;
	/* a silent client is handled as such once its grace is over */
	if (what == EV_READ && k->s->c.grace_ms > 0 && !k->graced && k->in_len == 0 && !k->held) {
		long long g = (long long)k->s->c.grace_ms -
		    ((now.tv_sec - k->born.tv_sec) * 1000LL +
		    (now.tv_nsec - k->born.tv_nsec) / 1000000);

		if (g < 1)
			g = 1;
		if (g < ms)
			ms = g;
	}
	tv.tv_sec = (time_t)(ms / 1000);
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	if (k->ev != NULL && event_get_events(k->ev) != what) {
		event_free(k->ev);
		k->ev = NULL;
	}
	if (k->ev == NULL && (k->ev = event_new(k->s->base, what != 0 ? k->fd : -1, what,
	    conn_event, k)) == NULL)
		return -1;
	return event_add(k->ev, &tv);
}

/* Writes what it can of the reply; closes k when it is all out or the
 * client is gone. */
static void
conn_write(struct serve_client *k)
{
	ssize_t w;

	while (k->out_off < k->out_len) {
		w = send(k->fd, k->out + k->out_off, k->out_len - k->out_off, MSG_NOSIGNAL);
		if (w > 0) {
			k->out_off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    conn_wait(k, EV_WRITE) == 0)
			return;
		conn_close(k);
		return;
	}
	/* held: all out, and more may come; meanwhile its peer is watched,
	 * unless it ended its side (then only the deadline) */
	if (k->held && !k->ended) {
		k->out_off = k->out_len = 0;
		if (conn_wait(k, k->shut ? 0 : EV_READ) == 0)
			return;
	}
	conn_close(k);
}

/* A held client readable.  Its end of file is a client that ended its
 * side after its request (shutdown(SHUT_WR), nc -N) and still reads the
 * reply: kept, its reads no longer watched, until its deadline or a send
 * fails.  Bytes after its request broke the protocol, and an error is a
 * client gone: closed. */
static void
conn_held_read(struct serve_client *k)
{
	char b[256];
	ssize_t r = recv(k->fd, b, sizeof(b), 0);

	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		if (conn_wait(k, EV_READ) != 0)
			conn_close(k);
		return;
	}
	if (r == 0) {
		k->shut = true;
		if (conn_wait(k, 0) != 0)
			conn_close(k);
		return;
	}
	conn_close(k);
}

static void
conn_handle(struct serve_client *k)
{
	enum serve_next next;

	next = k->s->c.handle_client != NULL ?
	    k->s->c.handle_client(k->s->c.arg, k, k->in, k->in_len, &k->out, &k->out_len) :
	    k->s->c.handle(k->s->c.arg, k->in, k->in_len, &k->out, &k->out_len);
	switch (next) {
	case SERVE_HOLD:
		/* the reply's first part goes out; then its peer is watched */
		k->out_off = 0;
		k->out_cap = k->out_len;
		if (k->out_len > 0) {
			conn_write(k);
			return;
		}
		if (conn_wait(k, EV_READ) != 0)
			conn_close(k);
		return;
	case SERVE_MORE:
		/* the handler must decide by a full buffer: nothing more fits */
		if (k->in_len < k->s->c.in_max && conn_wait(k, EV_READ) == 0)
			return;
		conn_close(k);
		return;
	case SERVE_REPLY:
		k->out_off = 0;
		conn_write(k);
		return;
	case SERVE_CLOSE:
	default:
		conn_close(k);
		return;
	}
}

static void
conn_read(struct serve_client *k)
{
	ssize_t r;

	r = recv(k->fd, k->in + k->in_len, k->s->c.in_max - k->in_len, 0);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		if (conn_wait(k, EV_READ) != 0)
			conn_close(k);
		return;
	}
	/* a client that ends its side at once asks what a silent one gets,
	 * without waiting for the grace */
	if (r == 0 && k->in_len == 0 && k->s->c.grace_ms > 0 && !k->graced) {
		k->graced = true;
		conn_handle(k);
		return;
	}
	if (r <= 0) {		/* gone before its request was whole */
		conn_close(k);
		return;
	}
	k->in_len += (size_t)r;
	conn_handle(k);
}

static void
conn_event(evutil_socket_t fd, short what, void *arg)
{
	struct serve_client *k = arg;

	(void)fd;
	if ((what & EV_TIMEOUT) && k->s->c.grace_ms > 0 && !k->graced && !k->held &&
	    k->in_len == 0 && ms_left(k) > 0) {
		/* its grace is over, not its deadline: handled as silent */
		k->graced = true;
		conn_handle(k);
	} else if (what & EV_TIMEOUT) {
		log_debug("%s: a client timed out", k->s->c.name);
		conn_close(k);
	} else if (k->out_len > k->out_off)
		conn_write(k);
	else if (k->held)
		conn_held_read(k);
	else
		conn_read(k);
}

static long long
ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000LL + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* The client to close for a new one.  A scraper sends its request whole
 * and reads its reply at once, so first the oldest that began a request
 * without ending it or is slow to take its reply; then the oldest that
 * has sent nothing past its grace; then the oldest (a scraper accepted
 * between its handshake and its request is the newest, so the last to
 * go). */
static struct serve_client *
conn_victim(struct serve *s)
{
	struct serve_client *k;

	for (k = s->head; k != NULL; k = k->next)
		if (!k->held && (k->in_len > 0 || k->out != NULL))
			return k;
	for (k = s->head; k != NULL; k = k->next)
		if (!k->held && ms_since(&k->born) >= SERVE_GRACE_MS)
			return k;
	for (k = s->head; k != NULL; k = k->next)
		if (!k->held)
			return k;
	return s->head;
}

static void
conn_new(struct serve *s, int fd)
{
	struct serve_client *k;

	if (s->n >= s->c.max_clients && s->head != NULL) {
		log_debug("%s: %zu clients, one closed", s->c.name, s->n);
		conn_close(conn_victim(s));
	}
	k = xcalloc(1, sizeof(*k));
	k->s = s;
	k->fd = fd;
	clock_gettime(CLOCK_MONOTONIC, &k->born);
	k->deadline = k->born;
	k->deadline.tv_sec += s->c.timeout_ms / 1000;
	k->deadline.tv_nsec += (long)(s->c.timeout_ms % 1000) * 1000000L;
	if (k->deadline.tv_nsec >= 1000000000L) {
		k->deadline.tv_sec++;
		k->deadline.tv_nsec -= 1000000000L;
	}
	k->prev = s->tail;
	if (s->tail != NULL)
		s->tail->next = k;
	else
		s->head = k;
	s->tail = k;
	s->n++;
	if (s->c.in_max == 0) {
		conn_handle(k);
		return;
	}
	k->in = xmalloc(s->c.in_max);
	/* a request sent with the handshake is often here already */
	conn_read(k);
}

static void
serve_resume(evutil_socket_t fd, short what, void *arg)
{
	struct serve *s = arg;

	(void)fd;
	(void)what;
	if (s->reserve == -1)
		s->reserve = reserve_open();
	event_add(s->lev, NULL);
}

/* Out of descriptors: the waiting connection taken with the reserve and
 * closed (its client learns at once), and accepting paused a moment. */
static void
serve_starved(struct serve *s, int err)
{
	struct timeval tv = { 0, SERVE_PAUSE_MS * 1000 };
	time_t now = time(NULL);
	int c;

	if (now - s->warned >= 60) {
		errno = err;
		log_warn("%s: accept (paused %d ms)", s->c.name, SERVE_PAUSE_MS);
		s->warned = now;
	}
	if (s->reserve != -1) {
		close(s->reserve);
		if ((c = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC)) != -1)
			close(c);
		s->reserve = reserve_open();
	}
	event_del(s->lev);
	event_add(s->pause, &tv);
}

static void
serve_accept(evutil_socket_t fd, short what, void *arg)
{
	struct serve *s = arg;
	int c, i;

	(void)what;
	for (i = 0; i < SERVE_ACCEPT_BATCH; i++) {
		if ((c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
			conn_new(s, c);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM)
			return;
		/* out of the process's descriptors: one of our clients makes
		 * room, as at the cap.  With none of ours open the rest of
		 * the daemon holds them all, and closing clients would not
		 * help the system's or the kernel's memory either. */
		if (errno != EMFILE || s->head == NULL) {
			serve_starved(s, errno);
			return;
		}
		log_debug("%s: accept: %s: a client closed", s->c.name, strerror(errno));
		conn_close(conn_victim(s));
	}
}

struct serve *
serve_new(struct event_base *base, int lfd, const struct serve_conf *c)
{
	struct serve *s = xcalloc(1, sizeof(*s));

	s->c = *c;
	s->base = base;
	s->lfd = lfd;
	s->reserve = reserve_open();
	if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK) == -1 ||
	    (s->lev = event_new(base, lfd, EV_READ | EV_PERSIST, serve_accept, s)) == NULL ||
	    (s->pause = evtimer_new(base, serve_resume, s)) == NULL ||
	    event_add(s->lev, NULL) != 0) {
		log_warnx("%s: cannot watch the socket", c->name);
		serve_free(s);
		return NULL;
	}
	return s;
}

void
serve_free(struct serve *s)
{
	if (s == NULL)
		return;
	while (s->head != NULL)
		conn_close(s->head);
	if (s->lev != NULL)
		event_free(s->lev);
	if (s->pause != NULL)
		event_free(s->pause);
	close(s->lfd);
	if (s->reserve != -1)
		close(s->reserve);
	free(s);
}

static void
deadline_in(struct serve_client *k, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, &k->deadline);
	k->deadline.tv_sec += ms / 1000;
	k->deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (k->deadline.tv_nsec >= 1000000000L) {
		k->deadline.tv_sec++;
		k->deadline.tv_nsec -= 1000000000L;
	}
}

void
serve_hold(struct serve_client *k, unsigned timeout_ms, void (*gone)(void *owner), void *owner)
{
	k->held = true;
	k->gone = gone;
	k->owner = owner;
	deadline_in(k, timeout_ms);
}

int
serve_send(struct serve_client *k, const void *buf, size_t len)
{
	bool idle = k->out_len == k->out_off;

	if (k->out_off > 0 && k->out_off == k->out_len)
		k->out_off = k->out_len = 0;
	if (k->out_len - k->out_off + len > k->s->c.out_max) {
		log_debug("%s: a client does not take its reply: closed", k->s->c.name);
		conn_close(k);
		return -1;
	}
	if (k->out_len + len > k->out_cap) {
		/* the part taken already makes room first */
		memmove(k->out, k->out + k->out_off, k->out_len - k->out_off);
		k->out_len -= k->out_off;
		k->out_off = 0;
		if (k->out_len + len > k->out_cap) {
			k->out_cap = k->out_len + len > 2 * k->out_cap ? k->out_len + len :
			    2 * k->out_cap;
			k->out = xrealloc(k->out, k->out_cap);
		}
	}
	memcpy(k->out + k->out_len, buf, len);
	k->out_len += len;
	/* out at once when nothing waits for the socket already (a write
	 * event is set otherwise, and takes this with the rest) */
	if (idle && k->held && !(k->ev != NULL && event_get_events(k->ev) == EV_WRITE &&
	    event_pending(k->ev, EV_WRITE, NULL)))
		conn_write(k);
	return 0;
}

void
serve_end(struct serve_client *k)
{
	k->ended = true;
	if (k->out_len == k->out_off)
		conn_close(k);
	else if (!(k->ev != NULL && event_get_events(k->ev) == EV_WRITE &&
	    event_pending(k->ev, EV_WRITE, NULL)))
		conn_write(k);
}

void **
serve_state(struct serve_client *k)
{
	return &k->state;
}

int
serve_peer_uid(const struct serve_client *k, uint32_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(k->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr))
		return -1;
	*uid = (uint32_t)cr.uid;
	return 0;
}
