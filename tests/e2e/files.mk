# tests/e2e/: end-to-end tests of scaleprobe through the lab (root, namespaces).
LAB_CHECKS += tests/e2e/probe-e2e
LAB_CHECKS += tests/e2e/stall-e2e
LAB_CHECKS += tests/e2e/trace-e2e
LAB_CHECKS += tests/e2e/window-e2e
# every lab target against the golden results taken before the engine's rework
LAB_CHECKS += tests/e2e/golden-e2e
# routers at the kernel's ICMP limits: a daemon cycle over the located lab targets
# places every box where it does with the limits off (verdict, scale, hop, last clean),
# and a first hop at one error a second in all is asked at most 150 % of what it answers (per TTL 172-191 %)
LAB_CHECKS += tests/e2e/limits-e2e
# the engine under load: the mixed run that crashed 9816a23, --rate counted at the server
LAB_CHECKS += tests/e2e/engine-e2e
# safe on any host: the guard's table and signals, privileges, misuse, the request
LAB_CHECKS += tests/e2e/safety-e2e
# every misuse of probe's options and targets: one line, exit 2, nothing sent
LAB_CHECKS += tests/e2e/cli-misuse
# misuse-table.rows: 90 misuses of every subcommand, scaleprobed and scaleprobe.conf
# (FIFOs, a 10 MB line, two daemons, a live socket, a name the lab's DNS denies): one
# line, exit 2, no file of the work directory changed, nothing sent
LAB_CHECKS += tests/e2e/misuse-table
# the store: --db keeps what is printed, the evidence proves it, bad files refused
LAB_CHECKS += tests/e2e/store-e2e
# one store suite passes against SQLite and a throw-away PostgreSQL (Unix socket only),
# retention's table of histories and db check's faults included; db check and prune --db URI
LAB_CHECKS += tests/e2e/store-engines
# scaleprobed uploads to a throw-away PostgreSQL in a namespace of its own (198.18.231.2):
# a cycle arrives in the tables readers read, the server killed and started again loses
# and doubles nothing, batches sent twice are stored once, a local store made again
# (ids from 1) arrives whole, each run's clock goes with it; db/roles.sql: a vantage
# inserts only rows naming itself (runs, path results, scales), a reader only reads
LAB_CHECKS += tests/e2e/upload-e2e
# three vantages upload over TLS, each by a client certificate named as it (a throw-away
# CA; hostssl cert only): each lands its cycle once under its own vantage; a revoked
# certificate and another CA's are refused in one line while probing goes on locally;
# a certificate's login cannot insert rows naming another vantage; one vantage's route
# crossing a box: report --db as the reader (text, JSON, HTML via Chromium's DOM) names
# the path broken from a, fine from b and c; show side by side; export's vantage per
# row; a's show --json and export --pcap on the shared store are its own file's
LAB_CHECKS += tests/e2e/uploadtls-e2e
# the shared PostgreSQL killed mid-cycle under three vantages, down UPLOAD_OUTAGE_S (4 s;
# make stress: 60, STRESS_LONG): each probes on locally, status shows the backlog, then 0;
# every result of every vantage arrives exactly once (key by key in both stores); a start
# without upload drops the cursor in one line and retention removes what it held
LAB_CHECKS += tests/e2e/upload-outage-e2e
STRESS_LONG += tests/e2e/upload-outage-e2e
# scaleprobe db on fixture copies and a store aged 500 days: upgrade's copy (mode,
# old version, rows), a newer store names it, check's lines on broken copies,
# prune --dry-run changes no byte and counts what prune removes, the file shrinks;
# prune --vantage and the daemon's retention leave the other vantages' results
LAB_CHECKS += tests/e2e/db-e2e
# scaleprobe.conf through the binary: broken files and their file:line, print-back,
# flags and keys against the settings table, probe -c, make install
LAB_CHECKS += tests/e2e/config-check
# a group sharded over vantages a, b, c (replicas 2) through scaleprobed -t: the counts
# sum to 600 of 300 targets, each target owned by exactly two; a vantage not among the
# names refused at its line, by scaleprobe config check too; a streamed file of 20,000
# lines shared alike (40,000) and cut as --once walks it
LAB_CHECKS += tests/e2e/shard-e2e
# large target sets: a /16 and the lab's /15 interrupted, first SYN, RSS, order
LAB_CHECKS += tests/e2e/largeset-e2e
# a target file past one chunk streamed: over 64 MiB read, each path once (duplicates
# 19,000 lines apart), a name and a blocked line in a later chunk, RSS; a hostile one
# (NUL, 10 MB line) refused whole, each error as file:line, before anything is sent;
# scaleprobed --once walks a group's long file as one unit, each path stored once
LAB_CHECKS += tests/e2e/streamlist-e2e
# the daemon: --once against the CLI's verdicts, cycles, states, SIGHUP, SIGTERM,
# privileges from root and from ambient capabilities, notify, alerts, kill -9 and restart
LAB_CHECKS += tests/e2e/daemon-e2e
# SIGHUP applies the probing settings to the next batch: rate and scales counted at
# the AnyIP server; a restart-only setting named in the log
LAB_CHECKS += tests/e2e/reload-e2e
# no way to root through a link: a link, hard link, FIFO or device planted at each
# name scaleprobed's root start touches, -o and --pcap links, -o a FIFO no one reads
# refused in one line with nothing outside changed; the control socket 0660 under
# the unit's umask: the group gets `status`
LAB_CHECKS += tests/e2e/privs-e2e
# least privilege from /proc under both starts (root -u, the unit's via setpriv): one
# table each of ids, groups, capability sets, NoNewPrivs, Seccomp and the mode and
# owner of every file and socket the daemon makes, against scaleprobed(8)
LAB_CHECKS += tests/e2e/leastpriv-e2e
# /metrics and the control socket under LimitNOFILE=1024: 300 MiB of headers cut
# off, 5,000 idle connections (RSS, descriptors, CPU, answers within 1 s),
# descriptors run out, control clients that never read
LAB_CHECKS += tests/e2e/listen-e2e
# alert-command that sleeps, prints 1 GiB and lists its descriptors: killed at
# alert-timeout, output capped, 0-2 only, clean environment and signals, reaped
LAB_CHECKS += tests/e2e/alertcmd-e2e
# the daemon's store fails: a full tmpfs mid-cycle (alert in log, /metrics, status,
# alert-command; every result later under its own address, none lost), and a
# corrupt, a foreign, a 0440 and a read-only-mounted store: one line, exit 2
LAB_CHECKS += tests/e2e/storefail-e2e
# kill -9 at random moments of the daemon's cycles, CRASH_KILLS (10) times, each
# followed by a restart: integrity_check ok and nothing seen committed lost or
# changed after each kill; then one result per path, scale and cycle and every
# target's state in every cycle (make stress: STRESS_LONG, 100 kills)
LAB_CHECKS += tests/e2e/crash-e2e
STRESS_LONG += tests/e2e/crash-e2e
# EIO and ENOSPC at a sample of the store's writes and syncs (make stress: every
# one; tests/fault/iofault.c): one line, it writes again by itself, nothing lost or
# doubled; scaleprobed's store failing, then its checkpoints: one line, probing goes
# on, it recovers by itself
LAB_CHECKS += tests/e2e/iofault-e2e
STRESS_LONG += tests/e2e/iofault-e2e
# scaleprobed as installed: systemd-analyze verify and security, sysusers,
# tmpfiles, and every man page lint-clean (no network)
LAB_CHECKS += tests/e2e/service-check
# show and export on a store of lab runs over six days (history-store): CSV bytes, JSON
# and its schema, pcapng through tshark, show's history in UTC and local time, --live
LAB_CHECKS += tests/e2e/history-e2e
# the store read as a member of its group (no write access) with show, export and
# report while scaleprobed runs, killed -9, stopped and after --once: nothing changed,
# a killed daemon's results still only in its WAL read, -wal and -shm kept 0640
LAB_CHECKS += tests/e2e/readers-e2e
# scaleprobe report on a store of lab runs over six days: exact numbers in text,
# JSON and HTML, the SVG parsed, a Chromium screenshot's colours; the completion
LAB_CHECKS += tests/e2e/report-e2e
# one store from three vantages, a box on one's route: report (text, JSON, HTML via
# Chromium's DOM) names the path broken from A, fine from B and C; show side by side;
# export's vantage per row; --vantage filters in all three
LAB_CHECKS += tests/e2e/vantages-e2e
# output that attacks its reader: a store of attack strings (ESC, C1, =HYPERLINK, $(..),
# a blob as hop address) and a device named with ESC: show, export csv, report, status
LAB_CHECKS += tests/e2e/output-e2e
# a stored box behind hops that never answered: show, report (text, HTML, JSON, advice)
# and export (CSV, JSON) name the interval and its silent hops, never "the box at"
LAB_CHECKS += tests/e2e/interval-e2e
# replayed SYN-ACKs: a 10 s scan clean and under 1,000,000 copies of its own SYN-ACKs,
# verdicts, duration and RSS unchanged, the copies counted, one RST per SYN at most
LAB_CHECKS += tests/e2e/replay-e2e
# descriptors: scaleprobed --once over 2,000 targets under --nofile=1024 stores all,
# max-inflight targets at once, peak descriptors within its budget; a limit below the
# budget refused at start with one line, exit 2
LAB_CHECKS += tests/e2e/fds-e2e
# a hostile host floods the prober during a daemon cycle (14 kinds of lies at 20,000
# pkt/s, copies of real SYN-ACKs): every (path, scale) as a clean cycle's, each packet
# counted refused by its reason in /metrics and -v, capture drops as the kernel's
LAB_CHECKS += tests/e2e/hostile-e2e
# on demand: a member of the socket's group has the daemon probe lab paths during a
# cycle (probe --via-daemon, show --live): a root probe's verdicts and hops, stored
# with its uid, marked by show, one --rate at the servers, the cycle complete; the
# outsider, a blocked and an ungrouped target, 17 targets, the 11th request refused
# in one line; an oversized and a garbled request an error, the daemon running
LAB_CHECKS += tests/e2e/demand-e2e
# the Grafana dashboard (dashboards/scaleprobe.json) on real data: Debian's prometheus
# scrapes a live daemon's /metrics in a namespace of the test's own, and every panel's
# query returns data through Prometheus's HTTP API
LAB_CHECKS += tests/e2e/dashboard-e2e
# --flows 8 on the multipath lab (fresh hash seed): the half-rewritten path flagged
# with flows_affected 1..7 of 8 and a reason naming the source port, each flow's
# answers kept, its branch named (hop 3, a's router vs b's) in JSON, reason and show, and
# export's rows carrying flows/flows_affected; the clean path ok on every flow; the
# default adds no field, 4 SYNs; --flows auto flags the half-rewritten path on 1..N-1 of
# N flows (N MDA's 6..16) with its branch in both families, and costs the clean path
# exactly --flows 1's packets; on mp-raise every flow's window test measures its own SYN's
# branch (the second connection on the flow's 4-tuple); the branch stored (v8) and read back
# by show and export, and by report (text, JSON, HTML read back from Chromium's DOM)
LAB_CHECKS += tests/e2e/flows-e2e
# scaleprobed with flows 8 on the multipath lab, the router's hash reseeded after every cycle:
# the store has mp-half's flows, share and branch; one alert for it, not raised again, changed
# or cleared while its share stays above zero; none for mp-clean (make stress only: its
# 40 s of daemon cycles; test_flows_no_flap holds the rule in make check)
STRESS_ONLY += tests/e2e/mpdaemon-e2e
# --source-range: 64 paths over 4 sources through a router: every reply to every source
# matched (SYN-ACKs, the window test, time-exceeded), every packet of a path from one
# source in a capture, all four used; a source not on the interface refused, named;
# scaleprobed's source-range spreads a --once cycle's paths over the range likewise
LAB_CHECKS += tests/e2e/srcrange-e2e
