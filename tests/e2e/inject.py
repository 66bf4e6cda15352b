#!/usr/bin/python3
"""Inject replies to probes that were never sent.

usage: inject.py synack SRC DST SPORT DPORT
       inject.py icmp   ROUTER PROBER TARGET PROBE_SPORT
       inject.py serve
synack: a SYN-ACK from SRC:SPORT to DST:DPORT acknowledging a number no
probe used.  icmp: a destination-unreachable (admin-prohibited) from ROUTER to
PROBER quoting a SYN PROBER:PROBE_SPORT -> TARGET:80 with a sequence number no
probe used.  Both families.

serve: import scapy first, print "ready", then read one command per line
(the arguments above) and print "sent" after each.  Scapy takes seconds to
start on a loaded machine; a test that must inject while a probe waits
starts the injector before the probe and hands it the port once known.
"""
import sys

from scapy.all import ICMP, ICMPv6DestUnreach, IP, IPv6, TCP, send  # noqa: E402

FORGED_SEQ = 0x5CA1AB1E


def ip(src, dst):
    return IPv6(src=src, dst=dst) if ":" in src else IP(src=src, dst=dst)


def packet(argv):
    kind = argv[0]
    if kind == "synack":
        src, dst, sport, dport = argv[1], argv[2], int(argv[3]), int(argv[4])
        return ip(src, dst) / TCP(sport=sport, dport=dport, flags="SA", seq=1234,
                                  ack=FORGED_SEQ, options=[("MSS", 1460), ("WScale", 7)])
    if kind == "icmp":
        router, prober, target, psport = argv[1], argv[2], argv[3], int(argv[4])
        quoted = ip(prober, target) / TCP(sport=psport, dport=80, flags="S", seq=FORGED_SEQ)
        if ":" in router:
            return IPv6(src=router, dst=prober) / ICMPv6DestUnreach(code=1) / quoted
        return IP(src=router, dst=prober) / ICMP(type=3, code=13) / quoted
    raise SystemExit("inject.py: unknown kind %r" % kind)


def main():
    if sys.argv[1:] == ["serve"]:
        print("ready", flush=True)
        for line in sys.stdin:
            if line.strip():
                send(packet(line.split()), verbose=False)
                print("sent", flush=True)
        return 0
    send(packet(sys.argv[1:]), verbose=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
