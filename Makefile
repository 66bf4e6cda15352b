# scaleprobe -- one Makefile for the programs, the tests, the fuzzers and the lab.
#
#   make            build scaleprobe, scaleprobed and the lab's helpers (build/)
#   make check      install what is missing, build, run every test; ends "N passed, N failed"
#   make demo       install what is missing, build, probe every target of the lab
#   make bench      scaleprobe beside zmap and masscan on an AnyIP lab, then the
#                   full inference at growing sizes and over a mix with broken paths
#                   (tests/bench/mix-bench), the history's queries and
#                   report's and export's peak RSS on 1,000,000 results, the store
#                   writer's rows per second and memory, and the target lists of
#                   4,096 to 1,048,576 lines (tests/bench)
#   make bench-check  the bench figures (short forms) five times against
#                   tests/bench/targets.tsv: fails on a regression beyond their noise
#   make stress     the lab suites STRESS_RUNS (20) times, the fuzzers FUZZ_SECONDS each,
#                   the kill -9 loop (CRASH_KILLS, 100) and a fault at every store write,
#                   systemd-check with its watchdog step, then make check-san and bench-check
#   make check-san  the lab suites and a daemon cycle on an ASan+UBSan build of the
#                   programs (build/check-san), a daemon cycle under valgrind
#   make coverage   make check's suites on a --coverage build (build/cov), then
#                   lines and functions reached, per folder (tools/coverage.py)
#   make lint       the layers: which folder may include which (tools/lint.py)
#   make deps       install the Debian packages that building and testing need
#   make fuzz       run every libFuzzer harness for FUZZ_SECONDS seconds each
#   make fuzz-long  fuzzing that adds up across sessions: each harness short of
#                   1 CPU-hour for FUZZ_SECONDS (600) CPU s, FUZZ_JOBS (1) at a
#                   time, nice 19; merged into its corpus, tests/fuzz/ledger.tsv
#   make fuzz-ledger  the ledger's CPU-hours, coverage and crashes per harness
#   make fuzz-cov   each harness' corpus replayed on a clang coverage build:
#                   lines reached per harness (build/fuzzcov)
#   make install    PREFIX=/usr/local SYSCONFDIR=/etc DESTDIR= (programs, man pages,
#                   the example configuration, scaleprobed's unit, sysusers, tmpfiles,
#                   scaleprobe's bash completion)
#   make deb      the scaleprobe .deb (debian/), built in $(BUILD)/deb-src from
#                 the checkout's files, then lintian (errors, warnings fail)
#   make systemd-check  the package installed and its unit run in a booted container
#   make clean
#
# Three builds of the same sources, each in its own directory:
#   build/plain  $(CC) (gcc by default), what gets installed
#   build/san    clang, AddressSanitizer + UndefinedBehaviorSanitizer (unit tests)
#   build/fuzz   clang, libFuzzer + ASan + UBSan (one harness per parser entry point)
#   build/fuzzcov  clang source-based coverage of the same harnesses (make fuzz-cov)
#
# Source lists live in one fragment per directory (prober/files.mk, ...), one
# file per line, so each part of the tree names its own files.

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
# systemd reads units, sysusers.d and tmpfiles.d below /usr/local/lib as
# well as /usr/lib, so PREFIX decides these too
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
STATEDIR    ?= /var/lib
SYSCONFDIR  ?= /etc
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR     ?=
BUILD       ?= build
CLANG       ?= clang
FUZZ_SECONDS ?= 60
# make check runs each fuzzer this long
FUZZ_CHECK_SECONDS ?= 3

# V=1 shows every command; by default one line per file.
V ?= 0
ifeq ($(V),0)
say = @printf '  %-6s %s\n' $(1) $(2);
else
say =
endif

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wpointer-arith -Wformat=2 -Wvla -Wcast-align -Wundef
# SYSCONFDIR: where scaleprobe.conf is looked for (config/settings.h)
CSTD     = -std=c11 -D_DEFAULT_SOURCE -DSYSCONFDIR='"$(SYSCONFDIR)"'
OPT      ?= -O2 -g
INCLUDES = $(addprefix -Iprober/,lib wire net engine infer run cli daemon) -Iconfig -Idb

