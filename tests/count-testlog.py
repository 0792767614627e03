#!/usr/bin/env python3
"""count-testlog: read meson's testlog.json and print 'PASSED FAILED SKIPPED' (tests/run-all sums
these lines). A skipped test (meson's SKIP, exit 77) is neither passed nor failed. Each failed or
skipped test is named on stderr.
Usage: tests/count-testlog.py BUILD/meson-logs/testlog.json"""
import json
import sys


def count(lines, err=sys.stderr):
    ok = bad = skipped = 0
    for line in lines:
        if not line.strip():
            continue
        r = json.loads(line)
        if r["result"] in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif r["result"] == "SKIP":
            skipped += 1
            print("skipped: %s" % r["name"], file=err)
        else:
            bad += 1
            print("failed: %s (%s)" % (r["name"], r["result"]), file=err)
    return ok, bad, skipped


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: count-testlog.py TESTLOG.json")
    with open(sys.argv[1]) as f:
        print(*count(f))
