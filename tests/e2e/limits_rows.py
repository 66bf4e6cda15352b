#!/usr/bin/env python3
# tests/e2e/limits_rows.py -- the (path, scale) rows of a daemon store that
# ICMP rate limits must not move, and their comparison (limits-e2e).
#
#   limits_rows.py dump DB            one JSON line per (address, port, scale):
#                                     verdict, scale_quoted, hop_index,
#                                     hop_address, last_clean_index,
#                                     last_clean_address
#   limits_rows.py compare A B        the rows of dump A and dump B that differ;
#                                     exit 1 when any does (or a row is missing)
import json
import sqlite3
import sys

KEYS = ("verdict", "scale_quoted", "hop_index", "hop_address",
        "last_clean_index", "last_clean_address")


def dump(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    rows = db.execute(
        "SELECT p.address, p.port, s.scale_sent, s.verdict, s.scale_quoted,"
        " s.hop_index, s.hop_address, s.last_clean_index, s.last_clean_address"
        " FROM scale_results s JOIN paths p ON p.id = s.path_id"
        " ORDER BY p.address, p.port, s.scale_sent").fetchall()
    for r in rows:
        print(json.dumps({"path": "%s:%d" % (r[0], r[1]), "scale": r[2],
                          **dict(zip(KEYS, r[3:]))}, sort_keys=True))


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            k = (o["path"], o["scale"])
            if k in out:
                raise SystemExit("%s: (%s, %d) twice" % (path, k[0], k[1]))
            out[k] = o
    return out


def compare(a_path, b_path):
    a, b = load(a_path), load(b_path)
    differ = 0
    for k in sorted(set(a) | set(b)):
        x, y = a.get(k), b.get(k)
        if x is None or y is None:
            print("DIFF %s s=%d: only in %s" % (k[0], k[1], a_path if y is None else b_path))
            differ += 1
            continue
        d = [f for f in KEYS if x[f] != y[f]]
        if d:
            print("DIFF %s s=%d: %s" % (k[0], k[1], "; ".join(
                "%s %s -> %s" % (f, x[f], y[f]) for f in d)))
            differ += 1
    print("%d rows, %d differ" % (len(set(a) | set(b)), differ))
    return 1 if differ or not a else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit("usage: limits_rows.py dump DB | compare A B")
