# prober/daemon: scaleprobed -- the scheduler of target groups (pure, tested
# on an injected clock) and the alerts on a path's change of state.
PURE_SRCS += prober/daemon/schedule.c
PURE_SRCS += prober/daemon/alert.c
# the service manager's notifications (sd_notify's protocol, no libsystemd)
DAEMON_SRCS += prober/daemon/notify.c
PURE_SRCS += prober/daemon/metrics.c
