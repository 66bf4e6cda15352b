/*
 * http_req.h -- the metrics endpoint's request handling, pure: what a
 * client's bytes so far ask for (GET /metrics, or which error), and the
 * head of the reply.  No allocation, no I/O; every byte is hostile.
 */
#ifndef SCALEPROBE_HTTP_REQ_H
#define SCALEPROBE_HTTP_REQ_H

#include <stddef.h>

/* The most of a request (line and headers) read: a client that has not
 * ended its head by then gets 431 and is closed. */
#define HTTP_REQ_MAX 8192

enum http_req {
	HTTP_REQ_MORE,		/* the head is not complete yet */
	HTTP_REQ_METRICS,	/* GET /metrics (a query string ignored) */
	HTTP_REQ_BAD,		/* 400: not an HTTP/1.x request line, a control byte */
	HTTP_REQ_NOT_FOUND,	/* 404: another path */
	HTTP_REQ_METHOD,	/* 405: another method */
	HTTP_REQ_TOO_LARGE,	/* 431: no end of head within max bytes */
};

/* buf holds the len bytes received so far (len <= max). */
enum http_req http_req_parse(const char *buf, size_t len, size_t max);

/* The reply's status line and headers for r (not HTTP_REQ_MORE) and a
 * body of body_len bytes, into out (always terminated); the length
 * written, or 0 when cap is too small. */
size_t http_reply_head(enum http_req r, size_t body_len, char *out, size_t cap);

#endif
