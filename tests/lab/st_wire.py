# tests/lab/st_wire.py -- pure packet helpers of the lab self-test.
#
# Internet checksums, a small parser for what the self-test captures (Ethernet,
# IPv4, IPv6, TCP and its options, ICMP / ICMPv6 errors and the packet they
# quote, truncated or not), a pcap file reader, and the model of what each
# middlebox action claims to do to a SYN's options (MBOX.md).  Written from
# the RFCs and the emulator's contract, not from scaleprobe's or mbox's code,
# so the self-test checks them rather than repeats them.  No I/O but reading
# the pcap file it is given.
import socket
import struct

OPT_EOL, OPT_NOP, OPT_MSS, OPT_WS, OPT_SACKOK, OPT_TS = 0, 1, 2, 3, 4, 8
TCP_FIN, TCP_SYN, TCP_RST, TCP_PSH, TCP_ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def csum(data):
    """One's complement sum; a packet with its checksum in place sums to 0xffff."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def pseudo(fam, src, dst, proto, length):
    if fam == 4:
        return src + dst + struct.pack("!BBH", 0, proto, length)
    return src + dst + struct.pack("!I3xB", length, proto)


class Pkt:
    """An IP packet as parsed; fields a truncated packet lacks stay None."""

    fam = src = dst = srcb = dstb = ttl = proto = None
    iplen = hdrlen = None       # length the header claims, header length
    truncated = False           # fewer bytes present than the header claims
    ip_ok = True                # IPv4 header checksum (always True for IPv6)
    sport = dport = seq = ack = flags = win = None
    opts = None                 # TCP option bytes, when the header is complete
    payload = b""
    l4_ok = None                # TCP / ICMP checksum, when complete
    icmp_type = icmp_code = None
    quote = None                # bytes after an ICMP error's 8-byte header
    raw = b""


def parse_ip(b):
    """Parses an IPv4 or IPv6 packet (possibly a truncated quote)."""
    if len(b) < 1:
        return None
    p = Pkt()
    p.raw = b
    v = b[0] >> 4
    if v == 4:
        if len(b) < 20:
            return None
        hl = (b[0] & 15) * 4
        if hl < 20 or len(b) < hl:
            return None
        p.fam, p.hdrlen = 4, hl
        p.iplen = struct.unpack("!H", b[2:4])[0]
        p.ttl, p.proto = b[8], b[9]
        p.srcb, p.dstb = b[12:16], b[16:20]
        p.ip_ok = csum(b[:hl]) == 0xFFFF
        af = socket.AF_INET
    elif v == 6:
        if len(b) < 40:
            return None
        p.fam, p.hdrlen = 6, 40
        p.iplen = 40 + struct.unpack("!H", b[4:6])[0]
        p.proto, p.ttl = b[6], b[7]
        p.srcb, p.dstb = b[8:24], b[24:40]
        af = socket.AF_INET6
    else:
        return None
    p.src, p.dst = socket.inet_ntop(af, p.srcb), socket.inet_ntop(af, p.dstb)
    p.truncated = len(b) < p.iplen
    l4 = b[p.hdrlen:p.iplen]
    complete = not p.truncated
    if p.proto == 6 and len(l4) >= 8:
        p.sport, p.dport, p.seq = struct.unpack("!HHI", l4[:8])
        if len(l4) >= 20:
            p.ack, off, p.flags, p.win = struct.unpack("!IBBH", l4[8:16])
            doff = (off >> 4) * 4
            if 20 <= doff <= len(l4):
                p.opts = l4[20:doff]
                p.payload = l4[doff:]
        if complete:
            p.l4_ok = csum(pseudo(p.fam, p.srcb, p.dstb, 6, len(l4)) + l4) == 0xFFFF
    elif p.proto in (1, 58) and len(l4) >= 8:
        p.icmp_type, p.icmp_code = l4[0], l4[1]
        p.quote = l4[8:]
        if complete:
            if p.proto == 1:
                p.l4_ok = csum(l4) == 0xFFFF
            else:
                p.l4_ok = csum(pseudo(6, p.srcb, p.dstb, 58, len(l4)) + l4) == 0xFFFF
    return p


def parse_eth(frame):
    if len(frame) < 14:
        return None
    et = struct.unpack("!H", frame[12:14])[0]
    if et not in (0x0800, 0x86DD):
        return None
    return parse_ip(frame[14:])


def is_error(p):
    """ICMP(v6) errors that quote a packet: unreachable, time exceeded."""
    if p.proto == 1:
        return p.icmp_type in (3, 11)
    if p.proto == 58:
        return p.icmp_type in (1, 3)
    return False


def read_pcap(path):
    """Yields the frames of a pcap file (Ethernet link type)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        e = ">"
    else:
        raise ValueError("%s: not a pcap file" % path)
    i = 24
    while i + 16 <= len(data):
        _, _, incl, _ = struct.unpack(e + "IIII", data[i:i + 16])
        i += 16
        yield data[i:i + incl]
        i += incl


