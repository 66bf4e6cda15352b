#!/bin/sh
# request-tls-check.sh -- does a real TLS server answer the window test's
# ClientHello (prober/engine/request.c) with its first flight, and a real HTTP
# server its GET?
#
# Two namespaces joined by a veth pair (198.18.200.0/24), openssl s_server
# in one, and in the other the bytes of request_tls() sent on a plain TCP
# socket; the answer's TLS records are parsed and the bytes of the first
# flight counted.  Cases: TLS 1.3 with an EC and an RSA certificate, with
# and without SNI, and a server limited to TLS 1.2; then the GET against
# Python's http.server.  Prints PASS/FAIL per case and "N passed, N
# failed".
#
# usage: [BUILD=build] tests/lab/request-tls-check.sh        (root)
set -u

BUILD=${BUILD:-build}
PY=/usr/bin/python3
P=spreq-$$
A=$P-c B=$P-s
T=$(mktemp -d /tmp/spreq.XXXXXX)
pids=""
pass=0 fail=0

cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for n in $A $B; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

die() { echo "request-tls-check: $*" >&2; exit 1; }

ip netns add "$A" && ip netns add "$B" || die "cannot make namespaces"
ip -n "$A" link add veth0 type veth peer name veth0 netns "$B" || die "no veth"
ip -n "$A" addr add 198.18.200.1/24 dev veth0
ip -n "$B" addr add 198.18.200.2/24 dev veth0
for n in $A $B; do ip -n "$n" link set lo up; ip -n "$n" link set veth0 up; done

# the ClientHello, printed by request_tls() itself
cat >"$T/hello.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "request.h"
int main(int argc, char **argv)
{
	uint8_t buf[REQUEST_MAX];
	size_t n;

	if (argc > 2)	/* http HOST [CONTACT] */
		n = request_http(buf, sizeof(buf), argv[2], argc > 3 ? argv[3] : NULL);
	else
		n = request_tls(buf, sizeof(buf), argc > 1 ? argv[1] : NULL, 0x5ca1e);

	if (n == 0)
		return 1;
	fwrite(buf, 1, n, stdout);
	return 0;
}
EOF
cc -std=c11 -D_DEFAULT_SOURCE -Iprober/engine -Iprober/lib -o "$T/hello" "$T/hello.c" prober/engine/request.c \
    prober/lib/siphash.c prober/lib/addr.c || die "cannot build the hello dumper"
"$T/hello" srv.lab >"$T/hello-sni" && "$T/hello" >"$T/hello-nosni" &&
"$T/hello" http 198.18.200.2 https://example.net/scaleprobe >"$T/get" || die "no hello"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=srv.lab -keyout "$T/ec.key" -out "$T/ec.pem" >/dev/null 2>&1 &&
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=srv.lab \
    -keyout "$T/rsa.key" -out "$T/rsa.pem" >/dev/null 2>&1 || die "no certificates"

