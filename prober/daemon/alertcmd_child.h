/*
 * alertcmd_child.h -- the child's side of an alert-command run, called by
 * alertcmd.c between fork and exec.
 */
#ifndef SCALEPROBE_ALERTCMD_CHILD_H
#define SCALEPROBE_ALERTCMD_CHILD_H

/* program run with in as its stdin and out as its stdout and stderr;
 * descriptors up to maxfd closed when close_range is missing.  Never
 * returns (exit 127 when the exec fails). */
void alertcmd_child(const char *program, int in, int out, int maxfd)
    __attribute__((noreturn));

#endif
