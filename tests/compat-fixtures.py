#!/usr/bin/python3
"""compat-fixtures: `diff --compat` on fixtures/compat/compat.h, built for a 64-bit ABI and its
32-bit one (x86_64/i386 with gcc -m64/-m32, arm64/arm with clang --target=...), against the
expected text and JSON kept in fixtures/compat/, byte for byte.

Independently of the tool's reading, every figure a cause states (an offset on each ABI, a
size on each ABI, a member present on one ABI only) is compiled back into _Static_assert
(offsetof/sizeof) by the same compiler and flags that built each object; a member said to be
present on one ABI only must fail to compile on the other. Every cause naming a member must give
at least one such figure. The JSON must validate against abidiff-uapi/schema/diff.schema.json.

Also: a --compat diff of an object with itself reports nothing and no cause; two different
objects with the same address size are refused (exit 2, one line naming both, no report);
--compat with --format=sarif is a usage error.

Usage: tests/compat-fixtures.py [--update] ABIDIFF_UAPI_BINARY
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema

import expected_files   # tests/expected_files.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(ROOT, "fixtures", "compat")
SCHEMA = os.path.join(ROOT, "abidiff-uapi", "schema")

# pair -> (64-bit compiler argv, 32-bit compiler argv)
PAIRS = {
    "x86": (["gcc", "-m64"], ["gcc", "-m32"]),
    "arm": (["clang", "--target=aarch64-linux-gnu"], ["clang", "--target=armv7a-linux-gnueabihf"]),
}
# Planted as identical on both ABIs: never a finding.
IDENTICAL = {"struct c_same", "struct c_aligned_fix"}


def run(argv, cwd, ok=(0, 1)):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if p.returncode not in ok:
        raise AssertionError("%s: exit %d: %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
    return p


def validator():
    store = {}
    for name in ("dump.schema.json", "diff.schema.json"):
        with open(os.path.join(SCHEMA, name)) as f:
            s = json.load(f)
        store[s["$id"]] = s
        store[name] = s
    s = store["diff.schema.json"]
    cls = jsonschema.validators.validator_for(s)
    cls.check_schema(s)
    return cls(s, resolver=jsonschema.RefResolver(base_uri=s["$id"], referrer=s, store=store))


def build(cc, out, work):
    src = os.path.join(work, "unit.c")
    with open(src, "w") as f:
        f.write('#include "compat.h"\n')
    run(cc + ["-g", "-fno-eliminate-unused-debug-types", "-c", "unit.c", "-o", out], work, ok=(0,))


def figures(finding, cause):
    """(abi, C expression, expected value) that the cause's detail states; abi is 32 or 64."""
    t, d, m = finding["name"], cause["detail"], cause.get("member")
    out = []
    # A bit-field has no offsetof or sizeof to compile (its size is its storage unit's).
    for ch in finding.get("changes", []):
        sides = [ch[k] for k in ("old", "new") if isinstance(ch.get(k), dict)]
        if any(x.get("name") == m and "bit_size" in x for x in sides):
            return out
    # "member __u64 b at 4 (32-bit) vs 8 (64-bit)"
    g = re.search(r"at (\d+) \(32-bit\) vs (\d+) \(64-bit\)", d)
    if g and m:
        out += [(32, "offsetof(%s, %s)" % (t, m), int(g.group(1))), (64, "offsetof(%s, %s)" % (t, m), int(g.group(2)))]
    # "size 12 (32-bit) vs 16 (64-bit)" of the type, or "member u: size ..." of a member
    g = re.search(r"(?:member (\S+): )?size (\d+) \(32-bit\) vs (\d+) \(64-bit\)", d)
    if g:
        e = "sizeof(((%s *)0)->%s)" % (t, g.group(1)) if g.group(1) else "sizeof(%s)" % t
        out += [(32, e, int(g.group(2))), (64, e, int(g.group(3)))]
    # "...: 8 bytes (64-bit) vs 4 (32-bit)" of the member
    g = re.search(r"(\d+) bytes \(64-bit\) vs (\d+) \(32-bit\)", d)
    if g and m:
        e = "sizeof(((%s *)0)->%s)" % (t, m)
        out += [(64, e, int(g.group(1))), (32, e, int(g.group(2)))]
    # "member __u32 pad64 only on the 64-bit ABI (offset 4, size 4)"
    g = re.search(r"only on the (\d+)-bit ABI \(offset (\d+), size (\d+)\)", d)
    if g and m:
        abi = int(g.group(1))
        out += [(abi, "offsetof(%s, %s)" % (t, m), int(g.group(2))),
                (abi, "sizeof(((%s *)0)->%s)" % (t, m), int(g.group(3))),
                (96 - abi, "absent:offsetof(%s, %s)" % (t, m), None)]
    return out


