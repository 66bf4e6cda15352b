# tests/unit/: cmocka programs, each linked with PURE_SRCS (and NAME_SRCS).
UNIT_TESTS +=
