# tests/unit/: cmocka programs, each linked with PURE_SRCS (and NAME_SRCS).
UNIT_TESTS +=

# the lab's middlebox emulator (tests/lab/mbox_*), tested without a kernel
UNIT_TESTS += test_mbox_mangle
test_mbox_mangle_SRCS = \
	tests/lab/mbox_mangle.c \
	tests/lab/mbox_rules.c
UNIT_TESTS += test_mbox_rules
test_mbox_rules_SRCS = \
	tests/lab/mbox_rules.c
