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

sys.dont_write_bytecode = True          # leave no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import st_checks as C                                   # noqa: E402
import st_wire as W                                     # noqa: E402
from st_checks import PROBER, PROBER_ANY, R, ROUTERS   # noqa: E402
from scapy.compat import raw                            # noqa: E402
from scapy.layers.inet import IP, TCP                   # noqa: E402
from scapy.layers.inet6 import IPv6                     # noqa: E402

MSS = {4: 1460, 6: 1440}
PORT_LO, PORT_HI = 62000, 63999         # outside ip_local_port_range
SERVERS = ("srv", "srv-nows", "srv-cookie", "srv-synp")
SETTLE = 1.5                            # seconds of quiet after the burst
ANYIP_N = 20                            # random AnyIP targets per family
WINDOW = 16                             # the window field of the window test
BODY = 8 << 20


def run(cmd, timeout=30):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def in_ns(ns, *cmd, timeout=30):
    return run(["ip", "netns", "exec", os.environ["LAB_PREFIX"] + ns, *cmd], timeout)


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

def window_test(cap, snd, fam, dst, scale, win=WINDOW, proxy=False):
    """Handshake with scale, then GET with window field win and no further
    ACK: the bytes of the server's first flight, highest end - (ISN + 1).
    proxy: the SYN-ACK comes from a SYN proxy with window 0, and the GET
    waits for its window update.  Returns (flight, note, info): info holds
    the SYN-ACK, whether an update came first, and the first data's TTL."""
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
    info = {"synack": sa, "update": None, "data_ttl": None}
    if sa is None:
        del cap.listeners[sport]
        return None, "no SYN-ACK", info
    tsopt = W.opt_find(sa.opts, W.OPT_TS)
    ecr = struct.unpack("!I", tsopt[2:6])[0] if tsopt else 0     # echo its TSval
    ackopts = [("NOP", None), ("NOP", None), ("Timestamp", (ts + 1, ecr))]
    base = (sa.seq + 1) & 0xFFFFFFFF
    req = b"GET / HTTP/1.0\r\nHost: lab\r\nUser-Agent: scaleprobe-lab-selftest\r\n\r\n"
    snd.send(fam, dst, tcp_packet(fam, src, dst, 64, sport, 80, isn + 1, "A", ackopts,
                                  ack=base, win=win))
    if proxy:
        # the proxy checks the cookie in our TSecr, opens its connection to
        # the server, then opens our window: only then may the GET go
        end = time.monotonic() + 2
        while info["update"] is None and time.monotonic() < end:
            try:
                _, p = q.get(timeout=0.05)
            except queue.Empty:
                continue
            if p.flags & (W.TCP_SYN | W.TCP_RST) == 0 and p.win and not p.payload:
                info["update"] = p
        if info["update"] is None:
            del cap.listeners[sport]
            return None, "no window update", info
        tsopt = W.opt_find(info["update"].opts, W.OPT_TS)
        ecr = struct.unpack("!I", tsopt[2:6])[0] if tsopt else ecr
        ackopts = [("NOP", None), ("NOP", None), ("Timestamp", (ts + 2, ecr))]
    snd.send(fam, dst, tcp_packet(fam, src, dst, 64, sport, 80, isn + 1, "PA", ackopts,
                                  ack=base, win=win, data=req))
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
        if info["data_ttl"] is None:
            info["data_ttl"] = p.ttl
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
    return hi, note, info


