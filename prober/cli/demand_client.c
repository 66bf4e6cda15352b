/*
 * demand_client.c -- the request written whole, the reply read as it
 * comes (demand_client.h): lines of at most DC_LINE_MAX bytes, result
 * blocks of at most DC_BLOCK_MAX, the whole under one deadline a little
 * past the daemon's own.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "demand_client.h"
#include "log.h"
#include "strbuf.h"
#include "textsafe.h"
#include "unixaddr.h"

#define DC_LINE_MAX	1024
#define DC_BLOCK_MAX	(1u << 20)
/* the daemon holds a request 300 s at most (DEMAND_TIMEOUT_MS) */
#define DC_DEADLINE_S	330

struct dc {
	int fd;
	time_t deadline;
	char buf[8192];
	size_t off, len;
};

/* Fills the buffer; 1 with more, 0 at the end, -1 (errno) on an error. */
static int
dc_fill(struct dc *c)
{
	struct pollfd pfd = { c->fd, POLLIN, 0 };
	ssize_t n;
	int left;

	if (c->off > 0) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	for (;;) {
		left = (int)(c->deadline - time(NULL));
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&pfd, 1, left * 1000) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pfd.revents == 0)
			continue;
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		c->len += (size_t)n;
		return n > 0;
	}
}

/* The next line without its newline into line; 1, 0 at the end before
 * one, -1 (said). */
static int
dc_line(struct dc *c, const char *sock, char *line, size_t max)
{
	for (;;) {
		char *nl = memchr(c->buf + c->off, '\n', c->len - c->off);
		int r;

		if (nl != NULL) {
			size_t n = (size_t)(nl - (c->buf + c->off));

			if (n >= max)
				break;
			memcpy(line, c->buf + c->off, n);
			line[n] = '\0';
			c->off += n + 1;
			return 1;
		}
		if (c->len - c->off >= max)
			break;
		if ((r = dc_fill(c)) < 0) {
			log_warn("%s", sock);
			return -1;
		}
		if (r == 0)
			return c->len > c->off ? (log_warnx("%s: the reply ends in a line",
			    sock), -1) : 0;
	}
	log_warnx("%s: the reply has a line longer than %zu bytes", sock, max);
	return -1;
}

/* len bytes into a malloc'ed block; 0 or -1 (said). */
static int
dc_block(struct dc *c, const char *sock, size_t len, char **out)
{
	size_t got = 0;
	int r;

	*out = xmalloc(len + 1);
	while (got < len) {
		size_t k = c->len - c->off;

		if (k == 0) {
			if ((r = dc_fill(c)) <= 0) {
				if (r < 0)
					log_warn("%s", sock);
				else
					log_warnx("%s: the reply ends inside a result", sock);
				free(*out);
				return -1;
			}
			continue;
		}
		if (k > len - got)
			k = len - got;
		memcpy(*out + got, c->buf + c->off, k);
		c->off += k;
		got += k;
	}
	(*out)[len] = '\0';
	return 0;
}

static int
dc_connect(const char *sock)
{
	struct sockaddr_un sun;
	int fd;

	if (unixaddr_set(&sun, sock) != 0)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		if (errno == EACCES)
			log_warnx("%s: permission denied: only the socket's group may ask "
			    "scaleprobed (scaleprobed(8) \"ON DEMAND\")", sock);
		else
			log_warn("%s (is scaleprobed running?)", sock);
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

static int
dc_send(int fd, const char *sock, const char *b, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("%s", sock);
			return -1;
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One try; 1 when the daemon took us for a status reader (we were slow
 * to speak): try again. */
static int
dc_try(const struct demand_client *q, const char *req, size_t reqlen, int *status)
{
	struct dc c;
	char line[DC_LINE_MAX], shown[TEXTSAFE_SIZE(DC_LINE_MAX)];
	char *block, *safe;
	unsigned long long n;
	bool ok = false;
	int r, rc = -1;

	memset(&c, 0, sizeof(c));
	c.deadline = time(NULL) + DC_DEADLINE_S;
	if ((c.fd = dc_connect(q->socket)) < 0)
		return -1;
	if (dc_send(c.fd, q->socket, req, reqlen) != 0)
		goto out;
	while ((r = dc_line(&c, q->socket, line, sizeof(line))) == 1) {
		textsafe(shown, sizeof(shown), line, strlen(line), 0);
		if (!ok && strncmp(line, "targets ", 8) == 0) {
			rc = 1;
			goto out;
		}
		if (strncmp(line, "refused ", 8) == 0 || strncmp(line, "error ", 6) == 0) {
			log_warnx("scaleprobed %s", shown);
			goto out;
		}
		if (!ok && strncmp(line, "ok ", 3) == 0) {
			ok = true;
			continue;
		}
		if (ok && strncmp(line, "note ", 5) == 0) {
			log_warnx("%s", shown + 5);
			continue;
		}
		if (ok && sscanf(line, "result %llu", &n) == 1 && n > 0 && n <= DC_BLOCK_MAX) {
			if (dc_block(&c, q->socket, (size_t)n, &block) != 0)
				goto out;
			/* the daemon's text and JSON are escaped already: what
			 * is kept is theirs, a raw control is not */
			safe = xmalloc(TEXTSAFE_SIZE((size_t)n));
			textsafe(safe, TEXTSAFE_SIZE((size_t)n), block, (size_t)n,
			    TEXTSAFE_LINES | TEXTSAFE_KEEP_BACKSLASH);
			free(block);
			r = q->result(q->arg, safe, strlen(safe));
			free(safe);
			if (r != 0)
				goto out;
			continue;
		}
		if (ok && sscanf(line, "end %llu", &n) == 1 && n <= 3) {
			*status = (int)n;
			rc = 0;
			goto out;
		}
		log_warnx("%s: not a reply to a request: %s", q->socket, shown);
		goto out;
	}
	if (r == 0)
		log_warnx("%s: the daemon closed the connection before the end (what it "
		    "probed is stored: scaleprobe show)", q->socket);
out:
	close(c.fd);
	return rc;
}

int
demand_ask(const struct demand_client *q)
{
	struct strbuf b;
	int status = EXIT_USAGE, rc;

	memset(&b, 0, sizeof(b));
	strbuf_printf(&b, "scaleprobe-demand 1\nformat %s\n", q->json ? "json" : "text");
	for (size_t i = 0; i < q->ntargets; i++)
		strbuf_printf(&b, "target %s\n", q->targets[i]);
	strbuf_printf(&b, "\n");
	rc = dc_try(q, strbuf_str(&b), b.len, &status);
	if (rc == 1)
		rc = dc_try(q, strbuf_str(&b), b.len, &status);
	if (rc == 1)
		log_warnx("%s: the daemon answered with its status: the request came "
		    "too late after the connect", q->socket);
	strbuf_free(&b);
	return rc == 0 ? status : EXIT_USAGE;
}
