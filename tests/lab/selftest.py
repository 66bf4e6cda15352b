#!/usr/bin/python3
# tests/lab/selftest.py -- every claim of the lab, shown packet by packet.
#
# Run by tests/lab/selftest in the prober namespace of a lab it brought up
# (LAB_PREFIX, LAB_STATE set):  selftest.py LAB CASES
#
# Independent of scaleprobe: scapy builds the probes, raw sockets send them,
# packet sockets capture at the prober, tcpdump captures at the servers, and
# st_wire.py parses and holds the model of what each box claims to do.  One
# burst of SYNs covers every target of cases.tsv and both families at once:
#   - a SYN to each target, as the server receives it (options exactly as the
#     box claims, checksums right, the NAT's source), and the answer it draws;
#   - TTL 1..5 SYNs to each target, as each router quotes them (full, 8-byte
#     or none; the options quoted before, at and after the box);
#   - hand-made handshakes with window field 16 (the server's first flight);
#   - the servers' kinds, HTTP and TLS, names, AnyIP and its counter.
# Prints PASS / FAIL per claim; the driver adds the teardown claims and the
# closing count.
import os
import queue
import random
import select
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_wire as W                                     # noqa: E402
from scapy.compat import raw                            # noqa: E402
from scapy.layers.inet import IP, TCP                   # noqa: E402
from scapy.layers.inet6 import IPv6                     # noqa: E402

PROBER = {4: "198.18.1.1", 6: "fd00:5ca1:1::1"}
PROBER_ANY = {4: "198.18.254.1", 6: "fd00:5ca1:254::1"}
NAT_SRC = {"translated": {4: "198.18.2.1", 6: "fd00:5ca1:2::1"},
           "leaked": {4: "198.18.2.100", 6: "fd00:5ca1:2::100"}}
MSS = {4: 1460, 6: 1440}
PORT_LO, PORT_HI = 62000, 63999         # outside ip_local_port_range
SERVERS = ("srv", "srv-nows", "srv-cookie")
ROUTERS = 5
SETTLE = 1.5                            # seconds of quiet after the burst
ANYIP_N = 20                            # random AnyIP targets per family
WINDOW = 16                             # the window field of the window test
BODY = 8 << 20


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


def run(cmd, timeout=30):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def in_ns(ns, *cmd, timeout=30):
    return run(["ip", "netns", "exec", os.environ["LAB_PREFIX"] + ns, *cmd], timeout)


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


# ---- capture and send ----------------------------------------------------------

class Capture:
    """Packet sockets on the prober's interfaces; everything inbound is kept,
    and TCP to a registered port is also handed to its listener."""

    def __init__(self, ifnames):
        self.socks = {}
        for n in ifnames:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
            try:
                s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)   # SO_RCVBUFFORCE
            except OSError:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
            s.bind((n, 3))                                      # ETH_P_ALL
            s.setblocking(False)
            self.socks[s.fileno()] = (s, n)
        self.pkts = []
        self.lock = threading.Lock()
        self.listeners = {}
        self.done = threading.Event()
        self.th = threading.Thread(target=self._run, daemon=True)
        self.th.start()

    def _run(self):
        while not self.done.is_set():
            r, _, _ = select.select(list(self.socks), [], [], 0.05)
            for fd in r:
                s, n = self.socks[fd]
                while True:
                    try:
                        d, a = s.recvfrom(65535)
                    except BlockingIOError:
                        break
                    if a[2] == socket.PACKET_OUTGOING:
                        continue
                    p = W.parse_eth(d)
                    if p is None:
                        continue
                    t = time.monotonic()
                    with self.lock:
                        self.pkts.append((t, n, p))
                    lq = self.listeners.get(p.dport) if p.proto == 6 else None
                    if lq is not None:
                        lq.put((t, p))

    def stop(self):
        self.done.set()
        self.th.join(2)
        for s, _ in self.socks.values():
            s.close()
        return list(self.pkts)


class Sender:
    def __init__(self):
        self.s = {4: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW),
                  6: socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)}

    def send(self, fam, dst, b):
        self.s[fam].sendto(b, (dst, 0) if fam == 4 else (dst, 0, 0, 0))


_ports = iter(range(PORT_LO, PORT_HI + 1))
_seqs = set()


def new_port():
    return next(_ports)


