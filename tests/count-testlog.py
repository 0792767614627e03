#!/usr/bin/env python3
"""count-testlog: read meson's testlog.json and print 'PASSED FAILED SKIPPED' (tests/run-all sums
these lines). A skipped test (meson's SKIP, exit 77) is neither passed nor failed. Each failed or
skipped test is named on stderr.

A pytest run is one meson test, but its own skipped tests (skipif) are counted as skipped too: the
run writes JUnit XML (--junitxml=PATH in its command, tests/meson.build), and each testcase it
marks skipped adds one to SKIPPED, named on stderr with its reason. A passed run whose XML is
missing, or older than the run, is counted failed: its skips cannot be known.
Usage: tests/count-testlog.py BUILD/meson-logs/testlog.json
Exit 0, or 2 (one line on stderr) if the log or a JUnit file cannot be read."""
import json
import os
import sys
import xml.etree.ElementTree as ET


class Unreadable(Exception):
    pass


def junit_path(command):
    for arg in command or ():
        if arg.startswith("--junitxml="):
            return arg[len("--junitxml="):]
    return None


def pytest_skips(path):
    """(testcase name, reason) of each skipped testcase in a pytest JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise Unreadable(f"{path}: not readable JUnit XML ({e})")
    out = []
    for case in root.iter("testcase"):
        sk = case.find("skipped")
        if sk is not None:
            name = "::".join(x for x in (case.get("classname"), case.get("name")) if x)
            out.append((name, sk.get("message") or "no reason given"))
    return out


def count(lines, err=sys.stderr):
    ok = bad = skipped = 0
    for line in lines:
        if not line.strip():
            continue
        r = json.loads(line)
        if r["result"] in ("OK", "EXPECTEDFAIL"):
            junit = junit_path(r.get("command"))
            if junit is not None:
                try:
                    fresh = os.stat(junit).st_mtime >= r.get("starttime", 0) - 1
                except FileNotFoundError:
                    fresh = False
                if not fresh:
                    bad += 1
                    print("failed: %s (no JUnit XML from this run: %s)" % (r["name"], junit), file=err)
                    continue
                for case, why in pytest_skips(junit):
                    skipped += 1
                    print("skipped: %s: %s (%s)" % (r["name"], case, why), file=err)
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
    try:
        with open(sys.argv[1]) as f:
            print(*count(f))
    except (OSError, ValueError, KeyError) as e:
        print(f"count-testlog: {sys.argv[1]}: cannot read meson's test log ({e})", file=sys.stderr)
        sys.exit(2)
    except Unreadable as e:
        print(f"count-testlog: {e}", file=sys.stderr)
        sys.exit(2)
