#!/usr/bin/env python3
"""Reads govulncheck's JSON stream and the allow-list; fails on a reachable
finding the allow-list does not name, and on allow-list lines that no longer
match anything (so they get removed)."""
import json
import sys


def stream(path):
    dec = json.JSONDecoder()
    text = open(path, encoding="utf-8").read()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        obj, i = dec.raw_decode(text, i)
        yield obj


def main():
    out, allow_file = sys.argv[1], sys.argv[2]
    allow = {}
    for line in open(allow_file, encoding="utf-8"):
        line = line.strip()
        if line and not line.startswith("#"):
            vid, _, why = line.partition(" ")
            allow[vid] = why.strip()
    osv, called, other = {}, {}, set()
    for msg in stream(out):
        if "osv" in msg:
            osv[msg["osv"]["id"]] = msg["osv"].get("summary", "")
        f = msg.get("finding")
        if not f:
            continue
        trace = f.get("trace") or [{}]
        where = trace[0]
        if where.get("function"):
            called.setdefault(f["osv"], "%s@%s" % (where.get("module", "?"), where.get("version", "?")))
        else:
            other.add(f["osv"])
    bad = 0
    for vid in sorted(called):
        if vid in allow:
            print("allowed   %s %s (%s): %s" % (vid, called[vid], osv.get(vid, ""), allow[vid]))
        else:
            print("VULNERABLE %s %s: %s (fixed version: see https://pkg.go.dev/vuln/%s)" % (vid, called[vid], osv.get(vid, ""), vid))
            bad += 1
    for vid in sorted(other - set(called)):
        print("not reached %s: %s (in a dependency, not called by Kalends)" % (vid, osv.get(vid, "")))
    stale = sorted(set(allow) - set(called))
    for vid in stale:
        print("STALE allow-list line %s: no longer found; remove it" % vid)
    if bad or stale:
        sys.exit(1)
    print("govulncheck: no reachable vulnerability outside the allow-list")


main()
