#!/usr/bin/python3
"""samples2c.py PCAP HOW > samples.c

Turn the capture of tests/unit/capture-samples.sh into tests/unit/samples.c:
each chosen packet as a C byte array (from its IP header on) with what
scapy, an independent decoder, reads in it.  Packets are picked by the
client's source ports, which capture-samples.sh fixes (v4 4100N, v6 6100N).
"""
import socket
import sys

from scapy.all import (ICMP, IP, TCP, UDP, Ether, IPerror, IPerror6, IPv6,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, TCPerror,
                       UDPerror, rdpcap)
from scapy.layers.inet import TCPOptions
from scapy.layers.inet6 import in6_chksum
from scapy.utils import checksum

EXT6 = (IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt, IPv6ExtHdrRouting,
        IPv6ExtHdrFragment)
L4_TCP, L4_ICMP, L4_OTHER = 1, 2, 3
CSUM_UNCHECKED, CSUM_OK, CSUM_BAD = 0, 1, 2
Q_SHORT, Q_8BYTE, Q_FULL, Q_RFC4884 = 0, 1, 2, 3
ICMP6_ERRORS = (1, 2, 3, 4)


def l3_of(pkt):
    """The packet from its IP header on, re-dissected from raw bytes."""
    raw = bytes(pkt[Ether].payload)
    return raw, (IP(raw) if raw[0] >> 4 == 4 else IPv6(raw))


def walk(ip, ext_classes):
    """(l4 layer, number of ext headers, fragment layer) below ip."""
    n, frag, lay = 0, None, ip.payload
    while isinstance(lay, ext_classes):
        n += 1
        if isinstance(lay, IPv6ExtHdrFragment):
            frag = lay
            if lay.offset != 0:
                return lay.payload, n, frag
        lay = lay.payload
    return lay, n, frag


def tcp_fields(t, present_len):
    """A struct sample_tcp initializer for scapy TCP(error) t of which
    present_len bytes were on the wire."""
    f = {'present': 'true', 'sport': t.sport, 'dport': t.dport,
         'seq': t.seq if present_len >= 8 else 0,
         'ack': t.ack if present_len >= 12 else 0,
         'flags': int(t.flags) if present_len >= 14 else 0,
         'window': t.window if present_len >= 16 else 0,
         'hdr_len': t.dataofs * 4 if present_len >= 14 else 0,
         'mss': -1, 'wscale': -1, 'sack_perm': 'false', 'ts': 'false',
         'ts_val': 0, 'ts_ecr': 0}
    complete = present_len >= 20 and present_len >= t.dataofs * 4
    f['complete'] = 'true' if complete else 'false'
    kinds = []
    if complete:
        for name, val in t.options:
            kind = TCPOptions[1][name] if isinstance(name, str) else name
            kinds.append(kind)
            if kind == 2:
                f['mss'] = val
            elif kind == 3:
                f['wscale'] = val
            elif kind == 4:
                f['sack_perm'] = 'true'
            elif kind == 8:
                f['ts'] = 'true'
                f['ts_val'], f['ts_ecr'] = val
    f['n_kinds'] = len(kinds)
    f['kinds'] = '{' + ', '.join(str(k) for k in kinds) + '}'
    return '{ ' + ', '.join('.%s = %s' % kv for kv in f.items()) + ' }'


def addr(ip):
    fam = socket.AF_INET if ip.version == 4 else socket.AF_INET6
    def one(a):
        b = socket.inet_pton(fam, a)
        return '{' + ', '.join('0x%02x' % x for x in b) + '}'
    return one(ip.src), one(ip.dst)


