# prober/engine: probes in flight -- the stages (handshake, window test,
# trace), pacing, cookies, the window test's machine and requests -- handed
# time and packets (prober/run drives it on an event loop).
PURE_SRCS += prober/engine/cookie.c
PURE_SRCS += prober/engine/portplan.c
PURE_SRCS += prober/engine/ratelimit.c
PURE_SRCS += prober/engine/engine.c
PURE_SRCS += prober/engine/engine_match.c
PURE_SRCS += prober/engine/engine_out.c
PURE_SRCS += prober/engine/engine_slot.c
PURE_SRCS += prober/engine/rst_owed.c
PURE_SRCS += prober/engine/stage_handshake.c
PURE_SRCS += prober/engine/stage_window.c
PURE_SRCS += prober/engine/stage_trace.c
PURE_SRCS += prober/engine/trace.c
PURE_SRCS += prober/engine/hop_pace.c
PURE_SRCS += prober/engine/router_pace.c
PURE_SRCS += prober/engine/window.c
PURE_SRCS += prober/engine/window_act.c
PURE_SRCS += prober/engine/window_round.c
PURE_SRCS += prober/engine/window_result.c
PURE_SRCS += prober/engine/window_judge.c
PURE_SRCS += prober/engine/window_ranges.c
PURE_SRCS += prober/engine/request.c
