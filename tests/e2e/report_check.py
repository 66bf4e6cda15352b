#!/usr/bin/python3
"""tests/e2e/report_check.py -- scaleprobe report's numbers against what a
history store's schedule (tests/e2e/history-store) and tests/lab/cases.tsv
say, never against the store itself.

usage: report_check.py SCHEDULE.json CASES.tsv REPORT.json REPORT.txt REPORT.html [SHOT.png]

Expected, per report.h's rules: a path's verdict in a run is the worst of
cases.tsv's v0, v7, v14 (a path bypassed in a run is clean: ok); per day
each (vantage, path) once; a change is a problem after a healthy state or
the reverse; the boxes, side findings and problems come from each path's
last run.  Checks the JSON exactly, the text's day table, the HTML's SVG
(every bar's count and its height as count x unit) and, with SHOT.png, the
share of each verdict's colour in the main chart's plot area of the
screenshot, within 3 points of the data's share.
Prints PASS/FAIL per claim and "N passed, N failed"; exit 1 on a failure.
"""
import json
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

SEVERITY = ["none", "ok", "unsupported", "inconclusive", "closed", "filtered",
            "unreachable", "stripped", "rewritten", "syn-dropped"]
PROBLEMS = ("rewritten", "stripped", "syn-dropped")
HEALTHY = ("ok", "unsupported")
ORDER = ["ok", "unsupported", "rewritten", "stripped", "syn-dropped", "closed",
         "filtered", "unreachable", "inconclusive", "none"]
PLOT_MAIN = (0xf7, 0xf5, 0xee)

passed = failed = 0


def claim(what, ok):
    global passed, failed
    print("%s: %s" % ("PASS" if ok else "FAIL", what))
    if ok:
        passed += 1
    else:
        failed += 1
    return ok


def cases(path):
    rows, header = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        r = dict(zip(header, cells))
        rows[r["name"]] = r
    return rows


def hop_addr(k, fam):
    return "198.18.%d.2" % k if fam == 4 else "fd00:5ca1:%d::2" % k


def expected(sched, table):
    """(vantage, address, port) -> [(run, day, verdict, case, family)] in time order."""
    paths = {}
    for run in sched["runs"]:
        bypassed = {(b["case"], b["family"]) for b in run["bypassed"]}
        day = run["time_ns"] // 10**9 // 86400
        for t in sched["targets"]:
            c = table[t["case"]]
            for fam in t["families"]:
                addr = c["v4"] if fam == 4 else c["v6"]
                if (t["case"], fam) in bypassed:
                    v = "ok"
                else:
                    v = max((c["v0"], c["v7"], c["v14"]), key=SEVERITY.index)
                key = (run["vantage"], addr, int(c["port"]))
                paths.setdefault(key, []).append((run, day, v, t["case"], fam))
    return paths


class SideTable(HTMLParser):
    """The HTML's path x vantage table: rows of cell texts, whitespace folded."""

    def __init__(self):
        super().__init__()
        self.rows, self.cell, self.on = [], None, False

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("class") == "side":
            self.on = True
        elif self.on and tag == "tr":
            self.rows.append([])
        elif self.on and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.on = False
        elif self.cell is not None and tag in ("td", "th"):
            self.rows[-1].append(" ".join(self.cell.split()))
            self.cell = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d


def check_side(rep, html, paths):
    """Several vantages: each path's last verdict per vantage side by side, in the
    JSON (split when broken from one and fine from another) and the HTML table."""
    want = {}
    for (v, a, p), runs in paths.items():
        want.setdefault((a, p), {})[v] = runs[-1][2]
    got = {(s["address"], s["port"]): {x["vantage"]: x["verdict"] for x in s["vantages"]}
           for s in rep.get("side_by_side", [])}
    claim("json: side by side, each path's last verdict per vantage (%d paths)" % len(want),
          got == want)
    split = {k for k, m in want.items()
             if any(x in PROBLEMS for x in m.values()) and any(x in HEALTHY for x in m.values())}
    claim("json: the split paths %s" % sorted(split),
          {(s["address"], s["port"]) for s in rep.get("side_by_side", []) if s["split"]} == split)
    t = SideTable()
    t.feed(html)
    vs = [v["vantage"] for v in rep["vantages"]]
    # names as the page prints them: control characters escaped (textsafe.h)
    ok = len(t.rows) == len(want) + 1 and t.rows[0] == ["path"] + [v.replace("\n", "\\n") for v in vs]
    for r in t.rows[1:]:
        a, _, p = r[0].rpartition(":")
        m = want.get((a.strip("[]"), int(p)), {})
        ok = ok and [c.split(" ")[0] for c in r[1:]] == [m.get(v, "not") for v in vs]
    claim("html: the path x vantage table (%d rows, columns %s)" % (len(t.rows) - 1, vs), ok)


