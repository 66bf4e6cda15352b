#!/usr/bin/env python3
"""make lint: the tree's layers, checked.

Every C file under prober/, db/ and config/ belongs to the folder it sits
in.  A folder may include headers of the folders named in ALLOWED (its own
included) and the system libraries named in LIBRARIES; anything else is a
layering fault.  Headers are found by name (the Makefile puts every folder
on the include path), so no two headers may share one.  Every file opens
with a comment naming itself ("/*\\n * name -- what it owns").

Prints one line per fault, "file:line: what is wrong", then
"lint: N files, N faults" and the runner's "N passed, N failed" (files
without a fault, faults); exit 1 when there is a fault.
"""
import os
import re
import sys

# Which folders each folder may include from: the arrows point down only.
#   cli, daemon -> engine -> net, wire -> lib;  engine -> infer -> wire -> lib
ALLOWED = {
    "prober/lib": {"prober/lib"},
    "prober/wire": {"prober/wire", "prober/lib"},
    "prober/infer": {"prober/infer", "prober/wire", "prober/lib"},
    "prober/net": {"prober/net", "prober/wire", "prober/lib"},
    # engine -> infer: a run judges each path before handing it on
    "prober/engine": {"prober/engine", "prober/net", "prober/wire", "prober/infer",
                      "prober/lib"},
    "prober/cli": {"prober/cli", "prober/engine", "prober/net", "prober/wire",
                   "prober/infer", "prober/lib", "db", "config"},
    "prober/daemon": {"prober/daemon", "prober/engine", "prober/net", "prober/wire",
                      "prober/infer", "prober/lib", "db", "config"},
    "db": {"db", "prober/wire", "prober/lib"},
    "config": {"config", "prober/lib"},
}

# System libraries by the include that names them, and where each may be
# used: the I/O stays at the edges.
LIBRARIES = {
    "libnet": (re.compile(r"^libnet\.h$"), {"prober/net"}),
    "pcap": (re.compile(r"^pcap(\.h|/)"), {"prober/net"}),
    "nftables": (re.compile(r"^nftables/"), {"prober/net"}),
    "libmnl": (re.compile(r"^libmnl/"), {"prober/net"}),
    "event2": (re.compile(r"^event2/"), {"prober/net", "prober/engine", "prober/cli",
                                        "prober/daemon"}),
    "sqlite3": (re.compile(r"^sqlite3\.h$"), {"db"}),
    "systemd": (re.compile(r"^systemd/"), {"prober/daemon"}),
}

ROOTS = ["prober", "db", "config"]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def sources(repo):
    for root in ROOTS:
        for d, _, files in os.walk(os.path.join(repo, root)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), repo)


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else "."
    files = sorted(sources(repo))
    faults = []
    headers = {}
    for f in files:
        if f.endswith(".h"):
            name = os.path.basename(f)
            if name in headers:
                faults.append(f"{f}:1: header name also used by {headers[name]}")
            headers[name] = f
    for f in files:
        folder = os.path.dirname(f)
        if folder not in ALLOWED:
            faults.append(f"{f}:1: folder {folder} is not a layer lint knows (tools/lint.py)")
            continue
        with open(os.path.join(repo, f), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        base = os.path.basename(f)
        if len(lines) < 2 or lines[0] != "/*" or not lines[1].startswith(f" * {base} --"):
            faults.append(f"{f}:1: does not open with /* and \" * {base} -- what it owns\"")
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if m is None:
                continue
            kind, name = m.groups()
            if kind == '"':
                target = headers.get(os.path.basename(name))
                if target is None:
                    faults.append(f"{f}:{n}: includes \"{name}\", which is no header of the tree")
                    continue
                tfolder = os.path.dirname(target)
                if tfolder not in ALLOWED[folder]:
                    faults.append(f"{f}:{n}: {folder} may not include {target} ({tfolder})")
                continue
            for lib, (pattern, where) in LIBRARIES.items():
                if pattern.search(name) and folder not in where:
                    faults.append(f"{f}:{n}: {folder} may not use {lib} (<{name}>): "
                                  f"only {', '.join(sorted(where))}")
    for fault in faults:
        print(fault)
    faulty = {fault.split(":", 1)[0] for fault in faults}
    print(f"lint: {len(files)} files, {len(faults)} faults")
    print(f"{len(files) - len(faulty)} passed, {len(faults)} failed")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
