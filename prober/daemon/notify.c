/*
 * notify.c -- datagrams to $NOTIFY_SOCKET (notify.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

struct notify {
	int fd;
	struct sockaddr_un sa;
	socklen_t salen;
	uint64_t watchdog_usec;
};

static uint64_t
watchdog_from_env(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	char *end;
	unsigned long long v;

	if (usec == NULL)
		return 0;
	/* a watchdog meant for another process (our parent's) is not ours */
	if (pid != NULL && strtol(pid, &end, 10) != (long)getpid())
		return 0;
	errno = 0;
	v = strtoull(usec, &end, 10);
	if (errno != 0 || end == usec || *end != '\0')
		return 0;
	return v;
}

struct notify *
notify_open(void)
{
	struct notify *n = calloc(1, sizeof(*n));
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len;

	if (n == NULL)
		return NULL;
	n->fd = -1;
	n->watchdog_usec = watchdog_from_env();
	if (path == NULL || (path[0] != '/' && path[0] != '@') ||
	    (len = strlen(path)) >= sizeof(n->sa.sun_path))
		return n;
	n->sa.sun_family = AF_UNIX;
	memcpy(n->sa.sun_path, path, len);
	/* '@': an abstract socket, its name starts with a NUL byte */
	if (path[0] == '@')
		n->sa.sun_path[0] = '\0';
	n->salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return n;
}

void
notify_close(struct notify *n)
{
	if (n == NULL)
		return;
	if (n->fd >= 0)
		close(n->fd);
	free(n);
}

int
notify_enabled(const struct notify *n)
{
	return n != NULL && n->fd >= 0;
}

int
notify_send(struct notify *n, const char *msg)
{
	ssize_t r;

	if (!notify_enabled(n))
		return 0;
	do {
		r = sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL,
		    (const struct sockaddr *)&n->sa, n->salen);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : 0;
}

uint64_t
notify_watchdog_usec(const struct notify *n)
{
	return n != NULL ? n->watchdog_usec : 0;
}
