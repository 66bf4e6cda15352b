#!/usr/bin/env python3
"""fake_fuzzer.py -- a stand-in for a libFuzzer harness in fuzz-long's
self-test: the command line, output and files of libFuzzer, spinning on the
CPU only where its mode does.  FAKE_MODE says what its fuzzing does:
  grow   a new input and more features every 0.3 s
  flat   its corpus loaded, spins on the CPU, nothing new ever (a plateau)
  crash  one new input, then a crash- input and exit 77
  burn   the same as flat (a budget in CPU seconds)
-merge=1 FRESH DIR... copies every input of the DIRs into FRESH, one per
content, and fails as libFuzzer does on a -merge_control_file left by a
merge of files gone since; -runs=0 DIR prints the corpus' "INITED cov: N ft: M" (N, M: its
inputs and their bytes).  SIGINT: the final stats, exit 72.
"""
import hashlib
import os
import signal
import sys
import time

args = [a for a in sys.argv[1:] if not a.startswith("-")]
flags = dict(a[1:].split("=", 1) for a in sys.argv[1:] if a.startswith("-") and "=" in a)


def inputs(dirs):
    for d in dirs:
        for f in sorted(os.listdir(d)):
            with open(os.path.join(d, f), "rb") as fh:
                yield fh.read()


if flags.get("merge") == "1":
    # as libFuzzer: a control file left there is resumed, the files it
    # names read again (a merge stopped halfway goes on)
    control = flags.get("merge_control_file")
    if control and os.path.exists(control):
        for f in open(control).read().split():
            if not os.path.exists(f):
                print("No such directory: %s; exiting" % f, flush=True)
                sys.exit(1)
    names = [os.path.join(d, f) for d in args[1:] for f in sorted(os.listdir(d))]
    if control:
        with open(control, "w") as fh:
            fh.write("\n".join(names) + "\n")
    for b in inputs(args[1:]):
        with open(os.path.join(args[0], hashlib.sha1(b).hexdigest()), "wb") as fh:
            fh.write(b)
    sys.exit(0)
corpus = list(inputs(args))
ft = len(corpus) + sum(len(b) for b in corpus)
print("#%d\tINITED cov: %d ft: %d corp: %d/%db" % (len(corpus), len(corpus), ft, len(corpus),
                                                   ft), flush=True)
if flags.get("runs") == "0":
    sys.exit(0)
execs = len(corpus)


def stats(signum, frame):
    print("==1== libFuzzer: run interrupted; exiting\nstat::number_of_executed_units: %d"
          % execs, flush=True)
    sys.exit(72)


signal.signal(signal.SIGINT, stats)
mode = os.environ.get("FAKE_MODE", "flat")
end = time.time() + int(flags.get("max_total_time", "60"))
n = 0
while time.time() < end:
    if mode in ("burn", "flat"):
        t = time.time() + 0.3
        while time.time() < t:
            execs += 1
    else:
        time.sleep(0.3)
        execs += 100
    if mode in ("grow", "crash") and n < 30:
        n += 1
        ft += 1
        b = ("input %d %d" % (os.getpid(), n)).encode()
        with open(os.path.join(args[0], hashlib.sha1(b).hexdigest()), "wb") as fh:
            fh.write(b)
        print("#%d\tNEW    cov: %d ft: %d corp: %d/%db" % (execs, n, ft, n, ft), flush=True)
        if mode == "crash":
            with open(flags["artifact_prefix"] + "crash-" + hashlib.sha1(b"x").hexdigest(),
                      "wb") as fh:
                fh.write(b"boom")
            print("==1== ERROR: deadly signal", flush=True)
            sys.exit(77)
print("Done %d runs\nstat::number_of_executed_units: %d" % (execs, execs), flush=True)
