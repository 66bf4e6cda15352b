/*
 * silent_hops.h -- the TTLs inside a box's interval (last clean hop ..
 * first damaged hop) that never answered the trace: a set of TTLs 1..30
 * as bits (bit k: TTL k), how the outputs name it ("hop 2", "hops 2-3",
 * "hops 2, 4-5"), and how a stored value is read back.  An empty set is
 * an exact hop.  prober/design-notes.md "Hops".  Pure.
 */
#ifndef SCALEPROBE_SILENT_HOPS_H
#define SCALEPROBE_SILENT_HOPS_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* The bits that can stand for a TTL: 1..30 (RESULT_MAX_HOPS). */
#define SILENT_HOPS_MASK	0x7ffffffeu

/* A stored value (the store is hostile): the TTL bits of v, 0 when v is
 * negative or beyond them. */
uint32_t silent_hops_from_i64(int64_t v);

/* "hop 2", "hops 2-3", "hops 2, 4-5" into buf; "" for the empty set. */
const char *silent_hops_name(uint32_t set, char *buf, size_t len);

/* "2 3" (the TTLs, a space between) into buf, for a CSV cell. */
const char *silent_hops_list(uint32_t set, char *buf, size_t len);

/* key: [2, 3] */
void silent_hops_json(struct json *j, const char *key, uint32_t set);

#endif
