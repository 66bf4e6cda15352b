# tests/bench/: make bench -- scaleprobe beside zmap and masscan on an AnyIP
# lab of its own; not part of make check.
BENCH_PROGS += span
span_SRCS = tests/bench/span.c
BENCH_PROGS += listener
listener_SRCS = tests/bench/listener.c
# the store's batched writer, for prober/design-notes.md ("The store"); make
# bench runs it through tests/bench/store-bench (five runs, medians, targets):
#   make build/plain/bench/store_bench && build/plain/bench/store_bench FILE N [0|1]
BENCH_PROGS += store_bench
store_bench_SRCS = tests/bench/store_bench.c tests/unit/storegen.c $(DB_SRCS) $(PURE_SRCS)
store_bench_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null) -lm
# show HOST's query on 65,536 hosts x 15 results, for db/README.md;
# the upload's results per second into PostgreSQL, from store_bench's file:
#   build/plain/bench/upload_bench FILE URI
BENCH_PROGS += upload_bench
upload_bench_SRCS = tests/bench/upload_bench.c $(DB_SRCS) $(PURE_SRCS)
upload_bench_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null) -lm
# also the generator of tests/bench/report-rss's store of 1,000,000 results:
#   build/plain/bench/history_bench FILE [HOSTS RESULTS QUERIES LIMIT_US]
BENCH_PROGS += history_bench
history_bench_SRCS = tests/bench/history_bench.c tests/unit/storegen.c $(DB_SRCS) $(PURE_SRCS)
history_bench_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null) -lm
# the full inference's server: a fixed body on every port asked
BENCH_PROGS += httpd
httpd_SRCS = tests/bench/httpd.c