def new_seq():
    while True:
        s = random.getrandbits(32)
        if s not in _seqs and s < 0xFFF00000:
            _seqs.add(s)
            return s


def tcp_packet(fam, src, dst, ttl, sport, dport, seq, flags, opts, ack=0, win=64240, data=b""):
    """A TCP segment built by scapy; opts is a scapy option list."""
    t = TCP(sport=sport, dport=dport, seq=seq, ack=ack, flags=flags, window=win, options=opts)
    if fam == 4:
        return raw(IP(src=src, dst=dst, ttl=ttl, flags="DF") / t / data)
    return raw(IPv6(src=src, dst=dst, hlim=ttl, fl=0x5CA1) / t / data)


def syn_packet(fam, src, dst, ttl, sport, dport, seq, ws, tsval):
    opts = [("MSS", MSS[fam]), ("SAckOK", b""), ("Timestamp", (tsval, 0))]
    if ws is not None:
        opts += [("NOP", None), ("WScale", ws)]
    b = tcp_packet(fam, src, dst, ttl, sport, dport, seq, "S", opts)
    p = W.parse_ip(b)
    # scapy's encoding and the model's Linux layout must agree byte for byte
    assert p.opts == W.linux_syn_opts(MSS[fam], tsval, ws), p.opts.hex()
    return b, p.opts


# ---- the plan ------------------------------------------------------------------

class Probe:
    def __init__(self, kind, row, fam, ttl, dst, dport, ws, src):
        self.kind, self.row, self.fam, self.ttl = kind, row, fam, ttl
        self.dst, self.dport, self.ws, self.src = dst, dport, ws, src
        self.sport, self.seq = new_port(), new_seq()
        self.pkt, self.opts = syn_packet(fam, src, dst, ttl, self.sport, dport,
                                         self.seq, ws, random.getrandbits(31))


def plan(rows):
    probes = []
    for row in rows:
        if row["kind"] == "range":
            for fam in (4, 6):
                for _ in range(ANYIP_N):
                    probes.append(Probe("any", row, fam, 64, anyip_addr(row, fam), 80, 7,
                                        PROBER_ANY[fam]))
            continue
        for fam in (4, 6):
            dst, port = row["v%d" % fam], int(row["port"])
            for _ in range(2 if row["nat"] != "-" else 1):
                probes.append(Probe("syn", row, fam, 64, dst, port, 7, PROBER[fam]))
            if row["action"] == "drop-ws":
                probes.append(Probe("ctl", row, fam, 64, dst, port, None, PROBER[fam]))
            for k in range(1, ROUTERS + 1):
                probes.append(Probe("ttl", row, fam, k, dst, port, 7, PROBER[fam]))
    return probes


def anyip_addr(row, fam):
    if fam == 4:
        net = row["v4"].split("/")[0].split(".")
        return "%s.%s.%d.%d" % (net[0], net[1], random.randrange(256), random.randrange(1, 255))
    base = socket.inet_pton(socket.AF_INET6, row["v6"].split("/")[0])
    return socket.inet_ntop(socket.AF_INET6, base[:14] + struct.pack("!H", random.randrange(1, 0xFFFF)))


# ---- the window test -----------------------------------------------------------

