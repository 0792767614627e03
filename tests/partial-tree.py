#!/usr/bin/env python3
"""partial-tree: uapi-check extracts only part of a Debian linux-source tarball
(scripts/kernel-tree --headers). This checks, for each kernel, that the part is enough and is
the part meant:

  - every file of the full tree that uapi_check/fileset.py's needed() selects (the files `make
    headers_install` and the header test read, which --git writes out) is in the partial tree,
    with the same bytes;
  - the partial tree has nothing else but what fileset.py's tar_takes() adds (TAR_WIDER: tar's
    patterns must match in every kernel version);
  - `make headers_install ARCH=x86` installs the same files, with the same bytes, from both trees:
    the full tree is the independent instrument;
  - and that these checks can fail: a copy of the partial tree without one needed file
    (include/uapi/linux/types.h) must be found short by both.

  tests/partial-tree.py [VERSION...]        (default: 6.1 6.12)
Prints counts, sizes and times. Exit 0 all hold, 1 a check fails, 2 cannot run.
"""
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from uapi_check.fileset import needed, tar_takes

DROPPED = "include/uapi/linux/types.h"   # the negative control's missing file: every header needs it


def tree(version, *flags):
    p = subprocess.run([os.path.join(ROOT, "scripts", "kernel-tree"), *flags, version],
                       capture_output=True, text=True)
    if p.returncode != 0:   # cannot run: exit 2 (a failure to meson, never a skip)
        print(f"partial-tree: kernel-tree {' '.join(flags)} {version}: "
              f"{(p.stderr.strip().splitlines() or ['failed'])[-1]}", file=sys.stderr)
        sys.exit(2)
    return p.stdout.strip()


def files(root):
    out = set()
    for d, dirs, names in os.walk(root):
        if d == root:
            dirs[:] = [x for x in dirs if not x.startswith("obj-")]
        links = [x for x in dirs if os.path.islink(os.path.join(d, x))]  # a link to a directory is a file here
        dirs[:] = [x for x in dirs if x not in links]
        for n in names + links:
            rel = os.path.relpath(os.path.join(d, n), root)
            if rel != ".extracted":
                out.add(rel)
    return out


def same(a, b):
    """Same bytes, or the same symlink target (some of scripts/dtc's point outside the partial tree)."""
    if os.path.islink(a) or os.path.islink(b):
        return os.path.islink(a) and os.path.islink(b) and os.readlink(a) == os.readlink(b)
    return filecmp.cmp(a, b, shallow=False)


def install(src, dest):
    subprocess.run(["make", "-s", "-C", src, f"O={dest}/obj", "ARCH=x86", f"INSTALL_HDR_PATH={dest}",
                    f"-j{os.cpu_count() or 2}", "headers_install"], check=True)
    return os.path.join(dest, "include")


def same_dirs(a, b):
    """The relative paths that differ between two directories (missing on a side, or other bytes)."""
    fa, fb = files(a), files(b)
    bad = sorted(fa ^ fb)
    bad += sorted(p for p in fa & fb if not same(os.path.join(a, p), os.path.join(b, p)))
    return bad


def control(version, tmp, part, want, full_include):
    """The negative control: a copy of the partial tree without DROPPED must be found missing a
    needed file, and must not install what the full tree installs. Returns 1 if it is not."""
    short = os.path.join(tmp, "short")
    shutil.copytree(part, short, symlinks=True)
    os.unlink(os.path.join(short, DROPPED))
    missing = want - files(short)
    try:
        bad = same_dirs(full_include, install(short, os.path.join(tmp, "short-install")))
    except subprocess.CalledProcessError:
        bad = ["(headers_install failed)"]
    if missing == {DROPPED} and bad:
        print(f"{version}: without {DROPPED}: found missing, and the install differs "
              f"({len(bad)} paths): the checks can fail")
        return 0
    print(f"FAIL {version}: the negative control without {DROPPED} went unnoticed: "
          f"missing {sorted(missing)[:3]}, install {'differs' if bad else 'identical'}")
    return 1


def size(root, names):
    return sum(os.lstat(os.path.join(root, n)).st_size for n in names)


def main():
    versions = sys.argv[1:] or ["6.1", "6.12"]
    failed = 0
    for v in versions:
        t0 = time.monotonic()
        full, part = tree(v), tree(v, "--headers")
        ffull, fpart = files(full), files(part)
        want = {f for f in ffull if needed(f)}
        missing = sorted(want - fpart)
        unexpected = sorted(f for f in fpart - want if not tar_takes(f))
        differ = sorted(f for f in want & fpart if not same(os.path.join(full, f), os.path.join(part, f)))
        print(f"{v}: full tree {len(ffull)} files, {size(full, ffull) / 1e6:.0f} MB; partial tree {len(fpart)} "
              f"files, {size(part, fpart) / 1e6:.1f} MB ({len(want)} needed, "
              f"{len(fpart - want)} more that the tar patterns take)")
        for what, names in (("needed but not extracted", missing), ("extracted but not needed", unexpected),
                            ("other bytes than the full tree", differ)):
            if names:
                failed += 1
                print(f"FAIL {v}: {len(names)} files {what}: {', '.join(names[:5])}")
        with tempfile.TemporaryDirectory(prefix="partial-tree.") as tmp:
            t1 = time.monotonic()
            a = install(full, os.path.join(tmp, "full"))
            try:
                b = install(part, os.path.join(tmp, "part"))
            except subprocess.CalledProcessError:
                b = os.path.join(tmp, "part", "include")   # fails below: nothing, or not all, installed
                os.makedirs(b, exist_ok=True)
            bad = same_dirs(a, b)
            n = len(files(a))
            print(f"{v}: headers_install ARCH=x86 from each tree: {n} headers, "
                  f"{'identical' if not bad else f'{len(bad)} differ'} ({time.monotonic() - t1:.0f} s)")
            if not n or bad:
                failed += 1
                print(f"FAIL {v}: the installs differ: {', '.join(bad[:5]) or 'nothing installed'}")
            failed += control(v, tmp, part, want, a)
        print(f"{v}: {time.monotonic() - t0:.0f} s")
    print("partial-tree: " + ("all checks hold" if not failed else f"{failed} checks fail"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
