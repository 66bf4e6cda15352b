/*
 * request_file.c -- reads --payload FILE for the window test (request.h):
 * the only I/O of requests.  Done once at start-up, before the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "request.h"

long
request_payload_file(const char *path, uint8_t *buf, size_t cap, char *err,
    size_t errlen)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	uint8_t extra;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	/* read to the end rather than trust st_size: the file may change */
	for (;;) {
		if (len == cap)
			n = read(fd, &extra, 1);
		else
			n = read(fd, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		if (len == cap) {
			snprintf(err, errlen, "%s: longer than %zu bytes (the window "
			    "test sends its request in the server's first window)",
			    path, cap);
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	return (long)len;
}
