"""ioctl request numbers of installed UAPI headers, computed by the compiler.

An ioctl request number encodes its argument's size (_IOC's size field), so a struct that grows
changes every request that passes it, and a struct whose size differs between C and C++ gives a
C++ program other numbers than the kernel expects. This module finds the request macros and has
the compiler compute them; nothing here evaluates _IOC.

  find_ioctls          the preprocessor lists every object-like macro defined in a header under
                       the include dir (-dD: name, file, line); a second preprocessing pass, with
                       _IOC and _IOC_TYPECHECK redefined after the headers to markers, shows which
                       expansions are a request (directly, through wrappers such as DRM_IOWR, or
                       through another request macro) and the type passed as the size argument.
                       The headers' `NAME = EXPR` lines are probed the same way, for requests
                       written as enumerators (6.12's binder.h): Ioctl.kind "enumerator".
  check_ioctls         compiles the numbers, each in an enum of its own line; each one that does
                       not compile on its own (its type is kernel-only or incomplete, it needs
                       PAGE_SIZE, C++ reads `struct agp_info` as a typedef, ...) is taken out with
                       the compiler's reason, until all compile. Nothing is dropped unreported.
  ioctl_unit_source    the headers, then one named enum whose enumerators are the numbers:
                       enum abidiff_uapi_ioctl { AU_IOCTL__KVM_SET_CPUID = KVM_SET_CPUID, ... };
                       and one variable of that type, so that compiled with -g the numbers are in
                       DWARF (and no other type is: the object is a tenth of the size, its compile
                       a third cheaper and the tool's diff of two such objects nearly free), where `abidiff-uapi dump --type 'enum abidiff_uapi_ioctl'` reads
                       them and `abidiff-uapi diff` reports changed ones as enumerator_value.
  compile_ioctl_unit   writes and compiles that unit with DWARF.
  compile_numbers      by header (ioctl_groups.py): each request from its expansion (Ioctl.text,
                       expression()), one a line after the given headers only, in rounds that
                       take out the lines that fail; read_numbers reads them back.
  literal_unit_source  the unit's enum with those numbers as literals and no header, for the
                       tool's diff (compile_literal_unit).
  read_ioctl_numbers   the numbers from the tool's JSON dump of such an object.
  ioctl_number_changes the changed, removed and added numbers between two such objects, from the
                       tool's diff with --strict (see there: the sentinel rule must not apply).
  print_ioctl_numbers  the independent instrument: a program that includes the same headers and
                       printf()s each number, compiled and run.

Encoding. The enumerators are the macros themselves, `= NAME`, with no cast. Request numbers are
unsigned 32-bit values (0xc0000000 and above for _IOWR); gcc -std=gnu11 accepts enumerators above
INT_MAX (an extension: only -pedantic warns) and gives the enum type unsigned int, g++
-std=gnu++17 picks an underlying type that holds them (C++ rules). gcc then writes each value as
DW_FORM_dataN of the unsigned value (negative values only would be sdata), which the tool reads as
the number itself: 0xffffffff reads back as 4294967295 in both languages (tests/python checks it).
A cast to unsigned int would hide a value that does not fit 32 bits; an enum with a fixed
underlying type (`: unsigned int`) is not C11. So the plain form is the one that works in both.

Flags: pass the units' language flags (-std=gnu11, -std=gnu++17); the compiler's name (or -x)
picks the language. Diagnostics are read with LC_ALL=C.

Command line (the printer, for a person to compare with):
  python3 -m uapi_check.ioctls --print [--cc gcc] [--flag=-std=gnu11] INCLUDE_DIR HEADER...
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass

from .constants import _same_undeclared
from .macros import (_DIAG, IOC_MARK as _IOC_MARK, TYPE_MARK as _TYPE_MARK, MacroError, _first_error,
                     _includes, _language, _run, run_printer, scan)

ENUM_NAME = "abidiff_uapi_ioctl"
ANCHOR = "abidiff_uapi_ioctl_anchor"
PREFIX = "AU_IOCTL__"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# The ioctl step's errors are the macro scan's: one type, so callers catch one.
IoctlError = MacroError


@dataclass(frozen=True)
class Ioctl:
    name: str             # "KVM_SET_CPUID"
    header: str           # "linux/kvm.h", relative to the include dir
    line: int
    arg_type: str | None  # "struct kvm_cpuid" as the macro spells its third argument; None for _IO
    kind: str = "macro"   # "enumerator": an enum constant whose value is a request (6.12's binder.h)
    text: str = ""        # the request as the unit expands it (expression()), for a compile by header


def _balanced(text, start):
    """The text inside the parentheses that open at text[start]; None if unbalanced."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return None


