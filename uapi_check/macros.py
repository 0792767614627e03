"""Object-like macros of installed UAPI headers, as the compiler's preprocessor sees them.

Shared by the ioctl step (ioctls.py: the request macros) and the constants step (constants.py:
every other macro that is an integer constant expression or a string literal). Nothing here
evaluates a macro: the preprocessor lists the definitions (-dD) and expands them (-P), the
compiler decides what they are.

  scan                 the one macro scan of a unit, shared by both steps: every object-like
                       macro's definition place and expansion, and the headers' `NAME = EXPR`
                       lines (enumerator candidates) expanded too, with _IOC and
                       _IOC_TYPECHECK redefined to markers; remembered per process and checked
                       against the bytes of the headers it read, so the ioctl and constants
                       steps pay for one -dD pass and one probe pass per unit between them;
                       and, with use_store, kept between runs (scans.py)
  _preprocess          one preprocessing pass over a unit of #include lines (and probe lines)
  _macro_definitions   {name: (header, line)} of the object-like macros defined under the
                       include dir, from -dD output, and the headers the unit reads
  _run, _first_error   run a compiler with LC_ALL=C; its first error line
"""

from __future__ import annotations

import collections
import concurrent.futures
import hashlib
import os
import re
import subprocess
import tempfile
import threading
from dataclasses import dataclass

from .util import stamps

_DIAG = re.compile(r"(.+?):(\d+)(?::\d+)?: (fatal error|error|warning|note): (.*)")


# The probe pass redefines these after the headers: an expansion that holds IOC_MARK(dir, type,
# nr, size) is an ioctl request (the ioctl step numbers it; the constants step leaves it to that
# step). All four arguments stay, expanded: with the marks turned back into _IOC and
# _IOC_TYPECHECK the text is the request, which compiles after its own headers (ioctls.expression).
IOC_MARK = "__abidiff_uapi_ioc__"
TYPE_MARK = "__abidiff_uapi_type__"
_PROBE = "__abidiff_uapi_probe__"


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


def _preprocess(cc, include_dir, flags, headers, source, work, mode, tolerate=None):
    """The preprocessed unit. headers are read first, with -imacros: their macros stay defined
    and their text is not written out (a whole UAPI's code is 3.3 MB that nothing here reads),
    so the output is source's alone, with the -dD directives and linemarkers of every file.
    Errors raise MacroError, except those on source's own lines in the range tolerate (first,
    last): their line numbers are returned with the output."""
    lang = _language(cc, flags)
    path = os.path.join(work, "unit.cc" if lang == "c++" else "unit.c")
    with open(path, "w") as f:
        f.write(source)
    imacros = os.path.join(work, "headers.h")
    with open(imacros, "w") as f:
        f.write(_includes(headers))
    rc, out, err = _run([cc, *flags, "-I", include_dir, "-x", lang, "-imacros", imacros, "-E", mode, path])
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


# The directives _macro_definitions reads, in one pass: a linemarker (number, file), an object-
# or function-like #define (name, "(" or ""), an #undef (name). Other lines that start with '#'
# match with no group.
_DIRECTIVE = re.compile(r'^#(?: (\d+) "((?:[^"\\\n]|\\.)*)"|define ([A-Za-z_][A-Za-z0-9_]*)(\(?)'
                        r'|undef ([A-Za-z_][A-Za-z0-9_]*))?', re.M)


def _macro_definitions(text, include_dir, function_like=None):
    """Object-like macros defined (and not #undef'd by the end) in a file under include_dir,
    from `-E -dD` output: {name: (header, line)}. The output keeps line numbers in step with
    its linemarkers (gcc emits newlines, or a new marker, for the lines it drops). Also the
    headers under include_dir that the unit reads. function_like, a dict, gets {name: header} of
    the function-like macros defined under include_dir.

    Only the lines that start with '#' matter; one regular expression finds them and their
    parts, and the lines between are counted with str.count, in C (the text is a few MB per
    unit)."""
    root = os.path.realpath(include_dir) + os.sep
    defs, where = {}, {}
    dirs = {}

    def realpath(path):
        """os.path.realpath, with each directory resolved once (a unit reads 2,000 files in
        about a hundred directories); a file that is itself a link is resolved whole."""
        if os.path.islink(path):
            return os.path.realpath(path)
        d, base = os.path.split(path)
        if d not in dirs:
            dirs[d] = os.path.realpath(d)
        return os.path.join(dirs[d], base)

    def header_of(name):
        """The file of a linemarker, relative to the include dir, or None (outside it)."""
        if name not in where:
            real = realpath(re.sub(r"\\(.)", r"\1", name))
            where[name] = real[len(root):] if real.startswith(root) else None
        return where[name]

    cur_file = None
    marker_line, marker_index = 0, 0   # a linemarker's number, and its line's index in text
    index, pos = 0, 0                  # the index of the line that starts at text[pos]
    count = text.count
    for m in _DIRECTIVE.finditer(text):
        number, file, name, paren, undef = m.groups()
        if number is not None:
            index += count("\n", pos, m.start())
            pos = m.start()
            cur_file, marker_line, marker_index = file, int(number), index
        elif name is not None:
            if not paren:
                if cur_file and name not in defs:
                    header = header_of(cur_file)
                    if header:
                        index += count("\n", pos, m.start())
                        pos = m.start()
                        defs[name] = (header, marker_line + index - marker_index - 1)
                    else:
                        defs[name] = None  # defined outside the include dir (libc, compiler)
            else:
                defs.pop(name, None)  # redefined as a function-like macro
                if cur_file and function_like is not None and header_of(cur_file):
                    function_like[name] = where[cur_file]
        elif undef is not None:
            defs.pop(undef, None)
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


