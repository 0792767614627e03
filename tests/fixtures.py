#!/usr/bin/env python3
"""Fixture tests: build each case under fixtures/cases/ with several compilers
and check abidiff-uapi against the expected outputs kept in the repo.

A case is a directory with old.h, optionally new.h (else old.h is built twice)
and case.conf (KEY=VALUE lines: OLD_LANG, NEW_LANG = c | c++; FLAGS; VARIANTS;
DIFF_ARGS, extra options for diff such as --strict; UNITS=N to build each side
from N translation units of its header, unit K with -DAU_UNIT=K, linked into
one object (a library's units may each define a type of the same name, or
anonymous enums with the same constants); REVERSE=yes to also diff
NEW against OLD, against expected-reverse.txt and expected-reverse.json: a
safe change read backwards is usually a break, and both must be right).
For every variant (gcc, gcc -gdwarf-4, gcc -gz, clang, a shared object, an
executable, a gcc/clang mix, type units, split DWARF) the text and JSON reports must equal
expected.txt and expected.json, byte for byte, and the exit status must match
the verdict. Independently of our DWARF reading, the sizes and member offsets
that `dump` reports are compiled back into static assertions with sizeof and
offsetof, in the language of each side, so the compiler itself confirms them.

Show cases (fixtures/show/*): a.h, optionally b.h (else a.h again), and case.conf with TYPES (the
names to show, separated by ';'), A_LANG, B_LANG, A_FLAGS, B_FLAGS. With only A_* keys, `show TYPE
a.o` per name; else `show TYPE a.o b.o`, side by side. The text and JSON outputs of all names, in
order, must equal expected.txt and expected.json with gcc and with clang, and every offset and size
of every member row (dotted paths too) is compiled back into static assertions for each side.

Usage: fixtures.py [--update] [--only CASE] ABIDIFF_UAPI_BINARY
(--update writes the expected files from this run, refuses under CI, and fails the run: a file
written by the run that compares against it proves nothing; run again without it.)
"""
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import expected_files   # tests/expected_files.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "fixtures", "cases")
SHOW_CASES = os.path.join(ROOT, "fixtures", "show")

# variant -> (C compiler argv, C++ compiler argv, link mode)
VARIANTS = {
    "gcc": (["gcc", "-g"], ["g++", "-g"], "obj"),
    "gcc-dwarf4": (["gcc", "-gdwarf-4"], ["g++", "-gdwarf-4"], "obj"),
    "gcc-gz": (["gcc", "-g", "-gz=zlib"], ["g++", "-g", "-gz=zlib"], "obj"),
    "clang": (["clang", "-g"], ["clang++", "-g"], "obj"),
    "gcc-shared": (["gcc", "-g", "-fPIC"], ["g++", "-g", "-fPIC"], "shared"),
    "gcc-exe": (["gcc", "-g"], ["g++", "-g"], "exe"),
    # Type units (in COMDAT groups of the .o) and split DWARF (a .dwo beside it).
    "gcc-types": (["gcc", "-g", "-fdebug-types-section"], ["g++", "-g", "-fdebug-types-section"], "obj"),
    "gcc-split": (["gcc", "-g", "-gsplit-dwarf"], ["g++", "-g", "-gsplit-dwarf"], "obj"),
}
DEFAULT_VARIANTS = ["gcc", "gcc-dwarf4", "gcc-gz", "clang", "gcc-shared", "gcc-exe", "mixed", "gcc-types", "gcc-split"]


def read_conf(case):
    conf = {"OLD_LANG": "c", "NEW_LANG": "c", "FLAGS": "", "VARIANTS": " ".join(DEFAULT_VARIANTS),
            "DIFF_ARGS": "", "REVERSE": "no", "UNITS": "1"}
    path = os.path.join(case, "case.conf")
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#"):
                k, _, v = line.partition("=")
                conf[k.strip()] = v.strip()
    return conf


