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
from .util import parallel, run, run_or_die, stamps, write_atomic


def no_header_test(makefile, srcarch=None):
    """The tree's own no-header-test list, evaluated by make from usr/include/Makefile for an
    architecture (its rules differ by SRCARCH)."""
    srcarch = srcarch or ARCHES[DEFAULT_ARCH].srcarch
    tree = os.path.dirname(os.path.dirname(os.path.dirname(makefile)))
    # The list is a function of the Makefile's text and SRCARCH alone (obj is a directory that
    # does not exist, so its find and wildcards see nothing): cached by both.
    with open(makefile, "rb") as f:
        key = hashlib.sha256(f.read() + b"\0" + srcarch.encode() + b"\0no-header-test-1").hexdigest()[:24]
    cached = os.path.join(cache_dir(), "no-header-test", key + ".json")
    try:
        with open(cached) as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    with tempfile.NamedTemporaryFile("w", suffix=".mk", delete=False) as f:
        f.write("include $(UAPI_MAKEFILE)\nprint-no-header-test:\n\t@echo $(no-header-test)\n")
        wrapper = f.name
    try:
        out = run_or_die(["make", "-s", "-f", wrapper, f"UAPI_MAKEFILE={makefile}",
                          f"SRCARCH={srcarch}", "obj=/nonexistent", "srctree=" + tree,
                          "print-no-header-test"], "reading no-header-test")
    finally:
        os.unlink(wrapper)
    write_atomic(cached, json.dumps(out.split()))
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


def parse_deps(text):
    """The files of a make rule that -MD -MF - wrote (the first name is the target)."""
    names = text.replace("\\\n", " ").split()
    return [os.path.normpath(n) for n in names[1:] if n != "/dev/null"]


def relative_deps(deps, roots):
    """Each dependency as [root index, path inside it], or [-1, absolute path] outside them."""
    out = []
    for d in deps:
        for i, r in enumerate(roots):
            if d.startswith(r + "/"):
                out.append([i, d[len(r) + 1:]])
                break
        else:
            out.append([-1, d])
    return out


def compile_alone_deps(compiler, lang, inc, dummy, header, extra=False):
    """(None when the header compiles alone, else its first error; the files it read, as
    relative_deps over (inc, dummy), or None when the compiler wrote none)."""
    rc, out, err = run(alone_command(compiler, lang, inc, dummy, header, extra) + ["-MD", "-MF", "-"])
    deps = parse_deps(out)
    roots = (os.path.normpath(inc), os.path.normpath(dummy))
    return (None if rc == 0 else first_error(err, inc)), (relative_deps(deps, roots) if deps else None)


def compile_alone(compiler, lang, inc, dummy, header, extra=False):
    """None when the header compiles alone, else its first error."""
    return compile_alone_deps(compiler, lang, inc, dummy, header, extra)[0]


def file_digests(root):
    digests = {}
    for rel in list_headers(root):
        with open(os.path.join(root, rel), "rb") as f:
            digests[rel] = hashlib.sha256(f.read()).digest()
    return digests


def changed_files(before, after):
    """Per root (include dir, dummy dir): the paths that differ between the revisions (changed,
    added or removed), and the paths only after has."""
    changed, added = [], []
    for b, a in zip(before, after):
        db, da = file_digests(b), file_digests(a)
        changed.append({p for p in db.keys() | da.keys() if db.get(p) != da.get(p)})
        added.append(set(da) - set(db))
    return changed, added


def reusable(deps, changed, added):
    """A before result holds for after when the compiler wrote its dependencies and none of
    them changed: no file it read differs, and no file that after adds could shadow a system
    header it read by the same include name."""
    if not deps:
        return False
    for root, path in deps:
        if root >= 0:
            if path in changed[root]:
                return False
        elif any(path.endswith("/" + a) for a_set in added for a in a_set):
            return False
    return True


_DIR_DIGESTS = {}   # an include dir's real path -> ((its headers, their stamps), dir_digest)


def dir_digest(inc):
    """A digest of every header's name and bytes, remembered while each header's size, time and
    inode stay the same: the sweep and the four units ask for each include dir of a run three
    times (2,000 files each), where one read serves."""
    rels = list_headers(inc)
    now = stamps(inc, rels)
    real = os.path.realpath(inc)
    hit = _DIR_DIGESTS.get(real)
    if now is not None and hit and hit[0] == (rels, now):
        return hit[1]
    h = hashlib.sha256()
    for rel in rels:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(inc, rel), "rb") as f:
            h.update(f.read())
    digest = h.hexdigest()
    if now is not None:
        _DIR_DIGESTS[real] = (rels, now), digest
    return digest


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


def rev_changes(revs):
    """changed_files between the two revisions' include dirs and dummy include dirs."""
    return changed_files(*[(revs[rev].include, revs[rev].file("usr/dummy-include")) for rev in REVS])


