#!/usr/bin/python3
"""tests/bench/syn_bench_table.py -- syn-bench's rows as one table, tool beside tool.

usage: syn_bench_table.py RUNS.TSV
Figures are median [min..max] over the repetitions; ratios are taken within
one repetition (the same minute of the same VM), then summarized.
"""
import csv
import statistics
import sys
from collections import defaultdict


def fmt(xs, spec="{:,.0f}"):
    if not xs:
        return "-"
    return "%s [%s..%s]" % (spec.format(statistics.median(xs)), spec.format(min(xs)),
                            spec.format(max(xs)))


def main(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    for r in rows:
        for k in ("targets", "syns", "synacks", "matched", "rss_kb", "rc", "woke"):
            r[k] = int(r[k] or 0)
        for k in ("span", "wall", "user", "sys"):
            r[k] = float(r[k] or 0)
        r["syn_s"] = r["syns"] / r["span"] if r["span"] > 0 else 0.0
        r["rep"] = r["tag"].rsplit("-", 1)[-1]
    main_rows = [r for r in rows if not r["tag"].startswith("growth-")]
    groups = defaultdict(list)
    for r in main_rows:
        groups[(r["tool"], r["rate"])].append(r)
    zmap = {(r["rate"], r["rep"]): r for r in main_rows if r["tool"] == "zmap"}

    print("SYN phase, %d targets, port 80 (server-side counts; median [min..max] of %d runs)"
          % (main_rows[0]["targets"] if main_rows else 0,
             max((len(g) for g in groups.values()), default=0)))
    hdr = ("tool", "rate asked", "SYN/s at server", "replies matched %", "lost in tool",
           "peak RSS MiB", "CPU s", "SYN/s vs zmap")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for (tool, rate), g in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        ratios = []
        for r in g:
            z = zmap.get((rate, r["rep"]))
            if z and z["syn_s"] > 0 and tool != "zmap":
                ratios.append(r["syn_s"] / z["syn_s"])
        matched = [100.0 * r["matched"] / r["synacks"] for r in g if r["synacks"]]
        failed = sum(1 for r in g if r["rc"] != 0)
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            tool + (" (%d failed)" % failed if failed else ""), rate,
            fmt([r["syn_s"] for r in g]), fmt(matched, "{:.2f}"),
            fmt([r["synacks"] - r["matched"] for r in g]),
            fmt([r["rss_kb"] / 1024 for r in g], "{:.1f}"),
            fmt([r["user"] + r["sys"] for r in g], "{:.2f}"),
            fmt(ratios, "{:.2f}x") if ratios else "-"))
    growth = defaultdict(list)
    for r in rows:
        if r["tag"].startswith("growth-"):
            growth[r["targets"]].append(r)
    if growth:
        print()
        print("scaleprobe growth, rate unlimited (median of %d)" % max(len(g) for g in growth.values()))
        print("| targets | wall s | us per target | peak RSS MiB | replies matched % |")
        print("|---|---|---|---|---|")
        for n in sorted(growth):
            g = growth[n]
            wall = statistics.median(r["wall"] for r in g)
            print("| %d | %.2f | %.1f | %.1f | %.2f |" % (
                n, wall, 1e6 * statistics.median(r["span"] for r in g) / n,
                statistics.median(r["rss_kb"] for r in g) / 1024,
                statistics.median(100.0 * r["matched"] / max(r["synacks"], 1) for r in g)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
