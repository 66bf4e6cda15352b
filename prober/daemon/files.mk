# prober/daemon: scaleprobed -- the scheduler of target groups (pure, tested
# on an injected clock) and the alerts on a path's change of state.
PURE_SRCS += prober/daemon/schedule.c
PURE_SRCS += prober/daemon/alert_state.c
# the alert command's environment, output cap and timeout steps; the
# paths' alert memory under a random key
PURE_SRCS += prober/daemon/alertrun.c
PURE_SRCS += prober/daemon/tracks.c
# the service manager's notifications (sd_notify's protocol, no libsystemd)
DAEMON_SRCS += prober/daemon/notify.c
PURE_SRCS += prober/daemon/metrics.c
# what may be at a name the daemon changes as root (privs.c)
PURE_SRCS += prober/daemon/statedir.c
# units waiting for room in the runner, and the descriptors that room costs
PURE_SRCS += prober/daemon/startq.c
PURE_SRCS += prober/daemon/fdbudget.c
DAEMON_SRCS += prober/daemon/fdcheck.c
# the daemon itself: its life, cycles, alerts, privileges, control socket
DAEMON_SRCS += prober/daemon/scaleprobed.c
DAEMON_SRCS += prober/daemon/cycle.c
# the wall clock, read by the cycle, the alerts and retention alike
DAEMON_SRCS += prober/daemon/wallclock.c
DAEMON_SRCS += prober/daemon/alert_notify.c
DAEMON_SRCS += prober/daemon/alert_tell.c
DAEMON_SRCS += prober/daemon/alert_restore.c
# the upload to a shared PostgreSQL: its thread, failures and alert
DAEMON_SRCS += prober/daemon/upload_watch.c
# the clock's synchronisation each run records (timesyncd, chronyc)
DAEMON_SRCS += prober/daemon/clockwatch.c
DAEMON_SRCS += prober/daemon/alertcmd.c
DAEMON_SRCS += prober/daemon/alertcmd_child.c
DAEMON_SRCS += prober/daemon/privs.c
DAEMON_SRCS += prober/daemon/control.c
# on-demand requests on the control socket: the request's parse and scope
# and each user's rate (pure), and the requests' probes
PURE_SRCS += prober/daemon/demand_req.c
PURE_SRCS += prober/daemon/demand_rate.c
DAEMON_SRCS += prober/daemon/demand.c
# retention on a schedule of its own, in short steps on the loop
DAEMON_SRCS += prober/daemon/retention.c
PROGRAMS += scaleprobed
MAN_PAGES += prober/daemon/scaleprobed.8
DAEMON_SRCS += prober/daemon/metrics_http.c
# the metrics endpoint's request handling (pure) and the bounded server
# that both the control socket and /metrics go through
PURE_SRCS += prober/daemon/http_req.c
DAEMON_SRCS += prober/daemon/serve.c
