#!/bin/sh
# Run test suites and close with one line CI understands: "N passed, N failed".
#
# usage: runner.sh KIND:NAME:COMMAND ...
#   tap    a cmocka program; its TAP lines ("ok N", "not ok N") are counted
#   count  a script whose last "N passed, N failed" line is taken as its count
#   fuzz   a fuzz run: one case, passed when the command exits 0
# A suite that exits non-zero without reporting a failure counts one failure
# (a crash, a sanitizer report, a missing binary), so nothing fails silently.
# The output of every suite is kept in $RUNNER_LOGDIR (default build/test-logs).
set -u

logdir=${RUNNER_LOGDIR:-build/test-logs}
mkdir -p "$logdir"
total_pass=0
total_fail=0
failed_suites=""

for spec in "$@"; do
	kind=${spec%%:*}
	rest=${spec#*:}
	name=${rest%%:*}
	cmd=${rest#*:}
	log="$logdir/$(printf '%s' "$name" | tr '/+' '__').log"

	printf '=== %s\n' "$name"
	CMOCKA_MESSAGE_OUTPUT=TAP sh -c "$cmd" >"$log" 2>&1
	rc=$?
	case "$kind" in
	tap)
		p=$(grep -c '^ok ' "$log")
		f=$(grep -c '^not ok ' "$log")
		;;
	count)
		line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
		p=$(printf '%s' "$line" | sed -E 's/.*(^|[ :])([0-9]+) passed.*/\2/')
		f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		[ -n "$line" ] || { p=0; f=0; }
		;;
	fuzz)
		if [ $rc -eq 0 ]; then p=1; f=0; else p=0; f=1; fi
		;;
	*)
		echo "runner: unknown suite kind '$kind' in '$spec'" >&2
		p=0; f=1
		;;
	esac
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	if [ "$f" -ne 0 ] || [ $rc -ne 0 ]; then
		# show the whole log of a failing suite, the summary of a passing one
		cat "$log"
		failed_suites="$failed_suites $name"
	else
		grep -E '^(# |ok |not ok |PASS|FAIL|SKIP|fuzz:)|passed, [0-9]+ failed' "$log" | grep -v '^ok ' | tail -n 40
	fi
	printf -- '--- %s: %s passed, %s failed (exit %s)\n' "$name" "$p" "$f" "$rc"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done

[ -z "$failed_suites" ] || printf 'failing suites:%s\n' "$failed_suites"
printf '%d passed, %d failed\n' "$total_pass" "$total_fail"
[ "$total_fail" -eq 0 ]
