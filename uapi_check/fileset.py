"""The files of a kernel tree that `make headers_install` and the header test read: the one
description of that set. Everything that selects part of a tree is made from PARTS:

  - needed(path): git.py's test of which paths of a commit are written out (--git);
  - pathspecs(): the same as git pathspecs, for the working tree's git status and ls-files;
  - tar_args(): scripts/kernel-tree --headers's tar options and member patterns, which extract
    the same part of a Debian linux-source tarball (the script runs this file: `--tar-args`);
  - tar_takes(path): what those patterns take, in tar's terms, for tests/partial-tree.py.

The files were found by tracing `make headers_install` on 6.1 and 6.12 for x86, arm64, arm,
riscv, s390 and powerpc; whole directories are taken where a kernel version may read more.
tests/fileset.py runs GNU tar on the paths of real trees to check that tar_args() and needed()
agree; tests/partial-tree.py checks the extracted part against a full tree and headers_install.

Standard library only: scripts/kernel-tree runs it as a script, outside the package.
"""
import re
import sys

DIR, FILE = "dir", "file"

# (glob, kind): a path of the tree, from its top. `*` matches within one path component, never a
# `/` (tar's --no-wildcards-match-slash). DIR takes everything under the directory; FILE the paths
# the glob matches.
PARTS = (
    ("Makefile", FILE),
    ("scripts", DIR),
    ("include/uapi", DIR),
    ("usr", DIR),
    ("tools/include", DIR),
    ("arch/*/include/uapi", DIR),
    ("arch/*/Makefile*", FILE),
    ("arch/*/tools", DIR),
    ("arch/*/entry/syscalls", DIR),
    ("arch/*/kernel/syscalls", DIR),
    ("arch/*/kernel/Makefile.syscalls", FILE),
)

# tar fails on a member pattern that matches nothing, so each must match in every kernel version.
# arch/*/kernel/Makefile.syscalls is new in 6.11: in a tarball it is taken as arch/*/kernel/Makefile*,
# which holds arch/*/kernel/Makefile too (a few small files more than needed).
TAR_WIDER = {"arch/*/kernel/Makefile.syscalls": "arch/*/kernel/Makefile*"}


def _glob(glob):
    """The regular expression of a glob whose `*` and `?` never match a `/`."""
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in glob)


_NEEDED = re.compile("|".join(_glob(g) + ("/.+" if kind == DIR else "") for g, kind in PARTS), re.S)
# tar takes a member whose name, or one of whose leading directories, a pattern matches.
_TAR = re.compile("|".join("(?:" + _glob(TAR_WIDER.get(g, g)) + ")(?:/.*)?" for g, _ in PARTS), re.S)


def needed(path):
    """Is this file of a kernel tree (a path from its top) read by headers_install or the header test?"""
    return bool(_NEEDED.fullmatch(path))


def pathspecs():
    """git pathspecs of the same parts, so that git lists (and walks) nothing else. Glob magic:
    `*` never matches a `/`, as in needed(); a DIR's `/**` takes everything under it; top: from
    the top of the working tree, wherever git runs."""
    return [f":(top,glob){g}/**" if kind == DIR else f":(top,glob){g}" for g, kind in PARTS]


def tar_takes(path):
    """Does scripts/kernel-tree --headers extract this path (from the tree's top)? All that
    needed() selects, and the few files TAR_WIDER adds."""
    return bool(_TAR.fullmatch(path))


def tar_args():
    """tar's options and member patterns for the part of a linux-source tarball: */ is the
    tarball's top directory; a pattern that names a directory takes all of it."""
    return ["--wildcards", "--no-wildcards-match-slash"] + ["*/" + TAR_WIDER.get(g, g) for g, _ in PARTS]


if __name__ == "__main__":
    if sys.argv[1:] != ["--tar-args"]:
        print("usage: fileset.py --tar-args", file=sys.stderr)
        sys.exit(2)
    print("\n".join(tar_args()))
