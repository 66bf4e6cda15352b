#!/usr/bin/env python3
"""rstcount.py -- reads `tcpdump -nn -S` lines of the prober's packets on
stdin and prints "syns=N flows=N answer_rsts=N max_per_flow=N rsts=N": the
SYNs, their flows (4-tuple and ISN), the RSTs at a flow's ISN + 1 on its
4-tuple (what answers a SYN-ACK), the most such RSTs one flow drew, and
every RST.  For tests/e2e/replay-e2e."""
import re
import sys

PKT = re.compile(r' IP6? (\S+) > (\S+): Flags \[([A-Z.]+)\], seq (\d+)')


def main():
    flows = set()
    syns = rsts = 0
    answers = {}
    for line in sys.stdin:
        m = PKT.search(line)
        if not m:
            continue
        src, dst, flags, seq = m.group(1), m.group(2).rstrip(':'), m.group(3), int(m.group(4))
        if 'S' in flags and '.' not in flags:
            syns += 1
            flows.add((src, dst, seq))
        elif 'R' in flags:
            rsts += 1
            key = (src, dst, (seq - 1) % (1 << 32))
            if key in flows:
                answers[key] = answers.get(key, 0) + 1
    print('syns=%d flows=%d answer_rsts=%d max_per_flow=%d rsts=%d' % (
        syns, len(flows), sum(answers.values()), max(answers.values(), default=0), rsts))


if __name__ == '__main__':
    main()
