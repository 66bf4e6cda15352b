# tests/fuzz/: one libFuzzer harness per parser entry point; seeds in corpus/NAME/.
FUZZERS +=
