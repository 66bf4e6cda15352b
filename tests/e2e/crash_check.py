#!/usr/bin/env python3
"""tests/e2e/crash_check.py -- what a daemon's store must hold after kill -9.

  crash_check.py snap DB LEDGER
      Read DB read-only (the daemon killed, its -wal and -shm as it left
      them): PRAGMA integrity_check must say ok, and every committed result
      of a finished target (a path result whose target has a state for its
      run) in LEDGER, the results seen committed before the earlier kills,
      must be there with the same row, the same scale rows and the same
      hops (a digest of each).  The finished results seen now are added to
      LEDGER.  Prints one line; exit 1 on a fault.

  crash_check.py final DB LEDGER TARGETS SCALES FIRST LAST [SKIP]
      The same, then: exactly one result per path, scale and cycle of the
      daemon's runs; every path result with SCALES scale rows; each of
      TARGETS targets with exactly one state in every cycle FIRST..LAST
      but those of SKIP ("A-B,C-D": cycles a restart two cycles late
      owes nothing), the state's count of paths equal to the results
      stored for it.

The ledger is JSON: {"id": digest}.  Every byte of the store is read as
hostile: a missing table or a NULL is a fault, never a crash.
"""
import hashlib
import json
import os
import sqlite3
import sys


def connect(db):
    return sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)


def finished(con):
    """id -> digest of every path result whose target has a state for its run."""
    rows = con.execute(
        "SELECT pr.* FROM path_results pr WHERE EXISTS (SELECT 1 FROM target_states t "
        "WHERE t.run_id = pr.run_id AND t.target_id = pr.target_id) ORDER BY pr.id").fetchall()
    scales = {}
    for r in con.execute("SELECT * FROM scale_results ORDER BY path_result_id, idx"):
        scales.setdefault(r[0], []).append(r)
    hops = {}
    for r in con.execute("SELECT * FROM hops ORDER BY path_result_id, ttl"):
        hops.setdefault(r[0], []).append(r)
    out = {}
    for r in rows:
        h = hashlib.sha256(repr((r, scales.get(r[0], []), hops.get(r[0], []))).encode())
        out[str(r[0])] = h.hexdigest()[:32]
    return out


def check_ledger(con, ledger_file):
    """Faults of the ledger against the store, and the store's finished results."""
    faults = []
    ic = [r[0] for r in con.execute("PRAGMA integrity_check")]
    if ic != ["ok"]:
        faults.append("integrity_check: %s" % "; ".join(map(str, ic[:3])))
    now = finished(con)
    ledger = {}
    if os.path.exists(ledger_file):
        with open(ledger_file) as f:
            ledger = json.load(f)
    lost = [i for i in ledger if i not in now]
    changed = [i for i in ledger if i in now and now[i] != ledger[i]]
    if lost:
        faults.append("%d committed results lost (ids %s)" % (len(lost), ",".join(lost[:5])))
    if changed:
        faults.append("%d committed results changed (ids %s)" % (len(changed),
                                                                  ",".join(changed[:5])))
    return faults, ledger, now


def save(ledger_file, ledger, now):
    ledger.update(now)
    tmp = ledger_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump(ledger, f)
    os.replace(tmp, ledger_file)


def final_checks(con, targets, scales, first, last, skip=()):
    faults = []
    dup = con.execute(
        "SELECT count(*), coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM path_results pr "
        "JOIN runs r ON r.id = pr.run_id JOIN scale_results s ON s.path_result_id = pr.id "
        "WHERE r.cycle IS NOT NULL GROUP BY r.grp, r.cycle, pr.path_id, s.scale_sent "
        "HAVING count(*) <> 1)").fetchone()
    if dup[0]:
        faults.append("%d (path, scale, cycle) stored more than once (up to %d times)" % dup)
    short = con.execute(
        "SELECT count(*) FROM path_results pr WHERE (SELECT count(*) FROM scale_results s "
        "WHERE s.path_result_id = pr.id) <> ?1", (scales,)).fetchone()[0]
    if short:
        faults.append("%d path results without their %d scale rows" % (short, scales))
    per = dict(con.execute("SELECT cycle, count(*) FROM target_states WHERE cycle BETWEEN ?1 "
                           "AND ?2 GROUP BY cycle", (first, last)).fetchall())
    owed = [c for c in range(first, last + 1) if not any(a <= c <= b for a, b in skip)]
    gaps = ["cycle %d: %d" % (c, per.get(c, 0)) for c in owed if per.get(c, 0) != targets]
    if gaps:
        faults.append("%d cycles of %d without a state for each of the %d targets (%s)" % (
            len(gaps), len(owed), targets, ", ".join(gaps[:4])))
    wrong = con.execute(
        "SELECT count(*) FROM target_states s WHERE s.cycle BETWEEN ?1 AND ?2 AND s.run_id "
        "IS NOT NULL AND s.paths <> (SELECT count(*) FROM path_results pr WHERE "
        "pr.run_id = s.run_id AND pr.target_id = s.target_id)", (first, last)).fetchone()[0]
    if wrong:
        faults.append("%d states whose count of paths is not the results stored" % wrong)
    states = sum(per.values())
    return faults, states


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("snap", "final"):
        sys.exit("usage: crash_check.py snap|final DB LEDGER [TARGETS SCALES FIRST LAST]")
    db, ledger_file = sys.argv[2], sys.argv[3]
    try:
        con = connect(db)
        faults, ledger, now = check_ledger(con, ledger_file)
        extra = ""
        if sys.argv[1] == "final":
            targets, scales, first, last = (int(x) for x in sys.argv[4:8])
            skip = [tuple(int(x) for x in r.split("-", 1)) for r in
                    (sys.argv[8].split(",") if len(sys.argv) > 8 and sys.argv[8] else [])]
            if any(len(r) != 2 for r in skip):
                raise ValueError("SKIP: ranges A-B")
            more, states = final_checks(con, targets, scales, first, last, skip)
            faults += more
            rows = con.execute("SELECT count(*) FROM path_results").fetchone()[0]
            extra = ", %d path results, %d states in cycles %d..%d" % (rows, states, first,
                                                                         last)
    except (sqlite3.Error, ValueError, OSError) as e:
        print("FAULT: %s: %s" % (db, e))
        sys.exit(1)
    print("%d committed results checked, %d committed now%s%s" % (
        len(ledger), len(now), extra, "".join("; FAULT: " + f for f in faults)))
    save(ledger_file, ledger, now)
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
