/*
 * metrics.c -- the text exposition format, written by hand (metrics.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "metrics.h"

static void put(struct metrics_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
put(struct metrics_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->overflow = true;
		return;
	}
	b->len += (size_t)n;
}

static void
family(struct metrics_buf *b, const char *name, const char *type, const char *help)
{
	put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A family of one sample without labels: its name written once. */
static void
counter_or_gauge(struct metrics_buf *b, const char *name, const char *type, const char *help,
    uint64_t v)
{
	family(b, name, type, help);
	put(b, "%s %" PRIu64 "\n", name, v);
}

const char *
metrics_verdict_name(enum verdict v)
{
	const char *name = verdict_name(v);

	return name != NULL ? name : "none";
}

int
metrics_render(const struct metrics_snapshot *s, struct metrics_buf *b)
{
	static const char *const reply[METRICS_REPLY_COUNT] = {
		"syn-ack", "rst", "icmp", "none",
	};

	b->len = 0;
	b->overflow = b->cap == 0;
	if (b->cap > 0)
		b->p[0] = '\0';
	family(b, "scaleprobe_probes_total", "counter",
	    "SYNs sent, by what answered them.");
	for (int i = 0; i < METRICS_REPLY_COUNT; i++)
		put(b, "scaleprobe_probes_total{result=\"%s\"} %" PRIu64 "\n", reply[i],
		    s->probes[i]);
	family(b, "scaleprobe_paths_total", "counter",
	    "Path results stored, by verdict.");
	for (int v = VERDICT_OK; v <= VERDICT_INCONCLUSIVE; v++)
		put(b, "scaleprobe_paths_total{verdict=\"%s\"} %" PRIu64 "\n",
		    metrics_verdict_name((enum verdict)v), s->paths[v]);
	counter_or_gauge(b, "scaleprobe_alerts_open", "gauge",
	    "Paths whose confirmed state is a problem.", s->alerts_open);
	family(b, "scaleprobe_targets", "gauge",
	    "Targets of this cycle, by where they stand.");
	put(b, "scaleprobe_targets{state=\"due\"} %" PRIu64 "\n", s->targets_due);
	put(b, "scaleprobe_targets{state=\"in-flight\"} %" PRIu64 "\n", s->targets_in_flight);
	put(b, "scaleprobe_targets{state=\"done\"} %" PRIu64 "\n", s->targets_done_cycle);
	family(b, "scaleprobe_scheduler_lag_seconds", "gauge",
	    "How late after its due time the latest target started.");
	put(b, "scaleprobe_scheduler_lag_seconds %.6f\n", s->scheduler_lag_seconds);
	counter_or_gauge(b, "scaleprobe_cycles_missed_total", "counter",
	    "Target runs skipped because the one before overran its interval.",
	    s->cycles_missed);
	counter_or_gauge(b, "scaleprobe_writer_backlog", "gauge",
	    "Results and target states written and not yet committed to the database.",
	    s->writer_backlog);
	family(b, "scaleprobe_packets_rejected_total", "counter",
	    "Packets refused: malformed, or answering no probe of ours, by the first reason.");
	for (int i = REPLY_REJECT_NONE + 1; i < REPLY_REJECT_COUNT; i++)
		put(b, "scaleprobe_packets_rejected_total{reason=\"%s\"} %" PRIu64 "\n",
		    reply_reject_name((enum reply_reject)i), s->packets_rejected[i]);
	counter_or_gauge(b, "scaleprobe_packets_replayed_total", "counter",
	    "SYN-ACKs of a flow that had its one RST (retransmitted or replayed), dropped.",
	    s->packets_replayed);
	counter_or_gauge(b, "scaleprobe_capture_drops_total", "counter",
	    "Packets the capture ring dropped before scaleprobed read them.", s->capture_drops);
	counter_or_gauge(b, "scaleprobe_store_failing", "gauge",
	    "1 while the database cannot be written (results wait in memory).",
	    s->store_failing ? 1 : 0);
	counter_or_gauge(b, "scaleprobe_store_failed_writes_total", "counter",
	    "Database transactions that failed and were rolled back to be written again.",
	    s->store_failed_writes);
	counter_or_gauge(b, "scaleprobe_store_dropped_total", "counter",
	    "Results and target states lost: the database failed with the memory bound full.",
	    s->store_dropped);
	family(b, "scaleprobe_store_bytes", "gauge",
	    "The database's size on disk, its WAL included.");
	put(b, "scaleprobe_store_bytes %" PRId64 "\n", s->store_bytes);
	family(b, "scaleprobe_store_oldest_result_timestamp_seconds", "gauge",
	    "When the oldest result kept was measured (retention removes what is older).");
	if (s->store_oldest_ns != 0)
		put(b, "scaleprobe_store_oldest_result_timestamp_seconds %" PRId64 ".%09" PRId64
		    "\n", s->store_oldest_ns / 1000000000, s->store_oldest_ns % 1000000000);
	if (s->upload) {
		counter_or_gauge(b, "scaleprobe_upload_backlog", "gauge",
		    "Results stored here and not yet uploaded to the shared store.",
		    s->upload_backlog);
		counter_or_gauge(b, "scaleprobe_upload_failing", "gauge",
		    "1 while the last upload attempt failed (tried again with backoff).",
		    s->upload_failing ? 1 : 0);
		counter_or_gauge(b, "scaleprobe_upload_stale", "gauge",
		    "1 while results wait and the last upload is older than upload-alert.",
		    s->upload_stale ? 1 : 0);
		family(b, "scaleprobe_upload_last_success_timestamp_seconds", "gauge",
		    "When the shared store last took a batch.");
		if (s->upload_last_ok_ns != 0)
			put(b, "scaleprobe_upload_last_success_timestamp_seconds %" PRId64 ".%09"
			    PRId64 "\n", s->upload_last_ok_ns / 1000000000,
			    s->upload_last_ok_ns % 1000000000);
	}
	return b->overflow ? -1 : 0;
}
