"""#define constants of installed UAPI headers, evaluated by the compiler.

Half of the UAPI is constants: syscall numbers, flags, netlink attribute ids, generic-netlink
family names, version numbers. This module finds every object-like macro a unit's headers define
and has the compiler decide which are constants and what they are worth; nothing here evaluates
an expression.

  find_constants     the object-like macros defined under the include dir (the preprocessor's
                     -dD), each expanded alone (-P) to sort out what cannot be a constant:
                     empty macros (include guards, #ifdef flags), a name that expands to itself
                     (the enumerator of that name carries the value), text that is no
                     expression (`;`, braces), and the ioctl requests (built from _IOC),
                     which the ioctl step judges. A macro whose expansion is string
                     literals is a string candidate, any other an integer candidate.
  check_constants    compiles every candidate on its own line, in rounds (as the ioctl step
                     does), and takes out each that does not compile with the compiler's first
                     error as its reason: a type, a float (`enum` rejects it), an expression
                     that needs a kernel-only name, a variable in C++ (`constexpr` rejects it).
  unit_source        the headers, then per constant, after a #line naming its header and line:
                       C:   static const __typeof__((NAME)) __abidiff_uapi_define__NAME = (NAME);
                       C++: static constexpr __typeof__((NAME)) __abidiff_uapi_define__NAME = (NAME);
                       strings: static const char __abidiff_uapi_define__NAME[] = NAME;
                     with an anonymous enum beside each integer, so that only an integer
                     constant expression passes. Compiled with -O1 -g, gcc and g++ give each
                     variable a DW_AT_const_value (the integer, or the string's bytes) and the
                     header and line of the #line as its declaring place; abidiff-uapi reads
                     them as `#define NAME` constants (docs/constants.md) and compares them
                     with the enums of the same side.
  print_constants    the independent instrument: a program that includes the same headers and
                     printf()s each value (tests).

Command line (the printer, for a person to compare with):
  python3 -m uapi_check.constants [--print] [--cc gcc] INCLUDE_DIR HEADER...
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tempfile
from typing import NamedTuple

from .macros import (_DIAG, IOC_MARK, TYPE_MARK, MacroError, _first_error, _includes, _language, _run,
                     run_printer, scan)

VAR_PREFIX = "__abidiff_uapi_define__"
_CHECK_PREFIX = "__abidiff_uapi_check__"
_STRINGS = re.compile(r'\s*(?:(?:u8)?"(?:[^"\\\n]|\\.)*"\s*)+')
DEBUG_FLAGS = ["-O1", "-g"]
_UNDECLARED = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)' (?:undeclared|was not declared)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LINE_LOCAL = re.compile(r"undeclared|was not declared|is not an integer constant|not a constant expression|"
                         r"initializer element is not constant|incomplete type|must have integral")

# Why a macro is not a constant, in the words of the report (the compiler's own reasons are
# grouped under "does not compile as a constant").
EMPTY = "empty (an include guard or a flag for #ifdef)"
ITSELF = "expands to its own name (the enumerator of that name carries the value)"
NOT_EXPRESSION = "not an expression (a statement, braces or unbalanced parentheses)"
EXCLUDED = "built from _IOC: an ioctl request number, which the ioctl step judges"
FUNCTION_LIKE = "function-like"
NOT_CONSTANT = "does not compile as an integer constant expression or a string"


class Constant(NamedTuple):
    """A candidate (a tuple: 27k of them are made per unit, and a dataclass costs more)."""
    name: str             # "O_CLOEXEC"
    header: str           # "asm-generic/fcntl.h", relative to the include dir
    line: int
    string: bool = False  # its expansion is string literals
    text: str = ""        # its expansion, as the preprocessor gave it (whitespace folded)


@functools.lru_cache(maxsize=None)
def _balanced_text(text):
    depth = 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def find_constants(cc: str, include_dir: str, headers: list[str],
                   flags: list[str], sc=None) -> tuple[list[Constant], dict[str, str]]:
    """The candidates (header and line order) and {name: reason} of the macros that cannot be
    constants before any compile: empty, self-naming, no expression, excluded, function-like
    (those defined under the include dir). sc: the unit's scan, when the caller has it."""
    sc = sc or scan(cc, include_dir, headers, flags)
    defs, function_like = sc.defs, sc.function_like
    found, rejected = [], {}
    expansions = sc.expansions
    for header, line, name in sorted((h, n, name) for name, (h, n) in defs.items()):
        text = expansions[name]
        reason = _verdict(name, text)
        if reason:
            rejected[name] = reason
        else:
            found.append(_constant(name, header, line, text))
    for name in set(function_like) - set(defs):
        rejected.setdefault(name, FUNCTION_LIKE)
    return found, dict(sorted(rejected.items()))


