# prober/infer: observations to verdicts, hops and side findings (pure).
PURE_SRCS += prober/infer/infer.c
PURE_SRCS += prober/infer/infer_hop.c
# a path's flows (--flows) to one verdict per scale
PURE_SRCS += prober/infer/infer_flows.c
# what to do about a verdict, per side of the path
PURE_SRCS += prober/infer/advice.c
# a judged result as people read it and as NDJSON: the CLI prints it, the
# daemon sends it to whom asked on demand
PURE_SRCS += prober/infer/output.c
