#!/bin/bash
# make demo: bring the lab up, probe every lab target with scaleprobe, print
# the results, run one daemon cycle (scaleprobed --once) and show what it
# stored, reproduce the 2004 stall on the same lab (tests/e2e/stall:
# curl through a clean path and a rewrite-to-0 box, then again with the
# route scaleprobe report advises), print the report of the daemon's store
# as text and write it as HTML (build/demo/report.html), export its problems
# with their evidence (build/demo/evidence/), tear the lab down.
# Runs as root; touches nothing outside the lab's own network namespaces
# (tests/lab/README.md).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$REPO/$BUILD ;; esac
LAB=$REPO/tests/lab/lab
SP=$BUILD/plain/scaleprobe

SPD=$BUILD/plain/scaleprobed
DW=
DUSER=
cleanup() {
	[ -n "${LAB_PREFIX:-}" ] && "$LAB" down >/dev/null 2>&1 || true
	[ -n "$DUSER" ] && userdel "$DUSER" >/dev/null 2>&1 || true
	[ -n "$DW" ] && rm -rf "$DW" || true
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "== bringing the lab up (tests/lab/cases.tsv lists every target and what it does)"
eval "$(BUILD=$BUILD "$LAB" up)"

# every target of the table but the AnyIP range, both families, on its port
targets=()
while IFS=$'\t' read -r name kind v4 v6 port _; do
	[ "$kind" = range ] && continue
	targets+=("$v4:$port" "[$v6]:$port")
done < <(grep -v '^#' "$REPO/tests/lab/cases.tsv" | tail -n +2)

echo "== scaleprobe probe: ${#targets[@]} paths, scales 0, 7, 14 and a control SYN each"
echo "   (handshake, window test on 80 and 443, and a trace where those two cannot"
echo "    vouch for the path; tests/lab/cases.tsv says what each should report)"
set +e
ip netns exec "$("$LAB" ns prober)" timeout 300 "$SP" probe -v \
    --allow 198.18.0.0/15 --allow fd00::/8 --rate 1000 --timeout 1 --retries 1 \
    "${targets[@]}"
rc=$?
set -e
echo "== scaleprobe exited $rc (0 clean, 1 a path problem found, 3 some path not measured)"
echo

# One cycle of the daemon over a few lab targets (--once), as a user of
# its own made for the demo, and what it stored.
DW=$(mktemp -d /tmp/scaleprobed-demo.XXXXXX)
chmod 755 "$DW"
DUSER=spdemo$$
useradd -r -M -s /usr/sbin/nologin "$DUSER"
cat >"$DW/scaleprobed.conf" <<EOF
database "$DW/db/history.sqlite"
control "$DW/db/ctl.sock"
allow 198.18.0.0/15
allow fd00::/8
rate 1000
timeout 1
retries 1
group "lab" {
	interval 1h
	ports 80,443
	target clean.lab ws0-in.lab wsstrip-in.lab 198.18.100.2/31
}
EOF
echo "== scaleprobed --once: one cycle of group lab (names with A and AAAA, a /31, ports 80 and 443)"
set +e
ip netns exec "$("$LAB" ns prober)" timeout 120 "$SPD" --once -c "$DW/scaleprobed.conf" -u "$DUSER"
rc=$?
set -e
echo "== scaleprobed exited $rc; what it stored in $DW/db/history.sqlite:"
python3 - "$DW/db/history.sqlite" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print("  target states of the cycle:")
for r in db.execute("SELECT t.grp, g.spec, t.cycle, t.state, coalesce(t.reason, ''), t.paths "
        "FROM target_states t JOIN targets g ON g.id = t.target_id ORDER BY g.spec"):
    print("    %-6s %-18s cycle %d  %-10s %s %d paths" % r)
print("  verdicts per path (scales 0, 7, 14):")
for r in db.execute("SELECT p.address || ':' || p.port, group_concat(s.verdict, ' ') "
        "FROM path_results pr JOIN paths p ON p.id = pr.path_id "
        "JOIN scale_results s ON s.path_result_id = pr.id GROUP BY pr.id ORDER BY 1"):
    print("    %-28s %s" % r)
EOF
echo

# The 2004 stall on this same lab: what a verdict of rewritten means for a
# real transfer (tests/e2e/stall; LAB_PREFIX makes it reuse the lab).
set +e
BUILD=$BUILD LAB_PREFIX=$LAB_PREFIX "$REPO/tests/e2e/stall"
src=$?
set -e
[ $src -eq 0 ] || echo "== the stall measurement failed (exit $src)"
echo

# What the store says: the report (run in the prober namespace, so the
# advice's route commands name the prober's gateway and device), its HTML
# form, kept in the build directory, and the export for a box's owner.
echo "== scaleprobe report on the daemon's store (the advice is for the prober's side)"
mkdir -p "$BUILD/demo"
set +e
ip netns exec "$("$LAB" ns prober)" "$SP" report --db "$DW/db/history.sqlite"
ip netns exec "$("$LAB" ns prober)" "$SP" report --db "$DW/db/history.sqlite" \
    --format html -o "$BUILD/demo/report.html"
hrc=$?
set -e
[ $hrc -eq 0 ] && echo "== the HTML report: $BUILD/demo/report.html (one file, open it in a browser)"
echo
echo "== scaleprobe export: the paths with a problem, for the box's owner, each with its evidence"
rm -rf "$BUILD/demo/evidence"
set +e
"$SP" export --db "$DW/db/history.sqlite" --pcap "$BUILD/demo/evidence"
set -e
echo "== the evidence files (pcapng per row, for tshark or Wireshark): $BUILD/demo/evidence/" \
    "($(find "$BUILD/demo/evidence" -type f 2>/dev/null | wc -l) files)"
echo
echo "== tearing the lab down"
