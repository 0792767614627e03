#!/usr/bin/env python3
"""Check a `uapi-check --compat` report against the compilers themselves: every type it lists
with a size, and every ioctl number it lists, must be what each architecture's own compiler
computes (`_Static_assert(sizeof(T) == N)`, `_Static_assert(REQUEST == 0x...)`), compiled against
that architecture's installed headers in the out dir; nothing runs. Also: the report is the
compat kind, names both architectures, lists something, and sorts by header then name.

Usage: tests/arch/compat-check.py OUT_DIR   (the --out of a --compat run)"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from uapi_check.arch import compiler_commands, lookup

IDENT = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def asserts(report, side, unit=None):
    """The assertion unit for one side (64 or 32): the includes of the run's own unit for that
    architecture (UNIT, its source; a declaring header included alone can mean another layout,
    e.g. asm-generic/statfs.h without arm's ARCH_PACK_STATFS64), else the declaring headers."""
    lines, n = [], 0
    if unit is not None:
        with open(unit) as f:
            lines += [ln.rstrip("\n") for ln in f if ln.startswith("#include ")]
    else:
        headers = sorted({t["header"] for t in report["types"] if t["header"]}
                         | {i["header"] for i in report["ioctls"] if i["header"]})
        lines += [f"#include <{h}>" for h in headers]
    for t in report["types"]:
        size = t[f"size{side}"]
        name = t["name"]
        if size is None or not t["header"] or not name.startswith(("struct ", "union ")) \
                or not set(name.split(" ", 1)[1]) <= IDENT:
            continue
        lines.append(f"_Static_assert(sizeof({name}) == {size}, \"{name}\");")
        n += 1
    for i in report["ioctls"]:
        lines.append(f"_Static_assert((unsigned int)({i['ioctl']}) == {i[f'number{side}']}u, \"{i['ioctl']}\");")
        n += 1
    return "\n".join(lines) + "\n", n


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    errors = []
    if report.get("mode") != "compat":
        errors.append("report.json is not a compat report")
    if not report["types"] or not report["ioctls"]:
        errors.append(f"nothing listed: {len(report['types'])} types, {len(report['ioctls'])} ioctls")
    for key in ("types", "ioctls"):
        order = [((x["header"] or "~"), x.get("name") or x.get("ioctl")) for x in report[key]]
        if order != sorted(order):
            errors.append(f"{key} are not sorted by header, then name")
    if any(not t["causes"] for t in report["types"]):
        errors.append("a type without a cause")
    for side, key in (("64", "arch64"), ("32", "arch32")):
        a = lookup(report[key]["debian"])
        cc = compiler_commands(a)["c"]
        unit = os.path.join(out, "work", f"c-{a.debian}.c")
        text, n = asserts(report, side, unit if os.path.exists(unit) else None)
        src = os.path.join(out, "work", f"compat-check-{a.debian}.c")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([cc, "-std=gnu11", "-w", "-fsyntax-only", "-I", os.path.join(out, "include", a.debian), src],
                           capture_output=True, text=True)
        bad = [ln for ln in p.stderr.splitlines() if "error" in ln]
        if p.returncode:
            errors.append(f"{a.debian}: {len(bad)} of {n} sizes/numbers disagree with {cc}: " + "; ".join(bad[:4]))
        else:
            print(f"{a.debian}: {n} type sizes and ioctl numbers of the report agree with {cc}")
    for e in errors:
        print(f"FAIL {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