def window_test(cap, snd, fam, dst, scale):
    """Handshake with scale, then GET with window field WINDOW and no further
    ACK: the bytes of the server's first flight, highest end - (ISN + 1)."""
    sport, isn, ts = new_port(), new_seq(), random.getrandbits(31)
    q = queue.Queue()
    cap.listeners[sport] = q
    src = PROBER[fam]
    b, _ = syn_packet(fam, src, dst, 64, sport, 80, isn, scale, ts)
    snd.send(fam, dst, b)
    sa, end = None, time.monotonic() + 2
    while sa is None and time.monotonic() < end:
        try:
            _, p = q.get(timeout=0.05)
        except queue.Empty:
            continue
        if p.flags & (W.TCP_SYN | W.TCP_ACK) == W.TCP_SYN | W.TCP_ACK and p.ack == isn + 1:
            sa = p
    if sa is None:
        return None, "no SYN-ACK"
    tsopt = W.opt_find(sa.opts, W.OPT_TS)
    ecr = struct.unpack("!I", tsopt[2:6])[0] if tsopt else 0     # echo its TSval
    ackopts = [("NOP", None), ("NOP", None), ("Timestamp", (ts + 1, ecr))]
    base = (sa.seq + 1) & 0xFFFFFFFF
    req = b"GET / HTTP/1.0\r\nHost: lab\r\nUser-Agent: scaleprobe-lab-selftest\r\n\r\n"
    snd.send(fam, dst, tcp_packet(fam, src, dst, 64, sport, 80, isn + 1, "A", ackopts,
                                  ack=base, win=WINDOW))
    snd.send(fam, dst, tcp_packet(fam, src, dst, 64, sport, 80, isn + 1, "PA", ackopts,
                                  ack=base, win=WINDOW, data=req))
    hi, note = 0, "flight stopped"
    last, end = time.monotonic(), time.monotonic() + 4
    while time.monotonic() < end:
        try:
            t, p = q.get(timeout=0.02)
        except queue.Empty:
            if hi and time.monotonic() - last > 0.4:
                break
            continue
        if not p.payload:
            continue
        e = (p.seq + len(p.payload) - base) & 0xFFFFFFFF
        if e > 1 << 31:
            continue
        if e <= hi:
            note = "retransmission"
            break
        hi, last = e, t
    snd.send(fam, dst, tcp_packet(fam, src, dst, 64, sport, 80, isn + 1 + len(req), "R", [],
                                  win=0))
    del cap.listeners[sport]
    return hi, note


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
            exp = None if row["action"] == "reject-admin" else server_opts(row, p.opts)
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


def syncookies_sent():
    out = in_ns("srv-cookie", "cat", "/proc/net/netstat").stdout.split("\n")
    for a, b in zip(out, out[1:]):
        if a.startswith("TcpExt:") and b.startswith("TcpExt:"):
            return dict(zip(a.split()[1:], map(int, b.split()[1:]))).get("SyncookiesSent", 0)
    return 0


def start_tcpdump(st, ns):
    path = "%s/selftest-%s.pcap" % (st, ns)
    err = open(path + ".err", "w")
    pr = subprocess.Popen(["ip", "netns", "exec", os.environ["LAB_PREFIX"] + ns, "tcpdump",
                           "-i", "west", "-Q", "in", "-nn", "-s", "256", "-U", "-w", path,
                           "tcp and not src port 80 and not src port 443"],
                          stdout=subprocess.DEVNULL, stderr=err)
    return pr, path


