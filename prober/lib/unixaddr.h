/*
 * unixaddr.h -- a filesystem path as an AF_UNIX socket address.  The
 * kernel's sun_path holds 107 bytes and a NUL: a longer path is refused
 * here, once for every socket the programs open or connect, rather than cut
 * short into another file's name.
 */
#ifndef SCALEPROBE_UNIXADDR_H
#define SCALEPROBE_UNIXADDR_H

#include <stdbool.h>
#include <sys/un.h>

/* Whether path fits in sun_path with its NUL. */
bool unixaddr_fits(const char *path);

/* *sun zeroed and set to path; 0, or -1 after one log line naming the
 * path and the limit when it does not fit. */
int unixaddr_set(struct sockaddr_un *sun, const char *path);

#endif
