#!/usr/bin/python3
"""function-length: no function of the C core (abidiff-uapi/*.c; not fuzz/, not tests/) is longer
than LIMIT lines, from its first line (the return type) to its closing brace. The functions and
their end lines come from Universal Ctags (--fields=+ne, JSON output), a real C parser, not from
regular expressions here.

The checker first checks itself: on a generated file holding one function of LIMIT lines and one
of LIMIT + 1, it must report exactly the second; and every .c file of the core must give it at
least one function with an end line (so a ctags that parses nothing cannot pass).

Usage: tests/function-length.py SOURCE_ROOT [LIMIT]   (LIMIT defaults to 120)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile


def functions(paths):
    """(path, name, first line, last line) of every function definition in paths."""
    p = subprocess.run(["ctags", "--output-format=json", "--languages=C", "--kinds-C=f", "--fields=+ne",
                        "-o", "-"] + paths, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("function-length: ctags failed (exit %d): %s" % (p.returncode, p.stderr.strip()))
    out = []
    for line in p.stdout.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag.get("kind") != "function":
            continue
        if "end" not in tag:
            sys.exit("function-length: %s: ctags gave no end line for %s" % (tag["path"], tag["name"]))
        out.append((tag["path"], tag["name"], tag["line"], tag["end"]))
    return out


def too_long(funcs, limit):
    return [(path, name, first, last - first + 1) for path, name, first, last in funcs
            if last - first + 1 > limit]


def self_test(limit):
    def body(name, lines):   # a function of exactly `lines` lines
        return "static int %s(int x)\n{\n%s\treturn x;\n}\n" % (name, "\tx++;\n" * (lines - 4))

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "probe.c")
        with open(path, "w") as f:
            f.write(body("at_limit", limit) + "\n" + body("over_limit", limit + 1))
        got = [name for _, name, _, _ in too_long(functions([path]), limit)]
    if got != ["over_limit"]:
        sys.exit("function-length: self-test: expected only over_limit (%d lines) over %d, got %s"
                 % (limit + 1, limit, got))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    root = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) == 3 else 120
    if not shutil.which("ctags"):
        sys.exit("function-length: ctags is missing (universal-ctags: scripts/install-deps test)")
    self_test(limit)
    paths = sorted(glob.glob(os.path.join(root, "abidiff-uapi", "*.c")))
    if not paths:
        sys.exit("function-length: no abidiff-uapi/*.c under %s" % root)
    funcs = functions(paths)
    empty = sorted(set(paths) - {path for path, _, _, _ in funcs})
    if empty:
        sys.exit("function-length: ctags found no function in %s" % ", ".join(empty))
    bad = too_long(funcs, limit)
    for path, name, first, n in bad:
        print("%s:%d: %s is %d lines (limit %d)" % (os.path.relpath(path, root), first, name, n, limit))
    longest = max(funcs, key=lambda f: f[3] - f[2])
    print("function-length: %d functions in %d files; longest %s (%s), %d lines; limit %d"
          % (len(funcs), len(paths), longest[1], os.path.relpath(longest[0], root), longest[3] - longest[2] + 1,
             limit))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