def compile_side(variant, lang, header, flags, out, workdir):
    cc_c, cc_cxx, mode = VARIANTS[variant]
    cc = cc_cxx if lang == "c++" else cc_c
    ext = ".cc" if lang == "c++" else ".c"
    src = os.path.join(workdir, os.path.basename(out) + ext)
    with open(src, "w") as f:
        f.write('#include "%s"\n' % header)
        if mode == "exe":
            f.write("int main(void) { return 0; }\n")
    argv = cc + ["-fno-eliminate-unused-debug-types"] + flags.split()
    if mode == "obj":
        argv += ["-c", src, "-o", out]
    elif mode == "shared":
        argv += ["-shared", "-nostdlib", src, "-o", out]
    else:
        argv += [src, "-o", out]
    subprocess.run(argv, check=True, cwd=workdir)


def compile_units(variant, lang, header, flags, out, workdir, units):
    """One side built from `units` translation units of header (unit K with -DAU_UNIT=K), linked
    as the variant links one: a relocatable object (ld -r), a shared object or an executable (its
    main in unit 1). Returns each unit's object, which crosscheck takes one by one."""
    cc_c, cc_cxx, mode = VARIANTS[variant]
    cc = cc_cxx if lang == "c++" else cc_c
    ext = ".cc" if lang == "c++" else ".c"
    objs = []
    for k in range(1, units + 1):
        base = "%s-u%d" % (os.path.basename(out).split(".")[0], k)
        src = os.path.join(workdir, base + ext)
        with open(src, "w") as f:
            f.write('#include "%s"\n' % header)
            if mode == "exe" and k == 1:
                f.write("int main(void) { return 0; }\n")
        obj = os.path.join(workdir, base + ".o")
        pic = ["-fPIC"] if mode == "shared" else []
        subprocess.run(cc + pic + ["-fno-eliminate-unused-debug-types", "-DAU_UNIT=%d" % k] + flags.split() +
                       ["-c", src, "-o", obj], check=True, cwd=workdir)
        objs.append(obj)
    if mode == "obj":
        subprocess.run(["ld", "-r", "-o", out] + objs, check=True, cwd=workdir)
    elif mode == "shared":
        subprocess.run([cc[0], "-shared", "-nostdlib", "-o", out] + objs, check=True, cwd=workdir)
    else:
        subprocess.run([cc[0], "-o", out] + objs, check=True, cwd=workdir)
    return objs