def _strip_parens(text):
    text = text.strip()
    while text.startswith("(") and _balanced(text, 0) == text[1:-1]:
        text = text[1:-1].strip()
    return text


def _normalize(text):
    return " ".join(text.split())


def _arguments(text):
    """The top-level comma-separated parts of text (the inside of a call's parentheses)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


@functools.lru_cache(maxsize=None)
def _request_arg(expansion):
    """For an expansion that is one _IOC request (outer parentheses aside; the probe's
    IOC_MARK(dir, type, nr, size)): (True, the type of its size argument or None). (False,
    None) for anything else, such as an expression that only uses a request (`FOO & 0xff`) or
    _IOC_NR(...). Remembered per text: the C and C++ units of a side, and the two sides, share
    nearly all their expansions."""
    body = _strip_parens(expansion)
    if not body.startswith(_IOC_MARK) or body.count(_IOC_MARK) != 1:
        return False, None
    rest = body[len(_IOC_MARK):].lstrip()
    if not rest.startswith("("):
        return False, None
    args = _balanced(rest, 0)
    if args is None or rest[len(args) + 2:].strip():
        return False, None
    parts = _arguments(args)
    if len(parts) != 4:
        return False, None
    size = parts[3]
    i = size.find(_TYPE_MARK)
    if i >= 0:
        j = size.index("(", i)
        t = _balanced(size, j)
        return True, _normalize(t) if t is not None else None
    m = re.fullmatch(r"\s*sizeof\s*(\(.*\))\s*", _strip_parens(size))
    if m:
        return True, _normalize(_strip_parens(m.group(1)))
    return True, None  # _IO's 0, or a literal size


def expression(expansion):
    """The request an expansion of the probe spells: its marks turned back into _IOC and
    _IOC_TYPECHECK, which the headers define (asm/ioctl.h), every other macro expanded as the
    all-headers unit expanded it. It compiles after the headers that declare what it names."""
    return expansion.replace(_IOC_MARK, "_IOC").replace(_TYPE_MARK, "_IOC_TYPECHECK")


def find_ioctls(cc: str, include_dir: str, headers: list[str], flags: list[str]) -> list[Ioctl]:
    """Every object-like macro defined in a header under include_dir (reached from headers)
    whose expansion is one _IO/_IOR/_IOW/_IOWR (_IOC) request, and every `NAME = EXPR` (an
    enumerator) in those headers whose EXPR is one, in header and line order. An ioctl that
    6.12 turned from a macro into an enumerator (binder.h) keeps its name and so its pairing.
    The preprocessing is macros.scan's, shared with the constants step."""
    sc = scan(cc, include_dir, headers, flags)
    found = []
    for name, text in sc.expansions.items():
        is_request, arg = _request_arg(text)
        if is_request:
            header, line = sc.defs[name]
            found.append(Ioctl(name, header, line, arg, text=expression(text)))
    for name, text in sc.enum_expansions.items():
        is_request, arg = _request_arg(text)
        if is_request:
            header, line, _ = sc.enums[name]
            found.append(Ioctl(name, header, line, arg, "enumerator", expression(text)))
    return sorted(found, key=lambda x: (x.header, x.line, x.name))


def ioctl_unit_source(ioctls: list[Ioctl], headers: list[str]) -> str:
    """A C and C++ unit: the headers, then one enumerator per request, one per line (so that a
    diagnostic's line names its ioctl). No ioctls: no enum (an empty enum is not valid C)."""
    lines = [_includes(headers)]
    if ioctls:  # the first enumerator is on line len(headers) + 4
        lines.append(f"\n/* ioctl request numbers, computed by the compiler (abidiff-uapi) */\n"
                     f"enum {ENUM_NAME} {{\n")
        lines += [f"\t{PREFIX}{x.name} = {x.name},\n" for x in ioctls]
        lines.append(f"}};\nenum {ENUM_NAME} {ANCHOR};\n")
    return "".join(lines)


