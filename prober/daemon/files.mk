# prober/daemon: scaleprobed -- the scheduler of target groups (pure, tested
# on an injected clock) and the alerts on a path's change of state.
PURE_SRCS += prober/daemon/schedule.c
PURE_SRCS += prober/daemon/alert.c
# the service manager's notifications (sd_notify's protocol, no libsystemd)
DAEMON_SRCS += prober/daemon/notify.c
PURE_SRCS += prober/daemon/metrics.c
# units waiting for room in the runner, and the descriptors that room costs
PURE_SRCS += prober/daemon/startq.c
PURE_SRCS += prober/daemon/fdbudget.c
DAEMON_SRCS += prober/daemon/fdcheck.c
# the daemon itself: its life, cycles, alerts, privileges, control socket
DAEMON_SRCS += prober/daemon/scaleprobed.c
DAEMON_SRCS += prober/daemon/cycle.c
DAEMON_SRCS += prober/daemon/alerting.c
DAEMON_SRCS += prober/daemon/privs.c
DAEMON_SRCS += prober/daemon/control.c
PROGRAMS += scaleprobed
MAN_PAGES += prober/daemon/scaleprobed.8
DAEMON_SRCS += prober/daemon/metrics_http.c
