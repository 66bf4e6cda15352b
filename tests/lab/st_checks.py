# tests/lab/st_checks.py -- the lab self-test's claims: what each target of
# cases.tsv must look like at the servers, in the answers and in every
# router's quote, checked against what was captured.  Pure: the captures come
# in as parsed packets (st_wire), the verdicts go out as PASS / FAIL lines.
import st_wire as W

PROBER = {4: "198.18.1.1", 6: "fd00:5ca1:1::1"}
PROBER_ANY = {4: "198.18.254.1", 6: "fd00:5ca1:254::1"}
NAT_SRC = {"translated": {4: "198.18.2.1", 6: "fd00:5ca1:2::1"},
           "leaked": {4: "198.18.2.100", 6: "fd00:5ca1:2::100"}}
ROUTERS = 5


def hop_addr(k, fam):
    return "198.18.%d.2" % k if fam == 4 else "fd00:5ca1:%d::2" % k


class Report:
    def __init__(self):
        self.passed = self.failed = 0

    def claim(self, ok, what):
        print("%s %s" % ("PASS" if ok else "FAIL", what), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


R = Report()


def read_cases(path):
    rows, hdr = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if hdr is None:
                hdr = cols
                continue
            rows.append(dict(zip(hdr, cols)))
    return rows


def routers_in(field):
    return set() if field == "-" else {int(r[1:]) for r in field.split(",")}


# ---- checks --------------------------------------------------------------------

def expect_opts_at(row, k, opts):
    """Options router k sees (None: the SYN never reaches its TTL check)."""
    if row["action"] not in W.SYN_ACTIONS:
        return opts
    b = int(row["box"][1:])
    applies = k >= b if row["hook"] == "ingress" else k > b
    return W.model(row["action"], row["arg"], opts) if applies else opts


def server_opts(row, opts):
    if row["action"] in W.SYN_ACTIONS:
        return W.model(row["action"], row["arg"], opts)
    return opts


def check_server_syns(probes, seen):
    """The SYN as each server got it."""
    by_case = {}
    for p in probes:
        if p.kind in ("syn", "ctl"):
            by_case.setdefault((p.row["name"], p.fam), []).append(p)
    for (name, fam), ps in by_case.items():
        row = ps[0].row
        bad, what, moved = [], [], 0
        for p in ps:
            # a SYN proxy answers the SYN itself: the server never sees it
            exp = None if row["action"] in ("reject-admin", "synproxy") else server_opts(row, p.opts)
            got = seen.get(p.seq, [])
            label = "control" if p.kind == "ctl" else "SYN"
            if exp is None:
                if got:
                    bad.append("%s arrived, should not" % label)
                else:
                    what.append("%s did not arrive" % label)
                continue
            if len(got) != 1:
                bad.append("%s arrived %d times" % (label, len(got)))
                continue
            s = got[0]
            if s.opts != exp:
                bad.append("%s options %s, want %s" % (label, W.opt_text(s.opts), W.opt_text(exp)))
            if not (s.ip_ok and s.l4_ok):
                bad.append("%s checksum wrong" % label)
            want_src = NAT_SRC[row["natq"]][fam] if row["nat"] != "-" else p.src
            if s.src != want_src:
                bad.append("%s from %s, want %s" % (label, s.src, want_src))
            if s.sport != p.sport:
                moved += 1
            if s.dport != p.dport or s.dst != p.dst:
                bad.append("%s to %s.%d" % (label, s.dst, s.dport))
            what.append("%s %s" % (label, W.opt_text(s.opts)))
        if row["nat"] != "-":
            if moved == 0:
                bad.append("NAT kept every source port")
            what.append("from %s, %d/%d ports changed" % (NAT_SRC[row["natq"]][fam], moved, len(ps)))
        elif moved:
            bad.append("source port changed without a NAT")
        R.claim(not bad, "server-syn v%d %s: %s" % (fam, name, "; ".join(bad or what)))


def expect_reply(row, p):
    """What the prober should get back for a SYN: (kind, ws present, ts present)."""
    if row["action"] == "reject-admin":
        return ("unreach", None, None)
    if row["action"] == "drop" or (row["action"] == "drop-ws" and p.ws is not None):
        return ("none", None, None)
    if row["port"] == "9":
        return ("rst", None, None)
    got = server_opts(row, p.opts)
    ws = W.ws_of(got) is not None and row["server"] != "srv-nows"
    ts = W.opt_find(got, W.OPT_TS) is not None
    if row["server"] == "srv-cookie" and not ts:
        ws = False                  # a syncookie carries WS in TSval only
    return ("syn-ack", ws, ts)


SYNP_TTL = 64 - ROUTERS     # sent by synp, after r5 .. r1


def synproxy_synack(s, label):
    """What is wrong with a SYN-ACK that synp's SYNPROXY should have sent:
    window 0, its own --wscale 5 and --mss 1400, from hop 6 (TTL 59)."""
    bad = []
    mss = W.opt_find(s.opts, W.OPT_MSS)
    if s.win != 0:
        bad.append("%s: SYN-ACK window %d, want 0 (the proxy's)" % (label, s.win))
    if W.ws_of(s.opts) != 5 or mss is None or mss[2:4] != b"\x05\x78":
        bad.append("%s: SYN-ACK %s, want the proxy's ws5, mss1400" % (label, W.opt_text(s.opts)))
    if s.ttl != SYNP_TTL:
        bad.append("%s: SYN-ACK TTL %d, want %d (sent by hop 6)" % (label, s.ttl, SYNP_TTL))
    return bad


def check_replies(probes, tcp, icmp):
    by_case = {}
    for p in probes:
        if p.kind in ("syn", "ctl"):
            by_case.setdefault((p.row["name"], p.fam), []).append(p)
    for (name, fam), ps in by_case.items():
        row, bad, what = ps[0].row, [], []
        for p in ps:
            kind, ws, ts = expect_reply(row, p)
            label = "control" if p.kind == "ctl" else "SYN"
            t = [x for x in tcp.get(p.seq, []) if x.src == p.dst and x.dport == p.sport]
            e = [x for x, _ in icmp.get(p.seq, []) if x.icmp_type in ((3,) if fam == 4 else (1,))]
            if kind == "syn-ack":
                sa = [x for x in t if x.flags & 0x12 == 0x12]
                if not sa:
                    bad.append("%s: no SYN-ACK" % label)
                    continue
                s = sa[0]
                if (W.ws_of(s.opts) is not None) != ws:
                    bad.append("%s: SYN-ACK %s WS" % (label, "with" if not ws else "without"))
                if (W.opt_find(s.opts, W.OPT_TS) is not None) != ts:
                    bad.append("%s: SYN-ACK %s timestamps" % (label, "with" if not ts else "without"))
                if not s.l4_ok:
                    bad.append("%s: SYN-ACK checksum wrong" % label)
                if row["action"] == "synproxy":
                    bad += synproxy_synack(s, label)
                what.append("%s: SYN-ACK %s" % (label, W.opt_text(s.opts)))
            elif kind == "rst":
                r = [x for x in t if x.flags & W.TCP_RST]
                if not r:
                    bad.append("%s: no RST" % label)
                else:
                    what.append("%s: RST" % label)
            elif kind == "unreach":
                want = (3, 13) if fam == 4 else (1, 1)
                ok = [x for x in e if (x.icmp_type, x.icmp_code) == want
                      and x.src == hop_addr(ROUTERS, fam) and x.l4_ok]
                if not ok:
                    bad.append("%s: no ICMP %d/%d from r5 (got %s)" % (
                        label, want[0], want[1], [(x.icmp_type, x.icmp_code, x.src) for x in e]))
                else:
                    what.append("%s: ICMP %d/%d from %s" % (label, want[0], want[1], ok[0].src))
            if kind != "syn-ack" and kind != "rst" and t:
                bad.append("%s: unexpected TCP answer" % label)
            if kind == "none":
                if e:
                    bad.append("%s: unexpected ICMP" % label)
                else:
                    what.append("%s: silence" % label)
        R.claim(not bad, "reply v%d %s: %s" % (fam, name, "; ".join(bad or what)))


def check_quotes(probes, icmp):
    by_case = {}
    for p in probes:
        if p.kind == "ttl":
            by_case.setdefault((p.row["name"], p.fam), {})[p.ttl] = p
    for (name, fam), ks in by_case.items():
        row = next(iter(ks.values())).row
        q8, mute = routers_in(row["quote8"]), routers_in(row["silent"])
        bad, what = [], []
        for k in range(1, ROUTERS + 1):
            p = ks[k]
            exp = expect_opts_at(row, k, p.opts)
            if k in mute or exp is None:
                want = "none"
            elif k in q8:
                want = "8-byte"
            else:
                want = "full"
            got = [(o, i) for o, i in icmp.get(p.seq, [])
                   if o.icmp_type == (11 if fam == 4 else 3) and o.icmp_code == 0]
            if not got:
                what.append("r%d none" % k)
                if want != "none":
                    bad.append("r%d sent no time-exceeded, want %s" % (k, want))
                continue
            o, i = got[0]
            if want == "none":
                bad.append("r%d quoted, want silence" % k)
                continue
            leaked = row["natq"] == "leaked" and k >= 2
            isrc = NAT_SRC["leaked"][fam] if leaked else p.src
            errs = []
            if o.src != hop_addr(k, fam):
                errs.append("from %s" % o.src)
            if o.dst != p.src:
                errs.append("to %s" % o.dst)
            if not o.l4_ok or not o.ip_ok:
                errs.append("ICMP checksum wrong")
            if i.dst != p.dst or i.src != isrc or i.dport != p.dport:
                errs.append("quotes %s > %s.%s" % (i.src, i.dst, i.dport))
            if not leaked and i.sport != p.sport:
                errs.append("quoted sport %s" % i.sport)
            if len(o.quote) != i.hdrlen + 8 and want == "8-byte":
                errs.append("quote %d bytes, want %d" % (len(o.quote), i.hdrlen + 8))
            if want == "full":
                if i.truncated or len(o.quote) != i.iplen:
                    errs.append("quote %d of %d bytes" % (len(o.quote), i.iplen))
                elif i.opts != exp:
                    errs.append("options %s, want %s" % (W.opt_text(i.opts), W.opt_text(exp)))
                elif not i.l4_ok or not i.ip_ok:
                    errs.append("quoted checksum wrong")
                if i.ttl != 1:
                    errs.append("quoted TTL %s" % i.ttl)
                what.append("r%d full %s%s" % (k, W.opt_text(i.opts), " (NAT src)" if leaked else ""))
            else:
                what.append("r%d 8-byte" % k)
            if errs:
                bad.append("r%d %s: %s" % (k, want, ", ".join(errs)))
        R.claim(not bad, "quotes v%d %s: %s" % (fam, name, "; ".join(bad) if bad else " | ".join(what)))



def index_prober(pkts):
    """What came back to the prober, by the sequence number of the probe it
    answers: TCP by ack - 1, ICMP errors by the quoted sequence number."""
    tcp, icmp = {}, {}
    for _, _, p in pkts:
        if p.proto == 6 and p.ack is not None:
            tcp.setdefault((p.ack - 1) & 0xFFFFFFFF, []).append(p)
        elif p.proto in (1, 58) and W.is_error(p):
            i = W.parse_ip(p.quote)
            if i is not None and i.seq is not None:
                icmp.setdefault(i.seq, []).append((p, i))
    return tcp, icmp


def index_servers(paths):
    """SYNs the servers received (pcap per namespace), by sequence number;
    and how many reached srv-cookie."""
    seen, cookie_syns = {}, 0
    for ns, path in paths.items():
        try:
            frames = list(W.read_pcap(path))
        except (OSError, ValueError) as e:
            R.claim(False, "capture in %s: %s" % (ns, e))
            continue
        for fr in frames:
            s = W.parse_eth(fr)
            if s and s.proto == 6 and s.flags is not None and s.flags & 0x12 == W.TCP_SYN:
                seen.setdefault(s.seq, []).append(s)
                cookie_syns += ns == "srv-cookie"
    return seen, cookie_syns