def _check_source(ioctls, headers):
    """The syntax check's unit: one anonymous enum per line, so that a parse error in one
    number (`sizeof(struct agp_info)` where C++ sees a typedef) ends at its own line's `};`
    rather than running on to the end of one big enum."""
    return _includes(headers) + "".join(f"enum {{ {PREFIX}{x.name} = {x.name} }};\n" for x in ioctls)


def _failing_lines(cc, include_dir, headers, flags, ioctls, path):
    """{index in ioctls: first error} of the check unit; IoctlError on an error elsewhere."""
    lang = _language(cc, flags)
    with open(path, "w") as f:
        f.write(_check_source(ioctls, headers))
    # Without macro-expansion tracking an error is placed at its expansion point: the
    # enumerator's own line.
    rc, _, err = _run([cc, *flags, "-I", include_dir, "-x", lang, "-fsyntax-only",
                       "-fdiagnostics-plain-output", "-ftrack-macro-expansion=0",
                       "-fmax-errors=0", "-w", path])
    if rc == 0:
        return {}
    return _line_errors(err, path, len(headers) + 1, len(ioctls), "the ioctl unit", "its enumerators")


def _line_errors(err, path, first, count, what, lines):
    """{index: first error} of a unit whose requests are on lines first.. first + count - 1 of
    path, from the compiler's stderr; IoctlError on an error elsewhere, or on none at all."""
    bad = {}
    for line in err.splitlines():
        m = _DIAG.match(line)
        if not m or m.group(3) not in ("error", "fatal error"):
            continue
        idx = int(m.group(2)) - first
        if os.path.realpath(m.group(1)) != os.path.realpath(path) or not 0 <= idx < count:
            raise IoctlError(f"{what} does not compile outside {lines}: {line}")
        bad.setdefault(idx, m.group(4).strip())
    if not bad:
        raise IoctlError(f"{what} does not compile: {_first_error(err)}")
    return bad


def check_ioctls(cc: str, include_dir: str, headers: list[str], flags: list[str],
                 ioctls: list[Ioctl], max_rounds: int = 10, obj: str | None = None) -> tuple[list[Ioctl], dict[str, str]]:
    """Compile the numbers (syntax only) and take out each ioctl whose number does not compile,
    with the compiler's first error as its reason; repeat until all compile. An ioctl is only
    taken out when its number also fails in a unit of the failing ones alone, so that an error
    that spills over from another line never costs an ioctl. Returns the ioctls kept and
    {name: reason} of those skipped. An error outside the numbers (the headers do not compile
    together) raises IoctlError.

    obj: also compile the kept numbers there with DWARF (compile_ioctl_unit). After a round that
    took numbers out, none of them for an undeclared name (gcc names one once per unit, so
    another number that uses it fails only in the next round), that compile is tried at once
    instead of another syntax check of the whole unit (each is a parse of every header): when
    it succeeds, the check would have found nothing; when it fails, the rounds go on."""
    lang = _language(cc, flags)
    kept, skipped = list(ioctls), {}
    with tempfile.TemporaryDirectory(prefix="au-ioctls-") as work:
        path = os.path.join(work, "check.cc" if lang == "c++" else "check.c")
        out = None
        for _ in range(max_rounds):
            if obj is not None and out and not any(_UNDECLARED_ONCE.search(r) for r in out.values()):
                try:
                    compile_ioctl_unit(cc, include_dir, headers, flags, kept, obj)
                    return kept, skipped
                except IoctlError:
                    pass
            bad = _failing_lines(cc, include_dir, headers, flags, kept, path)
            if not bad:
                if obj is not None:
                    compile_ioctl_unit(cc, include_dir, headers, flags, kept, obj)
                return kept, skipped
            suspects = [kept[i] for i in sorted(bad)]
            confirmed = _failing_lines(cc, include_dir, headers, flags, suspects, path)
            if not confirmed:
                raise IoctlError("the ioctl unit fails, but none of its failing numbers fails alone: "
                                 + "; ".join(f"{kept[i].name}: {r}" for i, r in sorted(bad.items())))
            out = {suspects[i].name: r for i, r in confirmed.items()}
            skipped.update(out)
            kept = [x for x in kept if x.name not in out]
    raise IoctlError(f"the ioctl numbers still fail after {max_rounds} rounds")


