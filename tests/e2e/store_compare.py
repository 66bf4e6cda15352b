#!/usr/bin/env python3
"""store_compare.py DB NDJSON -- the store holds exactly what was printed.

Rebuilds, from the store's rows, the object output_json printed for each
path of the run (the last run in DB), and compares it with the printed
NDJSON field by field.  Prints one line per difference, then
"N passed, N failed" (one case per printed path, plus one for the count of
stored paths).  Exit 1 on any difference.
"""
import datetime
import json
import sqlite3
import sys


def rfc3339(ns):
    t = datetime.datetime.fromtimestamp(ns // 1_000_000_000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ns % 1_000_000_000 // 1_000_000)


def b(v):
    return None if v is None else bool(v)


def synack(present, ws, mss, sack, ts):
    return {"present": bool(present), "wscale": ws, "mss": mss, "sack": b(sack), "ts": b(ts)}


def hop_of(s):
    """The printed hop; "exact" and "silent_hops" only when TTLs inside the
    interval never answered (hop_silent: bit k for TTL k)."""
    h = {"index": s["hop_index"], "address": s["hop_address"],
         "last_clean_index": s["last_clean_index"],
         "last_clean_address": s["last_clean_address"]}
    if s["hop_silent"]:
        h["exact"] = False
        h["silent_hops"] = [k for k in range(1, 31) if s["hop_silent"] & (1 << k)]
    return h


def rebuild(db, run_id):
    db.row_factory = sqlite3.Row
    out = {}
    vantage = db.execute("SELECT vantage FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
    for pr in db.execute(
            "SELECT pr.*, t.spec, p.address, p.port, p.family FROM path_results pr "
            "JOIN targets t ON t.id = pr.target_id JOIN paths p ON p.id = pr.path_id "
            "WHERE run_id = ? ORDER BY pr.id", (run_id,)):
        o = {"target": pr["spec"], "address": pr["address"], "port": pr["port"],
             "family": pr["family"], "vantage": vantage, "time": rfc3339(pr["time_ns"])}
        o["control"] = {"reply": pr["control_reply"], "syn_ack":
                        synack(1, pr["control_wscale"], pr["control_mss"],
                               pr["control_sack"], pr["control_ts"])
                        if pr["control_sa_present"] else None}
        scales = []
        for s in db.execute("SELECT * FROM scale_results WHERE path_result_id = ? "
                            "ORDER BY idx", (pr["id"],)):
            sc = {"scale_sent": s["scale_sent"], "reply": s["reply"],
                  "icmp": {"type": s["icmp_type"], "code": s["icmp_code"]}
                  if s["icmp_type"] is not None else None,
                  "syn_ack": synack(s["sa_present"], s["sa_wscale"], s["sa_mss"],
                                    s["sa_sack"], s["sa_ts"]),
                  "scale_quoted": s["scale_quoted"],
                  "scale_effective": s["scale_effective"],
                  "scale_effective_min": s["scale_effective_min"],
                  "flight_bytes": s["flight_bytes"],
                  "verdict": s["verdict"], "reason": s["reason"],
                  "hop": hop_of(s) if s["hop_index"] is not None else None,
                  "side_findings": [
                      {"kind": f["kind"], "detail": f["detail"],
                       "hop_index": f["hop_index"], "hop_address": f["hop_address"]}
                      for f in db.execute("SELECT * FROM side_findings WHERE "
                                          "path_result_id = ? AND scale_idx = ? ORDER BY idx",
                                          (pr["id"], s["idx"]))]}
            scales.append(sc)
        o["scales"] = scales
        if pr["traced"]:
            o["hops"] = [{"ttl": h["ttl"], "address": h["address"], "quote": h["quote"],
                          "rfc4884": b(h["rfc4884"]),
                          "rtt_ms": None if h["rtt_us"] is None else
                          float("%.3f" % (h["rtt_us"] / 1000.0))}
                         for h in db.execute("SELECT * FROM hops WHERE path_result_id = ? "
                                             "ORDER BY ttl", (pr["id"],))]
        else:
            o["hops"] = None
        o["capture_drops"] = pr["capture_drops"]
        o["send_failures"] = pr["send_failures"]
        o["capture_error"] = pr["capture_error"]
        out[(o["address"], o["port"])] = o
    return out


def diff(path, a, b, out):
    """Every field where printed a and stored b differ, by JSON path."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append("%s.%s: %s" % (path, k, "not stored" if k in a else "not printed"))
            else:
                diff("%s.%s" % (path, k), a[k], b[k], out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append("%s: %d printed, %d stored" % (path, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            diff("%s[%d]" % (path, i), x, y, out)
    elif type(a) is not type(b) or a != b:
        out.append("%s: printed %r, stored %r" % (path, a, b))


def main():
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    run_id = db.execute("SELECT max(id) FROM runs").fetchone()[0]
    stored = rebuild(db, run_id)
    printed = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
    passed = failed = 0
    for p in printed:
        key = (p["address"], p["port"])
        d = []
        if key not in stored:
            d.append("not stored")
        else:
            diff("", p, stored[key], d)
        if d:
            failed += 1
            for line in d:
                print("FAIL: %s:%d%s" % (key[0], key[1], line))
        else:
            passed += 1
    if len(stored) == len(printed):
        passed += 1
    else:
        failed += 1
        print("FAIL: %d paths stored, %d printed" % (len(stored), len(printed)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
