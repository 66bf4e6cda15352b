/*
 * unixaddr.c -- a filesystem path as an AF_UNIX socket address, refused
 * when it does not fit (unixaddr.h).
 */
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "unixaddr.h"

bool
unixaddr_fits(const char *path)
{
	return strlen(path) < sizeof(((struct sockaddr_un *)0)->sun_path);
}

int
unixaddr_set(struct sockaddr_un *sun, const char *path)
{
	size_t len = strlen(path);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (len >= sizeof(sun->sun_path)) {
		log_warnx("%s: too long for a socket's name (%zu bytes at most)", path,
		    sizeof(sun->sun_path) - 1);
		return -1;
	}
	memcpy(sun->sun_path, path, len);
	return 0;
}
