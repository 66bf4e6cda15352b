#!/usr/bin/python3
"""tests/lab/cases_truth.py -- the lab's truth table checked by a machine.

cases.tsv says, per target, how the lab is built (which box on which router
and hook, which routers quote 8 bytes or stay silent, which NAT) and what a
correct prober reports (verdicts, the quoted shift, the hop of the damage,
side findings, what shows it).  The expected columns were written by hand;
this script derives them from the configuration columns alone -- from what
each box does to a SYN and where each router stands, not from anything in
prober/ -- and compares.  A row whose expectation does not follow from its
configuration is a FAIL naming the column.

usage: cases_truth.py [CASES.TSV]
Checks every row, then proves the check can fail: every expected column of
every row, altered, must be caught.
Ends with "N passed, N failed"; exit 1 on any failure.
"""
import os
import sys

SCALES = (0, 7, 14)
PROBLEMS = ("rewritten", "stripped", "syn-dropped")
ABSENT = None   # the option is gone from the SYN


def read(path):
    rows, header = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            if len(cells) != len(header):
                raise SystemExit("%s: a row with %d fields, the header has %d: %s"
                                 % (path, len(cells), len(header), cells[0]))
            rows.append(dict(zip(header, cells)))
    return rows


def router(cell):
    """'r3' -> 3; '-' or a server namespace -> None."""
    return int(cell[1:]) if cell.startswith("r") and cell[1:].isdigit() else None


def routers(cell):
    return set() if cell == "-" else {router(c) for c in cell.split(",")}


def ws_after(action, arg, s):
    """The SYN's shift after the box, ABSENT when the option is gone."""
    if action == "ws-set":
        return int(arg)
    if action == "ws-cap":
        return min(s, int(arg))
    if action in ("ws-nop", "ws-strip"):
        return ABSENT
    return s


def derive(r):
    """The expected columns from the configuration columns."""
    dist = int(r["dist"])
    action, arg, hook = r["action"], r["arg"], r["hook"]
    box = router(r["box"])
    q8, mute = routers(r["quote8"]), routers(r["silent"])
    full = [k for k in range(1, dist) if k not in q8 and k not in mute]

    # the first hop index whose view of the SYN includes the box's work: its
    # own router for a PREROUTING box (before the TTL check), the next for
    # a FORWARD box; D (the destination) when no router comes after it
    seen_at = None
    if box is not None:
        seen_at = box if hook == "ingress" else box + 1
    def first_full_from(k):
        later = [j for j in full if j >= k]
        return later[0] if later else dist
    def last_clean_before(k):
        earlier = [j for j in full if j < k]
        return earlier[-1] if earlier else 0

    verdicts, quoted = [], []
    for s in SCALES:
        after = ws_after(action, arg, s) if box is not None else s
        if action == "drop":
            v = "filtered"
        elif action == "reject-admin":
            v = "unreachable"
        elif r["port"] == "9":
            v = "closed"
        elif action == "drop-ws":
            v = "syn-dropped"
        elif after is ABSENT:
            v = "stripped"
        elif r["server"] == "srv-nows":
            v = "unsupported"
        elif r["server"] == "srv-cookie" and action == "ts-strip":
            # a syncookie keeps the shift in the timestamp: none, no shift
            v = "unsupported"
        elif after != s:
            v = "rewritten"
        else:
            v = "ok"
        verdicts.append(v)
        # the last router that quotes in full sees the change if it stands
        # at or beyond where the change is visible
        last = full[-1] if full else None
        changes_ws = action in ("ws-set", "ws-cap", "ws-nop", "ws-strip")
        if last is not None and changes_ws and seen_at is not None and last >= seen_at:
            q = after
        else:
            q = s
        quoted.append("null" if q is ABSENT else str(q))

    problem = any(v in PROBLEMS for v in verdicts)
    hop = clean = "-"
    where = None
    if problem:
        where = first_full_from(seen_at)
        hop, clean = str(where), str(last_clean_before(where))

    side = []
    if action == "mss-clamp":
        side.append("mss-clamped=%s@%d" % (arg, first_full_from(seen_at)))
    if action == "ts-strip":
        side.append("ts-stripped@%d" % first_full_from(seen_at))
    if r["natq"] == "leaked":
        side.append("nat@%d" % first_full_from(router(r["nat"]) + 1))
    if action == "synproxy":
        # the proxy is the last router before its server (lab README), and
        # answers the handshake in the server's place: seen only when the
        # data comes (window 0 until the server's connection is up)
        side.append("syn-proxy@%d" % (dist - 1))

    seen = []
    if any(v in ("closed", "filtered", "unreachable", "unsupported", "stripped",
                 "syn-dropped") for v in verdicts):
        seen.append("synack")
    ws_changed = any(v in ("rewritten", "stripped") for v in verdicts)
    quoted_side = [x for x in side if not x.startswith("syn-proxy@")]
    if (ws_changed and where is not None and where < dist) or quoted_side:
        seen.append("quote")
    if (ws_changed and where is not None and where >= dist) or action == "synproxy":
        seen.append("window")

    out = {"v0": verdicts[0], "v7": verdicts[1], "v14": verdicts[2],
           "q0": quoted[0], "q7": quoted[1], "q14": quoted[2],
           "hop": hop, "clean": clean,
           "side": ",".join(side) or "-", "seen_by": ",".join(seen) or "-"}
    return out


def compare(rows):
    bad = []
    for r in rows:
        want = derive(r)
        for col, v in want.items():
            if r[col] != v:
                bad.append("%s: %s is %r in cases.tsv, its configuration gives %r"
                           % (r["name"], col, r[col], v))
    return bad


def alter(value):
    """A different value of the same kind, for the self-test."""
    swaps = {"ok": "rewritten", "rewritten": "ok", "stripped": "ok",
             "syn-dropped": "ok", "closed": "filtered", "filtered": "closed",
             "unreachable": "filtered", "unsupported": "ok", "null": "0",
             "-": "3"}
    if value in swaps:
        return swaps[value]
    if value.isdigit():
        return str(int(value) + 1)
    return value + "x"


def main(argv):
    selftest = True
    args = argv
    path = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "cases.tsv")
    rows = read(path)
    passed = failed = 0
    for r in rows:
        errs = [e for e in compare([r])]
        if errs:
            for e in errs:
                print("FAIL: " + e)
            failed += 1
        else:
            print("PASS: %s: expected columns follow from its configuration" % r["name"])
            passed += 1
    if selftest:
        missed = []
        cols = ("v0", "v7", "v14", "q0", "q7", "q14", "hop", "clean", "side", "seen_by")
        for r in rows:
            for col in cols:
                r2 = dict(r)
                r2[col] = alter(r[col])
                if not compare([r2]):
                    missed.append("%s.%s" % (r["name"], col))
        n = len(rows) * len(cols)
        if missed:
            print("FAIL: selftest: %d of %d altered expectations went unnoticed: %s"
                  % (len(missed), n, " ".join(missed[:10])))
            failed += 1
        else:
            print("PASS: selftest: all %d altered expectations caught" % n)
            passed += 1
    if not rows:
        print("FAIL: %s: no rows" % path)
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
