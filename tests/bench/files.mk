# tests/bench/: make bench -- scaleprobe beside zmap and masscan on an AnyIP
# lab of its own (issue 19); not part of make check.
BENCH_PROGS += span
span_SRCS = tests/bench/span.c
BENCH_PROGS += listener
listener_SRCS = tests/bench/listener.c