def number_ioctls(cc: str, include_dir: str, headers: list[str], flags: list[str], ioctls: list[Ioctl],
                  obj: str, known_bad=frozenset()) -> tuple[list[Ioctl], dict[str, str]]:
    """check_ioctls then compile_ioctl_unit, starting from known_bad: the names that did not
    compile on another side (the parent commit, the before revision). Those still in ioctls are
    checked in a unit of their own; each that fails there is skipped with that reason, as
    check_ioctls does, and the unit of the rest is compiled with DWARF at once. Only when that
    fails (the series broke another number) do the rounds of check_ioctls run. Without known_bad
    this is check_ioctls and compile_ioctl_unit. Returns (kept, {name: reason} skipped)."""
    kept, skipped = list(ioctls), {}
    suspects = [x for x in ioctls if x.name in known_bad]
    if suspects:
        lang = _language(cc, flags)
        with tempfile.TemporaryDirectory(prefix="au-ioctls-") as work:
            path = os.path.join(work, "check.cc" if lang == "c++" else "check.c")
            # Rounds among the suspects: gcc reports an undeclared name (`bool` in C) once per
            # unit, so a second number that fails for the same reason shows in the next round.
            while suspects:
                confirmed = _failing_lines(cc, include_dir, headers, flags, suspects, path)
                skipped.update({suspects[i].name: r for i, r in confirmed.items()})
                suspects = [x for i, x in enumerate(suspects) if i not in confirmed] if confirmed else []
        kept = [x for x in ioctls if x.name not in skipped]
        try:
            compile_ioctl_unit(cc, include_dir, headers, flags, kept, obj)
            return kept, skipped
        except IoctlError:
            pass
    kept, more = check_ioctls(cc, include_dir, headers, flags, kept, obj=obj)
    skipped.update(more)
    return kept, skipped


# gcc's error for an undeclared name, which it gives once per unit (g++ gives it at each use).
_UNDECLARED_ONCE = re.compile(r"' undeclared")


# Only what the unit uses: the anchor variable, so the enum (ioctl_unit_source).
DEBUG_FLAGS = ["-g"]


def compile_ioctl_unit(cc: str, include_dir: str, headers: list[str], flags: list[str],
                       ioctls: list[Ioctl], obj: str) -> None:
    """Compile ioctl_unit_source() to obj with DWARF (the source is written next to obj)."""
    _compile_unit(cc, flags, ioctl_unit_source(ioctls, headers), obj, ["-I", include_dir])


def _beside(obj, lang):
    """The source file of obj, written next to it."""
    return os.path.splitext(obj)[0] + (".cc" if lang == "c++" else ".c")


def _compile_unit(cc, flags, text, obj, include=()):
    """Write text next to obj and compile it to obj with DWARF (include: the -I arguments);
    IoctlError, with the compiler's first error, when it does not compile."""
    lang = _language(cc, flags)
    src = _beside(obj, lang)
    with open(src, "w") as f:
        f.write(text)
    rc, _, err = _run([cc, *flags, *DEBUG_FLAGS, *include, "-x", lang, "-w",
                       "-fdiagnostics-plain-output", "-c", src, "-o", obj])
    if rc != 0:
        raise IoctlError(f"{src}: does not compile: {_first_error(err)}")


def read_ioctl_numbers(tool: str, obj: str) -> dict[str, int]:
    """{ioctl name: number} from `tool dump obj --format=json --type 'enum abidiff_uapi_ioctl'`."""
    rc, out, err = _run([tool, "dump", obj, "--format=json", "--type", f"enum {ENUM_NAME}"])
    if rc != 0:
        raise IoctlError(f"{tool} dump {obj}: {err.strip() or f'exit {rc}'}")
    try:
        types = json.loads(out)["types"]
    except (ValueError, KeyError, TypeError) as e:
        raise IoctlError(f"{tool} dump {obj}: unreadable JSON ({e})") from None
    numbers = {}
    for t in types:
        if t.get("name") != f"enum {ENUM_NAME}":
            continue
        for e in t.get("enumerators", []):
            if e["name"].startswith(PREFIX):
                numbers[e["name"][len(PREFIX):]] = e["value"]
    return numbers


