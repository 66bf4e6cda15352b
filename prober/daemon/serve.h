/*
 * serve.h -- a bounded stream server on the daemon's loop, shared by the
 * control socket and /metrics: at most max_clients connections (a new
 * one closes another, a slow or idle one first), each given timeout from
 * its accept to its last byte written, at most in_max bytes of request
 * kept, replies written without blocking, and accept() paused rather
 * than spun on when descriptors run out.  A handler may also hold a
 * client (SERVE_HOLD) and send its reply in parts later, through a
 * bounded buffer, as the control socket's on-demand requests do.
 */
#ifndef SCALEPROBE_SERVE_H
#define SCALEPROBE_SERVE_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct serve;
struct serve_client;

enum serve_next {
	SERVE_MORE,		/* wait for more of the request */
	SERVE_REPLY,		/* *out (xmalloc'd, taken over) is the reply */
	SERVE_CLOSE,		/* close without a word */
	SERVE_HOLD,		/* handle_client keeps it (serve_hold) */
};

struct serve_conf {
	const char *name;		/* in log lines */
	size_t max_clients;
	size_t in_max;			/* 0: the reply is asked for at accept */
	unsigned timeout_ms;
	/* the request so far (len <= in_max; len 0 when in_max is 0) */
	enum serve_next (*handle)(void *arg, const char *in, size_t len,
	    char **out, size_t *out_len);
	void *arg;
	/* instead of handle when set: the same, given the client too */
	enum serve_next (*handle_client)(void *arg, struct serve_client *c,
	    const char *in, size_t len, char **out, size_t *out_len);
	/* > 0: a client that sent nothing for grace_ms, or ended its side
	 * without a byte, is handled with len 0 (a reader that speaks first
	 * is served as it speaks) */
	unsigned grace_ms;
	/* a held client's bytes not yet taken, at most (then it is closed) */
	size_t out_max;
};

/* Serves on lfd, a listening socket (taken over, made non-blocking);
 * NULL after logging. */
struct serve *serve_new(struct event_base *base, int lfd, const struct serve_conf *c);
void serve_free(struct serve *s);	/* closes the listener and every client */

/* Inside handle_client before it returns SERVE_HOLD (its *out, when
 * set, the reply's first part, as with SERVE_REPLY; serve_send only
 * after it returned): c is kept until
 * serve_end, or until it is closed for its new deadline (timeout_ms from
 * now), its peer sending more or a send failing, its buffer's bound,
 * or serve_free; then gone(owner) is called once and c is no more (a
 * peer that only ends its side, shutdown(SHUT_WR), still gets the
 * reply).  Held clients are the last closed to make room for a new one. */
void serve_hold(struct serve_client *c, unsigned timeout_ms, void (*gone)(void *owner),
    void *owner);
/* Queues len bytes for c, written as it takes them; -1 when they pass
 * out_max (c closed: gone was called). */
int serve_send(struct serve_client *c, const void *buf, size_t len);
/* c closed once what is queued is written; gone is not called. */
void serve_end(struct serve_client *c);
/* The handler's own state for c while it reads c's request (NULL at
 * first; what it points to is freed with free() when c closes). */
void **serve_state(struct serve_client *c);
/* The peer's uid from its credentials (a Unix socket's); 0 or -1. */
int serve_peer_uid(const struct serve_client *c, uint32_t *uid);

#endif
