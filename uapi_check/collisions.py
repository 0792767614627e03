"""Collisions in an all-headers unit: read gcc's diagnostics back to the unit line (the header)
that caused the first error, name the clashing symbol, and say which header to leave out."""
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

CHAIN_RE = re.compile(r"\s*(?:In file included from|from) (.+?):(\d+)[:,]")
DIAG_RE = re.compile(r"(.+?):(\d+)(?::\d+)?: (fatal error|error|warning|note): (.*)")
IDENT = re.compile(r"[A-Za-z_]\w*")

Stack = List[Tuple[str, int]]   # the diagnostic's file, then each includer with its #include line


@dataclass
class Diagnostic:
    file: str
    line: int
    col: int
    kind: str           # fatal error, error, warning, note
    message: str
    unit_line: Optional[int]
    stack: Stack


@dataclass
class Clash:
    """The first error of a unit, and the earlier definition it clashes with."""
    message: str
    at: str
    stack: Stack
    symbol: Optional[str] = None
    other: Optional[str] = None
    other_stack: Stack = field(default_factory=list)


def diagnostics(stderr, unit_path):
    """gcc's diagnostics with the unit line each one comes from. gcc prints an include chain
    only when it changes, and only down to the first file the previous chain shares, so the
    stack of includers is carried from one diagnostic to the next."""
    stack = []
    printed = []
    diags = []
    for line in stderr.splitlines():
        m = CHAIN_RE.match(line)
        if m:
            printed.append((m.group(1), int(m.group(2))))
            continue
        d = DIAG_RE.match(line)
        if not d:
            printed = []
            continue
        file = d.group(1)
        if printed:
            new = [(file, int(d.group(2)))] + printed
            last = printed[-1][0]
            if last != unit_path:
                tail = [i for i, (f, _) in enumerate(stack) if f == last]
                new += stack[tail[0] + 1:] if tail else []
            stack = new
        elif file == unit_path:
            stack = [(file, int(d.group(2)))]
        else:
            same = [i for i, (f, _) in enumerate(stack) if f == file]
            stack = [(file, int(d.group(2)))] + (stack[same[0] + 1:] if same else stack[1:])
        printed = []
        unit_line = next((n for f, n in stack if f == unit_path), None)
        col = re.match(r".+?:\d+:(\d+): ", line)
        diags.append(Diagnostic(file, int(d.group(2)), int(col.group(1)) if col else 0,
                                d.group(3), d.group(4), unit_line, list(stack)))
    return diags


def quoted(text):
    """Quoted identifiers of a message (not quoted tokens such as '(')."""
    return [q for q in re.findall(r"[‘'`]([^’']+)[’']", text)
            if IDENT.fullmatch(q.split()[-1])]


def identifier_at(path, line, col, cwd):
    """The identifier at (or just before) a byte column: the name of a clashing macro when
    the compiler only says 'expected ... before ...'."""
    try:
        with open(os.path.join(cwd, path), errors="replace") as f:
            text = f.read().splitlines()[line - 1]
    except (OSError, IndexError):
        return None
    for m in IDENT.finditer(text):
        if m.start() <= col - 1 < m.end() or m.end() == col - 1:
            return m.group(0)
    return None


def parse_first_collision(stderr, unit_path, cwd):
    """The first error of a unit: its message and symbol, and the two sides (the error and
    the earlier definition named by the next note), each with its include stack."""
    diags = diagnostics(stderr, unit_path)
    for i, d in enumerate(diags):
        if d.kind not in ("error", "fatal error"):
            continue
        # 'expected X before Y' quotes tokens, not the clashing name (a macro, usually).
        q = [] if d.message.startswith("expected") else quoted(d.message)
        col = Clash(d.message, f"{d.file}:{d.line}", d.stack, symbol=q[0].split()[-1] if q else None)
        for n in diags[i + 1:]:
            if n.kind != "note":
                break
            macro = re.match(r"in (?:expansion|definition) of macro", n.message)
            if macro and not col.symbol and quoted(n.message):
                col.symbol = quoted(n.message)[0]
            if col.other is None and not macro:
                col.other, col.other_stack = f"{n.file}:{n.line}", n.stack
        if not col.symbol:
            col.symbol = identifier_at(d.file, d.line, d.col, cwd)
        return col
    return None


def top_level(stack, unit_path):
    """The unit line of a stack, and whether that header itself defines the clashing name, and
    whether it includes a C library header directly."""
    if not stack or stack[-1][0] != unit_path:
        return None, False, False
    if len(stack) == 1:
        return stack[0][1], False, False
    line = stack[-1][1]
    itself = len(stack) == 2
    direct_libc = len(stack) >= 3 and stack[-3][0].startswith("/")
    return line, itself, direct_libc


def blame(col, included, inc, unit_path):
    """Which header to leave out of the unit for a collision between two definitions:
      1. a UAPI header that itself defines the clashing name (asm/signal.h's sigset_t);
      2. else the header that includes the C library header directly (mptcp.h's <netinet/in.h>);
      3. else the header that brought in the UAPI definition (asm/termios.h's winsize);
      4. when both sides are UAPI or the C library, the header whose inclusion broke the unit.
    The order of a unit decides which side is seen first, so this keeps out the headers that
    define C library names rather than the many that include the C library."""
    e_line, e_itself, e_direct = top_level(col.stack, unit_path)
    o_line, o_itself, o_direct = top_level(col.other_stack, unit_path)
    e_uapi = col.at.startswith(inc + "/")
    o_uapi = bool(col.other) and col.other.startswith(inc + "/")
    if col.other and e_uapi != o_uapi and e_line and o_line:
        uapi = (e_line, e_itself) if e_uapi else (o_line, o_itself)
        libc = (e_line, e_direct) if not e_uapi else (o_line, o_direct)
        if uapi[1] or not libc[1]:
            return included[uapi[0] - 1]
        return included[libc[0] - 1]
    return included[e_line - 1] if e_line else None


def relpath_in(path, inc):
    if path and path.startswith(inc.rstrip("/") + "/"):
        return path[len(inc.rstrip("/")) + 1:]
    return path