def ioctl_number_changes(tool: str, old_obj: str, new_obj: str, compat: bool = False) -> dict[str, dict]:
    """The ioctls whose number differs or that exist on one side only, from the tool's diff of
    two ioctl units: {name: {"old": number or None, "new": number or None, "severity": ...}}.
    The diff runs with --strict: request numbers have no evolution idioms, while the tool's
    sentinel rule would otherwise call a change "safe" when the name has a word like SIZE or
    COUNT and the number is one past the enumerator before it (KVM_GET_VCPU_MMAP_SIZE follows
    KVM_CHECK_EXTENSION so: 7 such ioctls in 6.1, 10 in 6.12). compat: the two objects are
    one architecture's 64-bit and 32-bit ABIs (--compat; the tool refuses such a pair else)."""
    rc, out, err = _run([tool, "diff", old_obj, new_obj, "--strict", "--format=json",
                         "--type", f"enum {ENUM_NAME}", *(["--compat"] if compat else [])])
    if rc not in (0, 1):
        raise IoctlError(f"{tool} diff {old_obj} {new_obj}: {err.strip() or f'exit {rc}'}")
    try:
        data = json.loads(out)
        changes = [c for t in data["types"] for c in t.get("changes", [])]
    except (ValueError, KeyError, TypeError) as e:
        raise IoctlError(f"{tool} diff {old_obj} {new_obj}: unreadable JSON ({e})") from None
    result = {}
    for c in changes:
        kind = c.get("change")
        if kind == "enumerator_value":
            name, old, new = c["enumerator"], c["old"], c["new"]
        elif kind == "enumerator_removed":
            name, old, new = c["enumerator"], c.get("old"), None
        elif kind == "enumerator_added":
            name, old, new = c["enumerator"], None, c.get("new")
        else:
            continue
        if name.startswith(PREFIX):
            result[name[len(PREFIX):]] = {"old": old, "new": new, "severity": c.get("severity")}
    return result


VAR_PREFIX = "au_ioctl_v__"


def numbers_source(ioctls: list[Ioctl], headers: list[str]) -> str:
    """A unit of requests compiled from their expansions (Ioctl.text) after headers: one line
    each, an anonymous enum whose enumerator is the number and a variable of that enum (so that
    -g writes it, and no other type, to DWARF). A parse error ends at its own line's `}`. A
    request written as an enumerator is named, as in the unit: its header must declare it (the
    scan also proposes `NAME = EXPR` lines that #if leaves out)."""
    return _includes(headers) + "".join(
        f"enum {{ {PREFIX}{x.name} = ({x.name if x.kind == 'enumerator' else x.text}) }} {VAR_PREFIX}{x.name};\n"
        for x in ioctls)


def compile_numbers(cc: str, flags: list[str], ioctls: list[Ioctl], include_dir: str, headers: list[str],
                    obj: str, extra=(), max_rounds: int = 8) -> tuple[list[Ioctl], dict[str, str]]:
    """numbers_source() compiled with DWARF into obj (the source beside it), in rounds: each
    request whose line fails is taken out with the compiler's first error, and the rest compiled
    again. gcc names an undeclared identifier once per unit in C: the other requests that spell
    it are taken out with the same reason in the same round. Returns (kept, {name: reason});
    IoctlError on an error outside the requests' lines (the headers do not compile together)."""
    lang = _language(cc, flags)
    src = _beside(obj, lang)
    kept, bad = list(ioctls), {}
    first = len(headers) + 1
    for _ in range(max_rounds):
        with open(src, "w") as f:
            f.write(numbers_source(kept, headers))
        rc, _, err = _run([cc, *flags, *DEBUG_FLAGS, *extra, "-I", include_dir, "-x", lang, "-w",
                           "-fdiagnostics-plain-output", "-ftrack-macro-expansion=0", "-fmax-errors=0",
                           "-c", src, "-o", obj])
        if rc == 0:
            return kept, bad
        more = {kept[i].name: r for i, r in
                _line_errors(err, src, first, len(kept), "the unit of requests", "their lines").items()}
        more.update(_same_undeclared(kept, more))
        bad.update(more)
        kept = [x for x in kept if x.name not in more]
    raise IoctlError(f"the requests still fail after {max_rounds} rounds")


