# prober/: the programs and what they share, one folder per layer; each
# folder's fragment names its sources, one per line.  Includes point one way
# (tools/lint.py checks it):
#
#   cli, daemon  ->  run  ->  engine, infer, net  ->  wire  ->  lib
#
# (README.md draws every arrow; tools/lint.py holds the includes to it.)
#
# PURE_SRCS: bytes and structs in, structs out; no sockets, clocks or files
# (linked into the unit tests and fuzzers).  PROBER_SRCS: the I/O edges that
# scaleprobe and scaleprobed share.
include prober/lib/files.mk
include prober/wire/files.mk
include prober/net/files.mk
include prober/engine/files.mk
include prober/run/files.mk
include prober/infer/files.mk
include prober/cli/files.mk
include prober/daemon/files.mk

DAEMON_SRCS +=
