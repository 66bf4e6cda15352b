#!/usr/bin/env python3
"""synspread.py PCAP T0 -- how a run's SYNs arrived at the server.

PCAP is tcpdump's capture (-w) of the SYNs the server received (IPv4);
T0 the wall-clock time (seconds) the probe was started.  Prints one line
of key=value: syns (captured), first (seconds from T0 to the first SYN),
per24 (the most SYNs one /24 received in one second of the server's
clock), run (the longest run of consecutive destination addresses, each
counted once, inside one /24), ascending (the share of consecutive
destinations that go up: about 0.5 in a random order, 1 when sorted),
dsts (distinct destinations in arrival order).
"""
import collections
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        end = "<"
    else:
        end = ">"
        magic = struct.unpack(">I", data[:4])[0]
    nano = magic == 0xA1B23C4D
    link = struct.unpack(end + "I", data[20:24])[0]
    skip = {1: 14, 113: 16, 276: 20, 101: 0, 12: 0}.get(link)
    if skip is None:
        sys.exit(f"synspread: {path}: link type {link} not handled")
    off = 24
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(end + "IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        ip = pkt[skip:]
        if len(ip) >= 20 and ip[0] >> 4 == 4:
            yield sec + frac / (1e9 if nano else 1e6), ip[16:20]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: synspread.py PCAP T0")
    t0 = float(sys.argv[2])
    pk = list(packets(sys.argv[1]))
    per = collections.Counter((int(t), a[:3]) for t, a in pk)
    dsts = []
    for _, a in pk:
        if not dsts or dsts[-1] != a:
            dsts.append(a)
    run = best = 1 if dsts else 0
    up = 0
    for i in range(1, len(dsts)):
        run = run + 1 if dsts[i][:3] == dsts[i - 1][:3] else 1
        best = max(best, run)
        up += dsts[i] > dsts[i - 1]
    print("syns=%d first=%.3f per24=%d run=%d ascending=%.2f dsts=%d" % (
        len(pk), pk[0][0] - t0 if pk else -1, max(per.values()) if per else 0,
        best, up / (len(dsts) - 1) if len(dsts) > 1 else 0, len(dsts)))


if __name__ == "__main__":
    main()
