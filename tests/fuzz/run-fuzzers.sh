#!/bin/sh
# Run libFuzzer harnesses, each for FUZZ_SECONDS, on a scratch copy of its
# committed seed corpus (tests/fuzz/corpus/NAME), and print executions per
# second.  A crash leaves its input in BUILD/fuzz-artifacts/NAME/ and fails.
# First, each input that once failed (tests/fuzz/crashes/NAME/, kept by make
# fuzz-long) is run again: a regression fails here.
# usage: run-fuzzers.sh BUILD NAME...
set -u
build=$1; shift
secs=${FUZZ_SECONDS:-60}
status=0
for name in "$@"; do
	bin="$build/fuzz/tests/fuzz/$name"
	work="$build/fuzz-corpus/$name"
	art="$build/fuzz-artifacts/$name"
	log="$build/fuzz-$name.log"
	if [ ! -x "$bin" ]; then
		echo "fuzz: $name: $bin not built" >&2
		status=1
		continue
	fi
	mkdir -p "$work" "$art"
	if [ -d "tests/fuzz/corpus/$name" ]; then
		cp -r "tests/fuzz/corpus/$name/." "$work/"
	fi
	crashes=$(find "tests/fuzz/crashes/$name" -type f 2>/dev/null | sort)
	if [ -n "$crashes" ]; then
		# shellcheck disable=SC2086
		if ! "$bin" -runs=1 -timeout=10 -rss_limit_mb=1024 $crashes >"$log" 2>&1; then
			tail -n 40 "$log"
			echo "fuzz: $name: FAILED on an input that once failed (tests/fuzz/crashes/$name/)"
			status=1
			continue
		fi
		ncrash=$(echo "$crashes" | wc -l)
	else
		ncrash=0
	fi
	"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
		-rss_limit_mb=1024 -artifact_prefix="$art/" "$work" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 | sed -E 's/.*cov: ([0-9]+).*/\1/')
	if [ $rc -ne 0 ]; then
		tail -n 40 "$log"
		echo "fuzz: $name: FAILED (exit $rc), inputs in $art/"
		status=1
	else
		echo "fuzz: $name: ${execs:-?} executions in ${secs} s, ${rate:-?} exec/s, coverage ${cov:-?} edges, $ncrash old failures replayed"
	fi
done
exit $status
