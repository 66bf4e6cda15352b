#!/usr/bin/env python3
"""fuzz_ledger.py -- the committed ledger of long fuzzing (ledger.tsv), and
its totals per harness against the goal (make fuzz-ledger).

Each run of a harness by make fuzz-long (fuzz_long.py) appends one line, so
the CPU time adds up across sessions and machines:

  date      UTC, when the run ended (2026-12-04T22:10:00Z)
  harness   tests/fuzz/NAME.c
  cpu_s     CPU seconds its fuzzing processes used (user + system)
  execs     inputs run
  cov       coverage edges ("cov:") of the merged corpus, replayed
  ft        libFuzzer's features ("ft:") of the same
  files     inputs in the merged corpus, and bytes
  bytes
  crashes   inputs that failed, kept under tests/fuzz/crashes/NAME/
  stale_s   seconds of fuzzing since coverage last grew, when it stopped
            (carried into the next run: 30 minutes without growth, over
            runs, is a plateau)
  stop      budget, plateau, crash, deadline or interrupted
  jobs      processes run side by side

usage: fuzz_ledger.py [--goal S] [--plateau S] NAME...  (the harnesses of
files.mk; one line each, then the total).  Exit 0.
"""
import os
import sys

# FUZZ_DIR: another tree's corpus, crashes and ledger (fuzz_long's self-test)
HERE = os.environ.get("FUZZ_DIR") or os.path.dirname(os.path.abspath(__file__))
LEDGER = os.path.join(HERE, "ledger.tsv")
COLUMNS = ["date", "harness", "cpu_s", "execs", "cov", "ft", "files", "bytes", "crashes",
           "stale_s", "stop", "jobs"]
INTS = {"cpu_s", "execs", "cov", "ft", "files", "bytes", "crashes", "stale_s", "jobs"}
GOAL = 3600
PLATEAU = 1800


def read(path=LEDGER):
    """The ledger's rows as dicts, in the order written."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#") or line.startswith("date\t"):
                continue
            v = line.split("\t")
            if len(v) != len(COLUMNS):
                sys.exit("%s:%d: %d columns, expected %d" % (path, n, len(v), len(COLUMNS)))
            row = dict(zip(COLUMNS, v))
            for k in INTS:
                row[k] = int(row[k])
            rows.append(row)
    return rows


def append(row, path=LEDGER):
    """One run's line, the header first when the file is new."""
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", encoding="utf-8") as f:
        if new:
            f.write("\t".join(COLUMNS) + "\n")
        f.write("\t".join(str(row[k]) for k in COLUMNS) + "\n")


def totals(rows):
    """Per harness: runs, CPU seconds, execs, crashes, and its last row."""
    t = {}
    for r in rows:
        h = t.setdefault(r["harness"], {"runs": 0, "cpu_s": 0, "execs": 0, "crashes": 0,
                                        "last": None})
        h["runs"] += 1
        h["cpu_s"] += r["cpu_s"]
        h["execs"] += r["execs"]
        h["crashes"] += r["crashes"]
        h["last"] = r
    return t


def status(h, goal=GOAL, plateau=PLATEAU):
    """'goal' when it ran its CPU-hour, 'plateau' when coverage stopped
    growing for plateau seconds, else what it still needs."""
    if h is None:
        return "needs %d s" % goal
    if h["cpu_s"] >= goal:
        return "goal"
    if h["last"]["stale_s"] >= plateau:
        return "plateau"
    return "needs %d s" % (goal - h["cpu_s"])


def main(argv):
    goal, plateau = GOAL, PLATEAU
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--goal":
            goal = int(argv.pop(0))
        elif opt == "--plateau":
            plateau = int(argv.pop(0))
        else:
            sys.exit("fuzz_ledger.py: %s: unknown option" % opt)
    t = totals(read())
    names = argv or sorted(t)
    print("%-16s %4s %8s %6s %12s %6s %7s %6s %8s %s" % (
        "harness", "runs", "cpu_s", "cpu_h", "execs", "cov", "ft", "files", "crashes",
        "status (goal %d CPU s)" % goal))
    all_s = 0
    for name in names:
        h = t.get(name)
        last = h["last"] if h else None
        all_s += h["cpu_s"] if h else 0
        print("%-16s %4d %8d %6.2f %12d %6s %7s %6s %8d %s" % (
            name, h["runs"] if h else 0, h["cpu_s"] if h else 0,
            (h["cpu_s"] if h else 0) / 3600.0, h["execs"] if h else 0,
            last["cov"] if last else "-", last["ft"] if last else "-",
            last["files"] if last else "-", h["crashes"] if h else 0,
            status(h, goal, plateau)))
    done = sum(1 for n in names if status(t.get(n), goal, plateau) in ("goal", "plateau"))
    print("fuzz-ledger: %d harnesses, %.2f CPU-hours in all, %d at their goal or plateau"
          % (len(names), all_s / 3600.0, done))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
