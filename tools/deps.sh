#!/bin/sh
# Install, with apt-get, every Debian package that building and testing
# scaleprobe needs and that is missing.  Quick when all is there: one
# dpkg-query, no network.  One 'apt-get update' first when something is missing.
set -eu

PKGS="
build-essential
pkg-config
clang
llvm
libclang-rt-14-dev
libnet1-dev
libpcap-dev
libevent-dev
libsqlite3-dev
libpq-dev
postgresql
libcmocka-dev
libnetfilter-queue-dev
libmnl-dev
libnftables-dev
iproute2
iptables
nftables
tcpdump
python3
python3-scapy
openssl
curl
jq
procps
psmisc
systemd
mandoc
tshark
python3-jsonschema
chromium
python3-pil
bash-completion
valgrind
"

# make bench: the tools it compares with
if [ "${1:-}" = bench ]; then
	PKGS="zmap masscan time"
fi
# make deb: what dpkg-buildpackage needs beside the build above, and lintian
if [ "${1:-}" = deb ]; then
	PKGS="$PKGS dpkg-dev debhelper fakeroot lintian"
fi
# make systemd-check: a bookworm tree booted under its own systemd;
# the dashboard's test: Debian's prometheus
if [ "${1:-}" = systemd-check ]; then
	PKGS="$PKGS dpkg-dev debhelper fakeroot lintian debootstrap systemd-container prometheus"
fi

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# tshark's package asks whether non-root users may capture: no (the tests
# only read files with it), and never interactively
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
