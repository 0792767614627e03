#!/usr/bin/python3
"""compat-uapi: `diff --compat` on Linux 6.12's whole UAPI, x86_64 against i386.

The all-headers C unit is the one uapi-check builds (./uapi-check --kernel 6.12, run
here into its default build/uapi-check/6.12, warm after the first time); it is compiled with gcc -m64 and
gcc -m32 as uapi-check compiles it (-std=gnu11 -g -fno-eliminate-unused-debug-types), and the two
objects are compared with --compat --headers on the installed headers.

Checks:
- the JSON report validates against abidiff-uapi/schema/diff.schema.json; every finding has a
  cause, and the top-level counts are the findings' own;
- the hand-triaged labels in tests/compat/labels-6.12-i386.tsv (TYPE, the set of causes, the
  reason from the header): the tool's set of causes for each labelled type must be exactly the
  label's; a label "-" is a type identical on both ABIs, which must not be a finding;
- independently of the tool's reading, every offset and size that a cause states, and every
  finding's size on each ABI, is compiled back into _Static_assert (offsetof/sizeof) with
  gcc -m64 and gcc -m32 on the same unit;
- the 64-bit object against itself reports nothing.
It prints the counts (findings by kind, size changes, causes, findings by root cause, following
member-type to the member's own finding) and the time of the diff; none of them is asserted
beyond the labels.

Usage: tests/compat-uapi.py ABIDIFF_UAPI_BINARY OUT_DIR
"""
import collections
import importlib.util
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABELS = os.path.join(ROOT, "tests", "compat", "labels-6.12-i386.tsv")
FLAGS = ["-std=gnu11", "-g", "-fno-eliminate-unused-debug-types", "-w"]
ABIS = {64: ["gcc", "-m64"], 32: ["gcc", "-m32"]}
WIDTH = {"long-width", "pointer-width", "size_t-width", "time-width"}

spec = importlib.util.spec_from_file_location("compat_fixtures", os.path.join(ROOT, "tests", "compat-fixtures.py"))
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)


def read_labels():
    labels = {}
    with open(LABELS) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 3 or not cols[2].strip():
                raise SystemExit("%s:%d: want TYPE<TAB>CAUSES<TAB>REASON" % (LABELS, n))
            causes = set() if cols[1] == "-" else set(cols[1].split(","))
            labels[cols[0]] = causes
    return labels


