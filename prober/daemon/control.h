/*
 * control.h -- the daemon's control socket (the control setting): a
 * Unix stream socket that answers a connection that sends nothing with
 * the status, one "key value" line each, and closes it (`scaleprobe
 * status` reads it); one that sends an on-demand request (demand.h) is
 * answered with its probe.
 */
#ifndef SCALEPROBE_CONTROL_H
#define SCALEPROBE_CONTROL_H

struct daemon;

/* What a slow or idle client can hold (scaleprobed(8) states them): the
 * status is at most CONTROL_REPLY_MAX bytes, written without blocking;
 * at most CONTROL_CLIENTS clients at once (a new one closes the oldest),
 * each closed CONTROL_TIMEOUT_MS after it connected if not done. */
#define CONTROL_REPLY_MAX 65536
#define CONTROL_CLIENTS 16
#define CONTROL_TIMEOUT_MS 5000
/* A client silent this long after its connect asks for the status; a
 * request is sent with the connect, long before (serve.h's grace) */
#define CONTROL_GRACE_MS 200

/* Before anything is made for the daemon: what is at path is nothing, or
 * a stale socket (no one listens); 0, or -1 after logging what is there. */
int control_check(const char *path);
/* Listens on path (a stale socket replaced); 0, or -1 after logging. */
int control_open(struct daemon *d, const char *path);
void control_close(struct daemon *d);

#endif
