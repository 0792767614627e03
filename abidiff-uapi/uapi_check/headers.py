"""Step 2: the headers to test, by the tree's own usr/include/Makefile (no-header-test), each
compiled alone as C and as C++, before and after, in parallel; results cached per header set."""
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass

from .arch import ARCHES, DEFAULT as DEFAULT_ARCH
from .config import (C_ALONE_FLAGS, CXX_ALONE_FLAGS, LANG_NAME, LANGS, REVS, UNIT_FLAGS,
                     cache_dir)
from .model import Headers, RevHeaders
from .trees import list_headers
from .util import parallel, run, run_or_die, write_atomic


def no_header_test(makefile, srcarch=None):
    """The tree's own no-header-test list, evaluated by make from usr/include/Makefile for an
    architecture (its rules differ by SRCARCH)."""
    srcarch = srcarch or ARCHES[DEFAULT_ARCH].srcarch
    tree = os.path.dirname(os.path.dirname(os.path.dirname(makefile)))
    with tempfile.NamedTemporaryFile("w", suffix=".mk", delete=False) as f:
        f.write("include $(UAPI_MAKEFILE)\nprint-no-header-test:\n\t@echo $(no-header-test)\n")
        wrapper = f.name
    try:
        out = run_or_die(["make", "-s", "-f", wrapper, f"UAPI_MAKEFILE={makefile}",
                          f"SRCARCH={srcarch}", "obj=/nonexistent", "srctree=" + tree,
                          "print-no-header-test"], "reading no-header-test")
    finally:
        os.unlink(wrapper)
    return out.split()


def make_pattern_match(pattern, name):
    """make's % pattern: one % matches any string."""
    if "%" not in pattern:
        return pattern == name
    head, tail = pattern.split("%", 1)
    return name.startswith(head) and name.endswith(tail) and len(name) >= len(head) + len(tail)


def skip_reason(header, excluded):
    """Why a header is not tested alone (None: it is)."""
    if header.startswith("asm-generic/"):
        return "asm-generic (included by asm/*.h, not directly)"
    if re.search(r"_(32|64|x32)\.h$", header):
        return "32/64/x32 variant"
    if header in ("linux/byteorder/big_endian.h", "linux/byteorder/little_endian.h"):
        # asm/byteorder.h picks one; big_endian.h would flip every later bitfield in a unit.
        return "byteorder variant (chosen by asm/byteorder.h)"
    if any(make_pattern_match(p, header) for p in excluded):
        return "no-header-test"
    return None


def select_headers(inc, excluded):
    """(tested headers, {skipped header: reason})."""
    tested, skipped = [], {}
    for h in list_headers(inc):
        reason = skip_reason(h, excluded)
        if reason:
            skipped[h] = reason
        else:
            tested.append(h)
    return tested, skipped


def first_error(stderr, inc):
    """The first error line of a compiler's output, with the include dir made relative."""
    lines = stderr.splitlines()
    for line in lines:
        if " error: " in line or " fatal error: " in line:
            return line.replace(inc.rstrip("/") + "/", "").replace("./", "", 1).strip()
    return (lines[-1] if lines else "failed").strip()


def alone_command(compiler, lang, inc, dummy, header, extra=False):
    """The command that compiles one header alone (twice, for the include guard). The kernel's
    and upstream's flags for tested headers; for no-header-test headers, the unit flags, since
    they are only compiled to take part in the layout comparison."""
    if extra:
        cmd = [compiler, *UNIT_FLAGS[lang], "-I", inc, "-fsyntax-only", "-fdiagnostics-plain-output",
               "-x", "c" if lang == "c" else "c++", "/dev/null"]
    elif lang == "c":
        cmd = [compiler, *C_ALONE_FLAGS, "-I", inc, "-I", dummy, "-fsyntax-only",
               "-fdiagnostics-plain-output", "-x", "c", "/dev/null"]
    else:
        cmd = [compiler, *CXX_ALONE_FLAGS, "-I", inc, "-fsyntax-only",
               "-fdiagnostics-plain-output", "-x", "c++", "/dev/null"]
    path = os.path.join(inc, header)
    return cmd + ["-include", path, "-include", path]


def compile_alone(compiler, lang, inc, dummy, header, extra=False):
    """None when the header compiles alone, else its first error."""
    rc, _, err = run(alone_command(compiler, lang, inc, dummy, header, extra))
    return None if rc == 0 else first_error(err, inc)


