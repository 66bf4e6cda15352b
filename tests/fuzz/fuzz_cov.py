#!/usr/bin/env python3
"""fuzz_cov.py -- make fuzz-cov: the lines each harness reaches.  Each
harness of the clang coverage build (BUILD/fuzzcov, -fprofile-instr-generate
-fcoverage-mapping) runs every input of its committed corpus and kept
failures once (libFuzzer runs the files it is named); llvm-profdata and
llvm-cov then count the lines.

The code under a harness is the files outside tests/ in which it ran at
least one function: one line per harness with their lines reached, then
(-v) one line per file.

usage: fuzz_cov.py [-v] BUILD NAME...   Exit 1 when a harness failed to run.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def tool(name):
    for n in (name, name + "-14", name + "-15", name + "-16", name + "-13"):
        p = shutil.which(n)
        if p:
            return p
    sys.exit("fuzz-cov: %s not found (make deps installs llvm)" % name)


def inputs(name):
    out = []
    for d in ("corpus", "crashes"):
        out += sorted(f for f in glob.glob(os.path.join(HERE, d, name, "*")) if os.path.isfile(f))
    return out


def cover(build, name, profdata, llvm_cov):
    binary = os.path.join(build, "fuzzcov", "tests", "fuzz", name)
    if not os.access(binary, os.X_OK):
        print("fuzz-cov: %s: %s not built" % (name, binary))
        return None
    work = os.path.join(build, "fuzzcov", "profiles", name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    files = inputs(name)
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(work, "%p-%m.profraw"))
    # a few hundred files a run: the command line stays short
    for i in range(0, len(files), 200):
        p = subprocess.run([binary, "-timeout=60", "-rss_limit_mb=4096"] + files[i:i + 200],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, errors="replace")
        if p.returncode != 0:
            print("fuzz-cov: %s: an input failed: %s" % (name, p.stderr.strip()[-400:]))
            return None
    raws = glob.glob(os.path.join(work, "*.profraw"))
    prof = os.path.join(work, "merged.profdata")
    subprocess.run([profdata, "merge", "-sparse", "-o", prof] + raws, check=True)
    out = subprocess.run([llvm_cov, "export", "-summary-only", binary,
                          "-instr-profile=" + prof], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    rows = []
    for f in json.loads(out)["data"][0]["files"]:
        rel = os.path.relpath(f["filename"], ROOT)
        s = f["summary"]
        if rel.startswith("tests/") or rel.startswith("..") or s["functions"]["covered"] == 0:
            continue
        rows.append((rel, s["lines"]["covered"], s["lines"]["count"]))
    return len(files), sorted(rows)


def main(argv):
    verbose = bool(argv) and argv[0] == "-v"
    if verbose:
        argv = argv[1:]
    if len(argv) < 2:
        sys.exit("usage: fuzz_cov.py [-v] BUILD NAME...")
    build, names = argv[0], argv[1:]
    profdata, llvm_cov = tool("llvm-profdata"), tool("llvm-cov")
    status = 0
    print("%-16s %6s %6s %14s %7s  %s" % ("harness", "inputs", "files", "lines", "line %",
                                           "files under test (functions run)"))
    for name in names:
        r = cover(build, name, profdata, llvm_cov)
        if r is None:
            status = 1
            continue
        n, rows = r
        hit = sum(c for _, c, _ in rows)
        tot = sum(t for _, _, t in rows)
        print("%-16s %6d %6d %6d / %5d %6.1f%%  %s" % (
            name, n, len(rows), hit, tot, 100.0 * hit / tot if tot else 0.0,
            " ".join(os.path.basename(f) for f, _, _ in rows) if not verbose else ""))
        if verbose:
            for f, c, t in rows:
                print("    %-40s %5d / %5d %6.1f%%" % (f, c, t, 100.0 * c / t if t else 0.0))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