# libnet1-dev 1.1.6 ships no .pc file; its --defines carry -D_BSD_SOURCE,
# which glibc warns about (fatal under -Werror) unless _DEFAULT_SOURCE is set.
PKG_CFLAGS   := $(shell pkg-config --cflags libpcap libevent sqlite3 libpq libnftables libmnl 2>/dev/null) \
                $(shell libnet-config --defines 2>/dev/null)
# libpq is not linked: db/pq_lazy.c loads it on the first PostgreSQL connect
PKG_LIBS     := $(shell pkg-config --libs libpcap libevent sqlite3 libnftables libmnl 2>/dev/null) \
                $(shell libnet-config --libs 2>/dev/null)
# fuzz_store links the store, both engines (the fuzzing and the coverage
# builds): libpq's header is outside /usr/include
PQ_CFLAGS    := $(shell pkg-config --cflags libpq 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)
NFQ_CFLAGS    := $(shell pkg-config --cflags libnetfilter_queue libmnl 2>/dev/null)
NFQ_LIBS      := $(shell pkg-config --libs libnetfilter_queue libmnl 2>/dev/null)

SAN_FLAGS  = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZCOV_FLAGS = -fprofile-instr-generate -fcoverage-mapping

# Fragments append to these.
PURE_SRCS   =   # no I/O at all: parsers, inference; linked into tests and fuzzers
PROBER_SRCS =   # the I/O edges shared by scaleprobe and scaleprobed
CLI_SRCS    =   # scaleprobe only
DAEMON_SRCS =   # scaleprobed only
UNIT_TESTS  =   # names of tests/unit/NAME.c, each a cmocka program
FUZZERS     =   # names of tests/fuzz/NAME.c, each a libFuzzer harness (and NAME_SRCS)
LAB_PROGS   =   # programs of the lab, each NAME with NAME_SRCS
BENCH_PROGS =   # programs of make bench, each NAME with NAME_SRCS
LAB_CHECKS  =   # lab scripts run by make check, each ending "N passed, N failed"
STRESS_LONG =   # of those, the ones make stress runs once in their long form
STRESS_ONLY =   # lab scripts only make stress runs (STRESS_RUNS times)
MAN_PAGES   =   # mdoc pages beside their programs
PROGRAMS    =   # installed programs (scaleprobe, scaleprobed)

include prober/files.mk
include db/files.mk
include config/files.mk
include tests/unit/files.mk
include tests/fuzz/files.mk
include tests/lab/files.mk
include tests/fault/files.mk
include tests/e2e/files.mk
include tests/bench/files.mk

.PHONY: check-san check-san-run bench bench-run bench-check bench-check-run coverage all check check-run lint deps demo demo-run stress stress-run fuzz install clean unit san fuzzers lab-progs fuzz-long fuzz-ledger fuzz-cov
.DEFAULT_GOAL := all

all: $(addprefix $(BUILD)/plain/,$(PROGRAMS)) lab-progs

# --- object rules, one per build ------------------------------------------

$(BUILD)/plain/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CSTD) $(OPT) $(WARN) $(INCLUDES) $(PKG_CFLAGS) $(CMOCKA_CFLAGS) $(NFQ_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/san/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC-SAN,$<)$(CLANG) $(CSTD) -O1 -g $(WARN) $(SAN_FLAGS) $(INCLUDES) $(PKG_CFLAGS) $(CMOCKA_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC-FUZ,$<)$(CLANG) $(CSTD) -O1 -g $(WARN) $(FUZZ_FLAGS) $(INCLUDES) $(PQ_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/fuzzcov/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC-COV,$<)$(CLANG) $(CSTD) -O0 -g $(WARN) $(FUZZCOV_FLAGS) $(INCLUDES) $(PQ_CFLAGS) -MMD -MP -c -o $@ $<

