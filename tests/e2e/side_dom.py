#!/usr/bin/env python3
"""tests/e2e/side_dom.py -- the merged view of an HTML report as a browser
built it: reads the DOM headless Chromium dumped (--dump-dom) and prints,
as one JSON object, the path x vantage table (class "side": its rows, each
a list of its cells' text, whitespace folded) and the split paths' sentences
(p class "split"), for the e2e suites to check with jq.

usage: side_dom.py DOM-FILE
"""
import json
import sys
from html.parser import HTMLParser


class Side(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.split, self.cell = [], [], None
        self.in_side = self.in_split = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("class") == "side":
            self.in_side = True
        elif tag == "tr" and self.in_side:
            self.rows.append([])
        elif tag in ("td", "th") and self.in_side:
            self.cell = ""
        elif tag == "p" and a.get("class") == "split":
            self.in_split = True
            self.split.append("")

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_side = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "p":
            self.in_split = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.in_split:
            self.split[-1] += data


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: side_dom.py DOM-FILE")
    p = Side()
    with open(sys.argv[1], encoding="utf-8") as f:
        p.feed(f.read())
    print(json.dumps({"rows": p.rows, "split": [" ".join(s.split()) for s in p.split]}))


main()
