/*
 * storegen.h -- synthetic path results for the store's tests and bench:
 * deterministic from an index, covering every kind of field (SYN-ACK or
 * not, ICMP, window tests, verdicts with hops and side findings, traces,
 * evidence).
 */
#ifndef SCALEPROBE_STOREGEN_H
#define SCALEPROBE_STOREGEN_H

#include <stdbool.h>
#include <stddef.h>

#include "evidence.h"
#include "result.h"

struct storegen {
	struct path_result res;
	struct trace_obs trace[1 + RESULT_MAX_SCALES];
	struct path_evidence *ev;
	char target[64];
};

/* Result number i (3 scales); traced and with evidence when
 * with_evidence and i says so (every 4th path: a rewriting box). */
void storegen_make(struct storegen *g, unsigned i, int64_t time_s, bool with_evidence);
void storegen_free(struct storegen *g);

/* A scratch directory for a group of tests, /tmp/NAME.XXXXXX into dir (64
 * bytes are enough), and its removal with what the tests left in it.
 * 0, or -1 (cmocka's group setup and teardown take them as they are). */
int storegen_scratch(char *dir, size_t len, const char *name);
int storegen_scratch_remove(const char *dir);

#endif
