/*
 * alertcmd.h -- the alert-command program run for each alert, on the
 * daemon's loop, without ever blocking it: at most ALERTRUN_MAX runs at
 * once (then up to ALERTRUN_QUEUE_MAX alerts wait, more are skipped and
 * logged), the change written to its stdin through a non-blocking pipe,
 * its stdout and stderr read from one (alertrun.h's cap), killed at its
 * timeout, reaped on SIGCHLD with its exit status logged when not 0.  A
 * run that exits with another status than 0 (or dies of a signal not the
 * daemon's) is tried again, the same input, after retry_s seconds and
 * then 6 times that (ALERTRUN_TRIES runs in all; at most ALERTRUN_RETRY_MAX alerts wait for
 * a retry, more are logged and not retried; those waiting at a stop are
 * dropped and logged).
 *
 * The program starts with descriptors 0-2 only (its stdin pipe and the
 * output pipe), every signal at its default and none blocked, in a process
 * group of its own, and alertrun_env as its whole environment.  The
 * timeout signals that group (what the program started too): the daemon
 * made the group, and it signals it only while the program, the group's
 * leader, is not yet reaped, so the group's number cannot have been
 * reused.
 */
#ifndef SCALEPROBE_ALERTCMD_H
#define SCALEPROBE_ALERTCMD_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct alertcmd;

/* On base: SIGCHLD watched from now on.  NULL (logged) on failure. */
struct alertcmd *alertcmd_open(struct event_base *base);

/* Runs program (or queues it) with json on its stdin; killed after
 * timeout_s seconds; tried again after retry_s seconds when it fails. */
void alertcmd_run(struct alertcmd *ac, const char *program, unsigned timeout_s,
    unsigned retry_s, const char *json, size_t len);

/* Runs base's loop until every run, queued alert and retry ended (each
 * bounded by its timeout and the retries' delays) or *stop turns true. */
void alertcmd_wait(struct alertcmd *ac, const bool *stop);

/* Every run still going sent SIGTERM, after at most 1 s SIGKILL, reaped;
 * the queue dropped; ac freed.  NULL is fine. */
void alertcmd_close(struct alertcmd *ac);

#endif
