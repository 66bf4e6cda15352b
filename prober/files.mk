# prober/: the programs and what they share.  One source per line.

# Pure: bytes and structs in, structs out; no sockets, clocks or files.
PURE_SRCS += prober/addr.c

# The I/O edges (wire, capture, loop owners).
PROBER_SRCS +=

CLI_SRCS +=

DAEMON_SRCS +=
