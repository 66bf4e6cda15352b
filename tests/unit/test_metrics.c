/*
 * test_metrics.c -- the Prometheus text the daemon serves, byte for byte,
 * and a buffer too small refused rather than cut.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "metrics.h"

static const char want[] =
    "# HELP scaleprobe_probes_total SYNs sent, by what answered them.\n"
    "# TYPE scaleprobe_probes_total counter\n"
    "scaleprobe_probes_total{result=\"syn-ack\"} 120\n"
    "scaleprobe_probes_total{result=\"rst\"} 4\n"
    "scaleprobe_probes_total{result=\"icmp\"} 2\n"
    "scaleprobe_probes_total{result=\"none\"} 9\n"
    "# HELP scaleprobe_paths_total Path results stored, by verdict.\n"
    "# TYPE scaleprobe_paths_total counter\n"
    "scaleprobe_paths_total{verdict=\"ok\"} 30\n"
    "scaleprobe_paths_total{verdict=\"unsupported\"} 0\n"
    "scaleprobe_paths_total{verdict=\"rewritten\"} 6\n"
    "scaleprobe_paths_total{verdict=\"stripped\"} 0\n"
    "scaleprobe_paths_total{verdict=\"syn-dropped\"} 1\n"
    "scaleprobe_paths_total{verdict=\"closed\"} 0\n"
    "scaleprobe_paths_total{verdict=\"filtered\"} 2\n"
    "scaleprobe_paths_total{verdict=\"unreachable\"} 0\n"
    "scaleprobe_paths_total{verdict=\"inconclusive\"} 0\n"
    "# HELP scaleprobe_alerts_open Paths whose confirmed state is a problem.\n"
    "# TYPE scaleprobe_alerts_open gauge\n"
    "scaleprobe_alerts_open 3\n"
    "# HELP scaleprobe_targets Targets of this cycle, by where they stand.\n"
    "# TYPE scaleprobe_targets gauge\n"
    "scaleprobe_targets{state=\"due\"} 10\n"
    "scaleprobe_targets{state=\"in-flight\"} 2\n"
    "scaleprobe_targets{state=\"done\"} 5\n"
    "# HELP scaleprobe_scheduler_lag_seconds How late after its due time the latest target started.\n"
    "# TYPE scaleprobe_scheduler_lag_seconds gauge\n"
    "scaleprobe_scheduler_lag_seconds 0.012500\n"
    "# HELP scaleprobe_cycles_missed_total Target runs skipped because the one before overran its interval.\n"
    "# TYPE scaleprobe_cycles_missed_total counter\n"
    "scaleprobe_cycles_missed_total 1\n"
    "# HELP scaleprobe_writer_backlog Results and target states written and not yet committed to the database.\n"
    "# TYPE scaleprobe_writer_backlog gauge\n"
    "scaleprobe_writer_backlog 7\n"
    "# HELP scaleprobe_packets_rejected_total Packets refused: malformed, or answering no probe of ours, by the first reason.\n"
    "# TYPE scaleprobe_packets_rejected_total counter\n"
    "scaleprobe_packets_rejected_total{reason=\"truncated\"} 1\n"
    "scaleprobe_packets_rejected_total{reason=\"bad-header\"} 2\n"
    "scaleprobe_packets_rejected_total{reason=\"bad-quote\"} 3\n"
    "scaleprobe_packets_rejected_total{reason=\"bad-option\"} 4\n"
    "scaleprobe_packets_rejected_total{reason=\"bad-checksum\"} 5\n"
    "scaleprobe_packets_rejected_total{reason=\"unknown-flow\"} 6\n"
    "scaleprobe_packets_rejected_total{reason=\"unknown-quote\"} 11\n"
    "# HELP scaleprobe_packets_replayed_total SYN-ACKs of a flow that had its one RST (retransmitted or replayed), dropped.\n"
    "# TYPE scaleprobe_packets_replayed_total counter\n"
    "scaleprobe_packets_replayed_total 13\n"
    "# HELP scaleprobe_capture_drops_total Packets the capture ring dropped before scaleprobed read them.\n"
    "# TYPE scaleprobe_capture_drops_total counter\n"
    "scaleprobe_capture_drops_total 0\n"
    "# HELP scaleprobe_store_failing 1 while the database cannot be written (results wait in memory).\n"
    "# TYPE scaleprobe_store_failing gauge\n"
    "scaleprobe_store_failing 1\n"
    "# HELP scaleprobe_store_failed_writes_total Database transactions that failed and were rolled back to be written again.\n"
    "# TYPE scaleprobe_store_failed_writes_total counter\n"
    "scaleprobe_store_failed_writes_total 4\n"
    "# HELP scaleprobe_store_dropped_total Results and target states lost: the database failed with the memory bound full.\n"
    "# TYPE scaleprobe_store_dropped_total counter\n"
    "scaleprobe_store_dropped_total 13\n"
    "# HELP scaleprobe_store_bytes The database's size on disk, its WAL included.\n"
    "# TYPE scaleprobe_store_bytes gauge\n"
    "scaleprobe_store_bytes 52428800\n"
    "# HELP scaleprobe_store_oldest_result_timestamp_seconds When the oldest result kept was measured (retention removes what is older).\n"
    "# TYPE scaleprobe_store_oldest_result_timestamp_seconds gauge\n"
    "scaleprobe_store_oldest_result_timestamp_seconds 1764000000.000123456\n";

static struct metrics_snapshot
sample(void)
{
	struct metrics_snapshot s;

	memset(&s, 0, sizeof(s));
	s.probes[METRICS_REPLY_SYNACK] = 120;
	s.probes[METRICS_REPLY_RST] = 4;
	s.probes[METRICS_REPLY_ICMP] = 2;
	s.probes[METRICS_REPLY_NONE] = 9;
	s.paths[VERDICT_OK] = 30;
	s.paths[VERDICT_REWRITTEN] = 6;
	s.paths[VERDICT_SYN_DROPPED] = 1;
	s.paths[VERDICT_FILTERED] = 2;
	s.alerts_open = 3;
	s.targets_due = 10;
	s.targets_in_flight = 2;
	s.targets_done_cycle = 5;
	s.scheduler_lag_seconds = 0.0125;
	s.cycles_missed = 1;
	s.writer_backlog = 7;
	for (int i = 1; i < REPLY_REJECT_COUNT - 1; i++)
		s.packets_rejected[i] = (uint64_t)i;
	s.packets_rejected[REPLY_REJECT_QUOTE] = 11;
	s.packets_replayed = 13;
	s.store_failing = true;
	s.store_failed_writes = 4;
	s.store_dropped = 13;
	s.store_bytes = 52428800;
	s.store_oldest_ns = 1764000000000123456;
	return s;
}

static void
test_render_exact(void **state)
{
	char buf[8192];
	struct metrics_buf b = { buf, 0, sizeof(buf), false };
	struct metrics_snapshot s = sample();

	(void)state;
	assert_int_equal(metrics_render(&s, &b), 0);
	assert_int_equal(b.len, strlen(want));
	assert_string_equal(buf, want);
}

/* An empty store has no oldest result: the family, no sample (a 0 would
 * read as 1970). */
static void
test_no_oldest(void **state)
{
	char buf[8192];
	struct metrics_buf b = { buf, 0, sizeof(buf), false };
	struct metrics_snapshot s = sample();
	const char *fam = "# TYPE scaleprobe_store_oldest_result_timestamp_seconds gauge\n";

	(void)state;
	s.store_oldest_ns = 0;
	assert_int_equal(metrics_render(&s, &b), 0);
	assert_non_null(strstr(buf, fam));
	assert_string_equal(strstr(buf, fam) + strlen(fam), "");
}

static void
test_too_small(void **state)
{
	char buf[8192];
	struct metrics_snapshot s = sample();

	(void)state;
	for (size_t cap = 0; cap < strlen(want) + 1; cap += 97) {
		struct metrics_buf b = { buf, 0, cap, false };

		assert_int_equal(metrics_render(&s, &b), -1);
	}
	struct metrics_buf exact = { buf, 0, strlen(want) + 1, false };
	assert_int_equal(metrics_render(&s, &exact), 0);
	assert_string_equal(metrics_verdict_name((enum verdict)99), "none");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_exact),
		cmocka_unit_test(test_no_oldest),
		cmocka_unit_test(test_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
