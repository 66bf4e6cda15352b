#!/usr/bin/python3
"""What `scaleprobe show` and `export` must say about the store that
tests/e2e/history-store built, derived from its schedule and
tests/lab/cases.tsv alone (never from the store).

usage: history_check.py SCHED CASES export-csv FILE
       history_check.py SCHED CASES export-json FILE SCHEMA
       history_check.py SCHED CASES manifest DIR
       history_check.py SCHED CASES show-json FILE SPEC
       history_check.py SCHED CASES show-text FILE SPEC TZ

The truth per run, path and scale: the case's verdict (v0/v7/v14), quoted
shift (q0/q7/q14), hop and last clean hop; a path the schedule says was
bypassed answers as the clean case does.  The shift the server applied
(scale_effective) follows from the verdict: rewritten -> the quoted shift
(the server got the box's value), stripped -> 0 (no option, no scaling),
syn-dropped -> none (no handshake to test), ok -> the shift sent.  A row's
time is its run's time plus the moment its path was probed in the run: it
must lie within SLACK seconds after the run's time, and is then taken as
the expected row's (the exact bytes are compared with it in place).
Prints PASS/FAIL lines; exits 1 on any failure.
"""
import csv
import datetime
import io
import json
import os
import sys
import zoneinfo

PROBLEMS = ("rewritten", "stripped", "syn-dropped")
SCALES = (0, 7, 14)
SLACK = 30
COLUMNS = ["target", "address", "port", "family", "verdict", "scale_sent", "scale_quoted",
           "scale_effective", "hop_index", "hop_address", "last_clean_index",
           "last_clean_address", "first_seen", "last_seen", "times_seen", "vantage",
           "hop_exact", "silent_hops"]
# the numeric columns; the others are text, a formula in them neutralised
NUMERIC = {"port", "scale_sent", "scale_quoted", "scale_effective", "hop_index",
           "last_clean_index", "times_seen"}


def csv_cell(col, v):
    """A value as export writes it in CSV: a text cell a spreadsheet would
    run as a formula has a single quote before it (OWASP).  (Its controls
    but the line break would be escaped too: the store holds none.)"""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return " ".join(str(k) for k in v)
    v = str(v)
    return "'" + v if col not in NUMERIC and v[:1] in ("=", "+", "-", "@", "\t", "\r") else v

failed = 0


