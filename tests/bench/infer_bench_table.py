#!/usr/bin/python3
"""tests/bench/infer_bench_table.py -- infer-bench's rows and its growth table.

usage: infer_bench_table.py header
       infer_bench_table.py count NDJSON LOG TAG PATHS RC RSS_KB WALL USER SYS
       infer_bench_table.py table RUNS.TSV
count reads one run's NDJSON (verdicts over every (path, scale); a window
test is exact when it names the shift the server applied, bound when it
names a least one, none otherwise; a path is traced when it has hops) and
its -v summary (the engine's own bytes per path in flight, when it says),
and prints one row.  table prints median [min..max] per size.
"""
import csv
import json
import re
import statistics
import sys
from collections import Counter

FIELDS = ("tag", "paths", "rc", "rss_kb", "wall", "user", "sys", "results", "verdicts",
          "exact", "bound", "none", "traced", "bytes_inflight", "max_inflight")


def count(ndjson, log, tag, paths, rc, rss, wall, user, sys_):
    verdicts = Counter()
    exact = bound = none = traced = results = 0
    odd = open(ndjson + ".odd", "w")   # the paths not all ok and exact, to read
    with open(ndjson) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                verdicts["(bad line)"] += 1
                continue
            results += 1
            if r.get("hops"):
                traced += 1
            if any(s.get("verdict") != "ok" or s.get("scale_effective") is None
                   for s in r.get("scales") or []):
                odd.write(line)
            for s in r.get("scales") or []:
                verdicts[s.get("verdict") or "null"] += 1
                if s.get("scale_effective") is not None:
                    exact += 1
                elif s.get("scale_effective_min") is not None:
                    bound += 1
                else:
                    none += 1
    text = open(log, errors="replace").read()
    m = re.search(r"(\d+) bytes per path in flight", text)
    mi = re.search(r"(\d+) paths in flight at most", text)
    row = (tag, paths, rc, rss, wall, user, sys_, results,
           " ".join("%s=%d" % kv for kv in sorted(verdicts.items())),
           exact, bound, none, traced, m.group(1) if m else "", mi.group(1) if mi else "")
    print("\t".join(str(x) for x in row))


def fmt(xs, spec="{:,.1f}"):
    if not xs:
        return "-"
    if len(xs) == 1:
        return spec.format(xs[0])
    return "%s [%s..%s]" % (spec.format(statistics.median(xs)), spec.format(min(xs)),
                            spec.format(max(xs)))


def table(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    sizes = {}
    for r in rows:
        sizes.setdefault(int(r["paths"]), []).append(r)
    print("Full inference (scales 0,7,14 + control, window test, trace auto), "
          "median [min..max] per size")
    hdr = ("paths", "runs", "time s", "paths/s", "peak RSS MiB", "engine B/path in flight",
           "verdicts (path x scale)", "window exact / bound / none", "traced", "results")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for n in sorted(sizes):
        g = sizes[n]
        wall = [float(r["wall"]) for r in g]
        ver = Counter()
        for r in g:
            for kv in r["verdicts"].split():
                k, v = kv.split("=")
                ver[k] += int(v)
        bip = [float(r["bytes_inflight"]) for r in g if r["bytes_inflight"]]
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            "{:,}".format(n), len(g), fmt(wall), fmt([n / w for w in wall if w > 0], "{:,.0f}"),
            fmt([int(r["rss_kb"]) / 1024 for r in g]), fmt(bip, "{:,.0f}") if bip else "-",
            " ".join("%s %d" % (k, v // len(g)) for k, v in sorted(ver.items())),
            "%d / %d / %d" % tuple(statistics.median(int(r[k]) for r in g)
                                   for k in ("exact", "bound", "none")),
            fmt([int(r["traced"]) for r in g], "{:,.0f}"),
            fmt([int(r["results"]) for r in g], "{:,.0f}")))
    bad = [r["tag"] for r in rows if int(r["rc"]) > 1 or int(r["results"]) != int(r["paths"])]
    if bad:
        print("runs with an error exit or a result missing: " + " ".join(bad))
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "header":
        print("\t".join(FIELDS))
        return 0
    if len(argv) == 11 and argv[1] == "count":
        count(*argv[2:])
        return 0
    if len(argv) == 3 and argv[1] == "table":
        return table(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
