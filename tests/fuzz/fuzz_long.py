#!/usr/bin/env python3
"""fuzz_long.py -- make fuzz-long: long libFuzzer runs that add up across
sessions.  Each harness short of its goal (fuzz_ledger.py: 1 CPU-hour in
all, or 30 minutes without new coverage) runs for a CPU budget, and then,
whatever stopped it:

  - its inputs are merged and minimized (libFuzzer -merge=1) with the
    committed corpus into a fresh directory that replaces
    tests/fuzz/corpus/NAME, so a session that stops loses nothing;
  - every input that failed (crash-, leak-, timeout-, oom-) is kept in
    tests/fuzz/crashes/NAME/, which make check's short run replays;
  - one line goes to tests/fuzz/ledger.tsv (fuzz_ledger.py says what).

Least-run harnesses first.  Everything runs at nice 19 in the idle
scheduling class (SCHED_IDLE): the machine is shared, and a fuzzer must take
only the CPU nothing else wants, so that lab tests beside it keep their
timing.  A run stops at its budget, at a plateau (the ledger's stale time
carried over: coverage not grown for FUZZ_PLATEAU seconds of fuzzing, over
runs -- CPU seconds per job, so that a starved fuzzer does not reach its
plateau by waiting), at a
failure, at FUZZ_UNTIL, or on SIGINT/SIGTERM -- each followed by the merge
and the ledger line; only the harness being run is merged, the ones not
started stay as they were.  Inputs a killed run left in BUILD/fuzz-long/
NAME/work are merged by the next.

usage: fuzz_long.py BUILD NAME[:MAXLEN]...  (MAXLEN: libFuzzer's -max_len,
       by default 4096 or the largest committed input, so none is cut)
env:   FUZZ_SECONDS  CPU seconds per harness this run (600)
       FUZZ_JOBS     fuzzing processes per harness, side by side (1)
       FUZZ_PLATEAU  seconds without new coverage that end it (1800)
       FUZZ_GOAL     CPU seconds in all that end it (3600)
       FUZZ_UNTIL    stop then: HH:MM (UTC, the next such time) or seconds since the epoch
       FUZZ_PRIORITY idle (nice 19, SCHED_IDLE: the default) or normal (the self-test)
       FUZZ_ALL=1    run also the harnesses at their goal or plateau
       FUZZ_DIR      where corpus/, crashes/ and ledger.tsv are (tests/fuzz)
Exit 0; 1 when a harness failed (an input kept) or a merge failed.
tests/fuzz/fuzz-long-selftest proves each of these stops on a stand-in.
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_ledger  # noqa: E402

HERE = fuzz_ledger.HERE
FAILED_PREFIXES = ("crash-", "leak-", "timeout-", "oom-")
FT = re.compile(r"^#(\d+)\s+(\S+)\s+cov: (\d+) ft: (\d+)")
TICK = os.sysconf("SC_CLK_TCK")
INTERRUPTED = 72              # libFuzzer's exit on SIGINT (-interrupted_exitcode)
stopping = []                 # set by a signal: finish the harness, start no other


def on_signal(signum, frame):
    stopping.append(signum)


def env_int(name, dflt):
    v = os.environ.get(name, "")
    try:
        return int(v) if v else dflt
    except ValueError:
        sys.exit("fuzz-long: %s=%r: expected a number" % (name, v))


def until_epoch():
    v = os.environ.get("FUZZ_UNTIL", "")
    if not v:
        return None
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", v)
    if m:
        hh, mm = int(m.group(1)), int(m.group(2))
        if hh > 23 or mm > 59:
            sys.exit("fuzz-long: FUZZ_UNTIL=%r: no such time of day" % v)
        now = time.time()
        at = now - now % 86400 + hh * 3600 + mm * 60
        # a time already past today means tomorrow's: 01:00 said at 23:00
        return at if at > now else at + 86400
    if v.isdigit():
        return int(v)
    sys.exit("fuzz-long: FUZZ_UNTIL=%r: HH:MM (UTC) or seconds since the epoch" % v)


def proc_cpu(pid):
    """CPU seconds of a running process, from /proc (None when gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return (int(v[11]) + int(v[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def nice19():
    if os.environ.get("FUZZ_PRIORITY", "idle") == "normal":
        return
    os.nice(19 - os.nice(0))
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        pass                    # nice 19 alone where the class is refused


def files_in(d):
    return sorted(f for f in os.listdir(d) if os.path.isfile(os.path.join(d, f))) \
        if os.path.isdir(d) else []


def copy_new(src, dst):
    os.makedirs(dst, exist_ok=True)
    have = set(os.listdir(dst))
    for f in files_in(src):
        if f not in have:
            shutil.copy2(os.path.join(src, f), os.path.join(dst, f))


class LogTail:
    """The highest features count a job's log has printed since its corpus
    was loaded (INITED), and its last execution count."""
    def __init__(self, path):
        self.path, self.pos, self.ft, self.execs, self.final = path, 0, 0, 0, None
        self.inited, self.inited_ft = False, 0

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read()
        except OSError:
            return
        cut = data.rfind(b"\n") + 1
        self.pos += cut
        for line in data[:cut].decode("utf-8", "replace").splitlines():
            m = FT.match(line)
            if m and m.group(2) == "INITED":
                self.inited, self.inited_ft = True, int(m.group(4))
            if m and self.inited:
                self.execs = max(self.execs, int(m.group(1)))
                self.ft = max(self.ft, int(m.group(4)))
            elif line.startswith("stat::number_of_executed_units:"):
                self.final = int(line.split(":")[-1])


def replay_stats(binary, corpus, maxlen):
    """cov and ft of a corpus, replayed once."""
    p = subprocess.run([binary, "-runs=0", "-max_len=%d" % maxlen, "-rss_limit_mb=4096",
                        "-timeout=60", corpus], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, preexec_fn=nice19, text=True,
                       errors="replace")
    cov = ft = 0
    for line in p.stdout.splitlines():
        m = FT.match(line)
        if m:
            cov, ft = int(m.group(3)), int(m.group(4))
    return cov, ft


def merge(name, binary, maxlen, corpus, work, base):
    """The committed corpus and work merged, minimized, into a fresh
    directory that then replaces the committed one; True when done."""
    fresh = os.path.join(base, "merged")
    shutil.rmtree(fresh, ignore_errors=True)
    os.makedirs(fresh)
    log = os.path.join(base, "merge.log")
    control = os.path.join(base, "merge.control")
    # libFuzzer resumes from a control file it finds: one of an earlier
    # merge names files gone since
    if os.path.exists(control):
        os.unlink(control)
    srcs = [d for d in (corpus, work) if os.path.isdir(d)]
    with open(log, "w") as f:
        rc = subprocess.run([binary, "-merge=1", "-max_len=%d" % maxlen, "-timeout=60",
                             "-rss_limit_mb=4096", "-merge_control_file=%s" % control, fresh] +
                            srcs,
                            stdout=f, stderr=subprocess.STDOUT, preexec_fn=nice19).returncode
    if rc != 0 or not files_in(fresh):
        print("fuzz-long: %s: the merge failed (exit %d, %s); the committed corpus is "
              "kept, the work in %s too" % (name, rc, log, work), flush=True)
        return False
    old = corpus.rstrip("/") + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.isdir(corpus):
        os.rename(corpus, old)
    shutil.move(fresh, corpus)
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    return True


def run_one(build, name, maxlen, budget, jobs, plateau, carried, until):
    binary = os.path.join(build, "fuzz", "tests", "fuzz", name)
    corpus = os.path.join(HERE, "corpus", name)
    crashes = os.path.join(HERE, "crashes", name)
    base = os.path.join(build, "fuzz-long", name)
    work = os.path.join(base, "work")
    art = os.path.join(base, "artifacts")
    if not os.access(binary, os.X_OK):
        print("fuzz-long: %s: %s not built (make fuzzers)" % (name, binary), flush=True)
        return None
    shutil.rmtree(art, ignore_errors=True)
    os.makedirs(art)
    copy_new(corpus, work)      # a killed run's inputs stay in work, merged now
    seeds = [work] + ([crashes] if files_in(crashes) else [])
    cpu0 = children_cpu()
    procs, tails = [], []
    for k in range(jobs):
        log = os.path.join(base, "job-%d.log" % k)
        cmd = [binary, "-max_len=%d" % maxlen, "-timeout=25", "-rss_limit_mb=2048",
               "-print_final_stats=1", "-artifact_prefix=%s/" % art,
               # a wall-clock bound: the CPU budget is watched below
               "-max_total_time=%d" % (budget * 4 // jobs + 60)] + seeds
        with open(log, "w") as f:
            procs.append(subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                          preexec_fn=nice19))
        tails.append(LogTail(log))
    grown = 0.0                 # the jobs' CPU seconds when the features last grew
    best = 0
    seen = {}                   # pid: last CPU seconds read
    stop = None
    while True:
        time.sleep(2)
        for t in tails:
            t.poll()
        now = time.time()
        for p in procs:
            c = proc_cpu(p.pid) if p.poll() is None else None
            if c is not None:
                seen[p.pid] = c
        spent = sum(seen.values())
        if all(t.inited for t in tails):
            # the corpus replayed is where growth is counted from
            best = best or max(t.inited_ft for t in tails)
            ft = max(t.ft for t in tails)
            if ft > best:
                grown, carried, best = spent, 0, ft
        stale = carried + (spent - grown) / jobs
        running = [p for p in procs if p.poll() is None]
        if stopping:
            stop = "interrupted"    # a ^C reaches the jobs too: not their failure
        elif any(p.returncode not in (None, 0, INTERRUPTED) for p in procs):
            stop = "crash"
        elif not running:
            stop = "budget"
        elif sum(seen.values()) >= budget:
            stop = "budget"
        elif stale >= plateau:
            stop = "plateau"
        elif until is not None and now >= until:
            stop = "deadline"
        if stop is not None:
            break
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)    # libFuzzer prints its stats, exits
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    cpu = int(round(children_cpu() - cpu0))
    for t in tails:
        t.poll()
    execs = sum(t.final if t.final is not None else t.execs for t in tails)
    stale = int(carried + (sum(seen.values()) - grown) / jobs)
    # every failing input kept, under its libFuzzer name
    failed = [f for f in files_in(art) if f.startswith(FAILED_PREFIXES)]
    new = 0
    if failed:
        os.makedirs(crashes, exist_ok=True)
        for f in failed:
            if not os.path.exists(os.path.join(crashes, f)):
                shutil.copy2(os.path.join(art, f), os.path.join(crashes, f))
                new += 1
            print("fuzz-long: %s: FAILED on an input, kept as tests/fuzz/crashes/%s/%s "
                  "(replay: %s %s)" % (name, name, f, binary, os.path.join(crashes, f)),
                  flush=True)
    if stop == "crash" and not failed:
        print("fuzz-long: %s: a job exited %s without an input (see %s/job-*.log)" %
              (name, [p.returncode for p in procs], base), flush=True)
    merged = merge(name, binary, maxlen, corpus, work, base)
    cov, ft = replay_stats(binary, corpus, maxlen)
    fs = files_in(corpus)
    row = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "harness": name,
           "cpu_s": cpu, "execs": execs, "cov": cov, "ft": ft, "files": len(fs),
           "bytes": sum(os.path.getsize(os.path.join(corpus, f)) for f in fs),
           "crashes": new, "stale_s": stale, "stop": stop, "jobs": jobs}
    fuzz_ledger.append(row)
    print("fuzz-long: %s: %d CPU s, %d execs, stopped (%s); corpus %d files %d bytes, "
          "cov %d ft %d%s" % (name, cpu, execs, stop, row["files"], row["bytes"], cov, ft,
                              "" if merged else " (NOT merged)"), flush=True)
    return stop != "crash" and merged


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: fuzz_long.py BUILD NAME[:MAXLEN]...")
    build, specs = argv[0], argv[1:]
    budget = env_int("FUZZ_SECONDS", 600)
    jobs = max(1, min(env_int("FUZZ_JOBS", 1), os.cpu_count() or 1))
    plateau = env_int("FUZZ_PLATEAU", fuzz_ledger.PLATEAU)
    goal = env_int("FUZZ_GOAL", fuzz_ledger.GOAL)
    until = until_epoch()
    every = os.environ.get("FUZZ_ALL", "") == "1"
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    nice19()
    t = fuzz_ledger.totals(fuzz_ledger.read())
    todo = []
    for spec in specs:
        name, _, ml = spec.partition(":")
        h = t.get(name)
        st = fuzz_ledger.status(h, goal, plateau)
        if not every and st in ("goal", "plateau"):
            print("fuzz-long: %s: skipped, at its %s (FUZZ_ALL=1 runs it)" % (name, st))
            continue
        if not ml:
            d = os.path.join(HERE, "corpus", name)
            ml = max([4096] + [os.path.getsize(os.path.join(d, f)) for f in files_in(d)])
        todo.append((h["cpu_s"] if h else 0, name, int(ml), h["last"]["stale_s"] if h else 0))
    status = 0
    for _, name, maxlen, carried in sorted(todo):
        if stopping or (until is not None and time.time() >= until):
            break
        print("fuzz-long: %s: %d CPU s, %d jobs, %s priority ..." %
              (name, budget, jobs, os.environ.get("FUZZ_PRIORITY", "idle")),
              flush=True)
        if run_one(build, name, maxlen, budget, jobs, plateau, carried, until) is False:
            status = 1
    fuzz_ledger.main(["--goal", str(goal), "--plateau", str(plateau)] +
                     [s.partition(":")[0] for s in specs])
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
