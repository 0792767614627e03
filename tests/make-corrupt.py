#!/usr/bin/env python3
"""make-corrupt: rebuild the crash-regression inputs of fixtures/corrupt/ from a fixture header.

Each input is a real clang DWARF 5 object with one planted defect, of the kind a fuzzing campaign
found (fixtures/corrupt/README.md): the last byte of .debug_str or .debug_line_str overwritten, so
that the section no longer ends in a NUL. The objects are committed (they are the regression
inputs); this script says how they were made and can make them again.

Usage: tests/make-corrupt.py OUTDIR
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sections(data):
    """{name: (offset, size)} of an ELF64 little-endian object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit("make-corrupt: not an ELF64 little-endian object")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_off = heads[shstrndx][4]
    out = {}
    for h in heads:
        end = data.index(b"\0", names_off + h[0])
        out[data[names_off + h[0]:end].decode()] = (h[4], h[5])
    return out


def unterminated(obj, section, dest):
    data = bytearray(open(obj, "rb").read())
    off, size = sections(data)[section]
    if size == 0 or data[off + size - 1] != 0:
        raise SystemExit(f"make-corrupt: {section} of {obj} is empty or already unterminated")
    data[off + size - 1] = ord("A")
    with open(dest, "wb") as f:
        f.write(data)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="au-corrupt-")
    try:
        obj = os.path.join(work, "bitfields.o")
        subprocess.run(["clang", "-gdwarf-5", "-fno-eliminate-unused-debug-types", "-x", "c", "-c",
                        os.path.join(ROOT, "fixtures", "cases", "bitfields", "old.h"), "-o", obj], check=True)
        unterminated(obj, ".debug_str", os.path.join(out, "unterminated-debug-str.o"))
        unterminated(obj, ".debug_line_str", os.path.join(out, "unterminated-debug-line-str.o"))
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
