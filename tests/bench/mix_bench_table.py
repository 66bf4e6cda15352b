#!/usr/bin/python3
"""tests/bench/mix_bench_table.py -- mix-bench's slices, its truth and its table.

usage: mix_bench_table.py slices PATHS           the target prefix
       mix_bench_table.py rules PATHS ws0|drop   the slice's mbox rules
       mix_bench_table.py cidrs PATHS ws0|drop   the slice as CIDRs
       mix_bench_table.py header
       mix_bench_table.py count NDJSON TAG PATHS RC RSS_KB WALL USER SYS
       mix_bench_table.py table RUNS.TSV TARGET_S TARGET_MIB [ICMP]
The PATHS paths are the first PATHS addresses of 198.19.0.0/16 (a power of
two, 1,024..65,536).  ws0 is 5 % of them (rounded) from PATHS/4 on, drop 1 %
from PATHS*200/256 on: 3,277 from 198.19.64.0 and 655 from 198.19.200.0 at
65,536.  count checks each result against the truth of its address's slice
and writes the results that disagree to NDJSON.wrong.
"""
import csv
import ipaddress
import json
import sys

from infer_bench_table import fmt   # median [min..max], as infer-bench prints

BASE = ipaddress.IPv4Address("198.19.0.0")
SCALES = (0, 7, 14)
# per slice: the verdict of each scale, and where the box is (last clean,
# index] for the scales whose verdict is a problem; None for clean
TRUTH = {
    "clean": ({0: "ok", 7: "ok", 14: "ok"}, None),
    "ws0": ({0: "ok", 7: "rewritten", 14: "rewritten"}, (1, 2)),
    "drop": ({0: "syn-dropped", 7: "syn-dropped", 14: "syn-dropped"}, (2, 3)),
}
FIELDS = ("tag", "paths", "rc", "rss_kb", "wall", "user", "sys", "results", "missing",
          "clean", "clean_right", "ws0", "ws0_right", "ws0_hop", "drop", "drop_right",
          "drop_hop", "traced", "wrong")


