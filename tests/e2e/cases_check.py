#!/usr/bin/python3
"""Check scaleprobe's NDJSON against what tests/lab/cases.tsv says a correct
prober reports for every lab target.

usage: cases_check.py CASES JSON [--skip-seen-by window] [--only-kind box,quote]

For each row (AnyIP ranges left out) and each family: the path to the row's
address must be there once; for scales 0, 7 and 14 its verdict, scale_quoted,
hop (index, address, last clean index and address, and "exact": false with
the silent_hops when the table's silent routers lie inside the interval; null
when the table has none) and side findings must be exactly the table's.  Hop k's address is
198.18.k.2 / fd00:5ca1:k::2, hop 0 the prober 198.18.1.1 / fd00:5ca1:1::1,
hop D the destination.  Prints PASS/FAIL per row and family, exits 1 on any
failure.
"""
import argparse
import json
import sys

PROBLEMS = {"rewritten", "stripped", "syn-dropped"}


def hop_addr(k, fam, dist, dest):
    if k == 0:
        return "198.18.1.1" if fam == 4 else "fd00:5ca1:1::1"
    if k == dist:
        return dest
    return f"198.18.{k}.2" if fam == 4 else f"fd00:5ca1:{k}::2"


def parse_side(text):
    """KIND[=DETAIL]@HOP,... -> [(kind, detail, hop)]"""
    out = []
    if text == "-":
        return out
    for item in text.split(","):
        what, _, hop = item.partition("@")
        kind, _, detail = what.partition("=")
        out.append((kind, detail or None, int(hop)))
    return out


def check_path(row, fam, path, errors):
    dest = path["address"]
    dist = int(row["dist"])
    want_side = parse_side(row["side"])
    by_scale = {s["scale_sent"]: s for s in path["scales"]}
    for s in (0, 7, 14):
        got = by_scale.get(s)
        if got is None:
            errors.append(f"scale {s} not probed")
            continue
        want_v = row[f"v{s}"]
        if got["verdict"] != want_v:
            errors.append(f"scale {s}: verdict {got['verdict']}, want {want_v} ({got['reason']})")
        want_q = row[f"q{s}"]
        want_q = None if want_q == "null" else int(want_q)
        if got["scale_quoted"] != want_q:
            errors.append(f"scale {s}: scale_quoted {got['scale_quoted']}, want {want_q}")
        hop = got["hop"]
        if want_v in PROBLEMS and row["hop"] != "-":
            want = {"index": int(row["hop"]),
                    "address": hop_addr(int(row["hop"]), fam, dist, dest),
                    "last_clean_index": int(row["clean"]),
                    "last_clean_address": hop_addr(int(row["clean"]), fam, dist, dest)}
            # a router that never answers inside the interval: not exact
            silent = sorted(k for k in (int(r[1:]) for r in row["silent"].split(",")
                                        if r.startswith("r"))
                            if int(row["clean"]) < k < int(row["hop"]))
            if silent:
                want.update({"exact": False, "silent_hops": silent})
            if hop != want:
                errors.append(f"scale {s}: hop {hop}, want {want}")
        elif hop is not None:
            errors.append(f"scale {s}: hop {hop}, want null")
        # the window test and the quotes tell one story wherever both
        # measured: the shift the server applied is the one last quoted
        # (a server that scales: its SYN-ACK carries window scale)
        if (got["scale_effective"] is not None and got["scale_quoted"] is not None
                and got["syn_ack"]["wscale"] is not None
                and row["seen_by"] != "window"
                and got["scale_effective"] != min(got["scale_quoted"], 14)):
            errors.append(f"scale {s}: window test says {got['scale_effective']}, "
                          f"quotes say {got['scale_quoted']}")
        seen = {(f["kind"], f["detail"], f["hop_index"]) for f in got["side_findings"]}
        for kind, detail, k in want_side:
            if not any(sk == kind and (detail is None or sd == detail) and sh == k
                       for sk, sd, sh in seen):
                errors.append(f"scale {s}: side finding {kind}={detail}@{k} missing (got {sorted(seen, key=str)})")
        for sk, sd, sh in seen:
            if not any(sk == kind for kind, _, _ in want_side):
                errors.append(f"scale {s}: unexpected side finding {sk}={sd}@{sh}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("json")
    ap.add_argument("--skip-seen-by", default="")
    ap.add_argument("--only-kind", default="")
    a = ap.parse_args()
    skip = set(filter(None, a.skip_seen_by.split(",")))
    kinds = set(filter(None, a.only_kind.split(",")))

    lines = [ln.rstrip("\n") for ln in open(a.cases) if not ln.startswith("#") and ln.strip()]
    header = lines[0].split("\t")
    rows = [dict(zip(header, ln.split("\t"))) for ln in lines[1:]]
    paths = [json.loads(ln) for ln in open(a.json) if ln.strip()]

    passed = failed = 0
    for row in rows:
        if row["kind"] == "range" or (kinds and row["kind"] not in kinds):
            continue
        if skip & set(row["seen_by"].split(",")):
            continue
        for fam in (4, 6):
            addr = row[f"v{fam}"]
            mine = [p for p in paths if p["address"] == addr and p["port"] == int(row["port"])]
            errors = []
            if len(mine) != 1:
                errors.append(f"{len(mine)} paths in the output")
            else:
                check_path(row, fam, mine[0], errors)
            if errors:
                failed += 1
                print(f"FAIL: {row['name']} v{fam} ({addr}): " + "; ".join(errors))
            else:
                passed += 1
                print(f"PASS: {row['name']} v{fam}: "
                      + ",".join(row[f"v{s}"] for s in (0, 7, 14))
                      + f" quoted {row['q0']}/{row['q7']}/{row['q14']}"
                      + (f" hop {row['hop']} after {row['clean']}" if row["hop"] != "-" else ""))
    print(f"cases: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