# ---- TCP options -------------------------------------------------------------

def opt_list(b):
    """Option bytes -> [(kind, bytes)]; None if malformed."""
    out, i = [], 0
    while i < len(b):
        k = b[i]
        if k in (OPT_EOL, OPT_NOP):
            out.append((k, b[i:i + 1]))
            i += 1
            if k == OPT_EOL:
                out.append((-1, b[i:]))     # padding after EOL, kept as is
                break
            continue
        if i + 2 > len(b) or b[i + 1] < 2 or i + b[i + 1] > len(b):
            return None
        out.append((k, b[i:i + b[i + 1]]))
        i += b[i + 1]
    return out


def opt_find(b, kind):
    for k, v in opt_list(b) or []:
        if k == kind:
            return v
    return None


def ws_of(b):
    """The window scale in option bytes b, or None."""
    v = opt_find(b, OPT_WS) if b is not None else None
    return v[2] if v and len(v) == 3 else None


def opt_text(b):
    """Option bytes as a short readable list: mss1460,sack,ts,nop,ws7."""
    if b is None:
        return "?"
    lst = opt_list(b)
    if lst is None:
        return "malformed(%s)" % b.hex()
    names = []
    for k, v in lst:
        if k == OPT_NOP:
            names.append("nop")
        elif k == OPT_EOL:
            names.append("eol")
        elif k == -1:
            if v:
                names.append("pad%d" % len(v))
        elif k == OPT_MSS and len(v) == 4:
            names.append("mss%d" % struct.unpack("!H", v[2:])[0])
        elif k == OPT_WS and len(v) == 3:
            names.append("ws%d" % v[2])
        elif k == OPT_SACKOK:
            names.append("sack")
        elif k == OPT_TS:
            names.append("ts")
        else:
            names.append("opt%d" % k)
    return ",".join(names) or "none"


def linux_syn_opts(mss, ts, ws):
    """Linux's SYN layout: MSS, SACK-permitted, timestamps, NOP, WS (ws None: the
    control SYN, MSS, SACK-permitted, timestamps: 16 bytes, no padding)."""
    b = struct.pack("!BBH", OPT_MSS, 4, mss) + bytes([OPT_SACKOK, 2])
    b += struct.pack("!BBII", OPT_TS, 10, ts, 0)
    if ws is not None:
        b += bytes([OPT_NOP, OPT_WS, 3, ws])
    return b


def model(action, arg, opts):
    """What the emulator's SYN action claims to make of option bytes opts (the
    contract in MBOX.md); None when the SYN is dropped."""
    lst = opt_list(opts)
    if action in ("-", "pass") or lst is None:
        return opts
    n = int(arg) if arg not in ("-", "", None) else None
    has_ws = any(k == OPT_WS for k, _ in lst)
    if action == "drop-ws":
        return None if has_ws else opts
    out, skip = [], set()
    for i, (k, v) in enumerate(lst):
        if action == "ws-set" and k == OPT_WS:
            v = v[:2] + bytes([n])
        elif action == "ws-cap" and k == OPT_WS:
            v = v[:2] + bytes([min(v[2], n)])
        elif action == "ws-nop" and k == OPT_WS:
            v = bytes([OPT_NOP]) * len(v)
        elif action == "ws-strip" and k == OPT_WS:
            # WS goes with one adjacent NOP: the one before it (Linux's
            # NOP,WS goes entirely), else the one after it
            if out and out[-1][0] == OPT_NOP:
                out.pop()
            elif i + 1 < len(lst) and lst[i + 1][0] == OPT_NOP:
                skip.add(i + 1)
            continue
        elif i in skip:
            continue
        elif action == "mss-clamp" and k == OPT_MSS:
            v = v[:2] + struct.pack("!H", min(struct.unpack("!H", v[2:])[0], n))
        elif action == "ts-strip" and k == OPT_TS:
            v = bytes([OPT_NOP]) * len(v)
        out.append((k, v))
    b = b"".join(v for _, v in out)
    while len(b) % 4:
        b += bytes([OPT_NOP])
    return b


SYN_ACTIONS = ("pass", "ws-set", "ws-cap", "ws-nop", "ws-strip", "drop-ws",
               "mss-clamp", "ts-strip")
