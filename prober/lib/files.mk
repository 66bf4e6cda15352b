# prober/lib: addresses, logging, JSON, SipHash, the result types, targets
# and the blocklist: what every layer uses and that uses no other layer.
PURE_SRCS += prober/lib/addr.c
# the prober's own source addresses, one picked per path
PURE_SRCS += prober/lib/srcrange.c
PURE_SRCS += prober/lib/log.c
PURE_SRCS += prober/lib/siphash.c
PURE_SRCS += prober/lib/permute.c
PURE_SRCS += prober/lib/target_space.c
PURE_SRCS += prober/lib/targets.c
PURE_SRCS += prober/lib/target_stream.c
PURE_SRCS += prober/lib/addrset.c
PURE_SRCS += prober/lib/blocklist.c
PURE_SRCS += prober/lib/json.c
PURE_SRCS += prober/lib/result_names.c
PURE_SRCS += prober/lib/evidence.c
PROBER_SRCS += prober/lib/targets_file.c
PURE_SRCS += prober/lib/when.c
PURE_SRCS += prober/lib/strbuf.c
PURE_SRCS += prober/lib/textsafe.c
PURE_SRCS += prober/lib/probe_settings.c
PURE_SRCS += prober/lib/silent_hops.c
PURE_SRCS += prober/lib/flow_branch.c
# whether the clock was synchronised, as timesyncd or chronyc tell it
PURE_SRCS += prober/lib/clocksync.c
PURE_SRCS += prober/lib/unixaddr.c
PURE_SRCS += prober/lib/shard.c
