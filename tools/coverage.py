#!/usr/bin/python3
"""tools/coverage.py -- what `make check` reaches of prober/, db/ and config/.

usage: coverage.py BUILD   (a tree built with --coverage and run: make coverage)

Runs gcov (no files written) over every object of the plain build and prints,
per folder, lines and functions executed; then the ten least covered files.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

FOLDERS = ("prober/", "db/", "config/")


def gcov(objdir, src):
    out = subprocess.run(["gcov", "-n", "-f", "-o", objdir, src], capture_output=True,
                         text=True).stdout
    funcs, files = [], {}
    name = kind = None
    for line in out.splitlines():
        m = re.match(r"(Function|File) '(.*)'", line)
        if m:
            kind, name = m.group(1), m.group(2)
            continue
        m = re.match(r"Lines executed:([\d.]+)% of (\d+)", line)
        if m and name is not None:
            total = int(m.group(2))
            hit = round(float(m.group(1)) * total / 100)
            if kind == "Function":
                funcs.append((name, hit, total))
            else:
                files[name] = (hit, total)
            name = None
    return funcs, files.get(src, (0, 0))


def main(argv):
    build = argv[0] if argv else "build/cov"
    plain = os.path.join(build, "plain")
    lines = defaultdict(lambda: [0, 0])
    fns = defaultdict(lambda: [0, 0])
    per_file = []
    seen = set()
    for root, _, names in os.walk(plain):
        for n in names:
            if not n.endswith(".gcno"):
                continue
            rel = os.path.relpath(os.path.join(root, n[:-5] + ".c"), plain)
            if not rel.startswith(FOLDERS) or rel in seen or not os.path.exists(rel):
                continue
            seen.add(rel)
            funcs, (hit, total) = gcov(root, rel)
            folder = os.path.dirname(rel)
            lines[folder][0] += hit
            lines[folder][1] += total
            fns[folder][0] += sum(1 for f in funcs if f[1] > 0)
            fns[folder][1] += len(funcs)
            per_file.append((hit / total if total else 1.0, rel, hit, total))
    if not seen:
        print("coverage: no .gcno under %s (build with make coverage)" % plain)
        return 1
    print("%-16s %18s %18s" % ("folder", "lines", "functions"))
    tl = [0, 0]
    tf = [0, 0]
    for folder in sorted(lines):
        lh, lt = lines[folder]
        fh, ft = fns[folder]
        tl[0] += lh
        tl[1] += lt
        tf[0] += fh
        tf[1] += ft
        print("%-16s %6.1f%% %5d/%-5d %6.1f%% %4d/%-4d" % (
            folder, 100.0 * lh / max(lt, 1), lh, lt, 100.0 * fh / max(ft, 1), fh, ft))
    print("%-16s %6.1f%% %5d/%-5d %6.1f%% %4d/%-4d" % (
        "all", 100.0 * tl[0] / max(tl[1], 1), tl[0], tl[1], 100.0 * tf[0] / max(tf[1], 1),
        tf[0], tf[1]))
    print("least covered:")
    for frac, rel, hit, total in sorted(per_file)[:10]:
        print("  %5.1f%% %4d/%-4d %s" % (100 * frac, hit, total, rel))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
