# tests/fuzz/: one libFuzzer harness per parser entry point; seeds in corpus/NAME/.
FUZZERS +=
# the target-file parser (prober/lib/targets.c)
FUZZERS += fuzz_targets
# the packet parsers (prober/wire/wire_*)
FUZZERS += fuzz_ip
FUZZERS += fuzz_tcpopt
FUZZERS += fuzz_icmp
FUZZERS += fuzz_packet
# the trace's quote comparison (prober/wire/quote.c)
FUZZERS += fuzz_quote
# the window test's state machine (prober/engine/window.c)
FUZZERS += fuzz_window
# the engine's input: replies built on the SYNs it sent, hostile fields, raw bytes
FUZZERS += fuzz_engine
fuzz_engine_SRCS = tests/unit/pktbuild.c
# the store's packed evidence (prober/lib/evidence.c)
FUZZERS += fuzz_evidence
# scaleprobe.conf's parser and print-back (config/conf_parse.c, conf_print.c)
FUZZERS += fuzz_conf
# /metrics' request handling (prober/daemon/http_req.c)
FUZZERS += fuzz_http_req
# the control socket's on-demand requests (prober/daemon/demand_req.c)
FUZZERS += fuzz_demand_req
# the store's readers given a foreign database file: db check, show,
# export and report (db/, prober/cli/show_*, export_*, report*); its inputs
# are files, or edits to the real stores of store-templates/
FUZZERS += fuzz_store
fuzz_store_SRCS = $(DB_SRCS)
fuzz_store_LIBS = -lsqlite3