def section(paths, vantage=None):
    days, broken, fixed, hops, findings, problems = {}, [], [], {}, {}, []
    sel = {k: v for k, v in paths.items() if vantage is None or k[0] == vantage}
    for key, runs in sel.items():
        state = None
        for i, (run, day, v, case, fam) in enumerate(runs):
            if i + 1 == len(runs) or runs[i + 1][1] != day:
                days.setdefault(day, {o: 0 for o in ORDER})[v] += 1
            if state in HEALTHY and v in PROBLEMS:
                broken.append((run["time"], key))
            if state in PROBLEMS and v in HEALTHY:
                fixed.append((run["time"], key))
            if v in HEALTHY or v in PROBLEMS:
                state = v
        run, day, v, case, fam = runs[-1]
        c = TABLE[case]
        if v in PROBLEMS:
            problems.append(key)
            k = int(c["hop"])
            a = hop_addr(k, fam)
            h = hops.setdefault(a, {"address": a, "index": k, "paths": 0,
                                    "last_clean_address": hop_addr(int(c["clean"]), fam),
                                    "last_clean_index": int(c["clean"])})
            h["paths"] += 1
        # a finding only a router's quote shows needs the trace, which
        # --trace auto runs where the handshake and the window test cannot
        # vouch for the path: on the problems
        traced = TRACE == "always" or (TRACE == "auto" and v in PROBLEMS)
        if c["side"] != "-" and (traced or c["seen_by"] != "quote"):
            for s in c["side"].split(","):
                kind = s.split("@")[0].split("=")[0]
                findings[kind] = findings.get(kind, 0) + 1
    return days, sorted(broken), sorted(fixed), hops, findings, problems


def day_name(d):
    import datetime
    return (datetime.date(1970, 1, 1) + datetime.timedelta(days=d)).isoformat()


def check_section(name, got, exp):
    days, broken, fixed, hops, findings, problems = exp
    want_days = [{"day": day_name(d), "paths": days[d]} for d in sorted(days)]
    claim("%s: paths per verdict per day %s" % (name, [(w["day"], {k: v for k, v in w["paths"].items() if v})
                                                       for w in want_days]),
          got["days"] == want_days)
    gb = [(c["time"][:19] + "Z", (c["vantage"], c["address"], c["port"])) for c in got["newly_broken"]]
    gf = [(c["time"][:19] + "Z", (c["vantage"], c["address"], c["port"])) for c in got["newly_fixed"]]
    claim("%s: newly broken %s" % (name, broken), gb == broken)
    claim("%s: newly fixed %s" % (name, fixed), gf == fixed)
    want_hops = sorted(hops.values(), key=lambda h: (-h["paths"], h["address"]))
    claim("%s: boxes and the paths each damages %s" % (name, [(h["address"], h["paths"]) for h in want_hops]),
          got["hops"] == want_hops)
    gf = {k: v for k, v in got["side_findings"].items() if v}
    claim("%s: side findings %s" % (name, findings), gf == findings)
    return want_days


