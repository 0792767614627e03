"""Step 3c: the #define constants of every unit, evaluated by the compiler (constants.py).

For each object the matrix compares (the four main units, each left-out header's own units) a
constants object is compiled from the same headers with the same compiler and flags, and put
beside the unit's object in an archive, obj/NAME.a, which the matrix compares instead of
obj/NAME.o: abidiff-uapi reads both members into one model, so a constant is compared with the
constants and the enums of the same side (a renamed enumerator kept as a #define of the same value
is safe; a syscall number that moved breaks). The driver judges none of it: every verdict comes
from the tool's severities, as for layouts.

Cached by the unit's own object, compiler and flags (a commit that changes nothing a unit reads
reuses its constants). What is not a constant is counted with its reason, never dropped silently.
"""
import hashlib
import json
import os
import shutil
import tempfile
import threading

from . import constants
from .config import UNIT_FLAGS, cache_dir
from .util import Fatal, parallel, run, write_atomic

_LOCKS = {}
_LOCKS_LOCK = threading.Lock()


def cache_key(unit_obj, compiler_version, flags, known=""):
    """The unit's object decides its headers' bytes; known: the C unit's key, for C++ (its
    rejections are C++'s starting point)."""
    h = hashlib.sha256()
    with open(unit_obj, "rb") as f:
        h.update(f.read())
    h.update(("\0".join([compiler_version, *flags, "constants-v3", known])).encode())
    return h.hexdigest()[:20]


def _build(compiler, lang, include, out, unit_obj, headers, full, key, known_bad):
    """The cached {constants.json, constants.o} for key, made when missing."""
    cache = os.path.join(cache_dir(), "constants", key)
    flags = UNIT_FLAGS[lang]
    if not full and all(os.path.isfile(os.path.join(cache, f)) for f in ("constants.json", "constants.o")):
        return cache
    rel_inc = os.path.relpath(include, out)
    try:
        found, rejected = constants.find_constants(compiler.path, include, headers, flags)
        kept, skipped = constants.check_constants(compiler.path, include, headers, flags, found,
                                                  known_bad=known_bad)
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        # A directory of its own: another run may be writing the same key.
        tmp = tempfile.mkdtemp(prefix=os.path.basename(cache) + ".tmp.", dir=os.path.dirname(cache))
        # Compiled in the out dir with the include dir as the layout unit names it, so that DWARF
        # names each constant's header as the unit names its types (include/after/linux/x.h).
        src_dir = os.path.join(out, "work")
        os.makedirs(src_dir, exist_ok=True)
        obj = os.path.join(tmp, "constants.o")
        lang_name = "c++" if lang == "cxx" else "c"
        src = os.path.join(tmp, "constants." + ("cc" if lang == "cxx" else "c"))
        with open(src, "w") as f:
            f.write(constants.unit_source(kept, headers, rel_inc, lang_name))
        rc, _, err = run([compiler.path, *flags, *constants.DEBUG_FLAGS, f"-fdebug-prefix-map={out}=.",
                          f"-fdebug-prefix-map={tmp}=.", "-I", rel_inc, "-x", lang_name, "-w",
                          "-fdiagnostics-plain-output", "-c", src, "-o", obj], cwd=out)
        if rc != 0:
            raise constants.MacroError(f"the constants unit does not compile: {constants._first_error(err)}")
    except constants.MacroError as e:
        raise Fatal(f"constants of {os.path.basename(unit_obj)}: {e}")
    write_atomic(os.path.join(tmp, "constants.json"), json.dumps(
        {"kept": [vars(k) for k in kept], "rejected": {**rejected, **skipped}}, indent=0, sort_keys=True))
    shutil.rmtree(cache, ignore_errors=True)
    try:
        os.rename(tmp, cache)
    except OSError:     # another run renamed its own first
        shutil.rmtree(tmp, ignore_errors=True)
    return cache


def build_constants(compiler, lang, include, out, name, headers, full=False, c_result=None):
    """obj/NAME.a (obj/NAME.o and its constants) and a summary of the constants. c_result: for a
    C++ object, build_constants' result for the same headers in C."""
    unit_obj = os.path.join(out, "obj", f"{name}.o")
    known = c_result["key"] if c_result else ""
    key = cache_key(unit_obj, compiler.version, UNIT_FLAGS[lang], known)
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        cache = _build(compiler, lang, include, out, unit_obj, headers, full, key,
                       c_result["rejected"] if c_result else None)
    with open(os.path.join(cache, "constants.json")) as f:
        data = json.load(f)
    defines = os.path.join(out, "obj", f"{name}.defines.o")
    shutil.copyfile(os.path.join(cache, "constants.o"), defines)
    archive = os.path.join(out, "obj", f"{name}.a")
    tmp = archive + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    # ar: a container; S: no symbol index (foreign architectures need none), D: deterministic.
    rc, _, err = run(["ar", "rcSD", tmp, unit_obj, defines])
    if rc != 0:
        raise Fatal(f"ar {os.path.relpath(archive, out)}: {(err.strip().splitlines() or [f'exit {rc}'])[0]}")
    os.replace(tmp, archive)
    kept = data["kept"]
    return {"key": key, "object": os.path.relpath(archive, out), "constants": len(kept),
            "strings": sum(1 for k in kept if k["string"]),
            "syscalls": sum(1 for k in kept if k["name"].startswith("__NR_")),
            "not_constants": constants.reason_counts(data["rejected"]),
            "rejected": data["rejected"]}


def step_constants(opts, compilers, trees, units, extra, progress):
    """Step 3c: every object of the matrix gets its archive with constants. Returns {object name:
    summary}."""
    progress.step("step 3c: #define constants, evaluated by the compiler into each unit's archive")
    tasks = [(k, u.lang, u.rev, list(u.included)) for k, u in sorted(units.items())]
    for key, a in sorted(extra.units.items()):
        if a.object:
            obj = os.path.splitext(os.path.basename(a.object))[0]
            lang, rev = a.unit.split("-", 1)
            tasks.append((obj, lang, rev, [a.header]))

    result = {}

    def one(task):
        name, lang, rev, headers = task
        c_name = "c-" + name.split("-", 1)[1]
        return build_constants(compilers[lang], lang, trees.revisions[rev].include, opts.out, name, headers,
                               opts.full, result.get(c_name) if lang == "cxx" else None)

    # C first: each C++ object starts from what its C twin rejected (constants.check_constants).
    for lang in ("c", "cxx"):
        mine = [t for t in tasks if t[1] == lang]
        for task, summary in zip(mine, parallel(opts.jobs, one, mine)):
            result[task[0]] = summary
    for task in tasks:
        summary = result[task[0]]
        if task[0] in units:
            n = sum(summary["not_constants"].values())
            progress.step(f"  {task[0]}: {summary['constants']} constants ({summary['syscalls']} syscall numbers, "
                          f"{summary['strings']} strings), {n} macros that are not")
    return result
