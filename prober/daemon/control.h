/*
 * control.h -- the daemon's control socket (the control setting): a
 * Unix stream socket that answers each connection with the status, one
 * "key value" line each, and closes it.  `scaleprobe status` reads it.
 */
#ifndef SCALEPROBE_CONTROL_H
#define SCALEPROBE_CONTROL_H

struct daemon;

/* Listens on path (a stale socket replaced); 0, or -1 after logging. */
int control_open(struct daemon *d, const char *path);
void control_close(struct daemon *d);

#endif