objs = $(addprefix $(BUILD)/$(1)/,$(2:.c=.o))

# --- programs ---------------------------------------------------------------

$(BUILD)/plain/scaleprobe: $(call objs,plain,$(CLI_SRCS) $(PROBER_SRCS) $(PURE_SRCS))
	$(call say,LD,$@)$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/plain/scaleprobed: $(call objs,plain,$(DAEMON_SRCS) $(PROBER_SRCS) $(PURE_SRCS))
	$(call say,LD,$@)$(CC) $(OPT) -o $@ $^ $(PKG_LIBS) -lm

lab-progs: $(addprefix $(BUILD)/plain/lab/,$(LAB_PROGS))

define lab_prog_rule
$(BUILD)/plain/lab/$(1): $(call objs,plain,$($(1)_SRCS))
	@mkdir -p $$(@D)
	$(call say,LD,$$@)$(CC) $(OPT) -o $$@ $$^ $(NFQ_LIBS) $($(1)_LIBS)
endef
$(foreach p,$(LAB_PROGS),$(eval $(call lab_prog_rule,$(p))))

define bench_prog_rule
$(BUILD)/plain/bench/$(1): $(call objs,plain,$($(1)_SRCS))
	@mkdir -p $$(@D)
	$(call say,LD,$$@)$(CC) $(OPT) -o $$@ $$^ $($(1)_LIBS)
endef
$(foreach p,$(BENCH_PROGS),$(eval $(call bench_prog_rule,$(p))))

# --- unit tests: plain and sanitized ---------------------------------------

define unit_rule
$(BUILD)/plain/tests/unit/$(1): $(call objs,plain,tests/unit/$(1).c $(PURE_SRCS) $($(1)_SRCS))
	$(call say,LD,$$@)$(CC) $(OPT) -o $$@ $$^ $(CMOCKA_LIBS) $($(1)_LIBS) -lm
$(BUILD)/san/tests/unit/$(1): $(call objs,san,tests/unit/$(1).c $(PURE_SRCS) $($(1)_SRCS))
	$(call say,LD,$$@)$(CLANG) -O1 -g $(SAN_FLAGS) -o $$@ $$^ $(CMOCKA_LIBS) $($(1)_LIBS) -lm
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

unit: $(addprefix $(BUILD)/plain/tests/unit/,$(UNIT_TESTS))
san:  $(addprefix $(BUILD)/san/tests/unit/,$(UNIT_TESTS))

# --- fuzzers ----------------------------------------------------------------

define fuzz_rule
$(BUILD)/fuzz/tests/fuzz/$(1): $(call objs,fuzz,tests/fuzz/$(1).c $(PURE_SRCS) $($(1)_SRCS))
	$(call say,LD,$$@)$(CLANG) -O1 -g $(FUZZ_FLAGS) -o $$@ $$^ $($(1)_LIBS) -lm
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_rule,$(f))))

# the coverage build: libFuzzer's driver only runs the inputs it is named
define fuzzcov_rule
$(BUILD)/fuzzcov/tests/fuzz/$(1): $(call objs,fuzzcov,tests/fuzz/$(1).c $(PURE_SRCS) $($(1)_SRCS))
	$(call say,LD,$$@)$(CLANG) -fsanitize=fuzzer $(FUZZCOV_FLAGS) -o $$@ $$^ $($(1)_LIBS) -lm
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzzcov_rule,$(f))))

fuzzers: $(addprefix $(BUILD)/fuzz/tests/fuzz/,$(FUZZERS))

# Runs every harness for FUZZ_SECONDS on a scratch copy of its seed corpus,
# so the repository's seeds stay as committed.
fuzz: fuzzers
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run-fuzzers.sh $(BUILD) $(FUZZERS)

