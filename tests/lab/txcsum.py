#!/usr/bin/python3
# tests/lab/txcsum.py -- turn transmit checksum offload off on interfaces of
# the current namespace, as `ethtool -K IF tx off` would (no ethtool needed).
#
#   txcsum.py IF...
#
# Why: a veth with checksum offload hands packets to the next namespace with
# only the pseudo-header sum in the TCP checksum field and as GSO super-packets
# of up to 64 KB.  The kernels trust them, but a capture sees wrong checksums
# and segments larger than the MTU -- nothing like a wire.  With transmit
# checksumming off, TSO goes too, and the kernel segments and checksums every
# packet in software before it leaves: what the prober captures is what a NIC
# would have received.
import ctypes
import fcntl
import socket
import struct
import sys

SIOCETHTOOL = 0x8946
ETHTOOL_GTXCSUM = 0x16
ETHTOOL_STXCSUM = 0x17


def ethtool_value(sock, ifname, cmd, data=0):
    """ETHTOOL_[GS]* with a struct ethtool_value; returns its data field."""
    val = ctypes.create_string_buffer(struct.pack("II", cmd, data))
    ifr = struct.pack("16sP", ifname.encode(), ctypes.addressof(val))
    ifr += b"\0" * (40 - len(ifr))
    fcntl.ioctl(sock, SIOCETHTOOL, ifr)
    return struct.unpack("II", val.raw[:8])[1]


def main(names):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for name in names:
        ethtool_value(s, name, ETHTOOL_STXCSUM, 0)
        if ethtool_value(s, name, ETHTOOL_GTXCSUM) != 0:
            print("txcsum: %s still offloads checksums" % name, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