def crosscheck(report, ccs, work):
    """Compile each stated figure in its ABI; returns (count, failures)."""
    asserts = {32: [], 64: []}
    absent = {32: [], 64: []}
    failures = []
    for f in report["types"]:
        if f.get("old_size") is not None and f.get("new_size") is not None:
            asserts[report["abi_bits"]["old"]].append("SA(sizeof(%s) == %d);" % (f["name"], f["old_size"]))
            asserts[report["abi_bits"]["new"]].append("SA(sizeof(%s) == %d);" % (f["name"], f["new_size"]))
        for c in f["causes"]:
            figs = figures(f, c)
            if c.get("member") and not figs and c["cause"] != "other":
                failures.append("%s: cause %s of %s states no figure to check: %s"
                                % (f["name"], c["cause"], c["member"], c["detail"]))
            for abi, expr, want in figs:
                if expr.startswith("absent:"):
                    absent[abi].append(expr[len("absent:"):])
                else:
                    asserts[abi].append("SA(%s == %d);" % (expr, want))
    count = 0
    for abi, cc in ((64, ccs[0]), (32, ccs[1])):
        src = os.path.join(work, "check%d.c" % abi)
        with open(src, "w") as f:
            f.write('#include <stddef.h>\n#include "compat.h"\n#define SA(x) _Static_assert(x, #x)\n')
            f.write("\n".join(asserts[abi]) + "\n")
        p = subprocess.run(cc + ["-fsyntax-only", src], cwd=work, capture_output=True, text=True)
        if p.returncode:
            failures.append("%d-bit: the compiler disagrees with the report:\n%s" % (abi, p.stderr[:3000]))
        count += len(asserts[abi])
        for expr in absent[abi]:
            with open(src, "w") as f:
                f.write('#include <stddef.h>\n#include "compat.h"\nsize_t x = %s;\n' % expr)
            p = subprocess.run(cc + ["-fsyntax-only", src], cwd=work, capture_output=True, text=True)
            if p.returncode == 0:
                failures.append("%d-bit: %s compiles, but the report says the member is absent there" % (abi, expr))
            count += 1
    return count, failures


