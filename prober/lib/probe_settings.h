/*
 * probe_settings.h -- what shapes every path of a run, in one struct that
 * the configuration (config/) fills from its settings table and the
 * runner (engine/) probes with: the scales, the rate, the timeout and
 * retries, the trace and window test, their payloads and contact.
 *
 * A probing setting is a row of config/settings.c pointing at a field
 * here, and the code that uses it; nothing copies these by hand.
 */
#ifndef SCALEPROBE_PROBE_SETTINGS_H
#define SCALEPROBE_PROBE_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

/* Longest payload the window test sends (it must fit in the server's
 * first window and in a few segments: window.h's request limit). */
#define PROBE_PAYLOAD_MAX 8192
/* Longest contact URL: it goes into the HTTP request's User-Agent. */
#define PROBE_CONTACT_MAX 512

/* trace: the settings table's choices, in this order */
enum probe_trace {
	PROBE_TRACE_NEVER = 0,
	PROBE_TRACE_AUTO,	/* only where the handshake cannot tell alone */
	PROBE_TRACE_ALWAYS,
};

/* The window test's request for a port (payload PORT FILE); port 0
 * stands for every port without its own (payload FILE). */
struct probe_payload {
	uint16_t port;
	char *path;		/* as named */
	unsigned line;		/* where it was named; 0: the command line */
	uint8_t *bytes;		/* the file's bytes, once read; NULL before */
	size_t len;
};

/* The most flows --flows auto gives a path: MDA's stopping point for a
 * 4th answer (infer_flows_stop(3)); a path may see rewritten, stripped,
 * dropped and ok, no more (prober/design-notes.md "Adaptive flows"). */
#define PROBE_FLOWS_AUTO_MAX 16

struct probe_settings {
	int scales[RESULT_MAX_SCALES];	/* window-scale shifts, in order */
	int nscales;
	uint32_t rate;			/* packets per second, every kind */
	double timeout;			/* seconds to wait after each SYN */
	uint32_t retries;		/* resends of a silent SYN */
	uint32_t max_inflight;		/* paths at once; 0: from rate, timeout */
	uint32_t syn_ttl;		/* TTL / hop limit of the handshake's SYNs
					   (and their RSTs, the window test's
					   segments) */
	uint32_t flows;			/* source ports per variant, each its own
					   branch of a load-balanced path; 0:
					   auto, one and more where the first
					   shows a problem, up to
					   PROBE_FLOWS_AUTO_MAX */
	enum probe_trace trace;
	bool window_test;
	struct probe_payload *payloads;	/* sorted by port */
	size_t npayloads;
	char *contact;			/* named in the HTTP request; or NULL */
};

/* A deep copy (payload bytes, paths and contact too) into dst. */
void probe_settings_copy(struct probe_settings *dst, const struct probe_settings *src);
/* Frees what settings hold and zeroes them. */
void probe_settings_free(struct probe_settings *s);

#endif
