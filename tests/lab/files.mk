# tests/lab/: the lab's own programs and the self-test that make check runs.
LAB_PROGS +=
LAB_CHECKS +=
LAB_CHECKS += tests/lab/selftest
# cases.tsv's expected columns derived from its configuration columns alone
LAB_CHECKS += tests/lab/cases_truth.py
# the multipath lab (LAB_MULTIPATH=1): its hash spreads 64 flows over every branch,
# keeps each flow on one branch, boxes act on their own branch and hop, a fresh lab
# a fresh seed; the kernel's seeded hash and the nft jhash fallback (root)
LAB_CHECKS += tests/lab/selftest-multipath

# mbox: the middlebox emulator (NFQUEUE), run on the lab's routers; MBOX.md.
LAB_PROGS += mbox
mbox_SRCS = \
	tests/lab/mbox.c \
	tests/lab/mbox_mangle.c \
	tests/lab/mbox_rules.c
# every action against the kernel, v4 and v6, PREROUTING and FORWARD (root)
LAB_CHECKS += tests/lab/mbox-smoke.sh

# wire_smoke: guard, sender, capture and route tried in two namespaces.
LAB_PROGS += wire_smoke
wire_smoke_SRCS = tests/e2e/wire_smoke.c
wire_smoke_SRCS += tests/e2e/wire_smoke_modes.c
wire_smoke_SRCS += prober/net/send.c
wire_smoke_SRCS += prober/net/send_segment.c
wire_smoke_SRCS += prober/net/send_thread.c
wire_smoke_SRCS += prober/net/send_ring.c
wire_smoke_SRCS += prober/net/capture.c
wire_smoke_SRCS += prober/net/guard.c
wire_smoke_SRCS += prober/net/route.c
wire_smoke_SRCS += prober/lib/addr.c
wire_smoke_SRCS += prober/wire/wire_csum.c
wire_smoke_SRCS += prober/wire/wire_ip.c
wire_smoke_SRCS += prober/wire/wire_tcp.c
wire_smoke_SRCS += prober/wire/wire_tcpopt.c
wire_smoke_SRCS += prober/wire/wire_icmp.c
wire_smoke_SRCS += prober/wire/wire_packet.c
wire_smoke_LIBS = $(PKG_LIBS)
LAB_CHECKS += tests/e2e/wire-smoke

# the window test's ClientHello against openssl s_server, its GET against http.server
LAB_CHECKS += tests/lab/request-tls-check.sh

# synack_echo: the replay attacker of tests/e2e/replay-e2e (AF_PACKET, sendmmsg).
LAB_PROGS += synack_echo
synack_echo_SRCS = tests/lab/synack_echo.c

# hostile: the hostile host of tests/e2e/hostile-e2e (AF_PACKET, paced, counts per kind).
LAB_PROGS += hostile
hostile_SRCS = tests/lab/hostile.c