def check_pair(tool, pair, update, v):
    ccs = PAIRS[pair]
    for cc in ccs:
        if not shutil.which(cc[0]):
            raise AssertionError("%s is missing: scripts/install-deps test" % cc[0])
    failures = []
    work = tempfile.mkdtemp(prefix="au-compat-")
    try:
        shutil.copy(os.path.join(CASE, "compat.h"), work)
        build(ccs[0], "abi64.o", work)
        build(ccs[1], "abi32.o", work)
        args = ["diff", "--compat", "abi64.o", "abi32.o", "--headers", "."]
        txt = run([tool] + args, work)
        js = run([tool] + args + ["--format=json"], work)
        report = json.loads(js.stdout)
        rc = 1 if report["verdict"] == "incompatible" else 0
        if txt.returncode != rc or js.returncode != rc or txt.stderr or js.stderr:
            failures.append("%s: exit %d/%d for verdict %s; stderr %r" % (pair, txt.returncode, js.returncode,
                                                                       report["verdict"], txt.stderr + js.stderr))
        for ext, got in (("txt", txt.stdout), ("json", js.stdout)):
            path = os.path.join(CASE, "expected-%s.%s" % (pair, ext))
            if update:
                with open(path, "w") as f:
                    f.write(got)
            want = open(path).read() if os.path.exists(path) else None
            if got != want:
                failures.append("%s: output differs from %s:\n--- expected\n%s--- got\n%s"
                                % (pair, os.path.relpath(path, ROOT), want, got))
        failures += ["%s: schema: %s: %s" % (pair, "/".join(map(str, e.absolute_path)), e.message)
                     for e in v.iter_errors(report)]
        if not report.get("compat") or report.get("strict") is not True:
            failures.append("%s: compat or strict not set in the JSON report" % pair)
        names = {f["name"] for f in report["types"]}
        if names & IDENTICAL:
            failures.append("%s: reported, yet identical on both ABIs: %s" % (pair, sorted(names & IDENTICAL)))
        for f in report["types"]:
            if not f.get("causes"):
                failures.append("%s: %s has no cause" % (pair, f["name"]))
        counted = {c: sum(1 for f in report["types"] if any(x["cause"] == c for x in f["causes"]))
                   for c in report["causes"]}
        if counted != report["causes"]:
            failures.append("%s: top-level causes %s, but the findings carry %s" % (pair, report["causes"], counted))
        n, fails = crosscheck(report, ccs, work)
        failures += ["%s: %s" % (pair, x) for x in fails]
        if n < len(report["types"]):
            failures.append("%s: only %d figures checked for %d findings" % (pair, n, len(report["types"])))

        # An object against itself: nothing, and no cause invented.
        for obj in ("abi64.o", "abi32.o"):
            p = run([tool, "diff", "--compat", obj, obj, "--format=json"], work)
            r = json.loads(p.stdout)
            if p.returncode != 0 or r["types"] or any(r["causes"].values()):
                failures.append("%s: %s against itself: exit %d, %d findings, causes %s"
                                % (pair, obj, p.returncode, len(r["types"]), r["causes"]))
            p = run([tool, "diff", "--compat", obj, obj], work)
            if "  cause: " in p.stdout:
                failures.append("%s: %s against itself: a cause in the text report" % (pair, obj))
        # Two objects of one address size: refused, one line naming both.
        shutil.copy(os.path.join(work, "abi64.o"), os.path.join(work, "other64.o"))
        p = run([tool, "diff", "--compat", "abi64.o", "other64.o"], work, ok=(0, 1, 2))
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or p.stdout or len(lines) != 1 or "abi64.o" not in lines[0] or "other64.o" not in lines[0]:
            failures.append("%s: same address size: exit %d, stdout %r, stderr %r"
                            % (pair, p.returncode, p.stdout[:200], p.stderr))
        p = run([tool, "diff", "--compat", "--format=sarif", "abi64.o", "abi32.o"], work, ok=(0, 1, 2))
        if p.returncode != 2 or p.stdout:
            failures.append("%s: --compat --format=sarif: exit %d, not a usage error" % (pair, p.returncode))
        return n, failures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    args = sys.argv[1:]
    update = "--update" in args
    if expected_files.update_refused(update):
        return 2
    args = [a for a in args if a != "--update"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.abspath(args[0])
    t0 = expected_files.start()
    v = validator()
    failures = []
    total = 0
    for pair in PAIRS:
        try:
            n, f = check_pair(tool, pair, update, v)
        except (AssertionError, subprocess.CalledProcessError) as e:
            n, f = 0, ["%s: %s" % (pair, e)]
        total += n
        failures += f
        print("%s: %s (%d compiled checks)" % (pair, "FAIL" if f else "ok", n))
    for f in failures:
        print(f, file=sys.stderr)
    # Expected files written by this run (--update) compare against themselves.
    stale = expected_files.verdict(t0, [os.path.join(CASE, "expected-%s.%s" % (p, ext)) for p in PAIRS
                                        for ext in ("txt", "json")], ROOT, print)
    return 1 if failures or stale else 0


if __name__ == "__main__":
    sys.exit(main())