_NO_EXPRESSION = re.compile(r"[;{}]")


@functools.lru_cache(maxsize=None)
def _verdict(name, text):
    """Why a macro that expands to text cannot be a constant, or None. Remembered per name and
    text: the C and C++ units of both sides share nearly all of them."""
    if IOC_MARK in text or TYPE_MARK in text:
        return EXCLUDED
    if not text:
        return EMPTY
    if text == name:
        return ITSELF
    if _NO_EXPRESSION.search(text) or not _balanced_text(text):
        return NOT_EXPRESSION
    return None


@functools.lru_cache(maxsize=None)
def _constant(name, header, line, text):
    """One candidate, made once per process for each definition and expansion."""
    return Constant(name, header, line, bool(_STRINGS.fullmatch(text)), text)


def _declaration(k: Constant, lang: str, value: str | None = None) -> str:
    """One constant's line: a variable the compiler must be able to initialise at compile time.
    value: what initialises it, the macro's name (default) or its expansion."""
    v = value or k.name
    if k.string:
        return f"static const char {VAR_PREFIX}{k.name}[] = {v};"
    storage = "static constexpr" if lang == "c++" else "static const"
    return (f"enum {{ {_CHECK_PREFIX}{k.name} = ({v}) }}; "
            f"{storage} __typeof__(({v})) {VAR_PREFIX}{k.name} = ({v});")


_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\b0[xX][0-9a-fA-F]+[uUlL]*\b|\b[0-9]+[uUlL]*\b')
_WORD = re.compile(r"[A-Za-z_]")


def self_contained(k: Constant) -> bool:
    """Whether the expansion names nothing (literals and operators only, `(1UL << 3)`,
    `"nl80211"`): then its value, and whether it is a constant at all, follow from its text, the
    language, the compiler and the flags alone, and it compiles without the headers
    (compile_self_contained). Nine in ten of a UAPI's constants are such."""
    return _names_nothing(k.text)


@functools.lru_cache(maxsize=None)
def _names_nothing(text):
    """self_contained's test, remembered per text (the C and C++ units share nearly all)."""
    return not _WORD.search(_LITERAL.sub(" ", text))


def compile_self_contained(cc: str, flags: list[str], constants: list[Constant], include_dir: str,
                           obj: str, cwd: str, extra=(), max_rounds: int = 5):
    """Compile self-contained constants without any header, each from its expansion, after a
    #line naming its header (include_dir/header, as the layout unit names it) and line, into obj.
    A constant whose line fails is taken out with the compiler's first error, and the rest
    compiled again. Returns (kept, {name: reason}). An error on no constant's line raises
    MacroError. Errors are cheap here: with no header there is no declaration to suggest."""
    return compile_expansions(cc, flags, constants, include_dir, obj, cwd, (), extra, max_rounds)


