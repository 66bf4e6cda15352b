/*
 * http_req.c -- the metrics endpoint's request handling, pure: a request
 * line and its headers judged as they arrive, and the reply's head.  Only
 * the request line matters; headers are skipped but must end within the
 * limit and hold no control byte, so a client can neither grow the daemon
 * nor smuggle anything past the check.
 */
#include <stdio.h>
#include <string.h>

#include "http_req.h"

/* The end of the head: an empty line, after CRLF or a bare LF.  The
 * offset just past it, or 0. */
static size_t
head_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static int
is_token(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* The request line "METHOD SP TARGET SP HTTP/1.x", of n bytes (no CRLF). */
static enum http_req
request_line(const char *s, size_t n)
{
	size_t m = 0, t0, t1;

	while (m < n && is_token(s[m]))
		m++;
	if (m == 0 || m >= n || s[m] != ' ')
		return HTTP_REQ_BAD;
	t0 = t1 = m + 1;
	while (t1 < n && s[t1] != ' ')
		t1++;
	if (t1 == t0 || t1 >= n || n - (t1 + 1) != 8 ||
	    memcmp(s + t1 + 1, "HTTP/1.", 7) != 0 || (s[n - 1] != '0' && s[n - 1] != '1'))
		return HTTP_REQ_BAD;
	if (m != 3 || memcmp(s, "GET", 3) != 0)
		return HTTP_REQ_METHOD;
	if (t1 - t0 < 8 || memcmp(s + t0, "/metrics", 8) != 0 ||
	    (t1 - t0 > 8 && s[t0 + 8] != '?'))
		return HTTP_REQ_NOT_FOUND;
	return HTTP_REQ_METRICS;
}

enum http_req
http_req_parse(const char *buf, size_t len, size_t max)
{
	size_t end, i, lead, line;

	if (len > max)
		len = max;
	/* RFC 9112 2.2: empty lines before the request line are ignored */
	for (lead = 0; lead < len && (buf[lead] == '\r' || buf[lead] == '\n'); lead++)
		;
	if (lead > 4)
		return HTTP_REQ_BAD;
	end = head_end(buf + lead, len - lead);
	/* a control byte in the head (tab and the line ends aside) is
	 * refused at once, whole head or not; what follows the head is not
	 * the request's, so the verdict never changes as more arrives */
	for (i = lead; i < (end != 0 ? lead + end : len); i++) {
		unsigned char c = (unsigned char)buf[i];

		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f)
			return HTTP_REQ_BAD;
		/* a CR only before LF */
		if (c == '\r' && i + 1 < len && buf[i + 1] != '\n')
			return HTTP_REQ_BAD;
	}
	if (end == 0)
		return len >= max ? HTTP_REQ_TOO_LARGE : HTTP_REQ_MORE;
	buf += lead;
	line = (size_t)((const char *)memchr(buf, '\n', end) - buf);
	if (line > 0 && buf[line - 1] == '\r')
		line--;
	return request_line(buf, line);
}

size_t
http_reply_head(enum http_req r, size_t body_len, char *out, size_t cap)
{
	const char *status, *extra = "";
	int n;

	switch (r) {
	case HTTP_REQ_METRICS:
		status = "200 OK";
		extra = "Content-Type: text/plain; version=0.0.4\r\n";
		break;
	case HTTP_REQ_NOT_FOUND:
		status = "404 Not Found";
		break;
	case HTTP_REQ_METHOD:
		status = "405 Method Not Allowed";
		extra = "Allow: GET\r\n";
		break;
	case HTTP_REQ_TOO_LARGE:
		status = "431 Request Header Fields Too Large";
		break;
	case HTTP_REQ_BAD:
	case HTTP_REQ_MORE:
	default:
		status = "400 Bad Request";
		break;
	}
	if (cap == 0)
		return 0;
	n = snprintf(out, cap, "HTTP/1.0 %s\r\n%sContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n", status, extra, body_len);
	if (n < 0 || (size_t)n >= cap) {
		out[0] = '\0';
		return 0;
	}
	return (size_t)n;
}
