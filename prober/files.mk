# prober/: the programs and what they share.  One source per line.

# Pure: bytes and structs in, structs out; no sockets, clocks or files.
PURE_SRCS += prober/addr.c
PURE_SRCS += prober/log.c
PURE_SRCS += prober/siphash.c
PURE_SRCS += prober/cookie.c
PURE_SRCS += prober/ratelimit.c
PURE_SRCS += prober/targets.c
PURE_SRCS += prober/blocklist.c
PURE_SRCS += prober/json.c
PURE_SRCS += prober/wire_csum.c
PURE_SRCS += prober/wire_ip.c
PURE_SRCS += prober/wire_tcp.c
PURE_SRCS += prober/wire_tcpopt.c
PURE_SRCS += prober/wire_icmp.c
PURE_SRCS += prober/wire_packet.c

# The I/O edges (wire, capture, loop owners).
PROBER_SRCS +=
PROBER_SRCS += prober/targets_file.c

CLI_SRCS +=

DAEMON_SRCS +=
