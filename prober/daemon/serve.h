/*
 * serve.h -- a bounded stream server on the daemon's loop, shared by the
 * control socket and /metrics: at most max_clients connections (a new
 * one closes another, a slow or idle one first), each given timeout from
 * its accept to its last byte written, at most in_max bytes of request
 * kept, replies written without blocking, and accept() paused rather
 * than spun on when descriptors run out.
 */
#ifndef SCALEPROBE_SERVE_H
#define SCALEPROBE_SERVE_H

#include <stddef.h>

struct event_base;
struct serve;

enum serve_next {
	SERVE_MORE,		/* wait for more of the request */
	SERVE_REPLY,		/* *out (xmalloc'd, taken over) is the reply */
	SERVE_CLOSE,		/* close without a word */
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
};

/* Serves on lfd, a listening socket (taken over, made non-blocking);
 * NULL after logging. */
struct serve *serve_new(struct event_base *base, int lfd, const struct serve_conf *c);
void serve_free(struct serve *s);	/* closes the listener and every client */

#endif
