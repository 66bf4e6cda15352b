# prober/wire: pure parsers of what comes off the wire (IPv4, IPv6, TCP and
# its options, ICMP errors and their quotes), checksums, and the comparison
# of a router's quote with the bytes sent.
PURE_SRCS += prober/wire/wire_csum.c
PURE_SRCS += prober/wire/wire_ip.c
PURE_SRCS += prober/wire/wire_tcp.c
PURE_SRCS += prober/wire/wire_tcpopt.c
PURE_SRCS += prober/wire/wire_icmp.c
PURE_SRCS += prober/wire/wire_packet.c
PURE_SRCS += prober/wire/reply.c
PURE_SRCS += prober/wire/quote.c