def compile_expansions(cc: str, flags: list[str], constants: list[Constant], include_dir: str,
                       obj: str, cwd: str, headers=(), extra=(), max_rounds: int = 5):
    """Compile constants from their expansions (the text the all-headers unit's preprocessor
    gave), after #include lines for headers (none for self-contained constants; the constants'
    own headers for those that name types or enumerators), each after a #line naming its header
    and line, into obj. A constant whose line fails is taken out with the compiler's first
    error, and the rest compiled again. Returns (kept, {name: reason}). An error on no
    constant's line (in a header) raises MacroError."""
    lang = _language(cc, flags)
    src = os.path.splitext(obj)[0] + (".cc" if lang == "c++" else ".c")
    # Each header's path once (a group has thousands of constants and a few hundred headers).
    where = {h: os.path.join(include_dir, h) for h in {k.header for k in constants}}
    quoted = {h: p.replace("\\", "\\\\").replace('"', '\\"') for h, p in where.items()}
    inc = ["-I", include_dir] if headers else []
    kept, bad = list(constants), {}
    for _ in range(max_rounds):
        by_line = {(where[k.header], k.line): k for k in kept}
        with open(src, "w") as f:
            f.write(_includes(headers) + "".join(f'#line {k.line} "{quoted[k.header]}"\n{_declaration(k, lang, k.text)}\n'
                                                 for k in kept))
        rc, _, err = _run([cc, *flags, *DEBUG_FLAGS, *extra, *inc, "-x", lang, "-w", "-fdiagnostics-plain-output",
                           "-fmax-errors=0", "-c", src, "-o", obj], cwd=cwd)
        if rc == 0:
            return kept, bad
        more = {}
        for line in err.splitlines():
            m = _DIAG.match(line)
            if not m or m.group(3) not in ("error", "fatal error"):
                continue
            k = by_line.get((m.group(1), int(m.group(2))))
            if k is None:
                raise MacroError(f"the constants do not compile outside their lines: {line.strip()}")
            more.setdefault(k.name, m.group(4).strip())
        if not more:
            raise MacroError(f"the constants do not compile: {_first_error(err)}")
        more.update(_same_undeclared(kept, more))
        bad.update(more)
        kept = [k for k in kept if k.name not in more]
    raise MacroError(f"the constants still fail after {max_rounds} rounds")


def _same_undeclared(kept, failed):
    """{name: reason} of the constants of kept, not in failed, that name an identifier one of
    failed's reasons calls undeclared. gcc names an undeclared identifier once per unit (at file
    scope, C): every other constant that expands to it fails for the same reason (si_pid,
    si_uid... all use _sifields), and would otherwise cost a round each."""
    undeclared = {m.group(1): r for r in failed.values() for m in [_UNDECLARED.match(r)] if m}
    if not undeclared:
        return {}
    same = {}
    for x in kept:
        if x.name not in failed:
            hit = next((w for w in _IDENT.findall(x.text) if w in undeclared), None)
            if hit:
                same[x.name] = undeclared[hit]
    return same


def unit_source(constants: list[Constant], headers: list[str], include_dir: str, lang: str) -> str:
    """The headers, then each constant on a line of its own after a #line that names its
    header (as the compiler names it: include_dir/header) and line."""
    parts = [_includes(headers)]
    for k in constants:
        path = os.path.join(include_dir, k.header).replace("\\", "\\\\").replace('"', '\\"')
        parts.append(f'#line {k.line} "{path}"\n{_declaration(k, lang)}\n')
    return "".join(parts)


def _check_source(constants, headers, lang, macro_names):
    """The syntax check's unit: the headers, every macro they define taken away again, then one
    line per constant, from its expansion (a diagnostic's line, after the #line, is the
    constant's index). The tokens are those its name expands to, so the verdict is the same;
    but with no macro left, an error costs the compiler less: gcc looks for a name to suggest
    among the declarations and every macro (27k in a whole UAPI), 1.3 of the 3 s that the C
    unit's first check took on 6.1."""
    return "".join([_includes(headers), *(f"#undef {n}\n" for n in macro_names), f"#line {len(headers) + 1}\n",
                    *(_declaration(k, lang, k.text) + "\n" for k in constants)])