# Fuzzing that counts (tests/fuzz/fuzz_long.py): the harnesses short of
# their goal, least-run first, each for a CPU budget; its inputs merged and
# minimized into tests/fuzz/corpus/NAME, failures kept in crashes/NAME, a
# line in tests/fuzz/ledger.tsv.  FUZZ_UNTIL=HH:MM (UTC) stops it in time.
FUZZ_JOBS ?= 1
FUZZ_LONG_SECONDS = $(if $(filter file,$(origin FUZZ_SECONDS)),600,$(FUZZ_SECONDS))
fuzz-long: fuzzers
	FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) nice -n 19 \
	  python3 tests/fuzz/fuzz_long.py $(BUILD) \
	  $(foreach f,$(FUZZERS),$(f)$(if $($(f)_MAX_LEN),:$($(f)_MAX_LEN)))

fuzz-ledger:
	@python3 tests/fuzz/fuzz_ledger.py $(FUZZERS)

# Each harness' committed corpus (and kept failures) replayed on the
# coverage build; the lines reached of the files it runs (fuzz_cov.py).
# FUZZ_COV_FLAGS=-v: one line per file too.
fuzz-cov: deps
	@$(MAKE) --no-print-directory $(addprefix $(BUILD)/fuzzcov/tests/fuzz/,$(FUZZERS))
	@python3 tests/fuzz/fuzz_cov.py $(FUZZ_COV_FLAGS) $(BUILD) $(FUZZERS)

# --- check ------------------------------------------------------------------

deps:
	@sh tools/deps.sh

# deps first, then a fresh make: the pkg-config lines above are read when make
# starts, and on a new machine the packages arrive only with deps.
# The build in parallel (one job per core: about 35 s of the ten minutes on
# two cores); the tests after it, one suite at a time, because the lab's
# timings must not share the cores with a compiler.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check: deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) all unit san fuzzers
	@$(MAKE) --no-print-directory check-run

# The layers: includes point one way, system libraries only where they
# belong, every file's first comment names it.
lint:
	@python3 tools/lint.py .

# The package booted under a real systemd (tests/e2e/systemd-check): on unless
# SYSTEMD_CHECK=0, which the summary shows as a skip.
SYSTEMD_CHECK ?= 1
check-run: all unit san fuzzers
	@rm -rf $(BUILD)/test-cache
	@RUNNER_OPTIONAL="$(RUNNER_OPTIONAL) $(if $(filter 0,$(SYSTEMD_CHECK)),systemd-check)" \
	  RUNNER_LOGDIR=$(BUILD)/test-logs HISTORY_STORE_CACHE=$(BUILD)/test-cache \
	  tests/runner.sh \
	  "count:lint:python3 tools/lint.py ." \
	  "count:lint/selftest:tests/lint/lint-selftest" \
	  "count:runner/selftest:tests/runner-selftest" \
	  "count:bench/bench-check-logic:python3 tests/bench/test_bench_check.py" \
	  $(foreach t,$(UNIT_TESTS),"tap:unit/$(t):$(BUILD)/plain/tests/unit/$(t)") \
	  $(foreach t,$(UNIT_TESTS),"tap:asan+ubsan/$(t):$(BUILD)/san/tests/unit/$(t)") \
	  $(foreach f,$(FUZZERS),"fuzz:fuzz/$(f):FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) tests/fuzz/run-fuzzers.sh $(BUILD) $(f)") \
	  $(foreach l,$(LAB_CHECKS),"count:lab/$(notdir $(l)):BUILD=$(BUILD) $(l)") \
	  "count:systemd-check:SYSTEMD_CHECK=$(SYSTEMD_CHECK) BUILD=$(BUILD) tests/e2e/systemd-check"

# --- bench ------------------------------------------------------------------

# zmap and masscan come from Debian like everything else (tools/deps.sh bench).
bench: deps
	@sh tools/deps.sh bench
	@$(MAKE) --no-print-directory bench-run

