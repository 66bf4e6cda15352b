#!/usr/bin/python3
"""tests/bench/bench_check.py -- make bench-check's comparison: bench figures
against the targets of tests/bench/targets.tsv, as ratios to a baseline of
the same run, allowed to regress only within the noise of the runs.

usage: bench_check.py benches TARGETS         the benches the targets name
       bench_check.py check TARGETS DIR       compare, print the table
DIR holds, per repetition i (1..N) and bench B, cur/i/B.out (the build
under test) and, for figures whose baseline is `ref`, ref/i/B.out (the
reference build, run in the same repetition).

A figure is read from a bench's output by name (figure_of):
  row "key=value;..." and column "NAME": the cell NAME of the first
  markdown-table row ("| a | b |" under a header row) whose cells key hold
  value (compared without spaces or thousands commas); row "-" and column
  "re:REGEX": the first group of REGEX's first match in the output (for
  the programs that print sentences, not tables).  A cell's figure is its
  first number: "12.3 [11.0..13.0]" is 12.3, "0.63x" is 0.63.

Per repetition the ratio is cur / ref (or the figure itself, baseline
`none`: a figure that is already a ratio to a baseline of its own run, the
SYN phase's "SYN/s vs zmap").  noise is the spread (highest - lowest) of
the repetitions' ratios relative to their median, the highest and the
lowest run left out when there are five or more.  A `lower`
figure fails when median > target * (1 + noise); a `higher` one when
median < target / (1 + noise).  A figure missing from any run fails.
"""
import os
import re
import statistics
import sys

NUM = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
COLS = ("figure", "bench", "row", "column", "better", "baseline", "target")


def parse_targets(text):
    """Rows of a targets file as dicts; raises ValueError naming the line."""
    out = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) != len(COLS):
            raise ValueError("line %d: %d tab-separated fields, expected %d (%s)"
                             % (no, len(f), len(COLS), " ".join(COLS)))
        t = dict(zip(COLS, (x.strip() for x in f)))
        if t["better"] not in ("lower", "higher"):
            raise ValueError("line %d: better is lower or higher, not %r" % (no, t["better"]))
        if t["baseline"] not in ("ref", "none"):
            raise ValueError("line %d: baseline is ref or none, not %r" % (no, t["baseline"]))
        try:
            t["target"] = float(t["target"])
        except ValueError:
            raise ValueError("line %d: target %r is not a number" % (no, t["target"]))
        if t["target"] <= 0:
            raise ValueError("line %d: target must be > 0" % no)
        if t["row"] == "-" and not t["column"].startswith("re:"):
            raise ValueError("line %d: row - needs column re:REGEX" % no)
        if t["column"].startswith("re:"):
            try:
                if re.compile(t["column"][3:]).groups < 1:
                    raise ValueError("line %d: the regex needs a group" % no)
            except re.error as e:
                raise ValueError("line %d: regex: %s" % (no, e))
        out.append(t)
    return out


def number(cell):
    """The first number of a cell ("1,234.5 [..]" -> 1234.5), or None."""
    m = NUM.search(cell.replace(",", ""))
    return float(m.group(0)) if m else None


def tables(text):
    """Every markdown table of text as a list of {header: cell} rows."""
    out, hdr, rows = [], None, None
    for line in text.splitlines():
        s = line.strip()
        if not (s.startswith("|") and s.endswith("|") and len(s) > 1):
            if hdr is not None:
                out.append(rows)
            hdr = rows = None
            continue
        cells = [c.strip() for c in s[1:-1].split("|")]
        if hdr is None:
            hdr, rows = cells, []
        elif all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        elif len(cells) == len(hdr):
            rows.append(dict(zip(hdr, cells)))
    if hdr is not None:
        out.append(rows)
    return out


def _norm(s):
    return s.replace(",", "").replace(" ", "")