def read_numbers(tool: str, obj: str) -> dict[str, int]:
    """{ioctl name: number} of every enumerator named PREFIX... in obj's DWARF, as `tool dump`
    reads it (numbers_source's objects, whose enums are anonymous)."""
    rc, out, err = _run([tool, "dump", obj, "--format=json"])
    if rc != 0:
        raise IoctlError(f"{tool} dump {obj}: {err.strip() or f'exit {rc}'}")
    try:
        types = json.loads(out)["types"]
        return {e["name"][len(PREFIX):]: e["value"] for t in types for e in t.get("enumerators", [])
                if e["name"].startswith(PREFIX)}
    except (ValueError, KeyError, TypeError) as e:
        raise IoctlError(f"{tool} dump {obj}: unreadable JSON ({e})") from None


def _literal(value):
    """A C and C++ integer literal of value (unsigned where it needs 32 or 64 bits)."""
    if value < 0:
        return f"({value})"
    return str(value) if value <= 0x7fffffff else f"{value}u" if value <= 0xffffffff else f"{value}ull"


def literal_unit_source(numbers: dict[str, int]) -> str:
    """The ioctl unit of numbers the compiler computed elsewhere (compile_numbers, by header):
    ioctl_unit_source's enum, each enumerator its number, no header. The tool's diff of two such
    units is the diff of two ioctl_unit_source units with the same numbers."""
    if not numbers:
        return ""
    return (f"/* ioctl request numbers, computed by the compiler (abidiff-uapi) */\nenum {ENUM_NAME} {{\n"
            + "".join(f"\t{PREFIX}{n} = {_literal(v)},\n" for n, v in numbers.items())
            + f"}};\nenum {ENUM_NAME} {ANCHOR};\n")


def compile_literal_unit(cc: str, flags: list[str], numbers: dict[str, int], obj: str) -> None:
    """Compile literal_unit_source() to obj with DWARF (the source is written next to obj)."""
    _compile_unit(cc, flags, literal_unit_source(numbers), obj)


def printer_source(ioctls: list[Ioctl], headers: list[str]) -> str:
    """A program (C and C++) that includes the headers and prints `NAME 0x...` per ioctl."""
    body = "".join(f'\tprintf("%s 0x%lx\\n", "{x.name}", (unsigned long){x.name});\n' for x in ioctls)
    return ("#include <stdio.h>\n" + _includes(headers)
            + "\nint main(void)\n{\n" + body + "\treturn 0;\n}\n")


def print_ioctl_numbers(cc: str, include_dir: str, headers: list[str], flags: list[str],
                        ioctls: list[Ioctl]) -> dict[str, int]:
    """Build and run the printer: {name: number} as the compiled program prints them."""
    out = run_printer(cc, include_dir, flags, printer_source(ioctls, headers), "the ioctl printer")
    numbers = {}
    for line in out.splitlines():
        name, value = line.split()
        numbers[name] = int(value, 16)
    return numbers


def main(argv):
    import argparse
    p = argparse.ArgumentParser(description="List the ioctl request macros of UAPI headers and "
                                "print their numbers as a compiled program computes them.")
    p.add_argument("--print", action="store_true", dest="print_",
                   help="print NAME 0xNUMBER per ioctl (the compiled printer), then the skipped ones")
    p.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    p.add_argument("--flag", action="append", default=[], help="a compiler flag (repeatable)")
    p.add_argument("include_dir")
    p.add_argument("headers", nargs="+")
    a = p.parse_args(argv)
    flags = a.flag or (["-std=gnu++17"] if _language(a.cc, []) == "c++" else ["-std=gnu11"])
    try:
        found = find_ioctls(a.cc, a.include_dir, a.headers, flags)
        kept, skipped = check_ioctls(a.cc, a.include_dir, a.headers, flags, found)
        if a.print_:
            for name, value in print_ioctl_numbers(a.cc, a.include_dir, a.headers, flags, kept).items():
                print(f"{name} 0x{value:x}")
        else:
            for x in kept:
                print(f"{x.header}:{x.line}: {x.name} {x.arg_type or '-'}"
                      + (" (enumerator)" if x.kind == "enumerator" else ""))
    except IoctlError as e:
        print(f"ioctls: {e}", file=sys.stderr)
        return 2
    for name, reason in sorted(skipped.items()):
        print(f"skipped {name}: {reason}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
