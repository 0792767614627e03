#!/usr/bin/env python3
"""ioctls-uapi: the ioctl request numbers of Debian's 6.1 and 6.12 UAPI headers, as C and C++.

  tests/ioctls-uapi.py TOOL [--out DIR] [--jobs N] [--update]

For each kernel: `make headers_install` of the pristine tree (scripts/kernel-tree, cached as the
driver caches it), the headers of the driver's all-headers unit (the tested and no-header-test
headers that compile alone, minus those that collide in one unit: ./uapi-check's own
select_headers, compile_alone and build_unit), then uapi_check/ioctls.py: the request
macros, the skipped ones with their reason, the unit of numbers compiled with DWARF, as C and C++.
Checks:
  - the numbers TOOL reads from DWARF equal those a compiled program prints, each language;
  - compiled by header as --git and a series compile them (ioctl_groups.py, with an empty cache),
    the same requests are numbered, with the same numbers, and the same skipped, with the same
    reasons;
  - the numbers that differ between C and C++ (each kernel) and between 6.1 and 6.12 (C), as TOOL's
    strict diff reports them (enumerator_value, each a break), the skipped macros with their reasons
    and the counts equal tests/expected/ioctls-uapi.txt (--update rewrites it).
Prints counts and times. Exit 0 all hold, 1 a check fails, 2 cannot run.
"""

import argparse
import collections
import os
import re
import shutil
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPECTED = os.path.join(ROOT, "tests", "expected", "ioctls-uapi.txt")
import expected_files   # tests/expected_files.py
from uapi_check import ioctls

KERNELS = ("6.1", "6.12")
LANGS = {"c": ("gcc", ["-std=gnu11"]), "cxx": ("g++", ["-std=gnu++17"])}


def load_driver():
    """The driver's own header selection (one rule in one place): the uapi_check package's modules."""
    from uapi_check import env, headers, trees, units, util

    def cached_sweep(inc, dummy, tested, extra):
        """The driver's own per-header results for these headers, when a run of it compiled them
        with the same compilers and flags (headers.sweep's key): {(lang, header, extra): error}."""
        key = headers.sweep_key(env.find_compilers(), headers.dir_digest(inc), tested, extra,
                                headers.dir_digest(dummy))
        got = headers.load_sweep(key)
        return None if got is None else {tuple(e[0]): e[1] for e in got}

    def build_unit(*a):
        u = units.build_unit(*a)
        return u.included, u.collisions
    return types.SimpleNamespace(
        resolve_tree=trees.resolve_tree, headers_install=trees.headers_install, tree_key=trees.tree_key,
        select_headers=lambda inc, makefile: headers.select_headers(inc, headers.no_header_test(makefile)),
        compile_alone=headers.compile_alone, parallel=util.parallel, Fatal=util.Fatal,
        build_unit=build_unit, cached_sweep=cached_sweep)


def say(text):
    print(text, flush=True)


def unit_headers(uc, kernel, out, jobs):
    """The installed include dir and, per language, the header list of the driver's unit."""
    tree = uc.resolve_tree(kernel)
    t0 = time.time()
    inc, cached = uc.headers_install(tree, uc.tree_key(tree), jobs, out)
    say(f"{kernel}: headers_install {tree}" + (" (cached)" if cached else f" ({time.time() - t0:.1f} s)"))
    tested, skipped = uc.select_headers(inc, os.path.join(tree, "usr", "include", "Makefile"))
    extra = [h for h, why in skipped.items() if why == "no-header-test"]
    dummy = os.path.join(tree, "usr", "dummy-include")
    tasks = [(lang, h, h in extra) for lang in LANGS for h in sorted(tested + extra)]
    t0 = time.time()
    # Which headers compile alone decides what the unit holds; a run of the driver on the same
    # pristine tree has already compiled each (the same selection, compilers and flags).
    cached = uc.cached_sweep(inc, dummy, tested, extra)
    if cached is not None and all(t in cached for t in tasks):
        results = [cached[t] for t in tasks]
        say(f"{kernel}: {len(tested)} tested + {len(extra)} no-header-test headers, C and C++: the "
            f"driver's results of compiling each alone (its cache)")
    else:
        results = uc.parallel(jobs, lambda t: uc.compile_alone(LANGS[t[0]][0], t[0], inc, dummy, t[1], t[2]),
                              tasks)
        say(f"{kernel}: {len(tested)} tested + {len(extra)} no-header-test headers compiled alone, "
            f"C and C++ ({time.time() - t0:.1f} s)")
    lists = {}
    for lang, (cc, _) in LANGS.items():
        alone = [h for (lg, h, _), err in zip(tasks, results) if lg == lang and not err]
        work = os.path.join(out, "units", kernel)
        os.makedirs(os.path.join(work, "work"), exist_ok=True)
        os.makedirs(os.path.join(work, "obj"), exist_ok=True)
        t0 = time.time()
        included, collisions = uc.build_unit(cc, lang, lang, alone, inc, work)
        lists[lang] = included
        say(f"{kernel} {lang}: {len(alone)} compile alone, {len(included)} in the unit, "
            f"{len(collisions)} left out for collisions ({time.time() - t0:.1f} s)")
    return inc, lists


