#!/usr/bin/env python3
"""The options each program has, by its own table, named exactly by its man page and its bash
completion: main.c's getopt_long table for abidiff-uapi, the argparse parser (its --help) for
uapi-check. A new option left out of either, or a stale one left in, fails here; so does
uapi-check --help naming a driver module (internal, not for users), and an option that
docs/options.md does not name in its program's part.

Usage: tests/options.py SOURCE_DIR"""
import re
import subprocess
import sys
from pathlib import Path


def c_options(main_c):
    """Long options of main.c's `struct option longopts[]` table, and the short ones of its
    optstring: the program's own list."""
    src = main_c.read_text()
    table = re.search(r"struct option longopts\[\] = \{(.*?)\n\t\};", src, re.S).group(1)
    opts = {"--" + n for n in re.findall(r'\{ "([a-z0-9-]+)",', table)}
    short = re.search(r'getopt_long\(argc, argv, "([^"]*)"', src).group(1)
    return opts | {"-" + c for c in short if c.isalnum()}


def py_options(top):
    """uapi-check's options as its argparse parser lists them in --help."""
    out = subprocess.run([sys.executable, str(top / "uapi-check"), "--help"], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    opts = set()
    for line in out.splitlines():
        if re.match(r"  -", line):
            opts |= set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", line.split("  ")[1]))
    return opts, out


def man_options(scd):
    """The options a man page documents: its option headings (a line starting with *-...*)."""
    opts = set()
    for line in scd.read_text().splitlines():
        if line.startswith("*-"):
            opts |= set(re.findall(r"\*(--?[a-zA-Z][\w-]*)\*", line))
    return opts


def completion_options(path, function):
    """The options bash completion offers in one function's word list (-W "..." holding an option)."""
    body = re.search(rf"{function}\(\) \{{(.*?)\n\}}", path.read_text(), re.S).group(1)
    opts = set()
    for words in re.findall(r'compgen -W "([^"]*)"', body):
        opts |= {w.rstrip("=") for w in words.split() if w.startswith("-")}
    return opts


def doc_options(md):
    """The options docs/options.md names in each program's part: (uapi-check's, abidiff-uapi's)."""
    text = md.read_text()
    head = "## `abidiff-uapi`: the tool"
    if head not in text:
        raise SystemExit(f"{md}: no heading '{head}' (the page's two parts cannot be told apart)")
    parts = text.split(head)
    return [set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", p)) for p in parts]


def differ(what, want, got):
    errs = []
    if want - got:
        errs.append(f"{what}: missing {' '.join(sorted(want - got))}")
    if got - want:
        errs.append(f"{what}: names options the program does not have: {' '.join(sorted(got - want))}")
    return errs


def main(top):
    man, comp = top / "abidiff-uapi" / "man", top / "abidiff-uapi" / "completion" / "abidiff-uapi"
    c = c_options(top / "abidiff-uapi" / "main.c")
    py, help_text = py_options(top)
    # -h is argparse's short spelling of --help; the man page and completion name --help.
    errs = differ("abidiff-uapi.1.scd", c, man_options(man / "abidiff-uapi.1.scd"))
    errs += differ("completion (abidiff-uapi)", c - {"-o"}, completion_options(comp, "_abidiff_uapi"))
    errs += differ("uapi-check.1.scd", py - {"-h", "--help"}, man_options(man / "uapi-check.1.scd"))
    errs += differ("completion (uapi-check)", py - {"-h"}, completion_options(comp, "_uapi_check"))
    doc_py, doc_c = doc_options(top / "docs" / "options.md")
    # The page's prose names other programs' options too (gcc's -gsplit-dwarf): only a missing
    # option counts.
    for what, want, named in (("uapi-check", py, doc_py), ("abidiff-uapi", c, doc_c)):
        if want - named:
            errs.append(f"docs/options.md ({what}'s part): missing {' '.join(sorted(want - named))}")
    modules = sorted(set(re.findall(r"\b[a-z_]+\.py\b", help_text)))
    if modules:
        errs.append(f"uapi-check --help names internal modules: {' '.join(modules)}")
    for e in errs:
        print(e)
    print(f"{len(c)} abidiff-uapi options, {len(py)} uapi-check options: "
          f"{'ok' if not errs else f'{len(errs)} differences'}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)))
