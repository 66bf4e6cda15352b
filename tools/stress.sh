#!/bin/bash
# make stress: every lab / end-to-end suite STRESS_RUNS times in a row, then
# every fuzzer for FUZZ_SECONDS.  A suite passes a run only when it exits 0
# with no failed claim; the closing line counts runs.
# usage: stress.sh SUITE... -- FUZZER...
set -u
BUILD=${BUILD:-build}
RUNS=${STRESS_RUNS:-20}
suites=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do suites+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
fuzzers=("$@")
logdir=$BUILD/stress-logs
mkdir -p "$logdir"
pass=0
fail=0
for run in $(seq "$RUNS"); do
	for s in "${suites[@]}"; do
		name=$(basename "$s")
		log=$logdir/$name.$run.log
		start=$(date +%s)
		BUILD=$BUILD timeout 900 "$s" >"$log" 2>&1
		rc=$?
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
		if [ $rc -eq 0 ] && [ -n "$line" ] && [ "${line##*, }" = "0 failed" ]; then
			pass=$((pass + 1))
			echo "run $run $name: PASS ($line, $(( $(date +%s) - start )) s)"
		else
			fail=$((fail + 1))
			echo "run $run $name: FAIL (exit $rc, ${line:-no count}); log $log"
			grep '^FAIL' "$log" | head -n 5
		fi
	done
done
if [ ${#fuzzers[@]} -gt 0 ]; then
	if tests/fuzz/run-fuzzers.sh "$BUILD" "${fuzzers[@]}"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
fi
echo "stress: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
