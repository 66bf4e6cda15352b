#!/bin/sh
# capture-samples.sh -- capture, from the Linux stack, the real packets that
# tests/unit/samples.c carries, and regenerate that file.
#
# Three throwaway namespaces, client - router - server, on 198.18.1.0/24,
# 198.18.2.0/24, fd00:1::/64 and fd00:2::/64; the router forwards, sends
# ICMP errors without rate limit, rejects TCP port 8082 as administratively
# prohibited, and has an MTU of 1280 towards the server (the server's is
# 1500, so a 1400-byte segment draws needfrag / packet-too-big).  Transmit checksum
# offload is off on every veth, so captured checksums are real ones.  The
# client connects with fixed source ports (tests/unit/samples2c.py picks
# packets by them); tcpdump records on the client's interface.
#
# usage: tests/unit/capture-samples.sh [OUT.c]     (as root; default
#        tests/unit/samples.c).  Needs ip, tcpdump, nft, /usr/bin/python3
#        with scapy.  Keeps the pcap as OUT.c's name with .pcap if KEEP_PCAP=1.
set -eu

here=$(dirname "$0")
out=${1:-$here/samples.c}
py=/usr/bin/python3
p="spwire-$$-"
C=${p}c
R=${p}r
S=${p}s
tmp=$(mktemp -d /tmp/spwire.XXXXXX)
dump_pid=
srv_pid=

cleanup() {
	[ -z "$dump_pid" ] || kill "$dump_pid" 2>/dev/null || true
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	for ns in "$C" "$R" "$S"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

for ns in "$C" "$R" "$S"; do
	ip netns add "$ns"
	ip -n "$ns" link set lo up
done
ip -n "$C" link add c0 type veth peer name r0 netns "$R"
ip -n "$R" link add r1 type veth peer name s0 netns "$S"

ip -n "$C" addr add 198.18.1.2/24 dev c0
ip -n "$C" addr add fd00:1::2/64 dev c0 nodad
ip -n "$R" addr add 198.18.1.1/24 dev r0
ip -n "$R" addr add fd00:1::1/64 dev r0 nodad
ip -n "$R" addr add 198.18.2.1/24 dev r1
ip -n "$R" addr add fd00:2::1/64 dev r1 nodad
ip -n "$S" addr add 198.18.2.2/24 dev s0
ip -n "$S" addr add fd00:2::2/64 dev s0 nodad
ip -n "$R" link set r1 mtu 1280
for l in "$C c0" "$R r0" "$R r1" "$S s0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$C" route add default via 198.18.1.1
ip -n "$C" -6 route add default via fd00:1::1
ip -n "$S" route add default via 198.18.2.1
ip -n "$S" -6 route add default via fd00:2::1

ip netns exec "$R" sysctl -q -w net.ipv4.ip_forward=1 \
    net.ipv6.conf.all.forwarding=1
for ns in "$R" "$S"; do
	ip netns exec "$ns" sysctl -q -w net.ipv4.icmp_ratelimit=0 \
	    net.ipv6.icmp.ratelimit=0
done
ip netns exec "$R" nft -f - <<'EOF'
table inet spwire {
	chain forward {
		type filter hook forward priority 0;
		meta nfproto ipv4 tcp dport 8082 reject with icmp type admin-prohibited
		meta nfproto ipv6 tcp dport 8082 reject with icmpv6 type admin-prohibited
	}
}
EOF

# ETHTOOL_STXCSUM off: a veth hands on partial checksums otherwise
txcsum_off() {
	ip netns exec "$1" "$py" - "$2" <<'EOF'
import array, fcntl, socket, struct, sys
SIOCETHTOOL, ETHTOOL_STXCSUM = 0x8946, 0x17
val = array.array('B', struct.pack('II', ETHTOOL_STXCSUM, 0))
ifr = struct.pack('16sP16x', sys.argv[1].encode(), val.buffer_info()[0])
fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), SIOCETHTOOL, ifr)
EOF
}
txcsum_off "$C" c0
txcsum_off "$R" r0
txcsum_off "$R" r1
txcsum_off "$S" s0