def dir_digest(inc):
    h = hashlib.sha256()
    for rel in list_headers(inc):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(inc, rel), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def sweep_key(compilers, digest, tested, extra, dummy_digest, arch=DEFAULT_ARCH):
    """Per-header results depend only on the installed headers, the lists, the compilers and
    the flags: a warm run reuses them."""
    h = hashlib.sha256()
    for part in (digest, tested, extra, {k: c.to_json() for k, c in compilers.items()},
                 C_ALONE_FLAGS, CXX_ALONE_FLAGS, UNIT_FLAGS, dummy_digest, arch):
        h.update(json.dumps(part, sort_keys=True).encode() + b"\0")
    return h.hexdigest()[:24]


def load_sweep(key):
    try:
        with open(os.path.join(cache_dir(), "sweeps", key + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def save_sweep(key, results):
    write_atomic(os.path.join(cache_dir(), "sweeps", key + ".json"), json.dumps(results))


@dataclass(frozen=True)
class Task:
    rev: str
    lang: str
    header: str
    extra: bool     # a no-header-test header, compiled only for the layout comparison


def sweep(jobs, compilers, revs, selection, progress, arch=DEFAULT_ARCH):
    """Compile every header alone in both languages, reusing cached sweeps. Returns
    [(Task, first error or None)] for every revision that needs its own sweep."""
    digests = {rev: dir_digest(revs[rev].include) for rev in REVS}
    same = digests["after"] == digests["before"]
    dummy = {rev: revs[rev].file("usr/dummy-include") for rev in REVS}
    keys, tasks, results = {}, [], []
    for rev in REVS if not same else ("before",):
        tested, extra = selection[rev]
        keys[rev] = sweep_key(compilers, digests[rev], tested, extra, dir_digest(dummy[rev]), arch)
        cached = load_sweep(keys[rev])
        if cached is not None:
            progress.step(f"  {rev}: per-header results reused (same headers, compilers and flags)")
            results += [(Task(rev, *t), r) for t, r in cached]
            continue
        todo = [Task(rev, lang, h, x) for lang in LANGS
                for h, x in [(h, False) for h in tested] + [(h, True) for h in extra]]
        tasks += todo

    def one(t):
        return compile_alone(compilers[t.lang].path, t.lang, revs[t.rev].include, dummy[t.rev],
                             t.header, t.extra)

    fresh = list(zip(tasks, parallel(jobs, one, tasks, progress, "compiling headers alone")))
    for rev in keys:
        mine = [(t, r) for t, r in fresh if t.rev == rev]
        if mine:
            save_sweep(keys[rev], [[[t.lang, t.header, t.extra], r] for t, r in mine])
    return same, fresh + results


def step_headers(opts, compilers, trees, progress):
    """Step 2: select the headers by the kernel's rules and compile each alone, C and C++.
    The no-header-test headers are compiled too, with the unit flags: those that compile join
    the units for the layout comparison, but never count as tested or failing."""
    progress.step("step 2: headers to test, each compiled alone as C and as C++")
    revs = trees.revisions
    excluded, selection, skipped = {}, {}, {}
    for rev in REVS:
        excluded[rev] = no_header_test(revs[rev].file("usr/include/Makefile"), opts.arch.srcarch)
        tested, skipped[rev] = select_headers(revs[rev].include, excluded[rev])
        selection[rev] = (tested, [h for h, why in skipped[rev].items() if why == "no-header-test"])
    same, results = sweep(opts.jobs, compilers, revs, selection, progress, opts.arch.debian)
    out = {}
    for rev in REVS:
        src = "before" if same else rev
        failed = {lang: {} for lang in LANGS}
        compiles = {lang: [] for lang in LANGS}
        extra_ok = {lang: [] for lang in LANGS}
        for t, err in results:
            if t.rev != src:
                continue
            if err and not t.extra:
                failed[t.lang][t.header] = err
            if not err:
                compiles[t.lang].append(t.header)
                if t.extra:
                    extra_ok[t.lang].append(t.header)
        out[rev] = RevHeaders(selection[rev][0], skipped[rev], excluded[rev], failed,
                              {lang: sorted(v) for lang, v in compiles.items()}, extra_ok)
        tested = out[rev].tested
        for lang in LANGS:
            n = len(failed[lang])
            progress.step(f"  {rev} {LANG_NAME[lang]}: {len(tested) - n}/{len(tested)} compile alone"
                          + (f", {n} fail" if n else "")
                          + f" (+{len(extra_ok[lang])} no-header-test headers for layouts)")
    return Headers(out, same)