def slices(paths):
    """{name: (first offset, count)} for PATHS paths."""
    if paths < 1024 or paths > 65536 or paths & (paths - 1):
        raise ValueError("PATHS %d: a power of two, 1024..65536" % paths)
    return {"ws0": (paths // 4, round(paths * 0.05)),
            "drop": (paths * 200 // 256, round(paths * 0.01))}


def slice_of(addr, sl):
    off = int(ipaddress.IPv4Address(addr)) - int(BASE)
    for name, (first, n) in sl.items():
        if first <= off < first + n:
            return name
    return "clean"


def cidrs(paths, name):
    first, n = slices(paths)[name]
    return ipaddress.summarize_address_range(BASE + first, BASE + first + n - 1)


def judge(r, want):
    """(verdicts right, hop right) of one NDJSON result against its slice."""
    verdicts, hop = TRUTH[want]
    scales = {s.get("scale_sent"): s for s in r.get("scales") or []}
    if sorted(scales) != sorted(SCALES):
        return False, False
    vok = all(scales[k].get("verdict") == verdicts[k] for k in SCALES)
    hok = True
    for k in SCALES:
        h = scales[k].get("hop")
        if verdicts[k] == "ok":
            hok = hok and h is None
        else:
            hok = hok and h is not None and h.get("exact", True) is True and \
                (h.get("last_clean_index"), h.get("index")) == hop
    return vok, hok


def count(ndjson, tag, paths, rc, rss, wall, user, sys_):
    sl = slices(int(paths))
    n = {k: 0 for k in FIELDS}
    seen = set()
    wrong = open(ndjson + ".wrong", "w")
    with open(ndjson) as f:
        for line in f:
            try:
                r = json.loads(line)
                want = slice_of(r["address"], sl)
            except (ValueError, KeyError, TypeError):
                n["wrong"] += 1
                wrong.write(line)
                continue
            if r["address"] in seen:
                n["wrong"] += 1
                wrong.write(line)
                continue
            seen.add(r["address"])
            n["results"] += 1
            n[want] += 1
            if r.get("hops"):
                n["traced"] += 1
            vok, hok = judge(r, want)
            n[want + "_right"] += vok
            if want != "clean":
                n[want + "_hop"] += vok and hok
            if not (vok and hok):
                n["wrong"] += 1
                wrong.write(line)
    n.update(tag=tag, paths=paths, rc=rc, rss_kb=rss, wall=wall, user=user, sys=sys_,
             missing=int(paths) - n["results"])
    print("\t".join(str(n[k]) for k in FIELDS))


def table(path, target_s, target_mib, icmp="default"):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    if not rows:
        print("mix-bench: no runs")
        return 1
    paths = int(rows[0]["paths"])
    sl = slices(paths)
    print("Mixed bench: %s paths (%s clean, %s ws-set 0 at hop 2, %s drop-ws at hop 3), "
          "routers' ICMP limits %s, --trace auto; median [min..max] of %d" % (
              "{:,}".format(paths), "{:,}".format(paths - sl["ws0"][1] - sl["drop"][1]),
              "{:,}".format(sl["ws0"][1]), "{:,}".format(sl["drop"][1]),
              "the kernel's defaults" if icmp == "default" else icmp, len(rows)))
    hdr = ("figure", "value", "target", "met")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    # a run /usr/bin/time could not report on has no figures, only a result count
    wall = [float(r["wall"]) for r in rows if r["wall"]]
    mib = [int(r["rss_kb"]) / 1024 for r in rows if r["rss_kb"]]

    def share(right, of):
        got = [int(r[right]) for r in rows]
        tot = [int(r[of]) for r in rows]
        ok = all(g == t for g, t in zip(got, tot)) and all(int(r["missing"]) == 0 for r in rows)
        return "%s of %s" % (fmt(got, "{:,.0f}"), fmt(tot, "{:,.0f}")), ok

    def line(fig, val, target, met):
        print("| %s | %s | %s | %s |" % (fig, val, target, "met" if met else "MISSED"))

    line("time s", fmt(wall), "<= %s" % target_s,
         len(wall) == len(rows) and max(wall) <= float(target_s))
    line("peak RSS MiB", fmt(mib), "<= %s" % target_mib,
         len(mib) == len(rows) and max(mib) <= float(target_mib))
    line("results", fmt([int(r["results"]) for r in rows], "{:,.0f}"), "{:,}".format(paths),
         all(int(r["missing"]) == 0 for r in rows))
    for name, label in (("clean", "clean: every scale ok, untraced hop null"),
                        ("ws0", "ws-set 0: verdicts 0 ok, 7/14 rewritten"),
                        ("drop", "drop-ws: verdicts syn-dropped")):
        v, ok = share(name + "_right", name)
        line(label, v, "all", ok)
    for name, label in (("ws0", "ws-set 0: traced to (1, 2], exact"),
                        ("drop", "drop-ws: traced to (2, 3], exact")):
        v, ok = share(name + "_hop", name)
        line(label, v, "all", ok)
    print("| paths traced | %s | - | - |" % fmt([int(r["traced"]) for r in rows], "{:,.0f}"))
    # Each ws-set 0 path needs r2's changed quote for scales 7 and 14, each
    # drop-ws path r2's clean one for its three scales: at one error a second
    # after a burst of 6 (per destination, and every error goes to the
    # prober), r2 alone bounds the time of an exact trace of them all.
    need = 2 * sl["ws0"][1] + 3 * sl["drop"][1]
    if icmp != "default":
        need = 0
    if need:
        print("| ICMP budget: r2 quotes needed / least s at 1/s | %s / %s | - | - |" % (
            "{:,}".format(need), "{:,}".format(max(need - 6, 0))))
    bad = [r["tag"] for r in rows if int(r["rc"]) > 1]
    if bad:
        print("runs with an error exit (killed at the time limit: 124): " + " ".join(
            "%s rc %s" % (r["tag"], r["rc"]) for r in rows if int(r["rc"]) > 1))
    return 0


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "slices":
            slices(int(argv[2]))
            print("%s/%d" % (BASE, 32 - (int(argv[2]).bit_length() - 1)))
            return 0
        if len(argv) == 4 and argv[1] in ("rules", "cidrs"):
            for c in cidrs(int(argv[2]), argv[3]):
                if argv[1] == "cidrs":
                    print(c)
                    continue
                for a in c:
                    print("%s %s" % (a, "ws-set 0" if argv[3] == "ws0" else "drop-ws"))
            return 0
    except (ValueError, KeyError) as e:
        print("mix_bench_table.py: %s" % e, file=sys.stderr)
        return 2
    if len(argv) == 2 and argv[1] == "header":
        print("\t".join(FIELDS))
        return 0
    if len(argv) == 10 and argv[1] == "count":
        count(*argv[2:])
        return 0
    if len(argv) in (5, 6) and argv[1] == "table":
        return table(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
