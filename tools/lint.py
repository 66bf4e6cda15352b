#!/usr/bin/env python3
"""make lint: the tree's layers, checked.

Every C file under prober/, db/ and config/ belongs to the folder it sits
in.  A folder may include headers of the folders named in ALLOWED (its own
included) and the system libraries named in LIBRARIES; anything else is a
layering fault.  Headers are found by name (the Makefile puts every folder
on the include path), so no two headers may share one, and a header of the
tree named in angle brackets (<engine.h>) is still the tree's: it is held
to the layers and must be written with quotes.  An include the
preprocessor computes (#include NAME) cannot be checked and is refused.
ALLOWED itself must point one way (no folder reaches itself through
others) and must say what README.md's drawing of the layers says.  Every
file opens with a comment naming itself ("/*\\n * name -- what it owns").

Prints one line per fault, "file:line: what is wrong", then
"lint: N files, N faults" and the runner's "N passed, N failed" (files
without a fault, faults); exit 1 when there is a fault.
"""
import os
import re
import sys

# Which folders each folder may include from: the arrows point down only.
#   cli, daemon -> run -> engine, infer, net -> wire -> lib
ALLOWED = {
    "prober/lib": {"prober/lib"},
    "prober/wire": {"prober/wire", "prober/lib"},
    "prober/infer": {"prober/infer", "prober/wire", "prober/lib"},
    "prober/net": {"prober/net", "prober/wire", "prober/lib"},
    # the engine owns no socket: what it sends is described in wire
    "prober/engine": {"prober/engine", "prober/wire", "prober/lib"},
    # the runner: the engine on an event loop, the sockets and captures
    # of net, each result judged by infer
    "prober/run": {"prober/run", "prober/engine", "prober/infer", "prober/net",
                   "prober/wire", "prober/lib"},
    "prober/cli": {"prober/cli", "prober/run", "prober/net", "prober/wire",
                   "prober/infer", "prober/lib", "db", "config"},
    "prober/daemon": {"prober/daemon", "prober/run", "prober/net", "prober/wire",
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
    "event2": (re.compile(r"^event2/"), {"prober/net", "prober/run", "prober/cli",
                                        "prober/daemon"}),
    "sqlite3": (re.compile(r"^sqlite3\.h$"), {"db"}),
    "libpq": (re.compile(r"^libpq-fe\.h$"), {"db"}),
    "systemd": (re.compile(r"^systemd/"), {"prober/daemon"}),
}

ROOTS = ["prober", "db", "config"]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# any other #include: a macro the preprocessor expands into a name
COMPUTED = re.compile(r'^\s*#\s*include\s*[^\s<"]')
# README.md's drawing: a fenced block after the line naming it, one
# "folder -> folder folder ..." line per layer
DRAWING_MARK = "<!-- layers: make lint holds this drawing against tools/lint.py -->"
DRAWING_LINE = re.compile(r"^\s*(\S+)\s+->\s*(.*)$")


def cycle_in(allowed):
    """A list of folders that reach themselves through others, or None."""
    state = {}
    path = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(allowed.get(node, ())):
            if nxt == node:
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(allowed):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def drawing_faults(repo, allowed):
    """README.md's drawing against ALLOWED: one fault per difference."""
    readme = os.path.join(repo, "README.md")
    try:
        with open(readme, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except OSError as e:
        return [f"README.md:1: cannot read the drawing of the layers ({e.strerror})"]
    try:
        start = lines.index(DRAWING_MARK)
    except ValueError:
        return [f"README.md:1: no drawing of the layers (the line {DRAWING_MARK})"]
    drawn = {}
    where = {}
    n = start + 1
    while n < len(lines) and not lines[n].startswith("```"):
        n += 1
    n += 1
    while n < len(lines) and not lines[n].startswith("```"):
        m = DRAWING_LINE.match(lines[n])
        if m:
            drawn[m.group(1)] = set(m.group(2).split()) | {m.group(1)}
            where[m.group(1)] = n + 1
        n += 1
    faults = []
    for folder in sorted(set(allowed) | set(drawn)):
        if folder not in drawn:
            faults.append(f"README.md:{start + 1}: the drawing of the layers lacks {folder}")
        elif folder not in allowed:
            faults.append(f"README.md:{where[folder]}: the drawing names {folder}, "
                          f"which tools/lint.py does not know")
        elif drawn[folder] != allowed[folder]:
            more = sorted(drawn[folder] - allowed[folder])
            less = sorted(allowed[folder] - drawn[folder])
            faults.append(f"README.md:{where[folder]}: {folder} differs from tools/lint.py: "
                          f"drawn but not allowed: {' '.join(more) or '-'}; "
                          f"allowed but not drawn: {' '.join(less) or '-'}")
    return faults


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
    loop = cycle_in(ALLOWED)
    if loop:
        faults.append(f"tools/lint.py:1: ALLOWED points in a circle: {' -> '.join(loop)}")
    faults.extend(drawing_faults(repo, ALLOWED))
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
                if COMPUTED.match(line):
                    faults.append(f"{f}:{n}: a computed #include, which lint cannot check: "
                                  f"name the header")
                continue
            kind, name = m.groups()
            if kind == "<" and "/" not in name and name in headers:
                faults.append(f"{f}:{n}: includes the tree's {headers[name]} as <{name}>: "
                              f"write \"{name}\"")
                kind = '"'
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
    faulty = {fault.split(":", 1)[0] for fault in faults} & set(files)
    print(f"lint: {len(files)} files, {len(faults)} faults")
    print(f"{len(files) - len(faulty)} passed, {len(faults)} failed")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