def describe(raw, ip):
    """Every field of struct sample but name, what and bytes."""
    e = {'version': ip.version, 'icmp_type': -1, 'icmp_code': -1,
         'csum': CSUM_UNCHECKED}
    e['src'], e['dst'] = addr(ip)
    if ip.version == 4:
        l4, n_ext = ip.payload, 0
        e['ttl'], e['proto'] = ip.ttl, ip.proto
        e['frag'] = bool(ip.flags.MF) or ip.frag != 0
        e['frag_off'] = ip.frag * 8
        nonfirst = ip.frag != 0
        tot = ip.len
    else:
        l4, n_ext, frag = walk(ip, EXT6)
        e['ttl'] = ip.hlim
        e['proto'] = l4.underlayer.nh
        e['frag'] = frag is not None
        e['frag_off'] = frag.offset * 8 if frag is not None else 0
        nonfirst = frag is not None and frag.offset != 0
        tot = 40 + ip.plen
    e['n_ext'] = n_ext
    e['l4_off'] = len(raw) - len(bytes(l4))
    l4raw = raw[e['l4_off']:tot]
    whole = not e['frag'] and len(raw) >= tot
    if nonfirst:
        e['l4'] = L4_OTHER
    elif isinstance(l4, TCP):
        e['l4'] = L4_TCP
        e['tcp'] = tcp_fields(l4, len(l4raw))
        if whole:
            if ip.version == 4:
                from scapy.layers.inet import in4_chksum
                ok = in4_chksum(6, ip, l4raw) == 0
            else:
                ok = in6_chksum(6, l4.underlayer, l4raw) == 0
            e['csum'] = CSUM_OK if ok else CSUM_BAD
    elif (ip.version == 4 and isinstance(l4, ICMP)) or \
         (ip.version == 6 and e['proto'] == 58 and l4raw[0] in ICMP6_ERRORS):
        e['l4'] = L4_ICMP
        if whole:
            if ip.version == 4:
                ok = checksum(l4raw) == 0
            else:
                ok = in6_chksum(58, l4.underlayer, l4raw) == 0
            e['csum'] = CSUM_OK if ok else CSUM_BAD
        describe_icmp(e, l4raw)
    else:
        e['l4'] = L4_OTHER
    return e


def describe_icmp(e, msg):
    """The ICMP error's fields and its quote, with scapy on the quote."""
    e['icmp_type'], e['icmp_code'] = msg[0], msg[1]
    v4 = e['version'] == 4
    if v4 and msg[0] == 3 and msg[1] == 4:
        e['mtu'] = int.from_bytes(msg[6:8], 'big')
    if not v4 and msg[0] == 2:
        e['mtu'] = int.from_bytes(msg[4:8], 'big')
    rfc4884 = msg[5] if v4 else (msg[4] if msg[0] in (1, 3) else 0)
    quote = msg[8:]
    qip = IPerror(quote) if v4 else IPerror6(quote)
    e['q_version'], e['q_ttl'] = qip.version, qip.ttl if v4 else qip.hlim
    if v4:
        ql4, q_n_ext, qtot = qip.payload, 0, qip.len
        e['q_proto'] = qip.proto
    else:
        ql4, q_n_ext, _ = walk(qip, EXT6)
        e['q_proto'] = ql4.underlayer.nh
        qtot = 40 + qip.plen
    e['q_n_ext'] = q_n_ext
    q_l4_off = len(quote) - len(bytes(ql4))
    e['q_l4_off'] = q_l4_off
    present = min(len(quote), qtot) - q_l4_off
    e['q_l4_len'] = present
    label = Q_SHORT
    if isinstance(ql4, TCP):    # TCPerror, or TCP below ext headers
        e['qtcp'] = tcp_fields(ql4, present)
        if present >= 8:
            label = Q_8BYTE
        if present >= 20 and present >= ql4.dataofs * 4:
            label = Q_FULL
    else:
        assert isinstance(ql4, UDP), ql4
        label = Q_FULL if len(quote) >= qtot else \
            (Q_8BYTE if present >= 8 else Q_SHORT)
    if rfc4884 and label != Q_SHORT:
        label = Q_RFC4884
    e['quote'] = label


def ports(ip):
    """(sport, dport) of the packet's TCP/UDP or of its quoted one."""
    for cls in (TCPerror, UDPerror, TCP, UDP):
        if cls in ip:
            return ip[cls].sport, ip[cls].dport
    return None, None


