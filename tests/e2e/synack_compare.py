#!/usr/bin/python3
"""Compare scaleprobe's JSON with the SYN-ACKs the server actually sent.

usage: synack_compare.py PCAP JSON ADDRESS
PCAP: a capture in the server's namespace; JSON: scaleprobe --json output.
For the path to ADDRESS, every variant's recorded SYN-ACK options (wscale,
mss, sack, ts) must equal those of the SYN-ACK the server sent to that
variant's source port.  Source ports are the prober's block, lowest port the
control, then the scales in order.  Prints one line, exits 0 when all agree.
"""
import json
import sys

from scapy.all import IP, IPv6, TCP, rdpcap  # noqa: E402


def options(tcp):
    o = {"wscale": None, "mss": None, "sack": False, "ts": False}
    for kind, val in tcp.options:
        if kind == "WScale":
            o["wscale"] = val
        elif kind == "MSS":
            o["mss"] = val
        elif kind == "SAckOK":
            o["sack"] = True
        elif kind == "Timestamp":
            o["ts"] = True
    return o


def main():
    pcap, js, addr = sys.argv[1:4]
    sent = {}
    for p in rdpcap(pcap):
        ip = p.getlayer(IP) or p.getlayer(IPv6)
        if ip is None or TCP not in p or ip.src != addr:
            continue
        t = p[TCP]
        if (int(t.flags) & 0x12) == 0x12:
            sent.setdefault(t.dport, options(t))
    paths = [json.loads(line) for line in open(js) if line.strip()]
    path = [p for p in paths if p["address"] == addr]
    if len(path) != 1:
        print(f"{addr}: {len(path)} paths in the JSON")
        return 1
    path = path[0]
    if not sent:
        print(f"{addr}: the server sent no SYN-ACK")
        return 1
    lo = min(sent)
    recorded = [path["control"]["syn_ack"]] + [s["syn_ack"] for s in path["scales"]]
    bad = 0
    for i, rec in enumerate(recorded):
        srv = sent.get(lo + i)
        if srv is None or rec is None:
            print(f"{addr}: variant {i}: server {srv}, recorded {rec}")
            bad += 1
            continue
        got = {k: rec[k] for k in ("wscale", "mss", "sack", "ts")}
        if got != srv:
            print(f"{addr}: variant {i}: server sent {srv}, scaleprobe recorded {got}")
            bad += 1
    if bad == 0:
        print(f"{addr}: {len(recorded)} SYN-ACKs recorded exactly as sent: {sent[lo]} / {sent.get(lo + 1)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
