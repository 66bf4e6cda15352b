# tests/lab/: the lab's own programs and the self-test that make check runs.
LAB_PROGS +=
LAB_CHECKS +=