_NUMBER = re.compile(r"(\d+) ?")


def _probe_expansions(out, prefix):
    """{index: expansion, whitespace folded} of -P output whose probe lines are `PREFIX<index>
    <expansion>`: an expansion that the preprocessor spread over several lines keeps them all
    (lines that start with '#' aside), joined by one space. The output is cut at each line that
    starts with PREFIX (str.split, in C: a whole UAPI has 32k probes)."""
    expansions = {}
    for chunk in ("\n" + out).split("\n" + prefix)[1:]:
        m = _NUMBER.match(chunk)
        if not m:
            continue
        text = chunk[m.end():]
        if "\n#" in text:
            text = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
        expansions[int(m.group(1))] = " ".join(text.split())
    return expansions


_ASSIGN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*(.*?)\s*,?\s*$")


_ASSIGNMENTS = {}                    # sha1 of a header's bytes -> _assignments(its text)
_ASSIGNMENTS_LOCK = threading.Lock()


def _assignments(text):
    """The `NAME = EXPR` lines of one header whose EXPR has balanced parentheses: [(NAME, line,
    EXPR)] in line order (a continued EXPR is joined with up to 7 more lines)."""
    lines = text.split("\n")

    def code(i):
        return re.sub(r"/\*.*?\*/", " ", lines[i]).split("//")[0].split("/*")[0]

    out = []
    for i, line in enumerate(lines):
        if "=" not in line or line.lstrip().startswith("#"):
            continue
        m = _ASSIGN.fullmatch(code(i))
        if not m:
            continue
        expr = m.group(2)
        if expr.count("(") > expr.count(")"):  # continued on the next lines
            expr = code(i).split("=", 1)[1].strip()
            for j in range(i + 1, min(i + 8, len(lines))):
                expr += " " + code(j).strip()
                if expr.count("(") <= expr.count(")"):
                    break
            expr = expr.rstrip().rstrip(",").rstrip()
        if "(" not in expr or expr.count("(") != expr.count(")") or ";" in expr:
            continue
        out.append((m.group(1), i + 1, expr))
    return out


def _assignments_of(data):
    """_assignments of a header's bytes, once per process and content (under _ASSIGNMENTS_LOCK)."""
    key = hashlib.sha1(data).digest()
    if key not in _ASSIGNMENTS:
        _ASSIGNMENTS[key] = _assignments(data.decode(errors="replace"))
    return _ASSIGNMENTS[key]


def assignments_of(data):
    """_assignments_of for another module (scans.py), under the lock."""
    with _ASSIGNMENTS_LOCK:
        return _assignments_of(data)


def _enumerator_candidates(include_dir, files, macros):
    """`NAME = EXPR` lines of the headers (enumerators, as 6.12's binder.h writes its requests:
    `BINDER_WRITE_READ = _IOWR('b', 1, struct binder_write_read),`): {name: (header, line, EXPR)}.
    Only a proposal: the preprocessor decides which EXPR is a request, the compiler whether NAME
    is a constant. A name that is also a macro, or that an earlier line proposed, is left out.

    Each header's lines are scanned once per process and content: the C and C++ units of a
    revision, and the two revisions, read mostly the same bytes. Their threads take turns here
    (the work is Python's, under one lock anyway)."""
    found = {}
    with _ASSIGNMENTS_LOCK:
        for header in files:
            try:
                with open(os.path.join(include_dir, header), "rb") as f:
                    data = f.read()
            except OSError:
                continue
            for name, line, expr in _assignments_of(data):
                if name not in macros and name not in found:
                    found[name] = (header, line, expr)
    return found


@dataclass
class Scan:
    """What the preprocessor makes of a unit's macros (scan())."""
    defs: dict            # {name: (header, line)}: object-like macros defined under the include dir
    function_like: dict   # {name: header}: function-like ones
    files: list           # the headers under the include dir that the unit reads
    expansions: dict      # {name: expansion, whitespace folded} for every name of defs
    enums: dict           # {name: (header, line, EXPR)}: `NAME = EXPR` lines (enumerator candidates)
    enum_expansions: dict  # {name: expansion} of the candidates whose EXPR preprocesses alone
    # Where the scan came from, when the store keeps it (scans.py): (the entry's id, {file: sha256}
    # of the files whose bytes differ from the entry's). Two scans of one entry have the same
    # expansions, and the same definitions but for the lines of the files whose bytes differ.
    origin: tuple = None