def main():
    global TABLE
    sched = json.load(open(sys.argv[1]))
    TABLE = cases(sys.argv[2])
    rep = json.load(open(sys.argv[3]))
    text = open(sys.argv[4]).read()
    html = open(sys.argv[5]).read()
    shot = sys.argv[6] if len(sys.argv) > 6 else None
    global TRACE
    p = sched.get("probe", [])
    TRACE = p[p.index("--trace") + 1] if "--trace" in p else "auto"
    paths = expected(sched, TABLE)

    # ---- JSON: every number --------------------------------------------------
    exp = section(paths)
    want_days = check_section("json", rep, exp)
    claim("json: %d paths, %d results" % (len(paths), sum(len(r) for r in paths.values())),
          rep["paths"] == len(paths) and rep["results"] == sum(len(r) for r in paths.values()))
    vantages = sorted({k[0] for k in paths})
    claim("json: a section per vantage %s" % vantages,
          [v["vantage"] for v in rep["vantages"]] == vantages)
    for v in rep["vantages"]:
        check_section("json vantage %r" % v["vantage"], v, section(paths, v["vantage"]))
    probs = sorted(exp[5])
    got = sorted((p["vantage"], p["address"], p["port"]) for p in rep["problems"])
    claim("json: the problems are the paths whose last run was one (%d)" % len(probs), got == probs)
    adv = [p for p in rep["problems"] if p["verdict"] == "rewritten"]
    claim("json: each rewritten path's client advice is an ip route with window 65535 (%d)" % len(adv),
          len(adv) > 0 and all(p["advice"]["client"]["command"].startswith(
              "ip %sroute replace %s/%s " % ("-6 " if p["family"] == "ipv6" else "", p["address"],
                                            128 if p["family"] == "ipv6" else 32))
              and p["advice"]["client"]["command"].endswith(" window 65535") for p in adv))
    claim("json: every problem has advice for both sides",
          all(p["advice"]["client"]["text"] and p["advice"]["server"]["text"] for p in rep["problems"]))
    claim("json: times in RFC 3339 UTC",
          all(c["time"].endswith("Z") for c in rep["newly_broken"] + rep["problems"]))

    # ---- text: the day table (TZ=UTC here: local days are UTC days) -----------
    lines = text.split("\n")
    i = next((k for k, l in enumerate(lines) if l.startswith("  day ")), None)
    ok = i is not None
    if ok:
        cols = lines[i].split()[1:-1]
        for k, w in enumerate(want_days):
            cells = lines[i + 1 + k].split()
            got = dict(zip(cols, map(int, cells[1:-1])))
            ok = ok and cells[0] == w["day"] and got == {c: w["paths"][c] for c in cols} and \
                all(w["paths"][c] == 0 for c in ORDER if c not in cols) and \
                int(cells[-1]) == sum(w["paths"].values())
    claim("text: the day table has the same numbers", ok)
    claim("text: newly broken %d, newly fixed %d" % (len(exp[1]), len(exp[2])),
          ("Newly broken: %d\n" % len(exp[1])) in text and ("Newly fixed: %d\n" % len(exp[2])) in text)
    claim("text: a vantage's name is printed without its control characters",
          "\nrow 2" not in text and 'lab "west",\\nrow 2' in text)

    # ---- HTML: the SVG parsed --------------------------------------------------
    a = html.index('<svg class="chart main"')
    b = html.index("</svg>", a) + len("</svg>")
    svg = ET.fromstring(html[a:b])
    unit = float(svg.get("data-unit"))
    bars = [r for r in svg.iter() if r.tag.endswith("rect") and r.get("data-verdict")]
    got = {}
    sized = True
    for r in bars:
        n = int(r.get("data-count"))
        got[(r.get("data-day"), r.get("data-verdict"))] = n
        sized = sized and abs(float(r.get("height")) - n * unit) < 0.01
    want = {(w["day"], v): n for w in want_days for v, n in w["paths"].items() if n}
    claim("html: the main chart's bars are the data's %s" % sorted(want.items()), got == want)
    claim("html: each bar's height is its count x %.3f px" % unit, sized and len(bars) > 0)
    cols = {}
    for r in bars:
        cols.setdefault(r.get("data-verdict"), set()).add(r.get("fill"))
    claim("html: one colour per verdict %s" % sorted((v, sorted(c)) for v, c in cols.items()),
          all(len(c) == 1 for c in cols.values()) and
          len({next(iter(c)) for c in cols.values()}) == len(cols))
    claim("html: self-contained (no script, nothing fetched)",
          "<script" not in html and "src=" not in html and "href=" not in html and "url(" not in html)

    if len(rep["vantages"]) > 1:
        check_side(rep, html, paths)

    # ---- the screenshot: each colour's share of the plotted bars ---------------
    if shot:
        from PIL import Image
        im = Image.open(shot).convert("RGB")
        w, h = im.size
        px = im.load()
        xs, ys = [], []
        for y in range(h):
            for x in range(w):
                if px[x, y] == PLOT_MAIN:
                    xs.append(x)
                    ys.append(y)
        box = (min(xs), min(ys), max(xs), max(ys)) if xs else None
        if not claim("screenshot: the main chart's plot area found (%s)" % (box,), bool(xs)):
            return
        x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        colour = {v: tuple(int(next(iter(c))[i:i + 2], 16) for i in (1, 3, 5)) for v, c in cols.items()}
        count = {v: 0 for v in colour}
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                p = px[x, y]
                for v, c in colour.items():
                    if max(abs(p[i] - c[i]) for i in range(3)) <= 8:
                        count[v] += 1
                        break
        total_px = sum(count.values())
        total = sum(want.values())
        for v in sorted(colour):
            data = sum(n for (d, vv), n in want.items() if vv == v) / total
            got = count[v] / total_px if total_px else 0
            claim("screenshot: %s covers %.1f %% of the bars' pixels, the data %.1f %% (within 3 points)"
                  % (v, 100 * got, 100 * data), abs(got - data) <= 0.03)
        print("# screenshot %dx%d, plot area %dx%d at (%d,%d), %d bar pixels"
              % (w, h, x1 - x0 + 1, y1 - y0 + 1, x0, y0, total_px))


TABLE = None
TRACE = "auto"
if __name__ == "__main__":
    main()
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
