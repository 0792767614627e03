#!/usr/bin/env python3
"""Correct numbers for foreign and big-endian objects: for each architecture, compile a set of
UAPI headers with its cross compiler (-g), read the object with abidiff-uapi, and check every
struct and union size, and every member offset the tool reports, two independent ways:

  - a C unit of _Static_assert(sizeof(...) == N) and _Static_assert(offsetof(...) == N), built
    from the tool's numbers and compiled by the same cross compiler (nothing runs);
  - pahole (dwarves), another DWARF reader, over the same object (tests/pahole-crosscheck.py),
    which also checks bitfields' bit offsets and widths (offsetof cannot take a bitfield).

Each run first proves that the assertions can fail: the same unit with one size off by one must
not compile.

Usage: tests/arch/layouts.py ABIDIFF_UAPI [ARCH...]   (default: every architecture of uapi-check)
A missing cross compiler fails the test and names `scripts/install-deps cross-ARCH`."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from uapi_check.arch import ARCHES, compiler_commands, lookup

# Headers chosen for what differs between ABIs: long and pointer width (sysinfo, usbdevice_fs),
# 8-byte alignment (input, ethtool, fiemap), byte-order-dependent padding (aio_abi) and bitfields
# (bpf_insn, iphdr, tcphdr, perf_event_attr), time types (time_types), unions (bpf_attr).
HEADERS = ["linux/aio_abi.h", "linux/bpf.h", "linux/ethtool.h", "linux/fiemap.h", "linux/input.h",
           "linux/ip.h", "linux/tcp.h", "linux/perf_event.h", "linux/sysinfo.h", "linux/time_types.h",
           "linux/usbdevice_fs.h", "linux/if_packet.h", "linux/stat.h", "linux/btrfs.h",
           "linux/blkzoned.h", "linux/signalfd.h", "linux/fs.h"]
IDENT = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def sh(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def members(ms, base):
    """(name, byte offset) of every named, non-bitfield member reachable by name from the type
    (members of anonymous structs and unions are lifted, as C does)."""
    for m in ms:
        if m.get("name") is None:
            if m.get("members"):
                yield from members(m["members"], base)  # the tool gives absolute offsets
        elif m.get("bit_size") is None:
            yield m["name"], base + m["offset"]


def assertions(types, plant=False):
    lines = ["#include <stddef.h>"] + [f"#include <{h}>" for h in HEADERS]
    n = 0
    for t in types:
        size = t["size"] + (1 if plant and n == 0 else 0)
        name = t["name"]
        lines.append(f"_Static_assert(sizeof({name}) == {size}, \"{name} size\");")
        n += 1
        for m, off in members(t.get("members") or [], 0):
            lines.append(f"_Static_assert(offsetof({name}, {m}) == {off}, \"{name}.{m}\");")
            n += 1
    return "\n".join(lines) + "\n", n


def check_arch(tool, arch, work):
    cc = compiler_commands(arch)["c"]
    if not shutil.which(cc):
        return [f"{arch.debian}: {cc} not found (scripts/install-deps {arch.group or 'tool'})"]
    src, obj = os.path.join(work, "unit.c"), os.path.join(work, "unit.o")
    with open(src, "w") as f:
        f.write("".join(f"#include <{h}>\n" for h in HEADERS))
    p = sh([cc, "-std=gnu11", "-g", "-fno-eliminate-unused-debug-types", "-c", src, "-o", obj])
    if p.returncode:
        return [f"{arch.debian}: the unit does not compile: {p.stderr.strip().splitlines()[:1]}"]
    p = sh([tool, "dump", obj, "--format=json"])
    if p.returncode:
        return [f"{arch.debian}: {tool} dump: {p.stderr.strip()}"]
    seen, types = set(), []
    for t in json.loads(p.stdout)["types"]:
        name = t["name"]
        if t["kind"] not in ("struct", "union") or not set(name.split(" ", 1)[-1]) <= IDENT:
            continue
        if "/linux/" not in (t.get("file") or "") and "/asm" not in (t.get("file") or ""):
            continue
        if name in seen:
            continue
        seen.add(name)
        types.append(t)
    errors = []
    text, n = assertions(types)
    chk = os.path.join(work, "asserts.c")
    with open(chk, "w") as f:
        f.write(text)
    p = sh([cc, "-std=gnu11", "-fsyntax-only", chk])
    if p.returncode:
        bad = [ln for ln in p.stderr.splitlines() if "static assertion failed" in ln]
        errors.append(f"{arch.debian}: {len(bad)} of {n} sizes/offsets disagree with {cc}: "
                      + "; ".join(bad[:5]))
    planted, _ = assertions(types, plant=True)
    with open(chk, "w") as f:
        f.write(planted)
    if sh([cc, "-std=gnu11", "-fsyntax-only", chk]).returncode == 0:
        errors.append(f"{arch.debian}: a size planted off by one compiles: the assertions check nothing")
    p = sh([sys.executable, os.path.join(ROOT, "tests", "pahole-crosscheck.py"), tool, obj])
    if p.returncode:
        errors.append(f"{arch.debian}: pahole disagrees: {(p.stdout + p.stderr).strip()[-400:]}")
    print(f"{arch.debian}: {len(types)} types, {n} sizes and offsets asserted with {cc} "
          f"(_Static_assert); pahole: {p.stdout.strip().splitlines()[-1] if p.stdout.strip() else '?'}",
          flush=True)
    return errors


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    tool = argv[0]
    arches = [lookup(a) for a in argv[1:]] or list(ARCHES.values())
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for arch in arches:
            work = os.path.join(tmp, arch.debian)
            os.makedirs(work)
            errors += check_arch(tool, arch, work)
    for e in errors:
        print(f"FAIL {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