def pick(pkts):
    """name -> (what, raw, ip) for the packets the tests use."""
    chosen = {}

    def take(name, what, raw, ip):
        if name not in chosen:
            chosen[name] = (what, raw, ip)

    for p in pkts:
        if Ether not in p or p[Ether].type not in (0x0800, 0x86dd):
            continue
        raw, ip = l3_of(p)
        v = ip.version
        base = 41000 if v == 4 else 61000
        fam = str(v)
        sport, dport = ports(ip)
        icmp = ip[ICMP] if v == 4 and ICMP in ip else None
        if v == 6 and raw[6] == 58 and raw[40] in ICMP6_ERRORS:
            icmp = raw[40:]
        if TCP in ip and not isinstance(ip[TCP], TCPerror) and icmp is None:
            fl = str(ip[TCP].flags)
            if sport == base + 1 and fl == 'S':
                take('syn' + fam, 'SYN, client to server (Linux default options)', raw, ip)
            if dport == base + 1 and fl == 'SA':
                take('synack' + fam, 'SYN-ACK, server to client', raw, ip)
            if dport == base + 3 and 'R' in fl:
                take('rst' + fam, 'RST-ACK from a closed port', raw, ip)
            if sport == base + 8 and fl == 'S':
                take('syn6eh', 'SYN with hop-by-hop and destination options headers', raw, ip)
            continue
        if icmp is not None:
            t, c = (icmp.type, icmp.code) if v == 4 else (icmp[0], icmp[1])
            if v == 4:
                kind = {(11, 0): 'timxceed', (3, 13): 'admin', (3, 4): 'needfrag',
                        (3, 3): 'portunreach'}.get((t, c))
            else:
                kind = {(3, 0): 'timxceed', (1, 1): 'admin', (2, 0): 'toobig',
                        (1, 4): 'portunreach'}.get((t, c))
            want = {'timxceed': base + 2, 'admin': base + 4, 'needfrag': base + 5,
                    'toobig': base + 5, 'portunreach': base + 6}
            if kind and sport == want[kind]:
                take(kind + fam, {'timxceed': 'time exceeded from the router, quoting a TTL-1 SYN',
                                  'admin': 'admin-prohibited from the router (nft reject), quoting a SYN',
                                  'needfrag': 'fragmentation needed from the router, quoting a 1400-byte segment',
                                  'toobig': 'packet too big from the router, quoting a 1400-byte segment',
                                  'portunreach': 'port unreachable from the server, quoting UDP'}[kind],
                     raw, ip)
            if v == 6 and kind == 'timxceed' and sport == base + 9:
                take('timxceed6eh', 'time exceeded quoting a SYN with hop-by-hop and destination options',
                     raw, ip)
            continue
        # outbound fragments of the 3000-byte UDP datagram
        if str(ip.src).startswith(('198.18.1.2', 'fd00:1::2')):
            if v == 4 and (ip.flags.MF or ip.frag):
                take('frag%s%s' % (fam, 'b' if ip.frag else 'a'),
                     'UDP fragment, %s' % ('not the first' if ip.frag else 'the first'), raw, ip)
            if v == 6 and IPv6ExtHdrFragment in ip:
                off = ip[IPv6ExtHdrFragment].offset
                take('frag%s%s' % (fam, 'b' if off else 'a'),
                     'UDP fragment, %s' % ('not the first' if off else 'the first'), raw, ip)
    return chosen


ORDER = ['syn4', 'synack4', 'rst4', 'timxceed4', 'admin4', 'needfrag4',
         'portunreach4', 'frag4a', 'frag4b',
         'syn6', 'synack6', 'rst6', 'timxceed6', 'admin6', 'toobig6',
         'portunreach6', 'frag6a', 'frag6b', 'syn6eh', 'timxceed6eh']


def main():
    pcap, how = sys.argv[1], sys.argv[2]
    chosen = pick(rdpcap(pcap))
    missing = [n for n in ORDER if n not in chosen]
    if missing:
        sys.exit('samples2c: not in the capture: ' + ' '.join(missing))
    w = sys.stdout.write
    w('/*\n * samples.c -- GENERATED by tests/unit/samples2c.py; do not edit.\n'
      ' * Real packets, %s.\n' % how)
    w(' * Each array starts at the IP header; the fields beside it are what\n'
      ' * scapy decoded.  Regenerate: tests/unit/capture-samples.sh (root).\n */\n')
    w('#include <string.h>\n\n#include "samples.h"\n\n')
    for name in ORDER:
        raw = chosen[name][1]
        w('static const uint8_t %s[%d] = {' % (name, len(raw)))
        for i, b in enumerate(raw):
            w(('\n\t' if i % 12 == 0 else ' ') + '0x%02x,' % b)
        w('\n};\n\n')
    w('const struct sample samples[] = {\n')
    for name in ORDER:
        what, raw, ip = chosen[name]
        e = describe(raw, ip)
        e = {k: ('true' if v is True else 'false' if v is False else v)
             for k, v in e.items()}
        w('\t{ .name = "%s", .what = "%s",\n\t  .bytes = %s, .len = sizeof(%s),\n'
          % (name, what, name, name))
        w('\t  ' + ',\n\t  '.join('.%s = %s' % kv for kv in e.items()) + ' },\n')
    w('};\n\nconst size_t n_samples = sizeof(samples) / sizeof(samples[0]);\n\n')
    w('const struct sample *\nsample_get(const char *name)\n{\n\tsize_t\ti;\n\n'
      '\tfor (i = 0; i < n_samples; i++)\n'
      '\t\tif (strcmp(samples[i].name, name) == 0)\n'
      '\t\t\treturn &samples[i];\n\treturn NULL;\n}\n')


if __name__ == '__main__':
    main()
