# tests/fuzz/: one libFuzzer harness per parser entry point; seeds in corpus/NAME/.
FUZZERS +=
# the target-file parser (prober/targets.c)
FUZZERS += fuzz_targets
# the packet parsers (prober/wire_*)
FUZZERS += fuzz_ip
FUZZERS += fuzz_tcpopt
FUZZERS += fuzz_icmp
FUZZERS += fuzz_packet
# the trace's quote comparison (prober/quote.c)
FUZZERS += fuzz_quote
# the window test's state machine (prober/window.c)
FUZZERS += fuzz_window