def window_synproxy(fam, s, flight, note, info):
    """The claims of one handshake through synp's SYNPROXY at scale s."""
    w = max(1, 8192 >> s)
    sa, bad = info["synack"], []
    if sa is None:
        bad.append("no SYN-ACK")
    else:
        bad += C.synproxy_synack(sa, "SYN-ACK")
    if info["update"] is None:
        bad.append("no window update before the request")
    if flight is None:
        bad.append("no flight (%s)" % note)
    elif s < 14 and flight != w << s:
        bad.append("first flight %d, want %d" % (flight, w << s))
    elif s == 14 and not 8192 < flight <= 16384:
        bad.append("first flight %d, want more than 1<<13, at most 1<<14" % flight)
    if info["data_ttl"] is not None and info["data_ttl"] != C.SYNP_TTL - 1:
        bad.append("data TTL %d, want %d (the server, one hop behind the proxy)"
                   % (info["data_ttl"], C.SYNP_TTL - 1))
    R.claim(not bad, "synproxy v%d scale %d, window field %d: %s" % (
        fam, s, w, "; ".join(bad) if bad else
        "SYN-ACK window 0 ws5 mss1400 TTL %d, window update %d, first flight %d bytes "
        "(TTL %d): the server applied %d" % (sa.ttl, info["update"].win, flight,
                                             info["data_ttl"], s)))


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
    rows = C.read_cases(cases)
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
    ws14 = next(r for r in rows if r["name"] == "ws14-r5eg")
    synp = next(r for r in rows if r["name"] == "synproxy")
    # (row, family, scale, window field, through a SYN proxy)
    jobs = [(clean, f, s, WINDOW, False) for f in (4, 6) for s in (0, 7)]
    jobs += [(r5, f, 7, WINDOW, False) for f in (4, 6)]
    # the box sets 14: window field 1, whatever was sent
    jobs += [(ws14, f, s, 1, False) for f in (4, 6) for s in (0, 7)]
    # through the SYN proxy: scaleprobe's window field for each scale
    jobs += [(synp, f, s, max(1, 8192 >> s), True) for f in (4, 6) for s in (0, 7, 14)]

    # A job that raises still leaves its verdict; the claims below are made
    # from the job list, so a lost thread is a FAIL, never a missing line.
    def job(j):
        try:
            r = window_test(cap, snd, j[1], j[0]["v%d" % j[1]], j[2], j[3], j[4])
        except Exception as e:  # noqa: BLE001 -- reported as the claim's reason
            r = (None, "the test raised %s: %s" % (type(e).__name__, e),
                 {"synack": None, "update": None, "data_ttl": None})
        wt[(j[0]["name"], j[1], j[2])] = r
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

    tcp, icmp = C.index_prober(pkts)
    seen, cookie_syns = C.index_servers({ns: path for ns, (_, path) in dumps.items()})

    chain = [p for p in probes if p.kind != "any"]
    C.check_server_syns(chain, seen)
    C.check_replies(chain, tcp, icmp)
    C.check_quotes(chain, icmp)

    for row, fam, s, _, _ in jobs:
        name = row["name"]
        flight, note, info = wt.get((name, fam, s), (
            None, "no result: the thread did not finish",
            {"synack": None, "update": None, "data_ttl": None}))
        if name in ("clean", "ws0-r5eg"):
            want = WINDOW << s if name == "clean" else WINDOW
            R.claim(flight == want, "window v%d %s scale %d, window field %d: first flight %s "
                    "bytes (%s), want %d" % (fam, name, s, WINDOW, flight, note, want))
        elif name == "ws14-r5eg":
            # 1<<14 = 16,384: the initial window (ten segments) fills it
            # only in part, but more than 1<<13 proves 14
            R.claim(flight is not None and 8192 < flight <= 16384,
                    "window v%d %s scale %d, window field 1: first flight %s bytes (%s), want "
                    "more than 1<<13 and at most 1<<14: the server applied 14"
                    % (fam, name, s, flight, note))
        else:
            window_synproxy(fam, s, flight, note, info)

    n = cookies1 - cookies0
    R.claim(cookie_syns > 0 and n == cookie_syns,
            "srv-cookie answered its %d SYNs from syncookies (SyncookiesSent +%d)" % (cookie_syns, n))
    sysv = {ns: in_ns(ns, "sysctl", "-n", "net.ipv4.tcp_window_scaling").stdout.strip()
            for ns in SERVERS}
    R.claim(sysv == {"srv": "1", "srv-nows": "0", "srv-cookie": "1", "srv-synp": "1"},
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