def wait_listening(path, pr):
    for _ in range(100):
        with open(path + ".err") as f:
            if "listening on" in f.read():
                return True
        if pr.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def main():
    lab, cases = sys.argv[1], sys.argv[2]
    st = os.environ["LAB_STATE"]
    rows = read_cases(cases)
    t0 = time.monotonic()
    subprocess.run(["nft", "-f", "-"], text=True, check=True, input=(
        "table inet selftest {\n chain pre {\n  type filter hook prerouting priority -300;\n"
        "  tcp dport %d-%d drop\n }\n}\n" % (PORT_LO, PORT_HI)))

    dumps = {ns: start_tcpdump(st, ns) for ns in SERVERS}
    for ns, (pr, path) in dumps.items():
        if not wait_listening(path, pr):
            R.claim(False, "tcpdump in %s did not start" % ns)
    cap = Capture(["east", "any"])
    snd = Sender()
    cookies0 = syncookies_sent()
    any0 = {f: int(run([lab, "anyip-count", str(f)]).stdout or -1) for f in (4, 6)}

    probes = plan(rows)
    random.shuffle(probes)
    for i, p in enumerate(probes):
        snd.send(p.fam, p.dst, p.pkt)
        if i % 25 == 24:
            time.sleep(0.005)
    t_sent = time.monotonic()

    wt = {}
    clean = next(r for r in rows if r["name"] == "clean")
    r5 = next(r for r in rows if r["name"] == "ws0-r5eg")
    jobs = [(clean, f, s) for f in (4, 6) for s in (0, 7)]
    jobs += [(r5, f, 7) for f in (4, 6)]

    def job(j):
        wt[(j[0]["name"], j[1], j[2])] = window_test(cap, snd, j[1], j[0]["v%d" % j[1]], j[2])
    ths = [threading.Thread(target=job, args=(j,)) for j in jobs]
    for t in ths:
        t.start()
    for t in ths:
        t.join(10)
    while time.monotonic() - t_sent < SETTLE:
        time.sleep(0.05)
    pkts = cap.stop()
    for pr, _ in dumps.values():
        pr.terminate()
    for pr, _ in dumps.values():
        pr.wait(5)
    cookies1 = syncookies_sent()
    any1 = {f: int(run([lab, "anyip-count", str(f)]).stdout or -1) for f in (4, 6)}

    # index what came back by the probe's sequence number
    tcp, icmp = {}, {}
    for _, _, p in pkts:
        if p.proto == 6 and p.ack is not None:
            tcp.setdefault((p.ack - 1) & 0xFFFFFFFF, []).append(p)
        elif p.proto in (1, 58) and W.is_error(p):
            i = W.parse_ip(p.quote)
            if i is not None and i.seq is not None:
                icmp.setdefault(i.seq, []).append((p, i))
    seen, cookie_syns = {}, 0
    for ns, (_, path) in dumps.items():
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

    chain = [p for p in probes if p.kind != "any"]
    check_server_syns(chain, seen)
    check_replies(chain, tcp, icmp)
    check_quotes(chain, icmp)

    for (name, fam, s), (flight, note) in sorted(wt.items(), key=str):
        want = WINDOW << s if name == "clean" else WINDOW
        R.claim(flight == want, "window v%d %s scale %d, window field %d: first flight %s bytes "
                "(%s), want %d" % (fam, name, s, WINDOW, flight, note, want))

    n = cookies1 - cookies0
    R.claim(cookie_syns > 0 and n == cookie_syns,
            "srv-cookie answered its %d SYNs from syncookies (SyncookiesSent +%d)" % (cookie_syns, n))
    sysv = {ns: in_ns(ns, "sysctl", "-n", "net.ipv4.tcp_window_scaling").stdout.strip()
            for ns in SERVERS}
    R.claim(sysv == {"srv": "1", "srv-nows": "0", "srv-cookie": "1"},
            "window scaling is per namespace, off only in srv-nows: %s" % sysv)

    anys = [p for p in probes if p.kind == "any"]
    for fam in (4, 6):
        ps = [p for p in anys if p.fam == fam]
        ok = [p for p in ps if any(x.flags & 0x12 == 0x12 and x.src == p.dst
                                   for x in tcp.get(p.seq, []))]
        d = any1[fam] - any0[fam]
        R.claim(len(ok) == len(ps) and d == len(ps),
                "anyip v%d: %d/%d random addresses answered a SYN-ACK, counter +%d"
                % (fam, len(ok), len(ps), d))

    # names, HTTP, TLS: the kernel's own clients, after the capture
    bad = []
    for row in rows:
        if row["kind"] == "range":
            continue
        want = {row["v4"], row["v6"]}
        try:
            got = {a[4][0] for a in socket.getaddrinfo(row["name"] + ".lab", 80)}
        except socket.gaierror as e:
            got = {str(e)}
        if got != want:
            bad.append("%s.lab: %s" % (row["name"], sorted(got)))
    for name, want in (("clean4.lab", {clean["v4"]}), ("clean6.lab", {clean["v6"]})):
        try:
            got = {a[4][0] for a in socket.getaddrinfo(name, 80)}
        except socket.gaierror as e:
            got = {str(e)}
        if got != want:
            bad.append("%s: %s" % (name, sorted(got)))
    R.claim(not bad, "names: every NAME.lab has its A and AAAA, clean4.lab only A, clean6.lab "
            "only AAAA%s" % ("; " + "; ".join(bad) if bad else ""))
    for fam in (4, 6):
        c = run(["curl", "-%d" % fam, "-s", "-m", "10", "-o", "/dev/null", "-w",
                 "%{http_code} %{size_download}", "http://clean.lab/"], 15).stdout.split()
        R.claim(c[:1] == ["200"] and int(c[1]) >= BODY,
                "http v%d clean.lab: GET answers %s" % (fam, " ".join(c)))
        c = run(["curl", "-%d" % fam, "-s", "-m", "10", "--cacert", st + "/cert.pem", "-o",
                 "/dev/null", "-w", "%{http_code} %{size_download} %{ssl_verify_result}",
                 "https://tls.lab/"], 15).stdout.split()
        R.claim(c[:1] == ["200"] and int(c[1]) >= BODY and c[2] == "0",
                "tls v%d tls.lab:443: verified handshake, GET answers %s" % (fam, " ".join(c[:2])))
    print("# selftest.py: %d probes, %.1f s" % (len(probes) + len(jobs), time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
