#!/usr/bin/python3
"""tests/bench/syn_bench_matched.py -- the SYN-ACKs scaleprobe reported, from its output.

usage: syn_bench_matched.py JSON-LINES
Prints the number of distinct (address, port, SYN variant) whose reply is a
SYN-ACK in the JSON lines of `scaleprobe probe --json`: what the tool told
its user, counted like zmap's and masscan's output and compared with the
SYN-ACKs the server's counter saw, never the tool's own summary.
"""
import json
import sys


def main(path):
    seen = set()
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            key = (r.get("address"), r.get("port"))
            c = r.get("control") or {}
            if c.get("reply") == "syn-ack":
                seen.add(key + ("control",))
            for s in r.get("scales") or []:
                if s.get("reply") == "syn-ack":
                    seen.add(key + (s.get("scale_sent"),))
    print(len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