def run_tool(tool, args, cwd):
    p = subprocess.run([tool] + args, cwd=cwd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise AssertionError("%s %s: exit %d: %s" % (tool, " ".join(args), p.returncode, p.stderr.strip()))
    if p.stderr:
        raise AssertionError("%s %s: unexpected stderr: %s" % (tool, " ".join(args), p.stderr.strip()))
    return p.returncode, p.stdout


def crosscheck(tool, obj, lang, variant, header, flags, workdir):
    """sizeof/offsetof, compiled, must agree with what dump read from DWARF."""
    _, out = run_tool(tool, ["dump", "--format=json", obj], workdir)
    asserts = []
    count = 0

    def members(ms, tname):
        nonlocal count
        for m in ms:
            if m.get("members"):
                members(m["members"], tname)
            elif m["name"] and "bit_size" not in m and not m["name"].startswith("__empty_"):
                asserts.append("SA(offsetof(%s, %s) == %d);" % (tname, m["name"], m["offset"]))
                count += 1

    types = json.loads(out)["types"]
    by_name = {t["name"]: t for t in types}

    def spelled(t):
        # C++ scopes nested types: struct outer { struct inner ...} -> outer::inner.
        if lang != "c++" or not t.get("scope"):
            return t["name"]
        outer = by_name.get(t["scope"])
        base = spelled(outer) if outer else t["scope"].split(" ", 1)[-1]
        return base.split(" ", 1)[-1] + "::" + t["name"].split(" ", 1)[-1]

    for t in types:
        name = spelled(t)
        if t["kind"] == "enum" and not t["name"].startswith("enum "):
            continue
        if not t.get("anonymous"):  # an anonymous enum has no name to take sizeof of
            asserts.append("SA(sizeof(%s) == %d);" % (name, t["size"]))
            count += 1
        if t["kind"] != "enum":
            members(t["members"], name)
        else:
            for e in t["enumerators"]:
                # Compared as integers of the enumerator's own value range.
                v = e["value"]
                lit = ("%dULL" % v) if v >= 0 else ("(-%dLL - 1)" % (-v - 1))
                asserts.append("SA((long long)%s == (long long)%s);" % (e["name"], lit))
                count += 1
    ext = ".cc" if lang == "c++" else ".c"
    src = os.path.join(workdir, "check-%s-%s%s" % (variant, os.path.basename(obj), ext))
    with open(src, "w") as f:
        f.write('#include <stddef.h>\n#include "%s"\n' % header)
        f.write("#define SA(x) static_assert(x, #x)\n" if lang == "c++" else "#define SA(x) _Static_assert(x, #x)\n")
        f.write("\n".join(asserts) + "\n")
    cc_c, cc_cxx, _ = VARIANTS["clang" if variant == "clang" else "gcc"]
    cc = cc_cxx if lang == "c++" else cc_c
    p = subprocess.run([cc[0], "-fsyntax-only"] + flags.split() + [src], cwd=workdir, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError("sizeof/offsetof disagree with dump of %s:\n%s" % (obj, p.stderr[:2000]))
    return count


def compare_outputs(tool, conf, variant, suffix, a, b, expected_txt, expected_json, update, work):
    """Diff object a against b; the reports must equal the expected files."""
    failures = []
    args = ["diff", a + suffix, b + suffix, "--headers", work] + conf["DIFF_ARGS"].split()
    rc, txt = run_tool(tool, args, work)
    rcj, js = run_tool(tool, args + ["--format=json"], work)
    # Names of the objects differ per variant; the expected files use old.o/new.o (or new.o/old.o).
    txt = txt.replace("%s%s -> %s%s" % (a, suffix, b, suffix), "%s.o -> %s.o" % (a, b), 1)
    js = js.replace('"old":"%s%s","new":"%s%s"' % (a, suffix, b, suffix), '"old":"%s.o","new":"%s.o"' % (a, b), 1)
    verdict = json.loads(js)["verdict"]
    if rc != rcj or rc != (1 if verdict == "incompatible" else 0):
        failures.append("%s: exit status %d/%d does not match verdict %s" % (variant, rc, rcj, verdict))
    if update and variant == conf["VARIANTS"].split()[0]:
        open(expected_txt, "w").write(txt)
        open(expected_json, "w").write(js)
    for got, path in ((txt, expected_txt), (js, expected_json)):
        want = open(path).read() if os.path.exists(path) else None
        if got != want:
            failures.append("%s: output differs from %s:\n--- expected\n%s--- got\n%s" % (
                variant, os.path.relpath(path, ROOT), want, got))
    return failures


def run_case(tool, name, update):
    case = os.path.join(CASES, name)
    conf = read_conf(case)
    new_h = "new.h" if os.path.exists(os.path.join(case, "new.h")) else "old.h"
    expected_txt = os.path.join(case, "expected.txt")
    expected_json = os.path.join(case, "expected.json")
    failures = []
    checks = 0
    for variant in conf["VARIANTS"].split():
        work = tempfile.mkdtemp(prefix="au-fixture-")
        try:
            shutil.copy(os.path.join(case, "old.h"), work)
            if new_h != "old.h":
                shutil.copy(os.path.join(case, "new.h"), work)
            old_v, new_v = ("gcc", "clang") if variant == "mixed" else (variant, variant)
            suffix = {"shared": ".so", "exe": ""}.get(VARIANTS[old_v][2], ".o")
            units = int(conf["UNITS"])
            if units > 1:
                old_objs = compile_units(old_v, conf["OLD_LANG"], "old.h", conf["FLAGS"], os.path.join(work, "old" + suffix),
                                         work, units)
                new_objs = compile_units(new_v, conf["NEW_LANG"], new_h, conf["FLAGS"], os.path.join(work, "new" + suffix),
                                         work, units)
            else:
                compile_side(old_v, conf["OLD_LANG"], "old.h", conf["FLAGS"], os.path.join(work, "old" + suffix), work)
                compile_side(new_v, conf["NEW_LANG"], new_h, conf["FLAGS"], os.path.join(work, "new" + suffix), work)
            directions = [("old", "new", expected_txt, expected_json)]
            if conf["REVERSE"] == "yes":
                directions.append(("new", "old", os.path.join(case, "expected-reverse.txt"),
                                   os.path.join(case, "expected-reverse.json")))
            for a, b, want_txt, want_json in directions:
                failures += compare_outputs(tool, conf, variant, suffix, a, b, want_txt, want_json, update, work)
            if units > 1:
                # Each unit against the header as that unit saw it.
                for k, (o, n) in enumerate(zip(old_objs, new_objs), 1):
                    f = conf["FLAGS"] + " -DAU_UNIT=%d" % k
                    checks += crosscheck(tool, o, conf["OLD_LANG"], old_v, "old.h", f, work)
                    checks += crosscheck(tool, n, conf["NEW_LANG"], new_v, new_h, f, work)
            else:
                checks += crosscheck(tool, os.path.join(work, "old" + suffix), conf["OLD_LANG"], old_v, "old.h", conf["FLAGS"], work)
                checks += crosscheck(tool, os.path.join(work, "new" + suffix), conf["NEW_LANG"], new_v, new_h, conf["FLAGS"], work)
        except (subprocess.CalledProcessError, AssertionError) as e:
            failures.append("%s: %s" % (variant, e))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return failures, checks


def show_asserts(view, side, lang):
    """_Static_assert lines for one side of show's JSON view: offsetof(T, a.b) and sizeof of each
    member row that has a path and is no bitfield; the type's own size."""
    info = view["sides"][side]
    if info is None:
        return []
    tname = info["name"]
    out = ["SA(sizeof(%s) == %d);" % (tname, info["size"])] if not info.get("anonymous") else []
    for r in view["rows"]:
        r = r if "row" in r else r["ab"[side]]
        if not r or r["row"] != "member" or not r["path"] or "bit_size" in r:
            continue
        out.append("SA(offsetof(%s, %s) == %d);" % (tname, r["path"], r["offset"]))
        if not r.get("flexible"):
            out.append("SA(sizeof(((%s *)0)->%s) == %d);" % (tname, r["path"], r["size"]))
    return out


def run_show_case(tool, name, update):
    case = os.path.join(SHOW_CASES, name)
    conf = {"A_LANG": "c", "B_LANG": None, "A_FLAGS": "", "B_FLAGS": None, "TYPES": ""}
    for line in open(os.path.join(case, "case.conf")):
        line = line.strip()
        if line and not line.startswith("#"):
            k, _, v = line.partition("=")
            conf[k.strip()] = v.strip()
    two = conf["B_LANG"] is not None or conf["B_FLAGS"] is not None or os.path.exists(os.path.join(case, "b.h"))
    sides = [("a", conf["A_LANG"], conf["A_FLAGS"])]
    if two:
        sides.append(("b", conf["B_LANG"] or conf["A_LANG"], conf["B_FLAGS"] if conf["B_FLAGS"] is not None else conf["A_FLAGS"]))
    types = [t.strip() for t in conf["TYPES"].split(";") if t.strip()]
    failures, checks = [], 0
    for variant in ("gcc", "clang"):
        work = tempfile.mkdtemp(prefix="au-show-")
        try:
            objs = []
            for side, lang, flags in sides:
                header = side + ".h" if os.path.exists(os.path.join(case, side + ".h")) else "a.h"
                shutil.copy(os.path.join(case, header), work)
                compile_side(variant, lang, header, flags, os.path.join(work, side + ".o"), work)
                objs.append(side + ".o")
            txt, js, asserts, views = "", "", {s[0]: [] for s in sides}, {}
            for t in types:
                args = ["show", t] + objs + ["--headers", work]
                txt += "== show %s\n" % t + run_tool(tool, args, work)[1]
                out = run_tool(tool, args + ["--format=json"], work)[1]
                js += out
                view = json.loads(out)["types"][0]
                views[view["name"]] = view
                for i, (side, _, _) in enumerate(sides):
                    asserts[side] += show_asserts(view, i, sides[i][1])
            # `show --all --type T...` (one run for several types, as uapi-check draws its
            # layouts): the same view of each struct and union as `show T`, and no other type.
            some = sorted(t for t in views if not t.startswith("enum "))[:2]
            out = run_tool(tool, ["show", "--all"] + objs + ["--headers", work, "--format=json"]
                           + ["--type=" + t for t in some], work)[1]
            got = {v["name"]: v for v in json.loads(out)["types"]}
            if got != {t: views[t] for t in some}:
                failures.append("%s: show --all --type %s: %s, not the views of show TYPE" % (
                    variant, " --type ".join(some), sorted(got)))
            checks += 1
            if update and variant == "gcc":
                open(os.path.join(case, "expected.txt"), "w").write(txt)
                open(os.path.join(case, "expected.json"), "w").write(js)
            for got, fname in ((txt, "expected.txt"), (js, "expected.json")):
                path = os.path.join(case, fname)
                want = open(path).read() if os.path.exists(path) else None
                if got != want:
                    failures.append("%s: output differs from %s:\n--- expected\n%s--- got\n%s" % (
                        variant, os.path.relpath(path, ROOT), want, got))
            for side, lang, flags in sides:
                header = side + ".h" if os.path.exists(os.path.join(case, side + ".h")) else "a.h"
                src = os.path.join(work, "check-%s%s" % (side, ".cc" if lang == "c++" else ".c"))
                with open(src, "w") as f:
                    f.write('#include <stddef.h>\n#include "%s"\n' % header)
                    f.write("#define SA(x) static_assert(x, #x)\n" if lang == "c++" else "#define SA(x) _Static_assert(x, #x)\n")
                    f.write("\n".join(sorted(set(asserts[side]))) + "\n")
                cc = VARIANTS[variant][1 if lang == "c++" else 0][0]
                p = subprocess.run([cc, "-fsyntax-only"] + flags.split() + [src], cwd=work, capture_output=True, text=True)
                if p.returncode != 0:
                    failures.append("%s: show's offsets disagree with the compiler (%s):\n%s" % (variant, side, p.stderr[:2000]))
                checks += len(set(asserts[side]))
        except (subprocess.CalledProcessError, AssertionError, ValueError) as e:
            failures.append("%s: %s" % (variant, e))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return failures, checks


def main():
    args = sys.argv[1:]
    update = "--update" in args
    if expected_files.update_refused(update):
        return 2
    only = None
    if "--only" in args:
        only = args[args.index("--only") + 1]
        del args[args.index("--only"):args.index("--only") + 2]
    args = [a for a in args if a != "--update"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.abspath(args[0])
    t0 = expected_files.start()
    names = [n for n in sorted(os.listdir(CASES)) if not only or n == only]
    names += ["show/" + n for n in sorted(os.listdir(SHOW_CASES)) if not only or "show/" + n == only]
    passed = failed = checks = 0
    # Cases are independent (each variant has its own scratch directory): run them on every core, and
    # print their results in order. --update writes expected files, so it runs one case at a time.
    jobs = 1 if update else int(os.environ.get("FIXTURES_JOBS") or os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(lambda name: run_show_case(tool, name[5:], update) if name.startswith("show/")
                           else run_case(tool, name, update), names)
        for i, (name, (failures, n)) in enumerate(zip(names, results), 1):
            checks += n
            if failures:
                failed += 1
                print("[%d/%d] FAIL %s" % (i, len(names), name))
                for f in failures:
                    print("    " + f.replace("\n", "\n    "))
            else:
                passed += 1
                print("[%d/%d] ok   %s (%d sizeof/offsetof checks)" % (i, len(names), name, n))
            sys.stdout.flush()
    print("fixtures: %d cases, %d compiler-confirmed sizes and offsets" % (len(names), checks))
    if not names:
        print("fixtures: no case matched")
        return 1
    # A case's expected files written by this run (--update) compare against themselves.
    stale = expected_files.verdict(t0, glob.glob(os.path.join(CASES, "*", "expected*"))
                                   + glob.glob(os.path.join(SHOW_CASES, "*", "expected*")), ROOT, print)
    print("%d passed, %d failed%s" % (passed, failed, ", %d expected files written by this run" % stale if stale else ""))
    return 1 if failed or stale else 0


if __name__ == "__main__":
    sys.exit(main())
