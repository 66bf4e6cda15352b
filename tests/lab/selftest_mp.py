#!/usr/bin/python3
# tests/lab/selftest_mp.py -- the multipath lab's claims, packet by packet.
#
# Run by tests/lab/selftest-multipath in the prober namespace of a lab it
# brought up with LAB_MULTIPATH=1:  selftest_mp.py LAB TABLE MAP_OUT
#
# Independent of scaleprobe (scapy builds, raw sockets send, packet sockets
# and tcpdump capture; st_wire parses).  For every target of multipath.tsv
# and both families, FLOWS flows (source ports PORT0.., the rest of the
# 5-tuple fixed, the same in every lab so that labs compare), each flow:
#   - REPEAT SYNs with TTL 3: which branch's hop-3 router answers is the
#     flow's branch; all REPEAT from the same router (one flow, one branch);
#   - SYNs with TTL 4 and 5: answered by the same branch's hop 4 and by mj
#     (hop 5) from that branch's link;
#   - a SYN with TTL 64: the WS the server received;
# then: the hash spreads the flows over every branch of the target, the
# boxes act on their branch only, at their hop, and the table's expected
# columns follow from its boxes.  The flow -> branch mapping goes to MAP_OUT
# (JSON) for the driver's fresh-seed claim.  Prints PASS / FAIL per claim.
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import selftest as S                    # noqa: E402  Capture, Sender, tcpdump
import st_checks as C                   # noqa: E402
import st_wire as W                     # noqa: E402
from st_checks import PROBER, R         # noqa: E402

FLOWS = 64
PORT0 = 61000                           # 61000..61063: outside ip_local_port_range
REPEAT = 3
SCALE = 7                               # the WS every probe offers
SETTLE = 4.0                            # at most, for the answers after the burst
HOPS = (3, 4, 5)                        # a branch's own routers, and mj's link to it


def lab_out(lab, *args):
    return subprocess.run([lab, *args], capture_output=True, text=True, check=True).stdout.strip()


def box_hops(row):
    """{branch: hop} of the row's boxes (ingress: that hop's quote shows it)."""
    out = {}
    if row["boxes"] != "-":
        for b in row["boxes"].split(","):
            x, rest = b.split("@")
            out[x] = int(rest.split("=")[0])
    return out


def box_sets(row):
    """{branch: the WS its box sets} (every box of the table is ws-set:N)."""
    out = {}
    if row["boxes"] != "-":
        for b in row["boxes"].split(","):
            out[b.split("@")[0]] = int(b.split(":")[1])
    return out


def ws_after(row, branch, k):
    """WS of our SYN as hop k sees it on branch (k = dist: the server)."""
    h = box_hops(row).get(branch)
    return box_sets(row)[branch] if h is not None and k >= h else SCALE


def derive(row):
    """The table's expected columns from its branches and boxes (every box
    of the table sets WS N: rewritten at each scale but N, ok at N)."""
    hops, n = box_hops(row), len(row["branches"].split(","))
    for b in row["boxes"].split(",") if row["boxes"] != "-" else []:
        if "=ws-set:" not in b:
            return None
    sets = box_sets(row)
    v = {"v%d" % s: "rewritten" if any(x != s for x in sets.values()) else "ok"
         for s in (0, 7, 14)}
    return {**v,
            "hop": ",".join("%s=%d" % (x, h) for x, h in sorted(hops.items())) or "-",
            "clean": ",".join("%s=%d" % (x, h - 1) for x, h in sorted(hops.items())) or "-",
            "share": "%d/%d" % (len(hops), n)}


