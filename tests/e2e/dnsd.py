#!/usr/bin/env python3
"""dnsd.py ADDR READY -- a tiny DNS server for the lab, on ADDR port 53 (UDP).

Names hN.bulk.lab (N = 0..65535) have one A record, 198.19.(N/256).(N%256),
and no AAAA (an empty answer); anything else is NXDOMAIN.  Every answer
is held back 50 ms, as a distant resolver would, but many are pending at
once: a client that asks one name after the other needs 50 ms per name.
Writes the count of queries answered to stderr at exit (after 120 s, or at
SIGTERM); touches READY when listening.
"""
import asyncio
import re
import signal
import socket
import struct
import sys

NAME = re.compile(rb"^h(\d+)\.bulk\.lab$", re.I)
DELAY = 0.05


def parse(q):
    if len(q) < 12:
        return None
    qid, flags, qd = struct.unpack(">HHH", q[:6])
    if qd != 1 or flags & 0x8000:
        return None
    off, labels = 12, []
    while off < len(q) and q[off] != 0:
        n = q[off]
        if n > 63 or off + 1 + n > len(q):
            return None
        labels.append(q[off + 1:off + 1 + n])
        off += 1 + n
    if off + 5 > len(q):
        return None
    qtype, qclass = struct.unpack(">HH", q[off + 1:off + 5])
    return qid, flags, b".".join(labels), q[12:off + 5], qtype


def answer(q):
    p = parse(q)
    if p is None:
        return None
    qid, flags, name, question, qtype = p
    m = NAME.match(name)
    n = int(m.group(1)) if m else -1
    rcode = 0 if 0 <= n < 65536 else 3
    rr = b""
    if rcode == 0 and qtype == 1:
        rr = (b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) +
              bytes([198, 19, n >> 8, n & 0xFF]))
    hdr = struct.pack(">HHHHHH", qid, 0x8180 | (flags & 0x0100) | rcode, 1,
                      1 if rr else 0, 0, 0)
    return hdr + question + rr


class Server(asyncio.DatagramProtocol):
    def __init__(self):
        self.count = 0

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        r = answer(data)
        if r is not None:
            self.count += 1
            asyncio.get_running_loop().call_later(DELAY, self.transport.sendto, r, addr)


async def main():
    loop = asyncio.get_running_loop()
    # a background job's SIGINT is ignored: SIGTERM ends it, count said
    loop.add_signal_handler(signal.SIGTERM, asyncio.current_task().cancel)
    srv = Server()
    transport, _ = await loop.create_datagram_endpoint(
        lambda: srv, local_addr=(sys.argv[1], 53), family=socket.AF_INET)
    # a burst of queries must not overflow the default buffer
    transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    open(sys.argv[2], "w").close()
    try:
        await asyncio.sleep(120)
    finally:
        print(srv.count, file=sys.stderr, flush=True)
        transport.close()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
