# tests/unit/: cmocka programs, each linked with PURE_SRCS (and NAME_SRCS).
UNIT_TESTS +=

# the lab's middlebox emulator (tests/lab/mbox_*), tested without a kernel
UNIT_TESTS += test_mbox_mangle
test_mbox_mangle_SRCS = \
	tests/lab/mbox_mangle.c \
	tests/lab/mbox_rules.c
UNIT_TESTS += test_mbox_rules
test_mbox_rules_SRCS = \
	tests/lab/mbox_rules.c


# the pure building blocks of the engine and the CLI
UNIT_TESTS += test_siphash
UNIT_TESTS += test_permute
UNIT_TESTS += test_target_space
UNIT_TESTS += test_cookie
# --source-range: parsed, refused with its reason, one source per path
UNIT_TESTS += test_srcrange
UNIT_TESTS += test_portplan
# a path's flows to one verdict per scale, its share and its reason
UNIT_TESTS += test_infer_flows
UNIT_TESTS += test_ratelimit
# the ring between the loop and the sending thread: steps, wraps, two threads
UNIT_TESTS += test_send_ring
UNIT_TESTS += test_trace
UNIT_TESTS += test_router_pace
UNIT_TESTS += test_targets
# a target list read as a stream (bounded lines, hostile bytes) and the
# compact set of the pairs a streamed list sent
UNIT_TESTS += test_target_stream
# the compact set of the pairs a streamed list sent: bounds, duplicates
# across the whole range, merges, the bytes a pair
UNIT_TESTS += test_addrset
test_targets_SRCS = \
	prober/lib/targets_file.c
UNIT_TESTS += test_blocklist
UNIT_TESTS += test_json
UNIT_TESTS += test_log
UNIT_TESTS += test_textsafe
UNIT_TESTS += test_when
UNIT_TESTS += test_unixaddr
UNIT_TESTS += test_shard
UNIT_TESTS += test_strbuf
UNIT_TESTS += test_addr_prefix

# the engine driven by a fake wire, and the verdict table
UNIT_TESTS += test_engine
test_engine_SRCS = \
	tests/unit/pktbuild.c
UNIT_TESTS += test_infer

# scaleprobed's scheduler on an injected clock, and its alerts
UNIT_TESTS += test_schedule
# units waiting for room in the runner (max-inflight), and the descriptors it costs
UNIT_TESTS += test_startq
UNIT_TESTS += test_fdbudget
# a path's scales as one alert (raise, change, clear, read back after a
# restart) and raises grouped by hop into incidents
UNIT_TESTS += test_alert_state
# alert tracks freed when idle, under a key, a quiet path folded to 40 bytes
# with the same alerts; the alert command's output cap,
# timeout steps and the retries of a failed run (alert-retry, 6 times it; 3 runs)
UNIT_TESTS += test_tracks
UNIT_TESTS += test_alertrun
UNIT_TESTS += test_metrics
# /metrics' request handling: what a request asks for, its limit, the replies
UNIT_TESTS += test_http_req
# on-demand requests on the control socket: the parse, the targets each mode
# lets through, each user's rate
UNIT_TESTS += test_demand
UNIT_TESTS += test_notify
# what scaleprobed accepts at a name it changes as root
UNIT_TESTS += test_statedir

# the evidence files of export --pcap
UNIT_TESTS += test_pcapng
test_pcapng_SRCS = tests/unit/pktbuild.c
UNIT_TESTS += test_csv
test_notify_SRCS = prober/daemon/notify.c

# the packet parsers (prober/wire/wire_*), on captured samples and hand-made cases
WIRE_TEST_SRCS = \
	tests/unit/samples.c \
	tests/unit/wire_testutil.c
UNIT_TESTS += test_wire_ip
test_wire_ip_SRCS = $(WIRE_TEST_SRCS)
UNIT_TESTS += test_wire_tcp
test_wire_tcp_SRCS = $(WIRE_TEST_SRCS)
UNIT_TESTS += test_wire_tcpopt
test_wire_tcpopt_SRCS = $(WIRE_TEST_SRCS)
UNIT_TESTS += test_wire_icmp
test_wire_icmp_SRCS = $(WIRE_TEST_SRCS)
UNIT_TESTS += test_wire_packet
test_wire_packet_SRCS = $(WIRE_TEST_SRCS)
# why a captured packet is refused: each lie of a hostile host by its first defect
UNIT_TESTS += test_reply_reject
test_reply_reject_SRCS = tests/unit/pktbuild.c