# case NAME PORT HELLO WANT_VERSION S_SERVER_OPTIONS...
run_case() {
	name=$1 port=$2 hello=$3 want=$4
	shift 4
	ip netns exec "$B" timeout 20 openssl s_server -quiet -naccept 1 \
	    -accept "198.18.200.2:$port" "$@" >"$T/srv-$name.log" 2>&1 &
	pids="$pids $!"
	out=$(ip netns exec "$A" timeout 10 "$PY" - "$port" "$hello" "$want" <<'EOF'
import socket, struct, sys, time
port, hello, want = int(sys.argv[1]), open(sys.argv[2], 'rb').read(), sys.argv[3]
for _ in range(50):
    try:
        s = socket.create_connection(('198.18.200.2', port), timeout=2)
        break
    except OSError:
        time.sleep(0.1)
else:
    print('FAIL no server'); sys.exit(0)
s.sendall(hello)
s.settimeout(1.0)
data = b''
try:
    while len(data) < 1 << 20:
        b = s.recv(65536)
        if not b:
            break
        data += b
except socket.timeout:
    pass
recs, o = [], 0
while o + 5 <= len(data):
    t, v, n = data[o], struct.unpack('>H', data[o+1:o+3])[0], struct.unpack('>H', data[o+3:o+5])[0]
    recs.append((t, v, data[o+5:o+5+n]))
    o += 5 + n
if not recs or recs[0][0] != 22 or recs[0][2][:1] != b'\x02':
    print('FAIL no ServerHello; answer %r' % data[:64]); sys.exit(0)
sh = recs[0][2]
# ServerHello: type, len(3), version(2), random(32), sid, suite(2), comp(1), exts
p = 4 + 2 + 32
p += 1 + sh[p]
suite = struct.unpack('>H', sh[p:p+2])[0]
p += 3
ver = struct.unpack('>H', sh[4:6])[0]
if p + 2 <= len(sh):
    end = p + 2 + struct.unpack('>H', sh[p:p+2])[0]
    p += 2
    while p + 4 <= end:
        et, el = struct.unpack('>HH', sh[p:p+4])
        if et == 0x2b:
            ver = struct.unpack('>H', sh[p+4:p+6])[0]
        p += 4 + el
kinds = ','.join('%d:%d' % (t, len(b)) for t, v, b in recs)
vname = {0x0304: '1.3', 0x0303: '1.2'}.get(ver, hex(ver))
ok = vname == want and len(recs) >= 2 and o == len(data)
print('%s TLS %s suite 0x%04x, first flight %d bytes in %d records [%s]' %
      ('PASS' if ok else 'FAIL', vname, suite, len(data), len(recs), kinds))
EOF
)
	case "$out" in
	PASS*) pass=$((pass + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
	printf '%s: %s\n' "$name" "${out:-FAIL no output}"
}

run_case tls13-ec-sni    4431 "$T/hello-sni"   1.3 -cert "$T/ec.pem" -key "$T/ec.key"
run_case tls13-ec-nosni  4432 "$T/hello-nosni" 1.3 -cert "$T/ec.pem" -key "$T/ec.key"
run_case tls13-rsa-sni   4433 "$T/hello-sni"   1.3 -cert "$T/rsa.pem" -key "$T/rsa.key"
run_case tls12-rsa-sni   4434 "$T/hello-sni"   1.2 -cert "$T/rsa.pem" -key "$T/rsa.key" -tls1_2
run_case tls12-ec-sni    4435 "$T/hello-sni"   1.2 -cert "$T/ec.pem" -key "$T/ec.key" -tls1_2

# the GET: a 100,000-byte page, the server closes (Connection: close),
# and its log names scaleprobe and the contact
mkdir -p "$T/www" && head -c 100000 /dev/zero >"$T/www/index.html"
ip netns exec "$B" timeout 20 "$PY" -m http.server --bind 198.18.200.2 \
    --directory "$T/www" 8080 >"$T/httpd.log" 2>&1 &
pids="$pids $!"
out=$(ip netns exec "$A" timeout 10 "$PY" - "$T/get" <<'EOF'
import socket, sys, time
req = open(sys.argv[1], 'rb').read()
for _ in range(50):
    try:
        s = socket.create_connection(('198.18.200.2', 8080), timeout=2)
        break
    except OSError:
        time.sleep(0.1)
else:
    print('FAIL no server'); sys.exit(0)
s.sendall(req)
data = b''
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
head = data.split(b'\r\n', 1)[0].decode('latin-1')
ok = head.endswith(' 200 OK') and len(data) > 100000
print('%s %s, %d bytes, then the server closed' % ('PASS' if ok else 'FAIL', head, len(data)))
EOF
)
case "$out" in
PASS*) pass=$((pass + 1)) ;;
*) fail=$((fail + 1)) ;;
esac
printf 'http-get: %s\n' "${out:-FAIL no output}"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