def syn(fam, src, dst, ttl, sport, seq):
    """Linux's SYN (st_wire.linux_syn_opts) with WS SCALE, built by hand: scapy
    takes seconds for a few thousand.  parse_ip checks every one."""
    opts = W.linux_syn_opts(S.MSS[fam], random.getrandbits(31), SCALE)
    af = socket.AF_INET if fam == 4 else socket.AF_INET6
    sb, db = socket.inet_pton(af, src), socket.inet_pton(af, dst)
    tcp = struct.pack("!HHIIBBHHH", sport, 80, seq, 0, (20 + len(opts)) // 4 << 4, W.TCP_SYN,
                      64240, 0, 0) + opts
    c = 0xFFFF - W.csum(W.pseudo(fam, sb, db, 6, len(tcp)) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    if fam == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, ttl, 6, 0, sb, db)
        ip = ip[:10] + struct.pack("!H", 0xFFFF - W.csum(ip)) + ip[12:]
    else:
        ip = struct.pack("!IHBB16s16s", 6 << 28 | 0x5CA1, len(tcp), 6, ttl, sb, db)
    b = ip + tcp
    p = W.parse_ip(b)
    assert p.ip_ok and p.l4_ok and p.ttl == ttl and W.ws_of(p.opts) == SCALE, b.hex()
    return b


class Probe:
    def __init__(self, row, fam, flow, ttl):
        self.row, self.fam, self.flow, self.ttl = row, fam, flow, ttl
        self.dst, self.sport, self.seq = row["v%d" % fam], PORT0 + flow, S.new_seq()
        self.pkt = syn(fam, PROBER[fam], self.dst, ttl, self.sport, self.seq)


def answered(cap, probes, pcap):
    """Every TTL-limited probe has its time-exceeded, every other its SYN-ACK,
    and the server's capture holds every SYN that reached it (tcpdump hands
    packets over up to a second late)."""
    with cap.lock:
        pkts = list(cap.pkts)
    errs = sum(1 for _, _, p in pkts if p.proto in (1, 58) and W.is_error(p))
    acks = {p.ack for _, _, p in pkts if p.proto == 6 and p.flags and p.flags & 0x12 == 0x12}
    full = sum(p.ttl == 64 for p in probes)
    if errs < len(probes) - full or len(acks) < full:
        return False
    try:
        syns = [W.parse_eth(fr) for fr in W.read_pcap(pcap)]
    except (OSError, ValueError):
        return False
    return sum(1 for s in syns if s and s.flags is not None and s.flags & 0x12 == W.TCP_SYN) >= full