def figure_of(text, row, column):
    """The figure that (row, column) names in a bench's output, or None."""
    if column.startswith("re:"):
        m = re.search(column[3:], text, re.M)
        return number(m.group(1)) if m else None
    want = []
    for kv in row.split(";"):
        k, _, v = kv.partition("=")
        want.append((k.strip(), _norm(v)))
    for t in tables(text):
        for r in t:
            if column in r and all(k in r and _norm(r[k]) == v for k, v in want):
                return number(r[column])
    return None


def judge(cur, ref, better, target):
    """(ok, median ratio, noise, limit) of one figure over the repetitions.

    cur and ref are lists of figures per repetition (ref None: the figures
    are ratios already); any None or a zero baseline makes it fail."""
    if not cur or any(c is None for c in cur):
        return False, None, None, None
    if ref is not None:
        if len(ref) != len(cur) or any(r is None or r == 0 for r in ref):
            return False, None, None, None
        ratios = [c / r for c, r in zip(cur, ref)]
    else:
        ratios = list(cur)
    med = statistics.median(ratios)
    # the spread of the runs but the highest and the lowest (of five or
    # more): one run that the shared VM stalled must not widen the limit
    # for the rest, as a largest distance from the median would
    s = sorted(ratios)
    if len(s) >= 5:
        s = s[1:-1]
    noise = 0.0 if med == 0 else (s[-1] - s[0]) / abs(med)
    if better == "lower":
        limit = target * (1 + noise)
        ok = med <= limit
    else:
        limit = target / (1 + noise)
        ok = med >= limit
    return ok, med, noise, limit


def check(targets_path, d):
    ts = parse_targets(open(targets_path).read())
    runs = sorted(int(x) for x in os.listdir(os.path.join(d, "cur")) if x.isdigit())
    if not runs:
        print("bench-check: no runs in %s" % d)
        return 1

    def read(side, i, bench):
        try:
            return open(os.path.join(d, side, str(i), bench + ".out"), errors="replace").read()
        except OSError:
            return ""
    print("bench-check: %d runs; ratio = this build / %s" % (
        len(runs), "the reference build of the same run, or the figure's own baseline"))
    hdr = ("figure", "better", "per run", "median", "noise", "target", "limit", "")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    bad = 0
    for t in ts:
        cur = [figure_of(read("cur", i, t["bench"]), t["row"], t["column"]) for i in runs]
        ref = None
        if t["baseline"] == "ref":
            ref = [figure_of(read("ref", i, t["bench"]), t["row"], t["column"]) for i in runs]
        ok, med, noise, limit = judge(cur, ref, t["better"], t["target"])
        bad += not ok
        if ref is None:
            per = " ".join("-" if c is None else "%.3g" % c for c in cur)
        else:
            per = " ".join("%s/%s" % ("-" if c is None else "%.4g" % c,
                                      "-" if r is None else "%.4g" % r) for c, r in zip(cur, ref))
        print("| %s | %s | %s | %s | %s | %s%s | %s | %s |" % (
            t["figure"], t["better"], per, "-" if med is None else "%.3f" % med,
            "-" if noise is None else "%.1f %%" % (100 * noise),
            "<= " if t["better"] == "lower" else ">= ", "%.3f" % t["target"],
            "-" if limit is None else "%.3f" % limit, "ok" if ok else "REGRESSED"))
    print("%d figures, %d regressed" % (len(ts), bad))
    return 1 if bad else 0


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "benches":
            seen = []
            for t in parse_targets(open(argv[2]).read()):
                if (t["bench"], t["baseline"]) not in seen:
                    seen.append((t["bench"], t["baseline"]))
            for b in dict.fromkeys(b for b, _ in seen):
                print(b, "ref" if (b, "ref") in seen else "none")
            return 0
        if len(argv) == 4 and argv[1] == "check":
            return check(argv[2], argv[3])
    except (OSError, ValueError) as e:
        print("bench_check.py: %s: %s" % (argv[2], e), file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