def check(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        failed += 1


def silent_between(row, clean, hop):
    """The table's silent routers (rK) strictly inside (clean, hop)."""
    ks = [int(r[1:]) for r in row["silent"].split(",") if r.startswith("r")]
    return sorted(k for k in ks if clean < k < hop)


def load_cases(path):
    lines = [ln.rstrip("\n") for ln in open(path) if not ln.startswith("#") and ln.strip()]
    header = lines[0].split("\t")
    return {r["name"]: r for r in (dict(zip(header, ln.split("\t"))) for ln in lines[1:])}


def hop_addr(k, fam, dist, dest):
    if k == 0:
        return "198.18.1.1" if fam == 4 else "fd00:5ca1:1::1"
    if k == dist:
        return dest
    return f"198.18.{k}.2" if fam == 4 else f"fd00:5ca1:{k}::2"


def truth(sched, cases):
    """[(run, spec, case, fam, address, port, scale, fields)] for every
    result the store must hold, in schedule order."""
    out = []
    for run in sched["runs"]:
        bypassed = {(b["case"], b["family"]) for b in run["bypassed"]}
        for t in sched["targets"]:
            row = cases[t["case"]]
            for fam in t["families"]:
                addr = row[f"v{fam}"]
                # a bypassed box: the path answers as the clean case
                eff_row = cases["clean"] if (t["case"], fam) in bypassed else row
                for s in SCALES:
                    v = eff_row[f"v{s}"]
                    q = eff_row[f"q{s}"]
                    q = None if q == "null" else int(q)
                    f = {"verdict": v, "scale_quoted": q, "hop_index": None,
                         "hop_address": None, "last_clean_index": None,
                         "last_clean_address": None, "hop_exact": None,
                         "silent_hops": None}
                    if v in PROBLEMS and eff_row["hop"] != "-":
                        dist = int(eff_row["dist"])
                        f["hop_index"] = int(eff_row["hop"])
                        f["hop_address"] = hop_addr(f["hop_index"], fam, dist, addr)
                        f["last_clean_index"] = int(eff_row["clean"])
                        f["last_clean_address"] = hop_addr(f["last_clean_index"], fam, dist, addr)
                        # routers that never answer inside the interval
                        f["silent_hops"] = silent_between(eff_row, f["last_clean_index"],
                                                          f["hop_index"])
                        f["hop_exact"] = not f["silent_hops"]
                    f["scale_effective"] = {"rewritten": q, "stripped": 0,
                                            "syn-dropped": None}.get(v, s if v == "ok" else None)
                    out.append((run, t["spec"], t["case"], fam, addr, int(row["port"]), s, f))
    return out


def expected_export(sched, cases, verdicts=PROBLEMS):
    groups = {}
    for run, spec, case, fam, addr, port, s, f in truth(sched, cases):
        if f["verdict"] not in verdicts:
            continue
        key = (run["vantage"], addr, port, s, f["verdict"])
        g = groups.get(key)
        if g is None:
            g = groups[key] = {"first_run": run, "n": 0}
        g["n"] += 1
        g["last_run"] = run
        g["row"] = {"target": spec, "address": addr, "port": port,
                    "family": "ipv4" if fam == 4 else "ipv6", "scale_sent": s,
                    "times_seen": None, "vantage": run["vantage"], **f}
    rows = []
    for key in sorted(groups, key=lambda k: (k[1], k[2], k[3], k[0], k[4])):
        g = groups[key]
        r = dict(g["row"])
        r["times_seen"] = g["n"]
        r["_first_ns"] = g["first_run"]["time_ns"]
        r["_last_ns"] = g["last_run"]["time_ns"]
        rows.append(r)
    return rows


def rfc3339_ns(s):
    """'2026-11-27T10:00:00.039Z' -> ns"""
    d = datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 10**9 + d.microsecond * 1000


def time_ok(got, want_ns):
    try:
        t = rfc3339_ns(got)
    except (TypeError, ValueError):
        return False
    return want_ns <= t < want_ns + SLACK * 10**9


def take_times(want, got, what):
    """Checks got's first/last seen against the runs' times and copies them
    into want (so that the rest compares exactly)."""
    n = min(len(want), len(got))
    for i in range(n):
        w, g = want[i], got[i]
        ok = (time_ok(g.get("first_seen"), w["_first_ns"]) and
              time_ok(g.get("last_seen"), w["_last_ns"]))
        if not ok:
            check(False, f"{what} row {i + 1}: first/last seen {g.get('first_seen')} "
                  f"{g.get('last_seen')}, want the runs at {w['_first_ns']} and {w['_last_ns']}")
        w["first_seen"], w["last_seen"] = g.get("first_seen"), g.get("last_seen")


def export_csv(sched, cases, path):
    want = expected_export(sched, cases)
    data = open(path, "rb").read()
    # the times as printed: parsed leniently, then the bytes compared whole
    got = list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))
    check(len(got) == len(want), f"CSV: {len(got)} rows, want {len(want)}")
    take_times(want, got, "CSV")
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    # CSV's last columns, flows and flows_affected and the branch, are empty
    # for one flow
    w.writerow(COLUMNS + ["flows", "flows_affected", "branch_hop", "branch_problem",
                          "branch_clean"])
    for r in want:
        w.writerow([csv_cell(c, r[c]) for c in COLUMNS] + ["", "", "", "", ""])
    exp = buf.getvalue().encode("utf-8")
    if data != exp:
        for i, (a, b) in enumerate(zip(data.split(b"\r\n"), exp.split(b"\r\n"))):
            if a != b:
                print(f"# line {i + 1}: got  {a!r}\n#          want {b!r}")
                break
    check(data == exp, f"CSV: the {len(want)} rows byte for byte as expected ({len(data)} bytes)")
    check(data.endswith(b"\r\n") and data.count(b"\r\n") == len(want) + 1 + 0 and
          b"\n" not in data.replace(b"\r\n", b"").replace(b'",\nrow', b""),
          "CSV: every record ends CRLF; the only bare LF is inside the quoted vantage")
    weird = [r for r in want if "\n" in r["vantage"]]
    check(len(weird) > 0 and b'"lab ""west"",\nrow 2"' in data,
          "CSV: the vantage with a comma, a quote and a newline quoted per RFC 4180")


def export_json(sched, cases, path, schema_path):
    import jsonschema
    want = expected_export(sched, cases)
    got = json.load(open(path))
    schema = json.load(open(schema_path))
    try:
        jsonschema.validate(got, schema, cls=jsonschema.Draft202012Validator)
        check(True, "JSON: valid against export.schema.json")
    except jsonschema.ValidationError as e:
        check(False, f"JSON: not valid against the schema: {e.message}")
    bad = {"target": "x", "address": "a", "port": 70000}
    try:
        jsonschema.validate([bad], schema, cls=jsonschema.Draft202012Validator)
        check(False, "JSON schema: refuses an object missing fields and a port of 70000")
    except jsonschema.ValidationError:
        check(True, "JSON schema: refuses an object missing fields and a port of 70000")
    check(len(got) == len(want), f"JSON: {len(got)} objects, want {len(want)}")
    take_times(want, got, "JSON")
    exp = [{c: r[c] for c in COLUMNS} for r in want]
    if got != exp:
        for i, (a, b) in enumerate(zip(got, exp)):
            if a != b:
                print(f"# object {i + 1}: got  {a}\n#            want {b}")
                break
    check(got == exp, f"JSON: the {len(exp)} objects equal the expected ones")