def main():
    lab, table, map_out = sys.argv[1], sys.argv[2], sys.argv[3]
    st = os.environ["LAB_STATE"]
    rows = C.read_cases(table)
    t0 = time.monotonic()
    info, who = {}, {}          # who: (family, address) of a branch's hop k -> (branch, k)
    for line in lab_out(lab, "multipath").split("\n"):
        f = line.split()
        if f[0] == "hop" and int(f[2]) in HOPS:
            who[(4, f[3])] = who[(6, f[4])] = (f[1], int(f[2]))
        elif f[0] != "hop":
            info[f[0]] = f[1]
    print("# multipath hash %s, seed %s, spread %s" % (info["hash"], info["seed"], info["spread"]))
    # the kernel must not answer the SYN-ACKs with RSTs
    subprocess.run(["nft", "-f", "-"], text=True, check=True, input=(
        "table inet selftest_mp {\n chain pre {\n  type filter hook prerouting priority -300;\n"
        "  tcp dport %d-%d drop\n }\n}\n" % (PORT0, PORT0 + FLOWS - 1)))
    dump, path = S.start_tcpdump(st, "srv-mp")
    if not S.wait_listening(path, dump):
        R.claim(False, "tcpdump in srv-mp did not start")
    cap = S.Capture(["east"])
    snd = S.Sender()

    probes = []
    for row in rows:
        for fam in (4, 6):
            for i in range(FLOWS):
                for ttl in (3,) * REPEAT + (4, 5, 64):
                    probes.append(Probe(row, fam, i, ttl))
    random.shuffle(probes)
    for k in range(0, len(probes), 50):        # paced: 50 SYNs, then a breath
        for p in probes[k:k + 50]:
            snd.send(p.fam, p.dst, p.pkt)
        time.sleep(0.005)
    t_sent = time.monotonic()
    while time.monotonic() - t_sent < SETTLE and not answered(cap, probes, path):
        time.sleep(0.1)
    print("# answered after %.1f s" % (time.monotonic() - t_sent))
    pkts = cap.stop()
    dump.terminate()
    dump.wait(5)
    _, icmp = C.index_prober(pkts)
    seen, _ = C.index_servers({"srv-mp": path})

    mapping = {}
    for row in rows:
        branches = row["branches"].split(",")
        want = derive(row)
        got = {c: row[c] for c in ("v0", "v7", "v14", "hop", "clean", "share")}
        R.claim(want == got, "table %s: expected columns follow from its boxes %s (%s)"
                % (row["name"], row["boxes"], "ok" if want == got else "want %s" % want))
        for fam in (4, 6):
            tag = "%s v%d" % (row["name"], fam)
            flows = {}
            for p in probes:
                if p.row is row and p.fam == fam:
                    flows.setdefault(p.flow, []).append(p)
            where, split, broken, wrong = [], [], 0, []
            for i in range(FLOWS):
                at = {}             # ttl -> [(branch, hop, quoted WS)]
                for p in flows[i]:
                    if p.ttl == 64:
                        continue
                    for e, q in icmp.get(p.seq, []):
                        x, k = who.get((fam, e.src), ("?" + e.src, 0))
                        at.setdefault(p.ttl, []).append((x, k, W.ws_of(q.opts)))
                t3 = at.get(3, [])
                b = {x for x, _, _ in t3}
                if len(t3) != REPEAT or len(b) != 1:
                    split.append("flow %d: TTL 3 answered by %s" % (i, sorted(b) or "nobody"))
                    where.append("?")
                    continue
                x = b.pop()
                where.append(x)
                t4 = at.get(4, [])
                later = [(y, k) for t in (4, 5) for y, k, _ in at.get(t, [])]
                if later != [(x, 4), (x, 5)]:
                    split.append("flow %d: TTL 3 on %s, TTL 4 and 5 from %s" % (i, x, later))
                    continue
                # what each hop quoted, and what the server got
                srv = [s for p in flows[i] if p.ttl == 64 for s in seen.get(p.seq, [])]
                ws = {3: t3[0][2], 4: t4[0][2], 6: W.ws_of(srv[0].opts) if len(srv) == 1 else None}
                exp = {k: ws_after(row, x, k) for k in (3, 4, 6)}
                if ws != exp:
                    wrong.append("flow %d on %s: WS at hops 3, 4, server %s, want %s"
                                 % (i, x, [ws[k] for k in (3, 4, 6)], [exp[k] for k in (3, 4, 6)]))
                broken += ws[6] != SCALE
            mapping[tag] = "".join(where)
            count = {x: where.count(x) for x in branches}
            floor = FLOWS // len(branches) // 4
            stray = FLOWS - sum(count.values())
            R.claim(stray == 0 and min(count.values()) >= floor,
                    "spread %s: %d flows over branches %s (each at least %d), %d elsewhere"
                    % (tag, FLOWS, " ".join("%s=%d" % kv for kv in count.items()), floor, stray))
            R.claim(not split, "one flow, one branch %s: each flow's %d TTL-3 SYNs from one "
                    "hop-3 router, its TTL-4 and TTL-5 SYNs from the same branch's hops 4 and 5%s"
                    % (tag, REPEAT, "; " + "; ".join(split[:4]) if split else ""))
            boxed = box_hops(row)
            want_k = sum(count[x] for x in boxed)
            R.claim(not wrong and broken == want_k,
                    "boxes %s %s: WS quoted at hops 3, 4 and received as each flow's branch "
                    "says (%s); %d of %d flows rewritten, the flows of %s%s"
                    % (tag, row["boxes"], ", ".join(
                        "%s: %s" % (x, "%d from hop %d" % (box_sets(row)[x], boxed[x])
                                    if x in boxed else "7 throughout")
                        for x in branches), broken, FLOWS, ",".join(sorted(boxed)) or "no branch",
                       "; " + "; ".join(wrong[:4]) if wrong else ""))
    with open(map_out, "w") as f:
        json.dump({"seed": info["seed"], "hash": info["hash"], "map": mapping}, f)
    print("# selftest_mp.py: %d probes, %.1f s" % (len(probes), time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
