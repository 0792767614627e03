#!/usr/bin/env python3
"""fileset: uapi_check/fileset.py describes once the files of a kernel tree that headers_install
reads; scripts/kernel-tree --headers extracts them with tar_args(), and --git writes out the
paths needed() selects. This checks, with GNU tar itself as the instrument, that both agree on
every path of real trees (the full Debian linux-source trees, scripts/kernel-tree VERSION):

  - a tar archive is made of the tree's paths (empty files, links and directories, under a top
    directory as in Debian's tarball), and `tar -t tar_args()` lists what tar would extract;
  - each path needed() selects is listed, and each listed path is needed() or one of the few that
    TAR_WIDER adds (fileset.tar_takes(), which tests/partial-tree.py uses, must say the same);
  - the check can fail: with one pattern left out of tar's arguments, it must find paths missing.

  tests/fileset.py [VERSION...]        (default: 6.1 6.12)
Exit 0 all hold, 1 a check fails, 2 cannot run.
"""
import os
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from uapi_check.fileset import needed, tar_args, tar_takes  # noqa: E402

TOP = "linux-source"


def full_tree(version):
    p = subprocess.run([os.path.join(ROOT, "scripts", "kernel-tree"), version], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"fileset: kernel-tree {version}: {(p.stderr.strip().splitlines() or ['failed'])[-1]}",
              file=sys.stderr)
        sys.exit(2)
    return p.stdout.strip()


def paths(root):
    """Every path of the tree, from its top: (path, kind), kind one of file, link, dir."""
    out = []
    for d, dirs, names in os.walk(root):
        for n in dirs + names:
            full = os.path.join(d, n)
            rel = os.path.relpath(full, root)
            if d == root and (n.startswith("obj-") or n == ".extracted"):
                continue
            out.append((rel, "link" if os.path.islink(full) else "dir" if n in dirs else "file"))
        dirs[:] = [x for x in dirs if not os.path.islink(os.path.join(d, x))
                   and not (d == root and x.startswith("obj-"))]
    return out


def archive(entries, dest):
    """An uncompressed tar of the paths alone, under TOP/, as Debian's tarball has them."""
    with tarfile.open(dest, "w", format=tarfile.GNU_FORMAT) as t:
        top = tarfile.TarInfo(TOP)
        top.type = tarfile.DIRTYPE
        t.addfile(top)
        for rel, kind in entries:
            i = tarfile.TarInfo(f"{TOP}/{rel}")
            if kind == "dir":
                i.type = tarfile.DIRTYPE
            elif kind == "link":
                i.type, i.linkname = tarfile.SYMTYPE, "target"
            t.addfile(i)


def listed(tar, args):
    """The non-directory members `tar -t` lists with these arguments (paths from the tree's top)."""
    p = subprocess.run(["tar", "-tf", tar, *args], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1:] or ["tar failed"]
    return {n.split("/", 1)[1] for n in p.stdout.splitlines() if not n.endswith("/") and "/" in n}, []


def compare(files, got):
    """What disagrees between tar's listing and fileset.py's functions, as printable lines."""
    want = {f for f in files if needed(f)}
    bad = []
    for what, names in (("needed() selects but tar does not take", want - got),
                        ("tar takes but neither needed() nor TAR_WIDER selects",
                         {f for f in got - want if not tar_takes(f)}),
                        ("tar takes but tar_takes() says not", {f for f in got if not tar_takes(f)}),
                        ("tar_takes() says taken but tar does not", {f for f in files if tar_takes(f)} - got)):
        if names:
            bad.append(f"{len(names)} paths {what}: {', '.join(sorted(names)[:5])}")
    return bad


def main():
    versions = sys.argv[1:] or ["6.1", "6.12"]
    args = tar_args()
    patterns = [a for a in args if not a.startswith("--")]
    failed = 0
    for v in versions:
        t0 = time.monotonic()
        entries = paths(full_tree(v))
        files = {rel for rel, kind in entries if kind != "dir"}
        with tempfile.TemporaryDirectory(prefix="fileset.") as tmp:
            tar = os.path.join(tmp, "names.tar")
            archive(entries, tar)
            got, err = listed(tar, args)
            if got is None:
                failed += 1
                print(f"FAIL {v}: tar -t {' '.join(args)}: {err[0]}")
                continue
            bad = compare(files, got)
            print(f"{v}: {len(files)} paths; tar takes {len(got)}, needed() {sum(map(needed, files))}: "
                  f"{'agree' if not bad else 'disagree'}")
            for line in bad:
                failed += 1
                print(f"FAIL {v}: {line}")
            # The negative control: without a pattern (include/uapi, the headers themselves), tar
            # takes fewer paths, and the comparison must say so.
            dropped = "*/include/uapi"
            short, err = listed(tar, [a for a in args if a != dropped])
            if dropped not in patterns or short is None or not compare(files, short):
                failed += 1
                print(f"FAIL {v}: without {dropped}, the comparison found nothing wrong "
                      f"({err[0] if err else 'the check cannot fail'})")
            else:
                print(f"{v}: without {dropped}: {len(got - short)} paths found missing: the check can fail")
        print(f"{v}: {time.monotonic() - t0:.1f} s")
    print("fileset: " + ("all checks hold" if not failed else f"{failed} checks fail"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