# the trace's quote comparison and the verdict table, on the lab as a model
# (tests/unit/labpath.c runs the lab's own mbox surgery)
LABPATH_SRCS = \
	tests/unit/labpath.c \
	tests/unit/pktbuild.c \
	tests/lab/mbox_mangle.c \
	tests/lab/mbox_rules.c
UNIT_TESTS += test_quote
test_quote_SRCS = $(LABPATH_SRCS)
test_infer_SRCS = $(LABPATH_SRCS)
UNIT_TESTS += test_infer_lab
test_infer_lab_SRCS = $(LABPATH_SRCS) \
	tests/unit/labcases.c

# the window test: its state machine against a Linux-like server model,
# fed by hand, and its requests (prober/engine/window.c, prober/engine/request.c)
UNIT_TESTS += test_window
test_window_SRCS = tests/unit/window_sim.c
UNIT_TESTS += test_window_input
UNIT_TESTS += test_request
# output.c: the NDJSON contract and the table, byte for byte
UNIT_TESTS += test_output
# the evidence a result carries, and its stored form
UNIT_TESTS += test_evidence
# the store (db/): schema, fixtures, refusals, the batched writer, retention, and a
# COMMIT failed by a full disk (faultvfs.c): no row lost nor under another's ids
UNIT_TESTS += test_store
test_store_SRCS = $(DB_SRCS) tests/unit/storegen.c tests/unit/faultvfs.c
test_store_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
# the clock's synchronisation read from timesyncd's flag and chronyc's CSV line
UNIT_TESTS += test_clocksync
# the upload's pure parts: backoff, the text sent of a hostile one, the stale alert,
# which store identities are taken, a batch read from a tampered store
UNIT_TESTS += test_upload
test_upload_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_upload_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
# retention as the daemon runs it (store_prune_step) on a store aged 500 days:
# the rule's rows left, show's story unchanged, the file shrunk, a reader
# beside it never sees a path half pruned; a dry run counts and writes nothing
UNIT_TESTS += test_retention
test_retention_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_retention_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null) -lpthread
# the store's readers: a writer's close keeps the -wal and -shm; a reader after a
# clean close and after a kill -9 (rows in the WAL alone) reads every row, changes no byte
UNIT_TESTS += test_store_readers
test_store_readers_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_store_readers_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
# the writer's WAL under its bound with readers about, a reader in the way said
UNIT_TESTS += test_store_walbound
test_store_walbound_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_store_walbound_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
# scaleprobed's open alerts in the store: written, changed and cleared through the
# writer, committed at once, read back per vantage
UNIT_TESTS += test_store_alert
test_store_alert_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_store_alert_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
# the settings table and scaleprobe.conf's parser, printer and opt-out lists
UNIT_TESTS += test_conf
test_conf_SRCS = config/conf_file.c prober/lib/targets_file.c
# sharded groups: shard and replicas parsed and refused, each vantage's targets marked
UNIT_TESTS += test_conf_shard
# the resolver's queue (prober/net/resolve.c) on a hosts file of its own
UNIT_TESTS += test_resolve
test_resolve_SRCS = prober/net/resolve.c
test_resolve_LIBS = $(shell pkg-config --libs libevent 2>/dev/null)
# show and export: the fold, the rows as CSV and JSON, the
# reader on a store (order, plan, groups, evidence, hand-edited files)
UNIT_TESTS += test_history
test_history_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_history_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
# report and advice: what to do per verdict and side; the
# report's numbers and renderings from rows made by hand
UNIT_TESTS += test_advice
UNIT_TESTS += test_report
# report's query on a store filled through store_add (storegen.c)
UNIT_TESTS += test_report_query
test_report_query_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_report_query_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)

# the store suite both engines pass (STORE_ENGINE_DB: a PostgreSQL URI;
# tests/e2e/store-engines runs it against SQLite and a throw-away server)
UNIT_TESTS += test_store_engines
test_store_engines_SRCS = $(DB_SRCS) tests/unit/storegen.c
test_store_engines_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null)
