# prober/run: the runner between the engine and its callers -- the engine
# on the caller's event loop, fed by the captures, sending through the raw
# sockets, batches of paths walked and each result judged (infer).
PROBER_SRCS += prober/run/runner.c
PROBER_SRCS += prober/run/runner_ops.c