def _failing_lines(cc, include_dir, headers, flags, constants, path, macro_names):
    """{index in constants: first error} of the check unit (macro_names: what _check_source
    takes away). An error that the compiler places in a header (a token of the macro's own
    definition) is attributed to the unit line named by the 'in expansion of macro' note that
    follows it; an error that no line of the unit explains raises MacroError."""
    lang = _language(cc, flags)
    with open(path, "w") as f:
        f.write(_check_source(constants, headers, lang, macro_names))
    rc, _, err = _run([cc, *flags, "-I", include_dir, "-x", lang, "-fsyntax-only",
                       "-fdiagnostics-plain-output", "-fmax-errors=0", "-w", path])
    if rc == 0:
        return {}
    first = len(headers) + 1
    unit = os.path.realpath(path)
    bad, pending = {}, None

    def flush():
        if pending is not None:
            raise MacroError(f"the constants unit does not compile outside its constants: {pending}")

    for line in err.splitlines():
        m = _DIAG.match(line)
        if not m:
            continue
        here = os.path.realpath(m.group(1)) == unit
        idx = int(m.group(2)) - first
        if m.group(3) in ("error", "fatal error"):
            flush()
            pending = None
            if here and 0 <= idx < len(constants):
                bad.setdefault(idx, m.group(4).strip())
            else:
                pending = line.strip()
        elif m.group(3) == "note" and pending is not None and here and 0 <= idx < len(constants):
            bad.setdefault(idx, pending.split(": error: ", 1)[-1])
            pending = None
    flush()
    if not bad:
        raise MacroError(f"the constants unit does not compile: {_first_error(err)}")
    return bad


def check_constants(cc: str, include_dir: str, headers: list[str], flags: list[str],
                    constants: list[Constant], max_rounds: int = 10,
                    verify: bool = True) -> tuple[list[Constant], dict[str, str]]:
    """Compile every candidate (syntax only); take out each that fails on its own line, with
    the compiler's first error, only when it also fails in a unit of the failing ones alone (an
    error that spills over never costs a constant); repeat until all compile. Errors are dear
    (about 25 ms each in gcc, 140 ms in g++, which looks for a spelling to suggest): the driver
    starts a C++ unit from its C twin's verdicts and an after unit from its before unit's
    (defines.py). verify=False: no round after the first that had errors (each round parses
    every header again), for a caller that compiles what is kept with the same headers next and
    calls again, verifying, when that compile fails."""
    lang = _language(cc, flags)
    kept, skipped = list(constants), {}
    sc = scan(cc, include_dir, headers, flags)   # the unit's, cached: find_constants made it
    macro_names = [*sc.defs, *sc.function_like]  # once for every round's units
    with tempfile.TemporaryDirectory(prefix="au-constants-") as work:
        path = os.path.join(work, "check.cc" if lang == "c++" else "check.c")
        for _ in range(max_rounds):
            bad = _failing_lines(cc, include_dir, headers, flags, kept, path, macro_names)
            if not bad:
                return kept, skipped
            # An error that can only be its own line's (an undeclared name, a value that is no
            # integer constant) is taken as it is; any other (a parse error, which might have
            # spilled over from the line before) only when the line fails again in a unit of
            # the suspects alone.
            confirmed = {kept[i].name: r for i, r in bad.items() if _LINE_LOCAL.search(r)}
            suspects = [kept[i] for i in sorted(bad) if kept[i].name not in confirmed]
            while suspects:
                more = _failing_lines(cc, include_dir, headers, flags, suspects, path, macro_names)
                if not more:
                    break
                confirmed.update({suspects[i].name: r for i, r in more.items()})
                suspects = [x for i, x in enumerate(suspects) if i not in more]
            if not confirmed:
                raise MacroError("the constants unit fails, but none of its failing constants fails alone: "
                                 + "; ".join(f"{kept[i].name}: {r}" for i, r in sorted(bad.items())[:5]))
            confirmed.update(_same_undeclared(kept, confirmed))
            skipped.update(confirmed)
            kept = [x for x in kept if x.name not in confirmed]
            if not verify:
                return kept, skipped
    raise MacroError(f"the constants still fail after {max_rounds} rounds")


