#!/usr/bin/env python3
"""Seeded corruption sweep: damage random bytes of .debug_info (and of the
abbreviations and strings) in objects built from the fixture headers, and
require that abidiff-uapi either reads them (exit 0) or rejects them with
exit 2 and one line on stderr naming the file; never a crash, a hang or a
sanitizer report. Deterministic for a given seed, so a failure reproduces.
(The libFuzzer campaign goes further; this is the always-on floor.)

Usage: corrupt-sweep.py ABIDIFF_UAPI [ITERATIONS] [SEED]
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sections(path):
    out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        line = line.split("]", 1)[-1].split()
        if len(line) > 5 and line[0] in (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line"):
            found[line[0]] = (int(line[3], 16), int(line[4], 16))
    return found


def build(work):
    """One shared object with a compile unit per fixture header, gcc and clang."""
    objs = []
    cases = os.path.join(ROOT, "fixtures", "cases")
    for i, case in enumerate(sorted(os.listdir(cases))):
        hdr = os.path.join(cases, case, "new.h")
        if not os.path.exists(hdr):
            hdr = os.path.join(cases, case, "old.h")
        src = os.path.join(work, "u%d.c" % i)
        with open(src, "w") as f:
            f.write('#include "%s"\n' % hdr)
        cc = "clang" if i % 2 else "gcc"
        obj = os.path.join(work, "u%d.o" % i)
        subprocess.run([cc, "-g", "-fPIC", "-fno-eliminate-unused-debug-types", "-c", src, "-o", obj], check=True)
        objs.append(obj)
    so = os.path.join(work, "all.so")
    subprocess.run(["gcc", "-shared", "-nostdlib", "-o", so] + objs, check=True)
    return [so, objs[0], objs[1]]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261203
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="au-sweep-")
    bad = 0
    counts = {0: 0, 2: 0}
    try:
        seeds = build(work)
        for i in range(iterations):
            src = seeds[i % len(seeds)]
            data = bytearray(open(src, "rb").read())
            secs = sections(src)
            names = sorted(secs)
            for _ in range(rng.randint(1, 6)):
                off, size = secs[rng.choice(names)]
                pos = off + rng.randrange(size)
                data[pos] = rng.randrange(256)
            target = os.path.join(work, "case-%d%s" % (i, os.path.splitext(src)[1]))
            open(target, "wb").write(data)
            args = ["dump", target] if i % 3 else ["diff", src, target]
            try:
                p = subprocess.run([tool] + args, capture_output=True, timeout=60,
                                   env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=99",
                                            UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=99"))
            except subprocess.TimeoutExpired:
                bad += 1
                print("FAIL iteration %d: hang (kept %s)" % (i, target))
                continue
            rc = p.returncode if args[0] == "dump" else (0 if p.returncode == 1 else p.returncode)
            stderr = p.stderr.decode("utf-8", "replace")
            one_line = stderr.count("\n") == 1 and target in stderr
            if rc == 0 or (rc == 2 and one_line):
                counts[rc] += 1
                os.unlink(target)
            else:
                bad += 1
                keep = os.path.join(tempfile.gettempdir(), "au-sweep-fail-%d-%d" % (seed, i))
                shutil.copy(target, keep)
                print("FAIL iteration %d: exit %d, kept %s\n%s" % (i, p.returncode, keep, stderr[:1500]))
        print("corrupt-sweep: seed %d, %d objects: %d read, %d rejected cleanly, %d bad" % (
            seed, iterations, counts[0], counts[2], bad))
        print("%d passed, %d failed" % (iterations - bad, bad))
        return 1 if bad else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
