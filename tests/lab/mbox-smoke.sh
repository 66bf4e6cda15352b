#!/bin/sh
# mbox-smoke.sh -- the lab's middlebox emulator against the real kernel.
#
# Builds client | router | server namespaces (198.18.0.0/24 + fd00::/64,
# 198.18.2.0/24 + fd00:2::/64), runs mbox on the router, sends Linux-layout
# SYNs (scapy) to one server address per action, captures on both ends and
# checks, from the captured bytes, that each action did what MBOX.md says,
# with correct checksums and the server answering SYN-ACK; then TTL-limited
# SYNs for the quote actions.  Twice: SYNs queued in PREROUTING, then in
# FORWARD.  Also: exit 0 on SIGTERM, the ready file, bad rules, a queue
# that is taken.  Prints PASS/FAIL per case and "N passed, N failed".
#
# usage: [BUILD=build] [SMOKE_VERBOSE=1] [SMOKE_KEEP=1] tests/lab/mbox-smoke.sh
# (root; VERBOSE adds tcpdump -vv of the captures and mbox -v, KEEP keeps them)
set -u

BUILD=${BUILD:-build}
MBOX=$(realpath "$BUILD/plain/lab/mbox" 2>/dev/null || echo "$BUILD/plain/lab/mbox")
PY=/usr/bin/python3
Q=7
P=spmbox-$$
A=$P-a R=$P-r B=$P-b
T=$(mktemp -d /tmp/spmbox.XXXXXX)
pids=""
pass=0 fail=0

cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for n in $A $R $B; do ip netns del "$n" 2>/dev/null; done
	[ "${SMOKE_KEEP:-0}" = 1 ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ok()  { pass=$((pass + 1)); echo "PASS $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP mbox-smoke: needs root (network namespaces, iptables)"
	echo "0 passed, 0 failed"
	exit 0
fi
if [ ! -x "$MBOX" ]; then
	echo "FAIL no $MBOX (make all)"
	echo "0 passed, 1 failed"
	exit 1
fi

# --- topology ----------------------------------------------------------------
# Server address per case: 198.18.2.N and fd00:2::N (N read as hex there).
CASES="10 11 12 13 14 15 16 17 18 19 20 21 22 23 24"
set -e
# No DAD, not even for link-local addresses: while a router's fe80:: is
# tentative it sends no neighbour solicitation, so forwarded IPv6 is lost.
for n in $A $R $B; do
	ip netns add "$n"
	ip -n "$n" link set lo up
	ip netns exec "$n" sysctl -q -w net.ipv6.conf.all.accept_dad=0 \
	    net.ipv6.conf.default.accept_dad=0
done
ip -n $A link add a0 type veth peer name r0 netns $R
ip -n $B link add b0 type veth peer name r1 netns $R
ip -n $A addr add 198.18.0.1/24 dev a0
ip -n $A addr add fd00::1/64 dev a0 nodad
ip -n $R addr add 198.18.0.254/24 dev r0
ip -n $R addr add fd00::fe/64 dev r0 nodad
ip -n $R addr add 198.18.2.254/24 dev r1
ip -n $R addr add fd00:2::fe/64 dev r1 nodad
for c in $CASES; do
	ip -n $B addr add 198.18.2.$c/24 dev b0
	ip -n $B addr add fd00:2::$c/64 dev b0 nodad
done
for l in "$A a0" "$R r0" "$R r1" "$B b0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n $A route add default via 198.18.0.254
ip -n $A -6 route add default via fd00::fe
ip -n $B route add default via 198.18.2.254
ip -n $B -6 route add default via fd00:2::fe
ip netns exec $R sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
	net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
set +e

# the server: a dual-stack listener on port 80 that never accepts
ip netns exec $B $PY -c '
import socket, time
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", 80)); s.listen(4096); time.sleep(600)' &
pids="$pids $!"

cat >"$T/rules" <<'EOF'
# one server address per action; .10 and .24 have no rule
198.18.2.11 pass
198.18.2.12 ws-set 0
198.18.2.13 ws-set 14
198.18.2.14 ws-cap 4
198.18.2.15 ws-nop
198.18.2.16 ws-strip
198.18.2.17 drop-ws
198.18.2.18 mss-clamp 1200
198.18.2.19 ts-strip
198.18.2.20 quote-8byte
198.18.2.21 quote-silent
198.18.2.22 quote-full
198.18.2.23 ws-set 0
198.18.2.23 quote-full
fd00:2::11 pass
fd00:2::12 ws-set 0
fd00:2::13 ws-set 14
fd00:2::14 ws-cap 4
fd00:2::15 ws-nop
fd00:2::16 ws-strip
fd00:2::17 drop-ws
fd00:2::18 mss-clamp 1200
fd00:2::19 ts-strip
fd00:2::20 quote-8byte
fd00:2::21 quote-silent
fd00:2::22 quote-full
fd00:2::23 ws-set 0
fd00:2::23 quote-full
EOF

# --- mbox itself: bad rules, start, ready file ---------------------------------
printf '198.18.2.1 ws-set 300\nnot-an-address pass\n' >"$T/bad"
out=$(ip netns exec $R "$MBOX" -q $Q -f "$T/bad" 2>&1); rc=$?
if [ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] &&
    printf '%s' "$out" | grep -q "^$T/bad:1: ws-set: expected a shift count 0..255, got '300'$"; then
	ok "bad rules: exit $rc, one line per error"
else
	bad "bad rules: exit $rc: $out"
fi

ip netns exec $R "$MBOX" -q $Q -f "$T/rules" -r "$T/ready" -v 2>"$T/mbox.log" &
mbox_pid=$!
pids="$pids $mbox_pid"
i=0
while [ ! -e "$T/ready" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ -e "$T/ready" ] && [ "$(cat "$T/ready")" = "$mbox_pid" ]; then
	ok "ready file holds the pid once bound"
else
	bad "no ready file after 5 s"; cat "$T/mbox.log"
fi
out=$(ip netns exec $R "$MBOX" -q $Q -f "$T/rules" 2>&1); rc=$?
if [ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]; then
	ok "second mbox on a taken queue: exit $rc: $out"
else
	bad "second mbox on queue $Q: exit $rc: $out"
fi

# --- the sender and the checker --------------------------------------------------
cat >"$T/send.py" <<'EOF'
# Linux's SYN layout, one per case and family; TTL 1 for the quote cases.
# scapy builds the bytes; raw sockets send them, so the kernel routes and
# resolves neighbours (scapy's own resolution loses the first packet to a
# broadcast MAC, which an IPv6 router does not forward).
import socket, sys, time
from scapy.all import IP, IPv6, TCP
TS = 0x11223344
LINUX = [("MSS", 1460), ("SAckOK", b""), ("Timestamp", (TS, 0)), ("NOP", None),
         ("WScale", 7)]
NOWS = [("MSS", 1460), ("SAckOK", b""), ("Timestamp", (TS, 0))]
raw4 = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
raw6 = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
for c in [int(x) for x in sys.argv[1:]]:
    for v4 in (True, False):
        dst = "198.18.2.%d" % c if v4 else "fd00:2::%d" % c
        for sport, opts, ttl in ((20000 + c, LINUX, 64), (21000 + c, NOWS, 64),
                                 (22000 + c, LINUX, 1)):
            ip = IP(dst=dst, ttl=ttl) if v4 else IPv6(dst=dst, hlim=ttl)
            p = ip / TCP(sport=sport, dport=80, flags="S", seq=0x01020304 + c,
                         window=64240, options=opts)
            (raw4 if v4 else raw6).sendto(bytes(p), (dst, 0))
            time.sleep(0.01)
EOF

cat >"$T/check.py" <<'EOF'
# Reads the client and server captures and checks every case from the bytes.
import struct, sys
mode, cli, srv = sys.argv[1], sys.argv[2], sys.argv[3]
TS = bytes.fromhex("11223344")
L = bytes.fromhex("020405b4" "0402" "080a") + TS + bytes(4) + bytes.fromhex("01030307")
NOWS = L[:16]
def ws(n): return L[:19] + bytes([n])
SYN = {  # case: (action, options the server must see, or None: dropped)
    10: ("no rule", L), 11: ("pass", L), 12: ("ws-set 0", ws(0)),
    13: ("ws-set 14", ws(14)), 14: ("ws-cap 4", ws(4)),
    15: ("ws-nop", L[:16] + b"\x01\x01\x01\x01"), 16: ("ws-strip", NOWS),
    17: ("drop-ws", None), 18: ("mss-clamp 1200", bytes.fromhex("020404b0") + L[4:]),
    19: ("ts-strip", L[:6] + b"\x01" * 10 + L[16:]),
    20: ("quote-8byte", L), 21: ("quote-silent", L), 22: ("quote-full", L),
    23: ("ws-set 0 + quote-full", ws(0)), 24: ("no rule", L)}
QUOTE = {20: "8byte", 21: "silent", 22: "full", 23: "full", 24: "full"}

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

def frames(path):
    d = open(path, "rb").read()
    assert struct.unpack("<I", d[:4])[0] == 0xa1b2c3d4 and struct.unpack("<I", d[20:24])[0] == 1
    o = 24
    while o + 16 <= len(d):
        n = struct.unpack("<I", d[o + 8:o + 12])[0]
        yield d[o + 16:o + 16 + n]
        o += 16 + n

def ip(f):
    """(family, src, dst, proto, l4, ip checksum ok, l4 checksum ok, ip bytes)"""
    et = struct.unpack("!H", f[12:14])[0]
    b = f[14:]
    if et == 0x0800:
        hl, tot = (b[0] & 15) * 4, struct.unpack("!H", b[2:4])[0]
        src, dst, proto, l4 = b[12:16], b[16:20], b[9], b[hl:tot]
        ph = b"" if proto == 1 else src + dst + struct.pack("!BBH", 0, proto, len(l4))
        return 4, src, dst, proto, l4, csum(b[:hl]) == 0xffff, csum(ph + l4) == 0xffff, b[:tot]
    if et == 0x86dd:
        plen, proto = struct.unpack("!H", b[4:6])[0], b[6]
        src, dst, l4 = b[8:24], b[24:40], b[40:40 + plen]
        ph = src + dst + struct.pack("!I3xB", len(l4), proto)
        return 6, src, dst, proto, l4, True, csum(ph + l4) == 0xffff, b[:40 + plen]
    return None

def addr(fam, c):
    return bytes([198, 18, 2, c]) if fam == 4 else bytes.fromhex("fd000002" + "00" * 10 + "%04x" % int(str(c), 16))

srv_pk = [p for p in map(ip, frames(srv)) if p]
cli_pk = [p for p in map(ip, frames(cli)) if p]
npass = nfail = 0
def report(good, what):
    global npass, nfail
    if good: npass += 1
    else: nfail += 1
    print("%s %s %s" % ("PASS" if good else "FAIL", mode, what))

def syns_to(fam, c, sport):
    out = []
    for p in srv_pk:
        if p[0] == fam and p[2] == addr(fam, c) and p[3] == 6 and len(p[4]) >= 20:
            t = p[4]
            if struct.unpack("!H", t[:2])[0] == sport and t[13] & 0x12 == 0x02:
                out.append(p)
    return out

def synack(fam, c, sport):
    for p in srv_pk:
        if p[0] == fam and p[1] == addr(fam, c) and p[3] == 6:
            t = p[4]
            if struct.unpack("!H", t[2:4])[0] == sport and t[13] & 0x12 == 0x12:
                return True
    return False

for c, (action, want) in sorted(SYN.items()):
    for fam in (4, 6):
        tag = "ipv%d %-22s" % (fam, action)
        got = syns_to(fam, c, 20000 + c)
        if want is None:
            ctl = syns_to(fam, c, 21000 + c)
            report(not got and len(ctl) == 1 and ctl[0][4][20:36] == NOWS and ctl[0][6]
                   and synack(fam, c, 21000 + c),
                   "%s SYN with WS dropped (%d seen); SYN without WS passed, SYN-ACKed" % (tag, len(got)))
            continue
        if len(got) != 1:
            report(False, "%s %d SYNs arrived" % (tag, len(got)))
            continue
        p = got[0]
        t = p[4]
        opts = t[20:(t[0 + 12] >> 4) * 4]
        sa = synack(fam, c, 20000 + c)
        good = opts == want and p[5] and p[6] and sa and t[20 + len(opts):] == b""
        report(good, "%s options %s, %d bytes, ip-cksum %s tcp-cksum %s, SYN-ACK %s" % (
            tag, opts.hex(" "), len(p[7]), "ok" if p[5] else "BAD",
            "ok" if p[6] else "BAD", "yes" if sa else "NO"))

for c, kind in sorted(QUOTE.items()):
    for fam in (4, 6):
        tag = "ipv%d %-22s" % (fam, SYN[c][0])
        te = []
        for p in cli_pk:
            if p[0] != fam or p[3] != (1 if fam == 4 else 58) or len(p[4]) < 8:
                continue
            if p[4][0] != (11 if fam == 4 else 3):
                continue
            q = p[4][8:]
            qhl = (q[0] & 15) * 4 if fam == 4 else 40
            qdst = q[16:20] if fam == 4 else q[24:40]
            if qdst == addr(fam, c) and struct.unpack("!H", q[qhl:qhl + 2])[0] == 22000 + c:
                te.append((p, q, qhl))
        if kind == "silent":
            report(not te, "%s TTL-1 SYN: %d time-exceeded seen" % (tag, len(te)))
            continue
        if len(te) != 1:
            report(False, "%s TTL-1 SYN: %d time-exceeded seen" % (tag, len(te)))
            continue
        p, q, qhl = te[0]
        ln = p[4][5] if fam == 4 else p[4][4]
        ck = p[5] and p[6]
        if kind == "8byte":
            good = len(q) == qhl + 8 and ck and ln == 0
            report(good, "%s time-exceeded quotes %d bytes (header %d + 8), ip/icmp cksum %s" % (
                tag, len(q), qhl, "ok" if ck else "BAD"))
        else:
            qo = q[qhl + 20:qhl + 40]
            # before its TTL check (PREROUTING) the box damages what it quotes
            wq = ws(0) if c == 23 and mode == "prerouting" else L
            good = len(q) == qhl + 40 and ck and qo == wq
            report(good, "%s time-exceeded quotes %d bytes, quoted options %s, cksum %s" % (
                tag, len(q), qo.hex(" "), "ok" if ck else "BAD"))
print("%s: %d passed, %d failed" % (mode, npass, nfail))
sys.exit(1 if nfail else 0)
EOF

# Starts tcpdump in namespace $1 on $2 writing $3; waits until it listens.
capture() {
	ip netns exec "$1" tcpdump -i "$2" -nn -s 0 -U -w "$3" 2>"$3.err" &
	pids="$pids $!"
	cap_pid=$!
	i=0
	while ! grep -q listening "$3.err" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

# --- both hooks ------------------------------------------------------------------
for mode in prerouting forward; do
	for ipt in iptables ip6tables; do
		ip netns exec $R $ipt -t mangle -F
		ip netns exec $R $ipt -F
		if [ $ipt = iptables ]; then
			dst=198.18.2.0/24 icmp="-p icmp --icmp-type time-exceeded"
		else
			dst=fd00:2::/64 icmp="-p ipv6-icmp --icmpv6-type time-exceeded"
		fi
		if [ $mode = prerouting ]; then
			ip netns exec $R $ipt -t mangle -A PREROUTING -d $dst -p tcp \
			    --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $Q
		else
			ip netns exec $R $ipt -A FORWARD -d $dst -p tcp \
			    --tcp-flags SYN,ACK SYN -j NFQUEUE --queue-num $Q
		fi
		ip netns exec $R $ipt -A OUTPUT $icmp -j NFQUEUE --queue-num $Q
	done
	capture $A a0 "$T/$mode-cli.pcap"; cpid=$cap_pid
	capture $B b0 "$T/$mode-srv.pcap"; spid=$cap_pid
	timeout 60 ip netns exec $A $PY "$T/send.py" $CASES
	sleep 1
	kill -INT $cpid $spid; wait $cpid $spid 2>/dev/null
	out=$($PY "$T/check.py" $mode "$T/$mode-cli.pcap" "$T/$mode-srv.pcap" 2>&1)
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL) |Traceback|Error' 
	pass=$((pass + $(printf '%s\n' "$out" | grep -c '^PASS ')))
	fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL ')))
	# no closing count: the checker itself broke
	printf '%s\n' "$out" | grep -q ': [0-9]* passed, [0-9]* failed$' ||
	    { bad "$mode: checker"; printf '%s\n' "$out" | tail -5; }
	if [ "${SMOKE_VERBOSE:-0}" = 1 ]; then
		echo "--- $mode: server capture (tcpdump -vv)"
		tcpdump -nn -vv -r "$T/$mode-srv.pcap" 2>/dev/null
		echo "--- $mode: client capture, ICMP (tcpdump -vv)"
		tcpdump -nn -vv -r "$T/$mode-cli.pcap" 'icmp or icmp6' 2>/dev/null
	fi
done

# --- shutdown ----------------------------------------------------------------
kill -TERM $mbox_pid
wait $mbox_pid; rc=$?
pids=$(printf '%s' "$pids" | sed "s/ $mbox_pid\$//; s/ $mbox_pid / /")
if [ $rc -eq 0 ] && [ ! -e "$T/ready" ]; then
	ok "SIGTERM: exit 0, ready file removed"
else
	bad "SIGTERM: exit $rc"
fi
[ "${SMOKE_VERBOSE:-0}" = 1 ] && { echo "--- mbox -v"; cat "$T/mbox.log"; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
