#!/bin/sh
# Run test suites and close with one line CI understands: "N passed, N failed"
# (", N skipped" after it when a suite skipped).
#
# usage: runner.sh KIND:NAME:COMMAND ...
#   tap    a cmocka program; its TAP lines ("ok N", "not ok N") are counted,
#          and they must match its plan ("1..N")
#   count  a script whose last "N passed, N failed" line is taken as its count
#   fuzz   a fuzz run: one case, passed when the command exits 0
#
# A run cannot pass without checking something.  Each of these counts one
# failure, with a line saying why:
#   - a suite that exits non-zero without reporting a failure (a crash, a
#     sanitizer report, a missing binary);
#   - a suite that reports no result at all, or counts "0 passed, 0 failed";
#   - a TAP suite whose results differ from its plan (one that died halfway);
#   - a suite still running after RUNNER_TIMEOUT seconds (default 900): it
#     is killed;
#   - a suite that prints a line starting with SKIP, when CI is set, unless
#     its name is listed in RUNNER_OPTIONAL (spaces between names).  Outside
#     CI a skip is reported as such and counted skipped.
# The output of every suite is kept in $RUNNER_LOGDIR (default build/test-logs).
set -u

logdir=${RUNNER_LOGDIR:-build/test-logs}
limit=${RUNNER_TIMEOUT:-900}
optional=" ${RUNNER_OPTIONAL:-} "
mkdir -p "$logdir"
: >"$logdir/.failures"
total_pass=0
total_fail=0
total_skip=0
run_start=$(date +%s)
failed_suites=""

for spec in "$@"; do
	kind=${spec%%:*}
	rest=${spec#*:}
	name=${rest%%:*}
	cmd=${rest#*:}
	log="$logdir/$(printf '%s' "$name" | tr '/+' '__').log"
	why=""

	printf '=== %s\n' "$name"
	t0=$(date +%s%N)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout --kill-after=10 "$limit" sh -c "$cmd" >"$log" 2>&1
	rc=$?
	# how long each suite takes: make check has a budget (10 minutes)
	secs=$(( ($(date +%s%N) - t0) / 100000000 ))
	secs="$((secs / 10)).$((secs % 10)) s"
	case "$kind" in
	tap)
		p=$(grep -c '^ok ' "$log")
		# cmocka writes a skipped test "not ok N # SKIP": TAP's directive
		# says it neither passed nor failed (test_store_engines skips
		# its PostgreSQL-only tests when it is given no server)
		sk=$(grep -c '^not ok [0-9][0-9]* # SKIP' "$log")
		f=$(($(grep -c '^not ok ' "$log") - sk))
		plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | tail -n 1)
		if [ -z "$plan" ]; then
			why="no TAP plan (1..N)"
		elif [ $((p + f + sk)) -ne "$plan" ]; then
			why="TAP plan 1..$plan but $((p + f + sk)) results"
		fi
		;;
	count)
		line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
		p=$(printf '%s' "$line" | sed -E 's/.*(^|[ :])([0-9]+) passed.*/\2/')
		f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		if [ -z "$line" ]; then
			p=0; f=0
			why="no \"N passed, N failed\" line"
		fi
		;;
	fuzz)
		if [ $rc -eq 0 ]; then p=1; f=0; else p=0; f=1; fi
		;;
	*)
		echo "runner: unknown suite kind '$kind' in '$spec'" >&2
		p=0; f=1
		;;
	esac
	[ -z "$why" ] && [ $((p + f)) -eq 0 ] && why="no result counted"
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && why="timed out after $limit s"
	skipped=0
	if grep -q '^SKIP' "$log"; then
		case "$optional" in
		*" $name "*) skipped=1 ;;
		*) [ -z "${CI:-}" ] && skipped=1 ;;
		esac
		if [ "$skipped" -eq 0 ]; then
			why="skipped in CI, and it is not optional: $(grep -m 1 '^SKIP' "$log")"
		elif [ "$why" = "no result counted" ] || [ "$why" = "no \"N passed, N failed\" line" ]; then
			why=""	# a skip counts nothing; it is reported below
		fi
	fi
	if [ -n "$why" ] || { [ $rc -ne 0 ] && [ "$f" -eq 0 ]; }; then
		f=$((f + 1))
	fi
	if [ "$f" -ne 0 ] || [ $rc -ne 0 ]; then
		# show the whole log of a failing suite, the summary of a passing one
		cat "$log"
		failed_suites="$failed_suites $name"
		# what failed, again at the end: a CI log is often read from its tail
		{
			[ -n "$why" ] && printf '%s: runner: %s\n' "$name" "$why"
			grep -E '^(FAIL|not ok )' "$log" | grep -v '^not ok [0-9]* # SKIP' | head -n 8 | cut -c 1-400 | sed "s|^|$name: |"
		} >>"$logdir/.failures"
	else
		grep -E '^(# |ok |not ok |PASS|FAIL|SKIP|fuzz:)|passed, [0-9]+ failed' "$log" | grep -v '^ok ' | tail -n 40
	fi
	[ -n "$why" ] && printf 'runner: %s: %s\n' "$name" "$why"
	if [ "$skipped" -eq 1 ]; then
		printf -- '--- %s: SKIPPED (%s)\n' "$name" "$(grep -m 1 '^SKIP' "$log")"
		total_skip=$((total_skip + 1))
	else
		printf -- '--- %s: %s passed, %s failed (exit %s, %s)\n' "$name" "$p" "$f" "$rc" "$secs"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done

printf 'runner: %d suites in %d s\n' "$#" "$(( $(date +%s) - run_start ))"
if [ -n "$failed_suites" ]; then
	printf 'failing suites:%s\n' "$failed_suites"
	cat "$logdir/.failures"
fi
if [ "$total_skip" -gt 0 ]; then
	printf '%d passed, %d failed, %d skipped\n' "$total_pass" "$total_fail" "$total_skip"
else
	printf '%d passed, %d failed\n' "$total_pass" "$total_fail"
fi
[ "$total_fail" -eq 0 ]