def by_header(kernel, lang, inc, headers, found, kept, skipped, dwarf, tool, out):
    """The driver's path for --git and a series (requests._number, ioctl_groups.py): the numbers
    compiled in groups by header, each after its own headers, with an empty cache of their own.
    They must keep, skip (with the same reasons) and number what the all-headers unit does.
    Returns the failures."""
    from uapi_check import ioctl_groups, requests
    cc, flags = LANGS[lang]
    cache = os.path.join(out, "cache-by-header")
    shutil.rmtree(cache, ignore_errors=True)
    before = os.environ.get("ABIDIFF_UAPI_CACHE")
    os.environ["ABIDIFF_UAPI_CACHE"] = cache    # the groups' cache only: restored below
    ioctl_groups._MADE.clear()
    left = []
    real = ioctls.number_ioctls
    ioctls.number_ioctls = lambda *a: left.append(len(a[4])) or real(*a)
    try:
        t0 = time.time()
        obj = os.path.join(out, f"ioctls-{kernel}-{lang}-by-header.o")
        unit = types.SimpleNamespace(lang=lang, included=headers)
        compiler = types.SimpleNamespace(path=cc, version=f"ioctls-uapi {cc}")
        kept2, skipped2 = requests._number(compiler, unit, inc, flags, found, obj, frozenset(), lambda: tool, False)
        numbers = ioctls.read_ioctl_numbers(tool, obj)
    finally:
        ioctls.number_ioctls = real
        if before is None:
            os.environ.pop("ABIDIFF_UAPI_CACHE")
        else:
            os.environ["ABIDIFF_UAPI_CACHE"] = before
    say(f"    by header: {len(kept2)} numbered, {len(skipped2)} skipped, {sum(left)} left to the "
        f"all-headers unit ({time.time() - t0:.2f} s)")
    failures = []
    if [x.name for x in kept2] != [x.name for x in kept]:
        failures.append(f"{kernel} {lang}: by header, the kept requests differ: "
                        f"{sorted({x.name for x in kept2} ^ {x.name for x in kept})[:10]}")
    if skipped2 != skipped:
        failures.append(f"{kernel} {lang}: by header, the skipped requests or reasons differ: "
                        f"{sorted(k for k in set(skipped) | set(skipped2) if skipped.get(k) != skipped2.get(k))[:10]}")
    if numbers != dwarf:
        failures.append(f"{kernel} {lang}: by header, numbers differ: "
                        f"{sorted(k for k in set(dwarf) | set(numbers) if dwarf.get(k) != numbers.get(k))[:10]}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "ioctls-uapi"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--update", action="store_true", help="rewrite the expected file")
    args = ap.parse_args()
    if expected_files.update_refused(args.update):
        return 2
    t0 = expected_files.start()
    tool = os.path.abspath(args.tool)
    if not os.access(tool, os.X_OK):
        print(f"ioctls-uapi: {args.tool}: not an executable tool", file=sys.stderr)
        return 2
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    uc = load_driver()
    failures = []
    units = {}
    report = []
    try:
        for kernel in KERNELS:
            inc, lists = unit_headers(uc, kernel, out, args.jobs)
            for lang, (cc, flags) in LANGS.items():
                headers = lists[lang]
                t0 = time.time()
                found = ioctls.find_ioctls(cc, inc, headers, flags)
                t1 = time.time()
                kept, skipped = ioctls.check_ioctls(cc, inc, headers, flags, found)
                t2 = time.time()
                obj = os.path.join(out, f"ioctls-{kernel}-{lang}.o")
                ioctls.compile_ioctl_unit(cc, inc, headers, flags, kept, obj)
                t3 = time.time()
                dwarf = ioctls.read_ioctl_numbers(tool, obj)
                printed = ioctls.print_ioctl_numbers(cc, inc, headers, flags, kept)
                units[(kernel, lang)] = {"obj": obj, "kept": {x.name: x for x in kept}, "dwarf": dwarf}
                enums = sum(1 for x in found if x.kind == "enumerator")
                say(f"{kernel} {lang}: {len(found)} ioctls ({len(found) - enums} macros, {enums} "
                    f"enumerators) in {len(headers)} headers, "
                    f"{len(skipped)} skipped, {len(kept)} numbered; find {t1 - t0:.2f} s, "
                    f"check {t2 - t1:.2f} s, compile {t3 - t2:.2f} s")
                report.append(f"count {kernel} {lang}: {len(found)} ioctls, {enums} enumerators, "
                              f"{len(skipped)} skipped, in {len(headers)} headers")
                reasons = collections.Counter(re.sub(r"'[^']*'", "'...'", r) for r in skipped.values())
                for reason, n in reasons.most_common():
                    say(f"    skipped {n:4}: {reason}")
                for name, reason in sorted(skipped.items()):
                    report.append(f"skipped {kernel} {lang} {name}: {reason}")
                if dwarf != printed:
                    bad = sorted(k for k in set(dwarf) | set(printed) if dwarf.get(k) != printed.get(k))
                    failures.append(f"{kernel} {lang}: DWARF and printer differ on {len(bad)}: {bad[:10]}")
                else:
                    say(f"    DWARF numbers equal the printer's ({len(dwarf)})")
                failures += by_header(kernel, lang, inc, headers, found, kept, skipped, dwarf, tool, out)
        pairs = [(f"{k} c vs cxx", (k, "c"), (k, "cxx")) for k in KERNELS]
        pairs.append(("6.1 vs 6.12 c", ("6.1", "c"), ("6.12", "c")))
        for title, old, new in pairs:
            found = ioctls.ioctl_number_changes(tool, units[old]["obj"], units[new]["obj"])
            changes = {k: v for k, v in found.items() if v["old"] is not None and v["new"] is not None}
            # The tool's diff, checked against the numbers read from each side.
            a, b = units[old]["dwarf"], units[new]["dwarf"]
            common = set(a) & set(b)
            direct = {n for n in common if a[n] != b[n]}
            if set(changes) != direct:
                failures.append(f"{title}: diff reports {sorted(set(changes) ^ direct)} differently")
            if {k for k, v in found.items() if v["new"] is None} != set(a) - common:
                failures.append(f"{title}: the removed ioctls differ from the numbers read")
            weak = sorted(k for k, v in found.items() if v["new"] is not None and v["old"] is not None
                          and v["severity"] != "break")
            if weak:
                failures.append(f"{title}: changed numbers not graded break: {weak}")
            say(f"{title}: {len(changes)} numbers differ ({len(common)} ioctls on both sides, "
                f"{len(set(a) - common)} only on the first, {len(set(b) - common)} only on the second)")
            report.append(f"count {title}: {len(changes)} differ, {len(common)} on both sides, "
                          f"{len(set(a) - common)} only on the first, {len(set(b) - common)} only on the second")
            for name, v in sorted(changes.items()):
                x = units[new]["kept"][name]
                line = (f"differ {title}: {name} 0x{v['old']:08x} -> 0x{v['new']:08x} "
                        f"({x.arg_type}, {x.header})")
                say("    " + line[len("differ " + title) + 2:])
                report.append(line)
    except (ioctls.IoctlError, uc.Fatal) as e:
        print(f"ioctls-uapi: {e}", file=sys.stderr)
        return 2
    text = "".join(line + "\n" for line in report)
    # args, not a: the comparisons above name their sides a and b, and a.update was then
    # dict.update, always true, so the expected file was rewritten instead of compared.
    if args.update:
        os.makedirs(os.path.dirname(EXPECTED), exist_ok=True)
        with open(EXPECTED + ".tmp", "w") as f:
            f.write(text)
        os.rename(EXPECTED + ".tmp", EXPECTED)
        say(f"wrote {os.path.relpath(EXPECTED, ROOT)}")
    else:
        try:
            with open(EXPECTED) as f:
                want = f.read()
        except OSError as e:
            print(f"ioctls-uapi: {EXPECTED}: {e.strerror}", file=sys.stderr)
            return 2
        if want != text:
            w, g = set(want.splitlines()), set(text.splitlines())
            for line in sorted(w - g):
                failures.append(f"expected, not found: {line}")
            for line in sorted(g - w):
                failures.append(f"found, not expected: {line}")
    # The expected file, if this run wrote it (--update), compares against itself.
    failures += [f"{os.path.relpath(EXPECTED, ROOT)}: written during this run: run again without --update to check"
                 for _ in expected_files.written(t0, [EXPECTED])]
    for f in failures:
        print(f"FAIL: {f}")
    say("ioctls-uapi: " + ("FAIL" if failures else "all checks hold"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