def roots(by, t, seen=()):
    """The causes of a finding, member-type followed to the member's own finding."""
    out = set()
    for c in t["causes"]:
        if c["cause"] == "member-type" and c.get("type") in by and c["type"] not in seen:
            out |= roots(by, by[c["type"]], seen + (t["name"],))
        else:
            out.add(c["cause"])
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    # uapi-check's own default output directory: a warm run there costs seconds (the pipeline
    # tests use it too, one at a time).
    check = os.path.join(ROOT, "build", "uapi-check", "6.12")
    env = dict(os.environ, ABIDIFF_UAPI_TOOL=tool)
    env.setdefault("ABIDIFF_UAPI_TREES", os.path.join(ROOT, "build", "trees"))
    p = subprocess.run([os.path.join(ROOT, "uapi-check"), "--kernel", "6.12", "--out", check,
                        "--quiet"], env=env, capture_output=True, text=True)
    unit = os.path.join(check, "work", "c-before.c")
    inc = os.path.join(check, "include", "before")
    if p.returncode not in (0, 1) or not os.path.exists(unit):
        print("uapi-check --kernel 6.12 could not run (exit %d): %s" % (p.returncode, (p.stderr or p.stdout)[-2000:]),
              file=sys.stderr)
        return 1
    objs = {}
    for bits, cc in ABIS.items():
        objs[bits] = os.path.join(out, "c-before-%d.o" % bits)
        r = subprocess.run(cc + FLAGS + ["-I", os.path.relpath(inc, check), "-c", os.path.relpath(unit, check),
                                         "-o", objs[bits]], cwd=check, capture_output=True, text=True)
        if r.returncode:
            print("gcc -m%d: the unit does not compile: %s" % (bits, r.stderr[:2000]), file=sys.stderr)
            return 1
    failures = []
    args = [tool, "diff", "--compat", objs[64], objs[32], "--headers", inc]
    t0 = time.monotonic()
    js = subprocess.run(args + ["--format=json"], capture_output=True, text=True)
    elapsed = time.monotonic() - t0
    txt = subprocess.run(args + ["-o", os.path.join(out, "compat.txt")], capture_output=True, text=True)
    if js.returncode not in (0, 1) or js.stderr or txt.returncode != js.returncode:
        print("diff --compat: exit %d/%d: %s" % (js.returncode, txt.returncode, js.stderr + txt.stderr),
              file=sys.stderr)
        return 1
    with open(os.path.join(out, "compat.json"), "w") as f:
        f.write(js.stdout)
    report = json.loads(js.stdout)
    v = fixtures.validator()
    failures += ["schema: %s: %s" % ("/".join(map(str, e.absolute_path)), e.message) for e in v.iter_errors(report)]
    types = report["types"]
    by = {t["name"]: t for t in types}
    for t in types:
        if not t.get("causes"):
            failures.append("%s: no cause" % t["name"])
    counted = {c: sum(1 for t in types if any(x["cause"] == c for x in t["causes"])) for c in report["causes"]}
    if counted != report["causes"]:
        failures.append("top-level causes %s, but the findings carry %s" % (report["causes"], counted))

    labels = read_labels()
    for name, want in sorted(labels.items()):
        t = by.get(name)
        got = {c["cause"] for c in t["causes"]} if t else set()
        if got != want:
            failures.append("label %s: want %s, the tool gives %s" % (name, ",".join(sorted(want)) or "-",
                                                                      ",".join(sorted(got)) or "- (no finding)"))
    covered = set().union(*labels.values())
    missing = {"long-width", "pointer-width", "size_t-width", "time-width", "align8", "arch-ifdef", "member-type",
               "other"} - covered
    if len(labels) < 20 or missing:
        failures.append("labels: %d types, causes not covered: %s" % (len(labels), sorted(missing)))

    # The compiler's own sizeof/offsetof for every figure the report states.
    asserts = {32: [], 64: []}
    for t in types:
        if t.get("old_size") is not None and t.get("new_size") is not None and not t.get("anonymous"):
            asserts[report["abi_bits"]["old"]].append("SA(sizeof(%s) == %d);" % (t["name"], t["old_size"]))
            asserts[report["abi_bits"]["new"]].append("SA(sizeof(%s) == %d);" % (t["name"], t["new_size"]))
        for c in t["causes"]:
            for bits, expr, want in fixtures.figures(t, c):
                if not expr.startswith("absent:"):
                    asserts[bits].append("SA(%s == %d);" % (expr, want))
    nfig = 0
    for bits, cc in ABIS.items():
        src = os.path.join(out, "figures-%d.c" % bits)
        with open(src, "w") as f:
            f.write("#include <stddef.h>\n#include \"%s\"\n#define SA(x) _Static_assert(x, #x)\n" % unit)
            f.write("\n".join(asserts[bits]) + "\n")
        r = subprocess.run(cc + FLAGS + ["-I", inc, "-fsyntax-only", src], capture_output=True, text=True)
        if r.returncode:
            failures.append("%d-bit: the compiler disagrees with the report:\n%s" % (bits, r.stderr[:3000]))
        nfig += len(asserts[bits])

    p = subprocess.run([tool, "diff", "--compat", objs[64], objs[64], "--headers", inc, "--format=json"],
                       capture_output=True, text=True)
    r = json.loads(p.stdout) if p.returncode == 0 else None
    if not r or r["types"] or any(r["causes"].values()):
        failures.append("the 64-bit object against itself: exit %d, %s" % (p.returncode, p.stdout[:300]))

    kinds = collections.Counter(t["kind"] for t in types)
    statuses = collections.Counter(t["status"] for t in types)
    resized = sum(1 for t in types if t.get("old_size") != t.get("new_size"))
    groups = collections.Counter()
    for t in types:
        rs = roots(by, t)
        groups["width" if rs & WIDTH else "align8 only" if rs == {"align8"} else
               "align8" if "align8" in rs else "arch-ifdef" if "arch-ifdef" in rs else ",".join(sorted(rs))] += 1
    print("findings: %d (%s; %s), %d change size" % (len(types), dict(kinds), dict(statuses), resized))
    print("findings by cause: %s" % report["causes"])
    print("findings by root cause (member-type followed): %s" % dict(groups))
    print("diff --compat took %.2f s wall; %d labels checked; %d figures compiled" % (elapsed, len(labels), nfig))
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