def compile_constants_unit(cc: str, include_dir: str, headers: list[str], flags: list[str],
                           constants: list[Constant], obj: str, extra=(), cwd=None) -> None:
    """Compile unit_source() to obj (the source is written next to obj). extra: flags such as
    -fdebug-prefix-map, and cwd the directory to compile in, so that DWARF names the headers
    as the layout unit does (include_dir relative to cwd)."""
    lang = _language(cc, flags)
    src = os.path.splitext(obj)[0] + (".cc" if lang == "c++" else ".c")
    with open(src, "w") as f:
        f.write(unit_source(constants, headers, include_dir, lang))
    rc, _, err = _run([cc, *flags, *DEBUG_FLAGS, *extra, "-I", include_dir, "-x", lang, "-w",
                       "-fdiagnostics-plain-output", "-c", src, "-o", obj], cwd=cwd)
    if rc != 0:
        raise MacroError(f"{src}: does not compile: {_first_error(err)}")


def reason_counts(rejected: dict[str, str]) -> dict[str, int]:
    """{reason: count}, the compiler's own reasons grouped under NOT_CONSTANT."""
    fixed = {EMPTY, ITSELF, NOT_EXPRESSION, EXCLUDED, FUNCTION_LIKE}
    counts = {}
    for reason in rejected.values():
        reason = reason.split(" (in C; ")[0]
        key = reason if reason in fixed else NOT_CONSTANT
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def printer_source(constants: list[Constant], headers: list[str]) -> str:
    """A program (C and C++) that prints `NAME value` per constant: integers in decimal with
    their sign as the compiler sees it, strings as hex bytes (the terminating NUL included)."""
    body = []
    for k in constants:
        if k.string:
            body.append(f'\tdump("{k.name}", {k.name}, sizeof({k.name}));\n')
        else:
            body.append(f'\tif (({k.name}) < 0) printf("{k.name} %lld\\n", (long long)({k.name}));\n'
                        f'\telse printf("{k.name} %llu\\n", (unsigned long long)({k.name}));\n')
    return ("#include <stdio.h>\n" + _includes(headers)
            + "\nstatic void dump(const char *name, const char *s, unsigned long n)\n{\n"
              "\tunsigned long i;\n\tprintf(\"%s \\\"\", name);\n"
              "\tfor (i = 0; i < n; i++)\n\t\tprintf(\"%02x\", (unsigned char)s[i]);\n\tprintf(\"\\n\");\n}\n"
            + "\nint main(void)\n{\n" + "".join(body) + "\treturn 0;\n}\n")


def print_constants(cc: str, include_dir: str, headers: list[str], flags: list[str],
                    constants: list[Constant]) -> dict[str, object]:
    """Build and run the printer: {name: int, or bytes for a string}."""
    out = run_printer(cc, include_dir, flags, printer_source(constants, headers), "the constants printer")
    values = {}
    for line in out.splitlines():
        name, value = line.split(" ", 1)
        values[name] = bytes.fromhex(value[1:]) if value.startswith('"') else int(value)
    return values


def main(argv):
    import argparse
    p = argparse.ArgumentParser(description="List the #define constants of UAPI headers, or print "
                                "their values as a compiled program computes them.")
    p.add_argument("--print", action="store_true", dest="print_")
    p.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    p.add_argument("--flag", action="append", default=[], help="a compiler flag (repeatable)")
    p.add_argument("include_dir")
    p.add_argument("headers", nargs="+")
    a = p.parse_args(argv)
    flags = a.flag or (["-std=gnu++17"] if _language(a.cc, []) == "c++" else ["-std=gnu11"])
    try:
        found, rejected = find_constants(a.cc, a.include_dir, a.headers, flags)
        kept, skipped = check_constants(a.cc, a.include_dir, a.headers, flags, found)
        if a.print_:
            for name, value in print_constants(a.cc, a.include_dir, a.headers, flags, kept).items():
                print(f"{name} {value.hex() if isinstance(value, bytes) else value}")
        else:
            for k in kept:
                print(f"{k.header}:{k.line}: {k.name}" + (" (string)" if k.string else ""))
    except MacroError as e:
        print(f"constants: {e}", file=sys.stderr)
        return 2
    for reason, n in reason_counts({**rejected, **skipped}).items():
        print(f"not a constant: {n} {reason}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