def manifest(sched, cases, d):
    want = expected_export(sched, cases)
    m = json.load(open(os.path.join(d, "manifest.json")))
    check(len(m) == len(want), f"pcap: {len(m)} manifest entries, want {len(want)}")
    for i, (e, w) in enumerate(zip(m, want)):
        ok = (e["address"] == w["address"] and e["vantage"] == w["vantage"] and
              e["verdict"] == w["verdict"] and e["option_diff"]["sent"] == w["scale_sent"] and
              e["option_diff"]["quoted"] == w["scale_quoted"] and
              e["option_diff"]["hop_address"] == w["hop_address"] and
              e["times_seen"] == w["times_seen"] and e["file"] is not None and
              os.path.exists(os.path.join(d, e["file"])) and e["packets"] >= 2 and
              time_ok(e["first_seen"], w["_first_ns"]) and time_ok(e["last_seen"], w["_last_ns"]))
        if not ok:
            check(False, f"pcap: manifest entry {i + 1} {e} vs {w}")
            return
    check(True, "pcap: a file and a manifest entry per row (vantage, times, option diff)")


def changes(verdicts):
    """[(change, verdict, first index, count)]: the fold, written again"""
    out = []
    broken_before = False
    for i, v in enumerate(verdicts):
        if out and out[-1][1] == v:
            out[-1][3] += 1
            continue
        if not out:
            c = "first-seen"
        else:
            was, now = out[-1][1] in PROBLEMS, v in PROBLEMS
            c = ("broken-again" if broken_before else "broken") if now and not was else \
                "fixed" if was and not now else "changed"
        broken_before |= v in PROBLEMS
        out.append([c, v, i, 1])
    return out


def series(sched, cases, spec):
    """{(address, vantage, scale): [(run, fields)]} for the target spec"""
    out = {}
    for run, sp, case, fam, addr, port, s, f in truth(sched, cases):
        if sp == spec:
            out.setdefault((addr, run["vantage"], s), []).append((run, f))
    return out


def show_json(sched, cases, path, spec):
    got = [json.loads(ln) for ln in open(path) if ln.strip()]
    want = series(sched, cases, spec)
    seen = 0
    for obj in got:
        for sc in obj["scales"]:
            key = (obj["address"], obj["vantage"], sc["scale_sent"])
            runs = want.get(key)
            if runs is None:
                check(False, f"show {spec}: unexpected series {key}")
                continue
            seen += 1
            last = runs[-1][1]
            exp = changes([f["verdict"] for _, f in runs])
            hist = [(h["change"], h["verdict"], h["results"]) for h in sc["history"]]
            ok = hist == [(c, v, n) for c, v, _, n in exp]
            ok &= all(time_ok(h["since"], runs[e[2]][0]["time_ns"])
                      for h, e in zip(sc["history"], exp))
            ok &= sc["verdict"] == last["verdict"] and sc["results"] == len(runs)
            ok &= sc["scale_quoted"] == last["scale_quoted"]
            hop = sc["hop"] or {}
            ok &= hop.get("index") == last["hop_index"] and \
                hop.get("address") == last["hop_address"] and \
                hop.get("last_clean_address") == last["last_clean_address"]
            check(ok, f"show {spec} {key}: history {hist}, want "
                  f"{[(c, v, n) for c, v, _, n in exp]}; latest {sc['verdict']}")
    check(seen == len(want), f"show {spec}: {seen} series, want {len(want)}")


NAMES = {"first-seen": "first seen", "broken": "broken", "broken-again": "broken again",
         "fixed": "fixed", "changed": "changed"}


def show_text(sched, cases, path, spec, tz):
    """Each change of each series on a line of its own, at its run's local
    time in tz (seconds and the rest of the line left free)."""
    text = open(path).read()
    z = zoneinfo.ZoneInfo(tz)
    lines = text.split("\n")
    for (addr, vantage, s), runs in series(sched, cases, spec).items():
        for c, v, i, n in changes([f["verdict"] for _, f in runs]):
            t = datetime.datetime.fromtimestamp(runs[i][0]["time_ns"] // 10**9, z)
            head = t.strftime("%Y-%m-%d %H:%M:")
            tail = t.strftime(" %z") + f"  {NAMES[c]}: {v}"
            ok = any(ln.strip().startswith(head) and tail in ln for ln in lines)
            check(ok, f"show {spec} text: {addr} {vantage!r} scale {s}: "
                  f"'{head}SS{tail}' ({tz})")
    check('from vantage lab "west",\\nrow 2' in text and "\nrow 2" not in text,
          "show text: the vantage's newline printed as \\n, never raw")


def main():
    sched = json.load(open(sys.argv[1]))
    cases = load_cases(sys.argv[2])
    what, args = sys.argv[3], sys.argv[4:]
    {"export-csv": lambda: export_csv(sched, cases, *args),
     "export-json": lambda: export_json(sched, cases, *args),
     "manifest": lambda: manifest(sched, cases, *args),
     "show-json": lambda: show_json(sched, cases, *args),
     "show-text": lambda: show_text(sched, cases, *args)}[what]()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