def sweep(jobs, compilers, revs, selection, progress, arch=DEFAULT_ARCH, full=False, changes=None, digests=None):
    """Compile every header alone in both languages, reusing cached sweeps (not with full).
    Returns (same, [(Task, first error or None)] for every revision that needs its own sweep,
    {revision: (results reused, results)}, the number of after results reused from before,
    {Task: the files it read (relative_deps) or None}).

    The after sweep compiles again only what the series can have changed: a header whose own
    file and every file it read (the compiler's -MD list) are byte-identical in before and after
    keeps its before result, since the compiler and flags are the same. changes: rev_changes(revs),
    digests: {rev: dir_digest of its include dir}, when the caller has them."""
    digests = digests or {rev: dir_digest(revs[rev].include) for rev in REVS}
    same = digests["after"] == digests["before"]
    dummy = {rev: revs[rev].file("usr/dummy-include") for rev in REVS}
    keys, results, deps = {}, [], {}
    reused = 0
    reuse = {}

    def one(t):
        return compile_alone_deps(compilers[t.lang].path, t.lang, revs[t.rev].include, dummy[t.rev],
                                  t.header, t.extra)

    def todo(rev):
        tested, extra = selection[rev]
        return [Task(rev, lang, h, x) for lang in LANGS
                for h, x in [(h, False) for h in tested] + [(h, True) for h in extra]]

    fresh = []
    for rev in REVS if not same else ("before",):
        tested, extra = selection[rev]
        keys[rev] = sweep_key(compilers, digests[rev], tested, extra, dir_digest(dummy[rev]), arch)
        cached = None if full else load_sweep(keys[rev])
        if cached is not None:
            reuse[rev] = (len(cached), len(cached))
            progress.step(f"  {rev}: per-header results reused (same headers, compilers and flags)")
            for entry in cached:
                t = Task(rev, *entry[0])
                results.append((t, entry[1]))
                deps[t] = entry[2] if len(entry) > 2 else None
            continue
        tasks = todo(rev)
        reuse[rev] = (0, len(tasks))
        if rev == "after" and not full:
            changed, added = changes or rev_changes(revs)
            prior = {(t.lang, t.header, t.extra): t for t in deps if t.rev == "before"}
            by_task = {t: r for t, r in results if t.rev == "before"}
            again = []
            for t in tasks:
                b = prior.get((t.lang, t.header, t.extra))
                if b is not None and reusable(deps[b], changed, added):
                    results.append((t, by_task[b]))
                    deps[t] = deps[b]
                    reused += 1
                else:
                    again.append(t)
            progress.step(f"  after: {reused} of {len(tasks)} per-header results reused from before "
                          f"(the files they read are unchanged), {len(again)} to compile")
            reuse[rev] = (reused, len(tasks))
            tasks = again
        out = parallel(jobs, one, tasks, progress, f"compiling headers alone ({rev})")
        for t, (err, d) in zip(tasks, out):
            results.append((t, err))
            deps[t] = d
        fresh += tasks
    for rev in keys:
        if any(t.rev == rev for t in fresh):
            save_sweep(keys[rev], [[[t.lang, t.header, t.extra], r, deps[t]]
                                   for t, r in results if t.rev == rev])
    if same:
        reuse["after"] = (reuse["before"][1], reuse["before"][1])   # the before results serve both
    return same, results, reuse, reused, deps


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
    # Step 3 seeds the after units from the same changes (not with --full, which reuses nothing).
    changes = None if opts.full else rev_changes(revs)
    digests = {rev: dir_digest(revs[rev].include) for rev in REVS}   # the later steps' keys too
    same, results, reuse, reused, deps = sweep(opts.jobs, compilers, revs, selection, progress, opts.arch.debian,
                                               opts.full, changes, digests)
    out = {}
    for rev in REVS:
        src = "before" if same else rev
        failed = {lang: {} for lang in LANGS}
        compiles = {lang: [] for lang in LANGS}
        extra_ok = {lang: [] for lang in LANGS}
        read = {lang: {} for lang in LANGS}
        for t, err in results:
            if t.rev != src:
                continue
            if deps.get(t):
                read[t.lang][t.header] = deps[t]
            if err and not t.extra:
                failed[t.lang][t.header] = err
            if not err:
                compiles[t.lang].append(t.header)
                if t.extra:
                    extra_ok[t.lang].append(t.header)
        out[rev] = RevHeaders(selection[rev][0], skipped[rev], excluded[rev], failed,
                              {lang: sorted(v) for lang, v in compiles.items()}, extra_ok,
                              reused if rev == "after" and not same else 0, reuse[rev], read)
        tested = out[rev].tested
        for lang in LANGS:
            n = len(failed[lang])
            progress.step(f"  {rev} {LANG_NAME[lang]}: {len(tested) - n}/{len(tested)} compile alone"
                          + (f", {n} fail" if n else "")
                          + f" (+{len(extra_ok[lang])} no-header-test headers for layouts)")
    return Headers(out, same, changes, digests)