bench-run: all $(addprefix $(BUILD)/plain/bench/,$(BENCH_PROGS))
	@BUILD=$(BUILD) tests/bench/syn-bench
	@$(BUILD)/plain/bench/history_bench $(BUILD)/history_bench.sqlite
	@BUILD=$(BUILD) tests/bench/report-rss $(BUILD)/report_bench.sqlite
	@BUILD=$(BUILD) tests/bench/infer-bench
	@BUILD=$(BUILD) tests/bench/store-bench
	@BUILD=$(BUILD) tests/bench/list-bench
	@BUILD=$(BUILD) tests/bench/mix-bench

# The bench figures of tests/bench/targets.tsv, five runs, as ratios to zmap or
# to a reference build in the same run: fails on a regression beyond the noise.
bench-check: deps
	@sh tools/deps.sh bench
	@$(MAKE) --no-print-directory bench-check-run

bench-check-run: all $(addprefix $(BUILD)/plain/bench/,$(BENCH_PROGS))
	@BUILD=$(BUILD) tests/bench/bench-check

# --- coverage -------------------------------------------------------------

# The same suites as make check, on a gcc --coverage build of its own; a
# suite that fails still counts for what it reached, so the report runs
# whatever the suites say.
coverage: deps
	-@$(MAKE) --no-print-directory BUILD=build/cov OPT="-O0 -g --coverage" check-run
	@python3 tools/coverage.py build/cov

# --- demo -------------------------------------------------------------------

# The lab up, every lab target probed, the results printed, the lab down.
demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: all
	@BUILD=$(BUILD) tools/demo.sh

# --- stress -------------------------------------------------------------------

# What takes too long for every check: the lab and end-to-end suites run
# STRESS_RUNS times in a row (every run must pass unchanged) and the fuzzers
# for FUZZ_SECONDS each; the suites of STRESS_LONG once, in their long form
# (CRASH_KILLS kills -9, a fault at every write and sync: IOFAULT_ALL, the shared
# store down a minute: UPLOAD_OUTAGE_S); and the suites of STRESS_ONLY, whose
# minute make check's budget has no room for, STRESS_RUNS times with the rest.
STRESS_RUNS ?= 20
CRASH_KILLS ?= 100
stress: deps
	@sh tools/deps.sh bench
	@$(MAKE) --no-print-directory stress-run

