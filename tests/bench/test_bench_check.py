#!/usr/bin/python3
"""tests/bench/test_bench_check.py -- bench_check.py's pure parts, table-driven:
the targets file, a figure read by named column from the benches' own
output, and the judgement against target and noise.  PASS:/FAIL: per
claim, then "N passed, N failed"; exit 1 on any failure.  No bench runs."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_check as bc  # noqa: E402

passed = failed = 0


def claim(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("PASS: " + what)
    else:
        failed += 1
        print("FAIL: " + what)


# outputs as the benches print them (one repetition each)
SYN = """SYN phase, 65536 targets, port 80 (server-side counts; median [min..max] of 1 runs)
| tool | rate asked | SYN/s at server | replies matched % | lost in tool | peak RSS MiB | CPU s | SYN/s vs zmap |
|---|---|---|---|---|---|---|---|
| zmap | unlimited | 201,234 [201,234..201,234] | 100.00 | 0 | 9.1 | 1.20 | - |
| scaleprobe | 100000 | 99,000 [99,000..99,000] | 100.00 | 0 | 15.0 | 2.00 | 0.85x [0.85x..0.85x] |
| scaleprobe | unlimited | 127,000 [127,000..127,000] | 100.00 | 0 | 15.0 | 2.00 | 0.63x [0.63x..0.63x] |
"""
INFER = """Full inference (scales 0,7,14 + control, window test, trace auto), median [min..max] per size
| paths | runs | time s | paths/s | peak RSS MiB |
|---|---|---|---|---|
| 4,096 | 1 | 3.2 | 1,280 | 9.5 |
| 16,384 | 1 | 11.5 | 1,425 | 12.25 |
"""
STORE = """200000 path results (600000 scale rows), evidence no: 1.80 s in the store
writer thread CPU 1.62 s: 370370 scale rows per CPU second
"""
RSS = """report --format json                  12 MiB  0:04.10    9876 kB
PASS: report --format json: peak RSS 12544 KiB <= 64 MiB
PASS: report --format json (flapping): peak RSS 20480 KiB <= 64 MiB
"""
FIG = [
    (RSS, "-", r"re:PASS: report --format json: peak RSS (\d+) KiB", 12544.0,
     "report-rss's PASS line, not its flapping twin"),
    (SYN, "tool=scaleprobe;rate asked=unlimited", "SYN/s vs zmap", 0.63, "a ratio cell, by two keys"),
    (SYN, "tool=scaleprobe;rate asked=100000", "SYN/s vs zmap", 0.85, "the other rate's row"),
    (SYN, "tool=zmap;rate asked=unlimited", "SYN/s at server", 201234.0, "thousands commas"),
    (INFER, "paths=16384", "time s", 11.5, "a key written with commas, asked without"),
    (INFER, "paths=16,384", "peak RSS MiB", 12.25, "asked with commas"),
    (INFER, "paths=65536", "time s", None, "a row not in the table: none"),
    (INFER, "paths=4096", "no such column", None, "a column not in the table: none"),
    (STORE, "-", r"re:([\d.]+) scale rows per CPU second", 370370.0, "a sentence, by regex"),
    (STORE, "-", r"re:(\d+) bytes per result", None, "a regex that misses: none"),
    ("", "paths=4096", "time s", None, "an empty output: none"),
]
for text, row, col, want, what in FIG:
    got = bc.figure_of(text, row, col)
    claim(got == want, "figure_of %s: %r %r -> %r (got %r)" % (what, row, col, want, got))

# judge(cur, ref, better, target) -> ok, median, noise, limit
J = [
    ([10, 10, 10, 10, 10], [10, 10, 10, 10, 10], "lower", 1.0, True, 1.0, 0.0, "same as the reference: ok"),
    ([11, 10, 10, 10, 9], [10] * 5, "lower", 1.0, True, 1.0, 0.0, "highest and lowest runs left out: ok"),
    ([11, 10.5, 10, 9.5, 9], [10] * 5, "lower", 1.0, True, 1.0, 0.1, "noise 10 % around the target: ok"),
    ([20, 21, 19, 20.5, 19.5], [10] * 5, "lower", 1.0, False, 2.0, 0.05, "twice as slow, noise 5 %: regressed"),
    ([12, 12, 12, 12, 12], [10] * 5, "lower", 1.1, False, 1.2, 0.0, "20 % slower, no noise, target 1.1: regressed"),
    ([12, 14, 10, 13, 11], [10] * 5, "lower", 1.1, True, 1.2, 0.2 / 1.2, "20 % slower within 17 % noise: ok"),
    ([10, 10, 10, 10], [9, 10, 10, 11], "lower", 1.0, True, 1.0, 1 / 0.9 - 1 / 1.1, "four runs: the whole spread"),
    ([0.95, 1.04, 2.79, 0.77, 0.87], None, "higher", 0.55, True, 0.95, (1.04 - 0.87) / 0.95,
     "one stalled run does not widen the noise"),
    ([0.63, 0.60, 0.66, 0.62, 0.64], None, "higher", 0.6, True, 0.63, 0.02 / 0.63, "a ratio already, above target"),
    ([0.31, 0.30, 0.32, 0.31, 0.31], None, "higher", 0.6, False, 0.31, 0.0, "halved vs zmap: regressed"),
    ([5, 5, 5, 5, 5], [10, 10, 10, 10, 10], "higher", 1.0, False, 0.5, 0.0, "half the throughput: regressed"),
    ([10, 10, None, 10, 10], [10] * 5, "lower", 1.0, False, None, None, "a run without the figure fails"),
    ([10] * 5, [10, 0, 10, 10, 10], "lower", 1.0, False, None, None, "a zero baseline fails"),
    ([10] * 5, [10] * 4, "lower", 1.0, False, None, None, "runs and baselines of different counts fail"),
    ([], None, "lower", 1.0, False, None, None, "no runs fail"),
]
for cur, ref, better, target, ok, med, noise, what in J:
    g = bc.judge(cur, ref, better, target)
    right = g[0] == ok and (med is None and g[1] is None or
                            med is not None and g[1] is not None and abs(g[1] - med) < 1e-9) and \
        (noise is None and g[2] is None or
         noise is not None and g[2] is not None and abs(g[2] - noise) < 1e-9)
    claim(right, "judge %s: ok %s median %s noise %s (got %s)" % (what, ok, med, noise, g[:3]))

# the targets file: good rows parse, each kind of bad row is refused
GOOD = "# c\nsyn-unl\tsyn\ttool=scaleprobe\tSYN/s vs zmap\thigher\tnone\t0.55\n\n" \
    "store\tstore\t-\tre:(\\d+) rows\thigher\tref\t0.9  # comment\n"
try:
    t = bc.parse_targets(GOOD)
    claim(len(t) == 2 and t[1]["target"] == 0.9 and t[0]["baseline"] == "none",
          "parse_targets: two rows, comments and blank lines skipped")
except ValueError as e:
    claim(False, "parse_targets: good file refused: %s" % e)
BAD = [
    ("a\tb\tc\n", "too few fields"),
    ("f\tb\tr=1\tc\tfaster\tref\t1\n", "better not lower/higher"),
    ("f\tb\tr=1\tc\tlower\tzmap\t1\n", "baseline not ref/none"),
    ("f\tb\tr=1\tc\tlower\tref\tone\n", "target not a number"),
    ("f\tb\tr=1\tc\tlower\tref\t0\n", "target zero"),
    ("f\tb\t-\tc\tlower\tref\t1\n", "row - without a regex"),
    ("f\tb\t-\tre:\\d+\tlower\tref\t1\n", "a regex without a group"),
    ("f\tb\t-\tre:(\tlower\tref\t1\n", "a regex that does not compile"),
]
for text, what in BAD:
    try:
        bc.parse_targets(text)
        claim(False, "parse_targets refuses %s" % what)
    except ValueError as e:
        claim("line 1" in str(e), "parse_targets refuses %s (%s)" % (what, e))

# the repository's own targets file parses
here = os.path.dirname(os.path.abspath(__file__))
try:
    rows = bc.parse_targets(open(os.path.join(here, "targets.tsv")).read())
    claim(len(rows) > 0, "targets.tsv parses (%d figures)" % len(rows))
except (OSError, ValueError) as e:
    claim(False, "targets.tsv parses: %s" % e)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
