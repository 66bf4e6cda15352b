#!/usr/bin/env python3
"""store_evidence.py DB ADDRESS PORT -- the stored evidence proves the verdict.

For the latest result of ADDRESS:PORT, unpacks the evidence (evidence.h's
records), parses each packet by hand (IPv4/IPv6, ICMP/ICMPv6, the quoted
TCP header and its options) and checks, for every scale whose verdict is
"rewritten": the SYN as sent carries the scale sent, and re-rendered for
each TTL (its ISN from the quote's fields) is what the hops before the box
quoted; every router quote up
to the last clean hop shows that scale, every quote from the box's hop on
shows the changed one (scale_quoted).  Prints PASS/FAIL lines and
"N passed, N failed"; exit 1 on a failure.
"""
import sqlite3
import struct
import sys

KINDS = {0: "syn", 1: "quote", 2: "reply"}


def unpack(blob):
    out, n = [], 0
    while n < len(blob):
        if len(blob) - n < 6:
            raise ValueError("record head cut short at %d" % n)
        kind, var, ttl, f = blob[n], blob[n + 1] - 1, blob[n + 2], blob[n + 3]
        ln = struct.unpack(">H", blob[n + 4:n + 6])[0]
        fields = blob[n + 6:n + 6 + f].decode("ascii")
        pkt = blob[n + 6 + f:n + 6 + f + ln]
        if len(pkt) != ln or kind not in KINDS:
            raise ValueError("bad record at %d" % n)
        out.append((KINDS[kind], var, ttl, fields, pkt))
        n += 6 + f + ln
    return out


def ip_payload(pkt):
    """(protocol, payload) of an IPv4 or IPv6 packet (no extension headers)."""
    if pkt[0] >> 4 == 4:
        ihl = (pkt[0] & 15) * 4
        return pkt[9], pkt[ihl:]
    return pkt[6], pkt[40:]


def tcp_wscale(tcp):
    """The window-scale shift in a TCP header's options, None when absent."""
    off = (tcp[12] >> 4) * 4
    opts, i = tcp[20:off], 0
    while i < len(opts):
        k = opts[i]
        if k == 0:
            break
        if k == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            break
        if k == 3 and opts[i + 1] == 3:
            return opts[i + 2]
        i += opts[i + 1]
    return None


def quoted_tcp(pkt):
    """The TCP header an ICMP error quotes."""
    proto, icmp = ip_payload(pkt)
    if proto not in (1, 58):
        raise ValueError("not ICMP")
    inner = icmp[8:]
    iproto, tcp = ip_payload(inner)
    if iproto != 6:
        raise ValueError("the quote is not TCP")
    return tcp


def main():
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    row = db.execute(
        "SELECT pr.id, e.bytes FROM path_results pr JOIN paths p ON p.id = pr.path_id "
        "JOIN evidence e ON e.path_result_id = pr.id WHERE p.address = ? AND p.port = ? "
        "ORDER BY pr.id DESC LIMIT 1", (sys.argv[2], int(sys.argv[3]))).fetchone()
    passed = failed = 0

    def claim(ok, what):
        nonlocal passed, failed
        print("%s: %s" % ("PASS" if ok else "FAIL", what))
        if ok:
            passed += 1
        else:
            failed += 1

    if row is None:
        claim(False, "no evidence stored for %s:%s" % (sys.argv[2], sys.argv[3]))
    else:
        recs = unpack(row[1])
        scales = db.execute("SELECT idx, scale_sent, verdict, scale_quoted, hop_index, "
                            "last_clean_index FROM scale_results WHERE path_result_id = ? "
                            "AND verdict = 'rewritten'", (row[0],)).fetchall()
        claim(len(scales) > 0, "a rewritten scale to prove")
        for idx, sent, _, quoted, hop, clean in scales:
            syn = [p for k, v, t, f, p in recs if k == "syn" and v == idx and t == 1]
            ok = len(syn) == 1
            if ok:
                _, tcp = ip_payload(syn[0])
                ok = tcp_wscale(tcp) == sent
            claim(ok, "scale %d: the trace SYN as sent carries window scale %d" % (sent, sent))
            quotes = {t: quoted_tcp(p) for k, v, t, f, p in recs if k == "quote" and v == idx}
            before = [t for t in quotes if t <= clean]
            after = [t for t in quotes if hop <= t]
            # the SYN of TTL t is the TTL-1 one with its ISN (the quote's
            # fields): before the box, the quoted TCP header is that SYN's,
            # byte for byte (but the checksum, which covers the ISN)
            isn = {t: int(dict(kv.split("=") for kv in f.split())["isn"], 16)
                   for k, v, t, f, p in recs if k == "quote" and v == idx}
            if syn:
                sent_tcp = ip_payload(syn[0])[1]
                same = all(quotes[t][:4] + quotes[t][8:16] + quotes[t][18:len(sent_tcp)] ==
                           sent_tcp[:4] + sent_tcp[8:16] + sent_tcp[18:] and
                           struct.unpack(">I", quotes[t][4:8])[0] == isn[t]
                           for t in quotes if t <= clean)
                claim(same, "scale %d: the SYNs re-rendered from the stored one and the "
                      "quotes' ISNs are what hops before the box quoted" % sent)
            claim(len(before) > 0 and all(tcp_wscale(quotes[t]) == sent for t in before),
                  "scale %d: quotes of hops %s (up to the last clean hop %d) show %d" %
                  (sent, sorted(before), clean, sent))
            claim(len(after) > 0 and all(tcp_wscale(quotes[t]) == quoted for t in after),
                  "scale %d: quotes of hops %s (from the box's hop %d) show %s" %
                  (sent, sorted(after), hop, quoted))
        replies = [p for k, v, t, f, p in recs if k == "reply" and t == 0]
        claim(len(replies) > 0 and all(ip_payload(p)[0] == 6 and
                                       ip_payload(p)[1][13] & 0x12 == 0x12 for p in replies),
              "the handshake's SYN-ACKs as received (%d)" % len(replies))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
