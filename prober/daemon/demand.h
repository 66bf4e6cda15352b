/*
 * demand.h -- on-demand requests (probe --via-daemon) on the control
 * socket: who may ask what (the on-demand settings, the lists, each
 * user's rate), the targets probed on the daemon's runner before the
 * scheduled batches waiting and inside its one --rate, each result
 * stored in a run carrying the asker's uid and sent back as probe prints
 * it.  scaleprobed(8) "ON DEMAND" and "CONTROL PROTOCOL" state it.
 *
 * The reply, written without blocking the daemon (serve.h, at most
 * DEMAND_OUT_MAX bytes the client has not taken), is lines:
 *
 *   refused WHY | error WHY      the end: nothing probed
 *   ok N                         N targets (with their ports) to probe
 *   result BYTES\n<BYTES>        a path's result, text or one JSON line
 *   note TEXT                    what probe would say on stderr
 *   end STATUS                   probe's exit status (scaleprobe(1))
 */
#ifndef SCALEPROBE_DEMAND_H
#define SCALEPROBE_DEMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "serve.h"

struct daemon;
struct path_result;

/* A request's connection, from its acceptance to its end: the probe goes
 * on after it (and is stored) when the client leaves or this passes */
#define DEMAND_TIMEOUT_MS (300 * 1000)
/* A reply's bytes the client has not taken, at most */
#define DEMAND_OUT_MAX (1u << 20)

/* The control socket's handler for a client that sent something. */
enum serve_next demand_request(struct daemon *d, struct serve_client *c, const char *in,
    size_t len, char **out, size_t *out_len);

/* Whether tag (the runner's) is an on-demand request's, and its result
 * and end (cycle.c hands them here). */
bool demand_owns(const struct daemon *d, const void *tag);
int demand_on_result(struct daemon *d, void *tag, struct path_result *res);
void demand_on_batch(struct daemon *d, void *tag);

/* After runner_close: the requests still in flight freed. */
void demand_free(struct daemon *d);

#endif
