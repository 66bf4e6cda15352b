#!/usr/bin/python3
"""tests/e2e/listen_client.py -- the clients listen-e2e sets on scaleprobed's
/metrics and control socket.  Each mode prints one line of figures.

  get HOST PORT TIMEOUT        GET /metrics: "200 MS BYTES" (exit 0 when 200
                               with a scaleprobe_ family), else "fail MS WHY"
  headers HOST PORT MIB        a request whose headers never end, streamed
                               until MIB MiB are sent or the server stops it:
                               "sent BYTES cut|whole WHY"
  idle HOST PORT N HOLD [K]    N connections opened at once and held HOLD s,
                               the first K of them sending one byte ("G"),
                               the others none: "opened N connected C spoke S"
                               (C: handshakes done within 1 s)
  ctl-get PATH TIMEOUT         the status: "ok MS BYTES", else "fail MS WHY"
  ctl-idle PATH N HOLD         N control clients that never read, held HOLD s
"""
import errno
import os
import resource
import select
import socket
import sys
import time


def out(*a):
    print(*a, flush=True)


def get(host, port, timeout):
    t0 = time.monotonic()
    try:
        s = socket.create_connection((host, int(port)), timeout=float(timeout))
        s.settimeout(max(0.01, float(timeout) - (time.monotonic() - t0)))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: spl\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            left = float(timeout) - (time.monotonic() - t0)
            if left <= 0:
                raise TimeoutError("timed out")
            s.settimeout(left)
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
    except OSError as e:
        out("fail %.1f %s" % ((time.monotonic() - t0) * 1000, e))
        return 1
    ms = (time.monotonic() - t0) * 1000
    status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.") else "?"
    if status != "200" or b"\nscaleprobe_" not in data:
        out("fail %.1f status %s, %d bytes" % (ms, status, len(data)))
        return 1
    out("200 %.1f %d" % (ms, len(data)))
    return 0


def headers(host, port, mib):
    total = int(mib) << 20
    line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
    chunk = line * 64
    sent = 0
    why = "all sent"
    s = socket.create_connection((host, int(port)), timeout=10)
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: spl\r\n")
        while sent < total:
            s.sendall(chunk)
            sent += len(chunk)
    except OSError as e:
        why = e.strerror or str(e)
    s.close()
    out("sent %d %s %s" % (sent, "whole" if sent >= total else "cut", why.replace(" ", "_")))
    return 0


def idle(host, port, n, hold, speak="0"):
    n, speak = int(n), int(speak)
    resource.setrlimit(resource.RLIMIT_NOFILE, (n + 256, n + 256))
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                          socket.SOCK_STREAM)
        s.setblocking(False)
        e = s.connect_ex((host, int(port)))
        if e not in (0, errno.EINPROGRESS, errno.EAGAIN):
            s.close()
            continue
        socks.append(s)
    p = select.poll()
    for s in socks:
        p.register(s, select.POLLOUT)
    done = set()
    end = time.monotonic() + 1
    while len(done) < len(socks) and time.monotonic() < end:
        for fd, ev in p.poll(200):
            if fd not in done:
                done.add(fd)
                p.unregister(fd)
    spoke = 0
    for s in socks[:speak]:
        try:
            spoke += s.send(b"G") == 1
        except OSError:
            pass
    out("opened %d connected %d spoke %d" % (len(socks), len(done), spoke))
    time.sleep(float(hold))
    return 0


def ctl_get(path, timeout):
    t0 = time.monotonic()
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(float(timeout))
        s.connect(path)
        data = b""
        while True:
            left = float(timeout) - (time.monotonic() - t0)
            if left <= 0:
                raise TimeoutError("timed out")
            s.settimeout(left)
            b = s.recv(65536)
            if not b:
                break
            data += b
        s.close()
    except OSError as e:
        out("fail %.1f %s" % ((time.monotonic() - t0) * 1000, e))
        return 1
    ms = (time.monotonic() - t0) * 1000
    if not data.startswith(b"targets ") or b"\ncycles_missed " not in data:
        out("fail %.1f %d bytes, not the status" % (ms, len(data)))
        return 1
    out("ok %.1f %d" % (ms, len(data)))
    return 0


def ctl_idle(path, n, hold):
    n = int(n)
    resource.setrlimit(resource.RLIMIT_NOFILE, (n + 256, n + 256))
    socks = []
    end = time.monotonic() + 3
    while len(socks) < n and time.monotonic() < end:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        if s.connect_ex(path) == 0:	# EAGAIN: the backlog is full, again
            socks.append(s)
        else:
            s.close()
            time.sleep(0.005)
    out("connected %d" % len(socks))
    time.sleep(float(hold))
    return 0


MODES = {"get": get, "headers": headers, "idle": idle, "ctl-get": ctl_get,
         "ctl-idle": ctl_idle}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    sys.exit(MODES[sys.argv[1]](*sys.argv[2:]))
