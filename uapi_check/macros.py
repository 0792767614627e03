"""Object-like macros of installed UAPI headers, as the compiler's preprocessor sees them.

Shared by the ioctl step (ioctls.py: the request macros) and the constants step (constants.py:
every other macro that is an integer constant expression or a string literal). Nothing here
evaluates a macro: the preprocessor lists the definitions (-dD) and expands them (-P), the
compiler decides what they are.

  _preprocess          one preprocessing pass over a unit of #include lines (and probe lines)
  _macro_definitions   {name: (header, line)} of the object-like macros defined under the
                       include dir, from -dD output, and the headers the unit reads
  _run, _first_error   run a compiler with LC_ALL=C; its first error line
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

_LINEMARKER = re.compile(r'# (\d+) "((?:[^"\\]|\\.)*)"')
_DEFINE = re.compile(r"#define ([A-Za-z_][A-Za-z0-9_]*)(\(?)")
_UNDEF = re.compile(r"#undef ([A-Za-z_][A-Za-z0-9_]*)")
_DIAG = re.compile(r"(.+?):(\d+)(?::\d+)?: (fatal error|error|warning|note): (.*)")


class MacroError(Exception):
    """The headers cannot be preprocessed, or a unit of their macros cannot be made to compile."""


def _language(cc, flags):
    """'c' or 'c++': an explicit -x in flags, else the compiler's name (g++, clang++, c++)."""
    for i, f in enumerate(flags):
        if f == "-x" and i + 1 < len(flags):
            return flags[i + 1]
        if f.startswith("-x") and len(f) > 2:
            return f[2:]
    return "c++" if "++" in os.path.basename(cc) else "c"


def _run(cmd, cwd=None):
    try:
        # LC_ALL=C: diagnostics (the skip reasons) in plain ASCII quotes, whatever the locale.
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace",
                           env={**os.environ, "LC_ALL": "C"})
    except OSError as e:
        raise MacroError(f"{cmd[0]}: {e.strerror}") from None
    return p.returncode, p.stdout, p.stderr


def _first_error(stderr):
    for line in stderr.splitlines():
        if " error: " in line:
            return line.strip()
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else "failed"


def _includes(headers):
    return "".join(f"#include <{h}>\n" for h in headers)


def _preprocess(cc, include_dir, flags, source, work, mode, tolerate=None):
    """The preprocessed unit. Errors raise MacroError, except those on the unit's own lines in
    the range tolerate (first, last): their line numbers are returned with the output."""
    lang = _language(cc, flags)
    path = os.path.join(work, "unit.cc" if lang == "c++" else "unit.c")
    with open(path, "w") as f:
        f.write(source)
    rc, out, err = _run([cc, *flags, "-I", include_dir, "-x", lang, "-E", mode, path])
    bad = set()
    if rc != 0:
        for line in err.splitlines():
            m = _DIAG.match(line)
            if not m or m.group(3) not in ("error", "fatal error"):
                continue
            n = int(m.group(2))
            if (not tolerate or os.path.realpath(m.group(1)) != os.path.realpath(path)
                    or not tolerate[0] <= n <= tolerate[1]):
                raise MacroError(f"preprocessing the headers with {cc} fails: {line.strip()}")
            bad.add(n)
        if not bad:
            raise MacroError(f"preprocessing the headers with {cc} fails: {_first_error(err)}")
    return (out, bad) if tolerate else out


_DIRECTIVE = re.compile(r"^#[^\n]*", re.M)


def _macro_definitions(text, include_dir, function_like=None):
    """Object-like macros defined (and not #undef'd by the end) in a file under include_dir,
    from `-E -dD` output: {name: (header, line)}. The output keeps line numbers in step with
    its linemarkers (gcc emits newlines, or a new marker, for the lines it drops). Also the
    headers under include_dir that the unit reads. function_like, a dict, gets {name: header} of
    the function-like macros defined under include_dir.

    Only the lines that start with '#' matter; the code between them is skipped by the regular
    expression and counted with str.count, in C (the text is a few MB per unit)."""
    root = os.path.realpath(include_dir) + os.sep
    defs, where = {}, {}
    cur_file = None
    marker_line, marker_index = 0, 0   # a linemarker's number, and its line's index in text
    index, pos = 0, 0                  # the index of the line that starts at text[pos]
    for m in _DIRECTIVE.finditer(text):
        index += text.count("\n", pos, m.start())
        pos = m.start()
        raw = m.group()
        lm = _LINEMARKER.match(raw)
        if lm:
            cur_file, marker_line, marker_index = lm.group(2), int(lm.group(1)), index
            continue
        if raw.startswith("#define "):
            d = _DEFINE.match(raw)
            if d and not d.group(2) and cur_file:
                name = d.group(1)
                if name not in defs:
                    if cur_file not in where:
                        real = os.path.realpath(re.sub(r"\\(.)", r"\1", cur_file))
                        where[cur_file] = real[len(root):] if real.startswith(root) else None
                    if where[cur_file]:
                        defs[name] = (where[cur_file], marker_line + index - marker_index - 1)
                    else:
                        defs[name] = None  # defined outside the include dir (libc, compiler)
            elif d and d.group(2):
                defs.pop(d.group(1), None)  # redefined as a function-like macro
                if cur_file and function_like is not None:
                    if cur_file not in where:
                        real = os.path.realpath(re.sub(r"\\(.)", r"\1", cur_file))
                        where[cur_file] = real[len(root):] if real.startswith(root) else None
                    if where[cur_file]:
                        function_like[d.group(1)] = where[cur_file]
        elif raw.startswith("#undef "):
            u = _UNDEF.match(raw)
            if u:
                defs.pop(u.group(1), None)
    return {k: v for k, v in defs.items() if v}, sorted({h for h in where.values() if h})


def run_printer(cc, include_dir, flags, source, what):
    """Build and run a program (the independent instrument of the ioctl and constants steps:
    it includes the headers and prints values); its standard output. what: its name in
    errors ("the ioctl printer")."""
    lang = _language(cc, flags)
    with tempfile.TemporaryDirectory(prefix="au-printer-") as work:
        src = os.path.join(work, "print.cc" if lang == "c++" else "print.c")
        exe = os.path.join(work, "print")
        with open(src, "w") as f:
            f.write(source)
        rc, _, err = _run([cc, *flags, "-I", include_dir, "-x", lang, "-w", src, "-o", exe])
        if rc != 0:
            raise MacroError(f"{what} does not compile: {_first_error(err)}")
        rc, out, err = _run([exe])
        if rc != 0:
            raise MacroError(f"{what} exits {rc}: {err.strip()}")
    return out


def _probe_expansions(out, prefix):
    """{index: [lines]} of -P output whose probe lines are `PREFIX<index> <expansion>`: an
    expansion that the preprocessor spread over several lines keeps them all (linemarkers
    aside)."""
    expansions, current = {}, None
    for raw in out.split("\n"):
        if raw.startswith(prefix):
            num, _, text = raw[len(prefix):].partition(" ")
            current = int(num)
            expansions[current] = [text]
        elif current is not None and not raw.startswith("#"):
            expansions[current].append(raw)
    return expansions
