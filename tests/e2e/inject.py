#!/usr/bin/python3
"""Inject replies to probes that were never sent.

usage: inject.py synack SRC DST SPORT DPORT
       inject.py icmp   ROUTER PROBER TARGET PROBE_SPORT
synack: a SYN-ACK from SRC:SPORT to DST:DPORT acknowledging a number no
probe used.  icmp: a destination-unreachable (admin-prohibited) from ROUTER to PROBER quoting a SYN PROBER:PROBE_SPORT ->
TARGET:80 with a sequence number no probe used.  Both families.
"""
import sys

from scapy.all import ICMP, ICMPv6DestUnreach, IP, IPv6, TCP, send  # noqa: E402

FORGED_SEQ = 0x5CA1AB1E


def ip(src, dst):
    return IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)


def main():
    kind = sys.argv[1]
    if kind == "synack":
        src, dst, sport, dport = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        pkt = ip(src, dst) / TCP(sport=sport, dport=dport, flags="SA", seq=1234,
                                 ack=FORGED_SEQ, options=[("MSS", 1460), ("WScale", 7)])
    else:
        router, prober, target, psport = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
        quoted = ip(prober, target) / TCP(sport=psport, dport=80, flags="S", seq=FORGED_SEQ)
        if ":" in router:
            pkt = IPv6(src=router, dst=prober) / ICMPv6DestUnreach(code=1) / quoted
        else:
            pkt = IP(src=router, dst=prober) / ICMP(type=3, code=13) / quoted
    send(pkt, verbose=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
