# tests/lab/: the lab's own programs and the self-test that make check runs.
LAB_PROGS +=
LAB_CHECKS +=
LAB_CHECKS += tests/lab/selftest

# mbox: the middlebox emulator (NFQUEUE), run on the lab's routers; MBOX.md.
LAB_PROGS += mbox
mbox_SRCS = \
	tests/lab/mbox.c \
	tests/lab/mbox_mangle.c \
	tests/lab/mbox_rules.c
# every action against the kernel, v4 and v6, PREROUTING and FORWARD (root)
LAB_CHECKS += tests/lab/mbox-smoke.sh