cat >"$tmp/server.py" <<'EOF'
# accept on 8080 (both families), read what comes, close; 8081 stays closed
import select, socket
ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
ls.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(('::', 8080))
ls.listen(16)
while True:
    c, _ = ls.accept()
    c.settimeout(1.0)
    try:
        c.recv(4096)
    except OSError:
        pass
    c.close()
EOF
# fill the neighbour caches first: replies should not wait for ND / ARP
ip netns exec "$C" "$py" -c '
import socket, time
for fam, dst in ((socket.AF_INET, "198.18.2.2"), (socket.AF_INET6, "fd00:2::2")):
    socket.socket(fam, socket.SOCK_DGRAM).sendto(b"warm", (dst, 9))
time.sleep(1)'

ip netns exec "$S" timeout 60 "$py" "$tmp/server.py" &
srv_pid=$!

ip netns exec "$C" timeout 60 tcpdump -n -U -s 0 -i c0 -w "$tmp/c.pcap" \
    2>"$tmp/tcpdump.err" &
dump_pid=$!
n=0
until grep -q listening "$tmp/tcpdump.err" 2>/dev/null; do
	n=$((n + 1))
	[ $n -lt 50 ] || { echo "capture: tcpdump did not start" >&2; exit 1; }
	sleep 0.1
done

cat >"$tmp/client.py" <<'EOF'
# One exchange per source port; samples2c.py knows the ports.
import socket, time
V4, V6 = '198.18.2.2', 'fd00:2::2'
HOPOPTS, DSTOPTS = 54, 59          # IPV6_HOPOPTS, IPV6_DSTOPTS
PADN6 = bytes([0, 0, 1, 4, 0, 0, 0, 0])   # one 8-byte header of PadN

def tcp(fam, dst, dport, sport, ttl=None, data=None, eh=False):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.bind(('198.18.1.2' if fam == socket.AF_INET else 'fd00:1::2', sport))
    if ttl is not None:
        if fam == socket.AF_INET:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
        else:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl)
    if eh:
        s.setsockopt(socket.IPPROTO_IPV6, HOPOPTS, PADN6)
        s.setsockopt(socket.IPPROTO_IPV6, DSTOPTS, PADN6)
    s.settimeout(0.6)
    try:
        s.connect((dst, dport))
        if data:
            s.sendall(data)
            time.sleep(0.3)
    except OSError:
        pass
    s.close()

def udp(fam, dst, sport, size):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind(('198.18.1.2' if fam == socket.AF_INET else 'fd00:1::2', sport))
    s.sendto(bytes(size), (dst, 9999))
    time.sleep(0.3)
    s.close()

for fam, dst, base in ((socket.AF_INET, V4, 41000), (socket.AF_INET6, V6, 61000)):
    tcp(fam, dst, 8080, base + 1)                       # SYN, SYN-ACK
    tcp(fam, dst, 8080, base + 2, ttl=1)                # time exceeded
    tcp(fam, dst, 8081, base + 3)                       # RST
    tcp(fam, dst, 8082, base + 4)                       # admin prohibited
    tcp(fam, dst, 8080, base + 5, data=bytes(1400))     # needfrag / too big
    udp(fam, dst, base + 6, 64)                         # port unreachable
    udp(fam, dst, base + 7, 3000)                       # fragments
    if fam == socket.AF_INET6:
        tcp(fam, dst, 8080, base + 8, eh=True)          # SYN with ext headers
        tcp(fam, dst, 8080, base + 9, ttl=1, eh=True)   # ... quoted
time.sleep(0.5)
EOF
ip netns exec "$C" timeout 40 "$py" "$tmp/client.py"
sleep 0.5
kill "$dump_pid"
wait "$dump_pid" 2>/dev/null || true
dump_pid=

if [ "${KEEP_PCAP:-0}" = 1 ]; then
	cp "$tmp/c.pcap" "${out%.c}.pcap"
fi
how="captured by tests/unit/capture-samples.sh on $(date -u +%Y-%m-%d), Linux $(uname -r), client/router/server namespaces"
"$py" "$here/samples2c.py" "$tmp/c.pcap" "$how" >"$tmp/samples.c"
mv "$tmp/samples.c" "$out"
echo "capture: wrote $out"
