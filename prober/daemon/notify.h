/*
 * notify.h -- the service manager's notification protocol (sd_notify(3)):
 * READY=1, STATUS=..., WATCHDOG=1, STOPPING=1 as datagrams to
 * $NOTIFY_SOCKET, and the watchdog's interval from $WATCHDOG_USEC.  The
 * few documented lines of the protocol, without linking libsystemd.
 * Without $NOTIFY_SOCKET (not started by systemd) every call does nothing.
 */
#ifndef SCALEPROBE_NOTIFY_H
#define SCALEPROBE_NOTIFY_H

#include <stdint.h>

struct notify;

/* Reads the environment once; never NULL unless out of memory. */
struct notify *notify_open(void);
void notify_close(struct notify *n);

/* Whether a service manager listens. */
int notify_enabled(const struct notify *n);

/* Sends one message ("READY=1", "STATUS=...", ...; several lines may be
 * joined by newlines).  0 on success or when disabled, -1 on a send error
 * (errno set). */
int notify_send(struct notify *n, const char *msg);

/* The watchdog interval the manager expects pings within (microseconds),
 * 0 when there is none for this process. */
uint64_t notify_watchdog_usec(const struct notify *n);

#endif
