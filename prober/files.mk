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
PURE_SRCS += prober/reply.c
PURE_SRCS += prober/engine.c
PURE_SRCS += prober/engine_match.c
PURE_SRCS += prober/engine_out.c
PURE_SRCS += prober/stage_handshake.c
PURE_SRCS += prober/stage_window.c
PURE_SRCS += prober/stage_trace.c
PURE_SRCS += prober/trace.c
PURE_SRCS += prober/window.c
PURE_SRCS += prober/window_judge.c
PURE_SRCS += prober/window_ranges.c
PURE_SRCS += prober/request.c
PURE_SRCS += prober/quote.c
PURE_SRCS += prober/infer.c
PURE_SRCS += prober/infer_hop.c
PURE_SRCS += prober/output.c

# The I/O edges (wire, capture, loop owners).
PROBER_SRCS +=
PROBER_SRCS += prober/targets_file.c
PROBER_SRCS += prober/send.c
PROBER_SRCS += prober/capture.c
PROBER_SRCS += prober/guard.c
PROBER_SRCS += prober/route.c
PROBER_SRCS += prober/paths.c
PROBER_SRCS += prober/probe_run.c
PROBER_SRCS += prober/request_file.c

CLI_SRCS += prober/cli.c
CLI_SRCS += prober/cmd_probe.c

DAEMON_SRCS +=

PROGRAMS += scaleprobe
MAN_PAGES += prober/scaleprobe.1
