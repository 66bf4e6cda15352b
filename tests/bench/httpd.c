/*
 * httpd.c -- the bench's HTTP server: every request on any of its ports
 * answered with one body of a fixed size, for the window test.
 *
 * usage: httpd BYTES PORT [PORT ...]   (inside the AnyIP server namespace)
 * Listens on INADDR_ANY, so it answers for every local address (the AnyIP
 * route makes 198.19.0.0/16 local).  Reads a request up to its blank line
 * (or 8 KiB, whichever first), writes "HTTP/1.1 200" with BYTES of body and
 * closes: the kernel sends what the peer's window has not yet let out, and
 * a RST from the peer (the window test ends with one) drops the rest.  One
 * thread on epoll, no per-request allocation beyond a connection's struct:
 * the server's share of the machine stays small beside the prober's.
 * Prints "ready" on stderr once listening; runs until killed.
 */
#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HTTPD_MAX_PORTS 64
#define HTTPD_REQ_MAX 8192
#define HTTPD_EVENTS 256

struct conn {
	int fd;
	bool listener;
	bool replying;
	size_t off;			/* bytes of the reply written */
	size_t seen;			/* request bytes read */
	char tail[4];			/* the last 4 bytes read: the blank line */
};

static char *reply;
static size_t reply_len;
static int ep;

static void
conn_close(struct conn *c)
{
	close(c->fd);
	free(c);
}

/* Writes what the socket takes; closed once all of it is out. */
static void
conn_write(struct conn *c)
{
	while (c->off < reply_len) {
		ssize_t n = write(c->fd, reply + c->off, reply_len - c->off);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			conn_close(c);
			return;
		}
		c->off += (size_t)n;
	}
	conn_close(c);
}

static void
conn_read(struct conn *c)
{
	char buf[2048];
	ssize_t n;

	while ((n = read(c->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			memmove(c->tail, c->tail + 1, 3);
			c->tail[3] = buf[i];
		}
		c->seen += (size_t)n;
		if (memcmp(c->tail, "\r\n\r\n", 4) == 0 || c->seen >= HTTPD_REQ_MAX) {
			struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };

			c->replying = true;
			(void)epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
			conn_write(c);
			return;
		}
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		conn_close(c);
}

static void
accept_all(struct conn *l)
{
	int fd;

	while ((fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
		struct conn *c = calloc(1, sizeof(*c));
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };

		if (c == NULL) {
			close(fd);
			continue;
		}
		c->fd = fd;
		ev.data.ptr = c;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			conn_close(c);
	}
}

static int
listen_on(int port)
{
	struct sockaddr_in a;
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 65535) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
main(int argc, char **argv)
{
	struct epoll_event evs[HTTPD_EVENTS];
	long bytes;
	int hl;

	if (argc < 3 || argc - 2 > HTTPD_MAX_PORTS || (bytes = atol(argv[1])) < 0 ||
	    bytes > (64L << 20)) {
		fprintf(stderr, "usage: httpd BYTES PORT [PORT ...] (BYTES <= 64 MiB, "
		    "%d ports at most)\n", HTTPD_MAX_PORTS);
		return 2;
	}
	if ((reply = malloc((size_t)bytes + 128)) == NULL)
		return 1;
	hl = snprintf(reply, 128, "HTTP/1.1 200 OK\r\nContent-Length: %ld\r\n"
	    "Content-Type: text/plain\r\nConnection: close\r\n\r\n", bytes);
	memset(reply + hl, 'x', (size_t)bytes);
	reply_len = (size_t)hl + (size_t)bytes;
	if ((ep = epoll_create1(0)) < 0) {
		perror("httpd: epoll_create1");
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		struct conn *l = calloc(1, sizeof(*l));
		struct epoll_event ev = { .events = EPOLLIN };
		int port = atoi(argv[i]);

		if (l == NULL || port < 1 || port > 65535 || (l->fd = listen_on(port)) < 0) {
			fprintf(stderr, "httpd: port %s: cannot listen\n", argv[i]);
			return 1;
		}
		l->listener = true;
		ev.data.ptr = l;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &ev) < 0) {
			perror("httpd: epoll_ctl");
			return 1;
		}
	}
	fprintf(stderr, "ready\n");
	for (;;) {
		int n = epoll_wait(ep, evs, HTTPD_EVENTS, -1);

		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (c->listener)
				accept_all(c);
			else if (c->replying)
				conn_write(c);
			else if (evs[i].events & (EPOLLERR | EPOLLHUP))
				conn_close(c);
			else
				conn_read(c);
		}
	}
}