stress-run: all fuzzers
	@rc=0; BUILD=$(BUILD) STRESS_RUNS=1 CRASH_KILLS=$(CRASH_KILLS) IOFAULT_ALL=1 UPLOAD_OUTAGE_S=60 \
	  tools/stress.sh $(STRESS_LONG) -- || rc=1; \
	BUILD=$(BUILD) STRESS_RUNS=$(STRESS_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  ENGINE_MIXED_PATHS=5000 ENGINE_RATE_PATHS=300 \
	  REPLAY_TOTAL=5000000 REPLAY_PREFIX=198.19.2.0/24 HOSTILE_SECONDS=30 \
	  SELFTEST_MP_WAYS="auto nft" \
	  tools/stress.sh $(filter-out $(STRESS_LONG),$(LAB_CHECKS)) $(STRESS_ONLY) -- $(FUZZERS) || rc=1; \
	SYSTEMD_CHECK_WATCHDOG=1 BUILD=$(BUILD) tests/e2e/systemd-check || rc=1; \
	$(MAKE) --no-print-directory check-san-run || rc=1; \
	$(MAKE) --no-print-directory bench-check-run || rc=1; \
	exit $$rc

# --- check-san ----------------------------------------------------------------

# scaleprobe, scaleprobed and the lab's helpers built with ASan+UBSan in a
# directory of their own (what a lab suite runs is BUILD/plain/...), the lab
# suites run against them with every sanitizer report counted as a failure,
# one daemon cycle on them, and one on the plain build under valgrind
# (tests/san/check-san).  SAN_SKIP: suites that measure what a sanitizer
# changes by design, each with its reason in tests/san/README.md.
SAN_BUILD = $(BUILD)/check-san
SAN_SKIP ?=
check-san: deps
	@$(MAKE) --no-print-directory check-san-run

check-san-run: all
	@$(MAKE) --no-print-directory BUILD=$(SAN_BUILD) CC=$(CLANG) OPT="-O1 -g $(SAN_FLAGS)" \
	  all $(SAN_BUILD)/plain/tests/unit/test_retention
	@tests/san/check-san $(SAN_BUILD) $(BUILD) $(filter-out $(SAN_SKIP),$(LAB_CHECKS))

# --- install ----------------------------------------------------------------

# An existing scaleprobe.conf is the administrator's: never replaced.
install: $(addprefix $(BUILD)/plain/,$(PROGRAMS))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR)
	$(if $(filter scaleprobe,$(PROGRAMS)),install -m 0755 $(BUILD)/plain/scaleprobe $(DESTDIR)$(BINDIR)/scaleprobe)
	$(if $(filter scaleprobed,$(PROGRAMS)),install -m 0755 $(BUILD)/plain/scaleprobed $(DESTDIR)$(SBINDIR)/scaleprobed)
	install -d $(DESTDIR)$(SYSCONFDIR)/scaleprobe
	test -e $(DESTDIR)$(SYSCONFDIR)/scaleprobe/scaleprobe.conf || \
	  install -m 0644 config/scaleprobe.conf $(DESTDIR)$(SYSCONFDIR)/scaleprobe/scaleprobe.conf
	$(if $(filter scaleprobed,$(PROGRAMS)),install -d $(DESTDIR)$(SYSTEMDUNITDIR) \
	  $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) && \
	  sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    -e 's|@STATEDIR@|$(STATEDIR)|g' systemd/scaleprobed.service.in \
	    >$(DESTDIR)$(SYSTEMDUNITDIR)/scaleprobed.service && \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/scaleprobed.service && \
	  install -m 0644 systemd/scaleprobe.sysusers $(DESTDIR)$(SYSUSERSDIR)/scaleprobe.conf && \
	  install -m 0644 systemd/scaleprobe.tmpfiles $(DESTDIR)$(TMPFILESDIR)/scaleprobe.conf)
	$(if $(filter scaleprobe,$(PROGRAMS)),install -d $(DESTDIR)$(BASHCOMPDIR) && \
	  install -m 0644 prober/cli/scaleprobe.bash-completion $(DESTDIR)$(BASHCOMPDIR)/scaleprobe)
	$(foreach m,$(MAN_PAGES),install -d $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m))) && \
	  install -m 0644 $(m) $(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m));)
	install -d $(DESTDIR)$(PREFIX)/share/scaleprobe
	install -m 0644 prober/cli/export.schema.json $(DESTDIR)$(PREFIX)/share/scaleprobe/export.schema.json
	install -m 0644 db/roles.sql $(DESTDIR)$(PREFIX)/share/scaleprobe/roles.sql

# --- Debian package -----------------------------------------------------------

# dpkg-buildpackage writes beside the source tree, so the tree is a copy of
# the checkout's files (tracked and new, not ignored) under $(BUILD)/deb-src.
DEB_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
DEB_SRC     = $(BUILD)/deb-src
DEB_FILE    = $(DEB_SRC)/scaleprobe_$(DEB_VERSION)_$(shell dpkg --print-architecture).deb
.PHONY: deb
deb:
	@sh tools/deps.sh deb
	rm -rf $(DEB_SRC) && mkdir -p $(DEB_SRC)/scaleprobe
	git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t $(DEB_SRC)/scaleprobe
	cd $(DEB_SRC)/scaleprobe && dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning --info $(DEB_SRC)/scaleprobe_$(DEB_VERSION)_*.changes
	@echo "deb: $(DEB_FILE)"

# The package booted under systemd (tests/e2e/systemd-check); make stress adds
# its watchdog step.
.PHONY: systemd-check
systemd-check:
	@BUILD=$(BUILD) tests/e2e/systemd-check

clean:
	rm -rf $(BUILD)

# (not the package's tree: its own build, and directories named *.d)
-include $(shell find $(BUILD) -path $(BUILD)/deb-src -prune -o -name '*.d' -type f -print 2>/dev/null)