_SCANS = collections.OrderedDict()   # (cc, include dir, headers, flags) -> (file stamps, Scan)
_SCAN_LOCKS = {}
_SCANS_LOCK = threading.Lock()
# What the cache keeps, counted in macros: about 16 whole-UAPI units (28k each), the last four
# commits' in --each-commit. Counted by size, not by entry: a drift run also scans 56 one-header
# units, and when each counted as much as a whole UAPI they pushed the four big scans out
# between the constants step's two calls, which then preprocessed every big unit twice.
_SCANS_KEPT = 16 * 30_000


_STORE = None   # scans.Store: scans kept between runs (use_store)


def use_store(store):
    """Keep scans in store and reuse them from it (scans.Store; None: neither)."""
    global _STORE
    _STORE = store


def _weight(sc):
    return len(sc.defs) + len(sc.enums) + 1


def scan(cc: str, include_dir: str, headers: list[str], flags: list[str]) -> Scan:
    """The unit's macro scan (see the module's docstring). Both steps call it with the same
    arguments for one unit; the second call, while the headers it read are unchanged, costs no
    preprocessing. Threads that ask for one unit at once wait for the first."""
    key = (cc, os.path.realpath(include_dir), tuple(headers), tuple(flags))
    with _SCANS_LOCK:
        lock = _SCAN_LOCKS.setdefault(key, threading.Lock())
    with lock:
        with _SCANS_LOCK:
            hit = _SCANS.get(key)
        if hit and hit[0] == stamps(include_dir, hit[1].files):
            with _SCANS_LOCK:
                _SCANS.move_to_end(key)
            return hit[1]
        result = _STORE.load(cc, include_dir, headers, flags) if _STORE else None
        if result is None:
            result = _scan(cc, include_dir, headers, flags)
            if _STORE:
                entry = _STORE.save(cc, include_dir, headers, flags, result)
                if entry:
                    result.origin = (entry, {})
        now = stamps(include_dir, result.files)
        with _SCANS_LOCK:
            if now is not None:
                _SCANS[key] = (now, result)
                while sum(_weight(sc) for _, sc in _SCANS.values()) > _SCANS_KEPT and len(_SCANS) > 1:
                    _SCANS.popitem(last=False)
        return result


_PREFETCH = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="scan")


def prefetch(cc: str, include_dir: str, headers: list[str], flags: list[str]) -> None:
    """Start scan() of a unit in a thread of its own and return: step 3 calls this as a unit
    starts to compile, with the headers of its first compile, so that the scan (two
    preprocessor passes) runs beside the compile rather than after it. The ioctl and constants
    steps then find it done, or wait for it (scan's lock); if the unit left out another header,
    they ask for another key and scan again. An error is left to their own call to report."""
    def run():
        try:
            scan(cc, include_dir, headers, flags)
        except (MacroError, OSError):
            pass
    _PREFETCH.submit(run)


def _scan(cc, include_dir, headers, flags):
    with tempfile.TemporaryDirectory(prefix="au-macros-") as work:
        function_like = {}
        defs, files = _macro_definitions(
            _preprocess(cc, include_dir, flags, headers, "", work, "-dD"), include_dir, function_like)
        enums = _enumerator_candidates(include_dir, files, defs)
        names = sorted(defs)
        enum_names = sorted(enums)
        probe = ["#undef _IOC\n",
                 f"#define _IOC(dir, type, nr, size) {IOC_MARK}(dir, type, nr, size)\n",
                 "#undef _IOC_TYPECHECK\n",
                 f"#define _IOC_TYPECHECK(t) {TYPE_MARK}(t)\n"]
        probe += [f"{_PROBE}{i} {n}\n" for i, n in enumerate(names)]
        probe += [f"{_PROBE}{len(names) + i} {enums[n][2]}\n" for i, n in enumerate(enum_names)]
        # -P: no linemarkers, so an expansion is not split where its tokens change file. An
        # enumerator's text that does not preprocess alone (it was not an expression) is no
        # candidate; an error elsewhere fails the scan. The headers come first, by -imacros: the
        # output is the probes' alone.
        first_enum = sum(p.count("\n") for p in probe) - len(enum_names) + 1
        out, bad = _preprocess(cc, include_dir, flags, headers, "".join(probe), work, "-P",
                               tolerate=(first_enum, first_enum + len(enum_names) - 1))
        bad = {len(names) + n - first_enum for n in bad}
    folded = _probe_expansions(out, _PROBE)
    total = len(names) + len(enum_names)
    if len(folded) != total:
        raise MacroError(f"preprocessor output lost {total - len(folded)} of {total} probes")
    return Scan(defs, function_like, files, {n: folded[i] for i, n in enumerate(names)}, enums,
                {n: folded[len(names) + i] for i, n in enumerate(enum_names)
                 if len(names) + i not in bad})
