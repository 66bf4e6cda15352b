#!/usr/bin/python3
# tests/lab/httpd.py -- the lab's HTTP and TLS listener (one per server namespace).
#
#   httpd.py --ready FILE [--http PORT] [--https PORT --cert PEM --key PEM]
#
# GET (any path) answers 200 with a body of BODY_BYTES (8 MiB) so the window
# test and the stall test always have more to send than any window allows;
# GET /size/N answers exactly N bytes (N <= 64 MiB), for tests that want a short
# answer.  HTTP/1.0, one request per connection.  Listens on [::] with
# IPV6_V6ONLY off, so every IPv4 and IPv6 address of the namespace (AnyIP ranges
# included) is served.  TLS is wrapped per connection in the handler thread, so
# a client that stalls its handshake holds up only itself.  READY is created
# once every socket is bound.  Exits 0 on SIGTERM.
import argparse
import http.server
import signal
import socket
import ssl
import sys
import threading

BODY_BYTES = 8 << 20
SIZE_MAX = 64 << 20
CHUNK = bytes(range(32, 127)) * 690         # 65,550 printable bytes
CONN_TIMEOUT = 30                           # a stalled client frees its thread


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "scaleprobe-lab/1"
    timeout = CONN_TIMEOUT
    # Headers leave with the first body bytes and Nagle is off, so the first
    # flight fills exactly the window the client offers (W << scale): a
    # small header segment in flight would otherwise hold back the tail
    # (Minshall's rule) and the flight would stop short of the window.
    disable_nagle_algorithm = True

    def do_GET(self):
        self._answer(True)

    def do_HEAD(self):
        self._answer(False)

    def _answer(self, body):
        n = BODY_BYTES
        if self.path.startswith("/size/"):
            try:
                n = int(self.path[6:])
            except ValueError:
                n = -1
            if n < 0 or n > SIZE_MAX:
                self.send_error(400, "size out of range")
                return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(n))
        self.send_header("Connection", "close")
        self._headers_buffer.append(b"\r\n")
        out = b"".join(self._headers_buffer)
        self._headers_buffer = []
        if not body:
            self.wfile.write(out)
            return
        k = min(n, len(CHUNK))
        self.wfile.write(out + CHUNK[:k])
        n -= k
        view = memoryview(CHUNK)
        while n > 0:
            k = min(n, len(CHUNK))
            self.wfile.write(view[:k])
            n -= k

    def log_message(self, fmt, *args):     # quiet: probes are not news
        pass


class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True
    request_queue_size = 4096               # capped by net.core.somaxconn
    tls = None

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(self.server_address)
        self.server_name = "lab"
        self.server_port = self.server_address[1]

    def finish_request(self, request, client_address):
        if self.tls is not None:
            request.settimeout(CONN_TIMEOUT)
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (OSError, ssl.SSLError):
                return                      # probes that never finish a handshake
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        pass                                # resets and timeouts are normal here


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ready", required=True)
    ap.add_argument("--http", type=int, default=80)
    ap.add_argument("--https", type=int, default=0)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    a = ap.parse_args()

    servers = [Server(("::", a.http), Handler)]
    if a.https:
        tls = Server(("::", a.https), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
        tls.tls = ctx
        servers.append(tls)
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with open(a.ready, "w") as f:
        f.write("ready\n")
    while not stop.wait(3600):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
