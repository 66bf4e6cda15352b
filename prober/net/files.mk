# prober/net: the only code that touches sockets: the raw sender (libnet),
# the capture (libpcap), the nftables guard, routes, and targets to paths.
PROBER_SRCS += prober/net/send.c
PROBER_SRCS += prober/net/send_segment.c
PROBER_SRCS += prober/net/send_thread.c
PURE_SRCS += prober/net/send_ring.c
PROBER_SRCS += prober/net/capture.c
PROBER_SRCS += prober/net/guard.c
PROBER_SRCS += prober/net/route.c
PROBER_SRCS += prober/net/paths.c
# --source-range: every address configured on the route's interface
PROBER_SRCS += prober/net/srcrange_check.c
PROBER_SRCS += prober/net/resolve.c
