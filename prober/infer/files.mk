# prober/infer: observations to verdicts, hops and side findings (pure).
PURE_SRCS += prober/infer/infer.c
PURE_SRCS += prober/infer/infer_hop.c
