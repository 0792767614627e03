"""Step 3c: the #define constants of every unit, evaluated by the compiler (constants.py).

For each object the matrix compares (the four main units, each left-out header's own units) a
constants object is compiled from the same headers with the same compiler and flags, and put
beside the unit's object in an archive, obj/NAME.a, which the matrix compares instead of
obj/NAME.o: abidiff-uapi reads both members into one model, so a constant is compared with the
constants and the enums of the same side (a renamed enumerator kept as a #define of the same value
is safe; a syscall number that moved breaks). The driver judges none of it: every verdict comes
from the tool's severities, as for layouts.

Cached by the unit's own object, compiler and flags (a commit that changes nothing a unit reads
reuses its constants); the self-contained constants (literals only, nine in ten) also by their own
text, in sixteen objects per unit, so that a commit that changes one header recompiles about one
sixteenth of them and the rest only where they need the headers. The macro scan is the ioctl
step's (macros.scan). What is not a constant is counted with its reason, never dropped silently.
"""
import concurrent.futures
import hashlib
import json
import os
import shutil
import tempfile
import threading
import zlib

from . import constants
from .config import UNIT_FLAGS, cache_dir
from .util import Fatal, object_key, run, publish_dir, write_atomic

_LOCKS = {}
_LOCKS_LOCK = threading.Lock()


def cache_key(unit_obj, compiler_version, flags):
    """The unit's object decides its headers' bytes."""
    return object_key(unit_obj, compiler_version, *flags, "constants-v6")


_BUCKETS = 16


def _bucket(header):
    """Which of the self-contained objects a header's constants go to: by its name, so that a
    change to one header recompiles one sixteenth of them."""
    return zlib.crc32(header.encode()) % _BUCKETS


def _self_contained_objects(compiler, lang, rel_inc, out, consts, full=False):
    """The self-contained constants (constants.self_contained) in up to 16 objects, each cached
    by its own content: the compiler, the flags, where the headers are named, and each
    constant's header, line and expansion (full: compiled again all the same). Returns (object
    paths, kept, {name: reason})."""
    flags = UNIT_FLAGS[lang]
    groups = {}
    for k in consts:
        groups.setdefault(_bucket(k.header), []).append(k)
    objs, kept, bad = [], [], {}
    for _, group in sorted(groups.items()):
        h = hashlib.sha256()
        for part in (compiler.version, lang, *flags, *constants.DEBUG_FLAGS, rel_inc, "self-contained-v1"):
            h.update(part.encode() + b"\0")
        for k in group:
            h.update(f"{k.header}\0{k.line}\0{k.name}\0{int(k.string)}\0{k.text}\n".encode())
        key = h.hexdigest()[:24]
        cache = os.path.join(cache_dir(), "constants-self", key)
        with _LOCKS_LOCK:
            lock = _LOCKS.setdefault(key, threading.Lock())
        with lock:
            _self_contained_object(compiler, lang, flags, rel_inc, out, group, key, cache, full)
        with open(os.path.join(cache, "bad.json")) as f:
            failed = json.load(f)
        objs.append(os.path.join(cache, f"{key}.o"))
        kept += [k for k in group if k.name not in failed]
        bad.update(failed)
    return objs, kept, bad


_MADE = set()   # the self-contained objects this process compiled (--full compiles each once)


def _self_contained_object(compiler, lang, flags, rel_inc, out, group, key, cache, full):
    """Compile one self-contained object into its cache entry, unless it is there (made by this
    process, under --full)."""
    if key in _MADE or not full and all(os.path.isfile(os.path.join(cache, f)) for f in ("bad.json", f"{key}.o")):
        return
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=key + ".tmp.", dir=os.path.dirname(cache))
    _, failed = constants.compile_self_contained(
        compiler.path, ["-x", "c++" if lang == "cxx" else "c", *flags], group, rel_inc,
        os.path.join(tmp, f"{key}.o"), out, extra=(f"-fdebug-prefix-map={out}=.", f"-fdebug-prefix-map={tmp}=."))
    write_atomic(os.path.join(tmp, "bad.json"), json.dumps(failed, sort_keys=True))
    publish_dir(tmp, cache, lambda d: all(os.path.isfile(os.path.join(d, f)) for f in ("bad.json", f"{key}.o")))
    _MADE.add(key)


def _compile(compiler, flags, lang, kept, headers, rel_inc, out, tmp):
    """The constants unit of kept into tmp/constants.o, compiled in the out dir with the include
    dir as the layout unit names it, so that DWARF names each constant's header as the unit
    names its types (include/after/linux/x.h). MacroError when it does not compile."""
    constants.compile_constants_unit(compiler.path, rel_inc, headers, ["-x", "c++" if lang == "cxx" else "c", *flags],
                                     kept, os.path.join(tmp, "constants.o"),
                                     extra=(f"-fdebug-prefix-map={out}=.", f"-fdebug-prefix-map={tmp}=."), cwd=out)


def _complete(cache):
    """Whether a cache entry and the self-contained objects it names are all there."""
    try:
        with open(os.path.join(cache, "constants.json")) as f:
            names = json.load(f)["self_contained"]
    except (OSError, ValueError, KeyError):
        return False
    return all(os.path.isfile(os.path.join(cache_dir(), o)) for o in names)


def _build(compiler, lang, include, out, unit_obj, headers, full, key, known_bad, prior):
    """The cached {constants.json, constants.o} for key, made when missing.

    Nine in ten constants are self-contained (literals only): they compile without the headers,
    in objects cached by their own text (_self_contained_objects), so a change to one header
    recompiles few of them. The others need the unit's headers, and are checked and compiled
    here, with them, into constants.o (absent when there are none).

    prior: what the other side of the comparison (the before side, the parent commit) made of its
    macros: "failed" {name: [expansion, reason]} and "kept" {name: expansion}. A macro that
    expands to the same text here keeps its verdict: a rejected one without a compile, a kept
    one straight into the object; only the new and changed ones are checked. Compiler errors
    cost about 25 ms each in gcc and 140 ms in g++ when the headers are there, and a whole UAPI
    has a few hundred. Only when that object does not compile do the rounds of
    constants.check_constants run over all."""
    cache = os.path.join(cache_dir(), "constants", key)
    flags = UNIT_FLAGS[lang]
    if not full and _complete(cache):
        return cache
    rel_inc = os.path.relpath(include, out)
    try:
        found, rejected = constants.find_constants(compiler.path, include, headers, flags)
        skipped = {}
        if known_bad:
            skipped = {k.name: f"{known_bad[k.name]} (in C; not checked again in C++)"
                       for k in found if k.name in known_bad}
        if prior:
            failed = prior["failed"]
            skipped.update({k.name: failed[k.name][1] for k in found
                            if k.name not in skipped and k.name in failed and failed[k.name][0] == k.text})
        candidates = [k for k in found if k.name not in skipped]
        selfc, rest = [], []
        for k in candidates:
            (selfc if constants.self_contained(k) else rest).append(k)
        candidates = rest
        self_objs, self_kept, self_bad = _self_contained_objects(compiler, lang, rel_inc, out, selfc, full)
        skipped.update(self_bad)
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        # A directory of its own: another run may be writing the same key.
        tmp = tempfile.mkdtemp(prefix=os.path.basename(cache) + ".tmp.", dir=os.path.dirname(cache))
        kept = None
        if prior is not None:
            # Only what is new here, or expands to other text, is checked (few errors); what
            # compiled on the other side goes straight into the object with it.
            same = prior.get("kept", {})
            suspects = [k for k in candidates if same.get(k.name) != k.text]
            ok, bad = constants.check_constants(compiler.path, include, headers, flags, suspects) if suspects else ([], {})
            skipped.update(bad)
            trial = [k for k in candidates if k.name not in bad]
            try:
                if trial:
                    _compile(compiler, flags, lang, trial, headers, rel_inc, out, tmp)
                kept = trial
            except constants.MacroError:
                kept = None     # a change broke a constant the other side kept: every round
        if kept is None:
            kept, more = constants.check_constants(compiler.path, include, headers, flags,
                                                   [k for k in candidates if k.name not in skipped])
            skipped.update(more)
            if kept:
                _compile(compiler, flags, lang, kept, headers, rel_inc, out, tmp)
    except constants.MacroError as e:
        raise Fatal(f"constants of {os.path.basename(unit_obj)}: {e}")
    texts = {k.name: k.text for k in found}
    kept = sorted(kept + self_kept, key=lambda k: (k.header, k.line, k.name))
    write_atomic(os.path.join(tmp, "constants.json"), json.dumps(
        {"kept": [vars(k) for k in kept], "rejected": {**rejected, **skipped},
         "failed": {n: [texts[n], r] for n, r in skipped.items()},
         "self_contained": [os.path.relpath(o, cache_dir()) for o in self_objs]}, separators=(",", ":"), sort_keys=True))
    # Keyed by content: an entry another run published first stays (it may be reading it).
    publish_dir(tmp, cache, _complete)
    return cache


def build_constants(compiler, lang, include, out, name, headers, full=False, c_result=None, prior=None,
                    alone=False):
    """obj/NAME.a (obj/NAME.o and its constants) and a summary of the constants. alone: also
    obj/NAME.defines.a, the constants without the unit (--compat compares those). c_result: for
    a C++ object, build_constants' result for the same headers in C. prior: the result for the
    other side of its comparisons (see _build)."""
    unit_obj = os.path.join(out, "obj", f"{name}.o")
    # The key is the unit's: where a C++ object or an after object started from gives the same
    # verdicts, so a commit's after objects serve the next commit as its before objects.
    key = cache_key(unit_obj, compiler.version, UNIT_FLAGS[lang])
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        cache = _build(compiler, lang, include, out, unit_obj, headers, full, key,
                       c_result["rejected"] if c_result else None,
                       {"failed": prior["failed"], "kept": prior["kept_texts"]} if prior else None)
        # The constants that need the headers, and the self-contained objects (named by their keys).
        members = [os.path.join(cache_dir(), o) for o in data_of(cache)["self_contained"]]
        if os.path.isfile(os.path.join(cache, "constants.o")):
            members.insert(0, os.path.join(cache, "constants.o"))
        # The archive is the cache entry's too (its members named unit.o, constants.o, KEY.o):
        # an after object's archive serves the next commit's before object.
        cached = os.path.join(cache, "unit.a")
        if full or not os.path.isfile(cached):
            tmp = tempfile.mkdtemp(prefix="unit.a.tmp.", dir=cache)
            try:
                shutil.copyfile(unit_obj, os.path.join(tmp, "unit.o"))
                _archive(os.path.join(tmp, "unit.a"), [os.path.join(tmp, "unit.o"), *members], out)
                os.replace(os.path.join(tmp, "unit.a"), cached)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    data = data_of(cache)
    _copy(cached, os.path.join(out, "obj", f"{name}.a"))
    if os.path.isfile(os.path.join(cache, "constants.o")):
        _copy(os.path.join(cache, "constants.o"), os.path.join(out, "obj", f"{name}.defines.o"))
    if alone:
        _archive(os.path.join(out, "obj", f"{name}.defines.a"), members, out)
    kept = data["kept"]
    return {"key": key, "object": os.path.join("obj", f"{name}.a"), "constants": len(kept),
            "defines": os.path.join("obj", f"{name}.defines.a"),
            "strings": sum(1 for k in kept if k["string"]),
            "syscalls": sum(1 for k in kept if k["name"].startswith("__NR_")),
            "not_constants": constants.reason_counts(data["rejected"]),
            "rejected": data["rejected"], "failed": data.get("failed", {}),
            "kept_texts": {k["name"]: k.get("text", "") for k in kept}}


_DATA = {}   # cache entry -> its constants.json, read once per process (entries never change)


def data_of(cache):
    if cache not in _DATA:
        with open(os.path.join(cache, "constants.json")) as f:
            _DATA[cache] = json.load(f)
    return _DATA[cache]


def _copy(src, dst):
    """dst, a regular file or nothing, replaced by a copy of src in one rename."""
    tmp = dst + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _archive(archive, parts, out):
    """ar: a container; S: no symbol index (foreign architectures need none), D: deterministic."""
    tmp = archive + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    rc, _, err = run(["ar", "rcSD", tmp, *parts])
    if rc != 0:
        raise Fatal(f"ar {os.path.relpath(archive, out)}: {(err.strip().splitlines() or [f'exit {rc}'])[0]}")
    os.replace(tmp, archive)


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
    names = {t[0] for t in tasks}

    def twins(task):
        """What a task starts from: an after object from its before twin (the same expansions
        keep their verdicts, so only new and changed macros are checked), and a C++ object from
        its C twin too (C's rejections are not checked again: g++ spends 140 ms on an error,
        and a release's new macros bring dozens)."""
        name, lang, rev, _ = task
        before = name.replace("-after", "-before", 1) if rev == "after" else None
        c_twin = "c-" + name.split("-", 1)[1] if lang == "cxx" else None
        return (before if before in names else None), (c_twin if c_twin in names else None)

    def deps(task):
        return [d for d in twins(task) if d]

    def one(task):
        name, lang, rev, headers = task
        before, c_twin = twins(task)
        return build_constants(compilers[lang], lang, trees.revisions[rev].include, opts.out, name, headers,
                               opts.full, result.get(c_twin), result.get(before))

    # Each task starts as soon as those it starts from are done: C before; then C after beside
    # C++ before; then C++ after.
    pending = list(tasks)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        running = {}
        while pending or running:
            for t in [t for t in pending if all(d in result for d in deps(t))]:
                pending.remove(t)
                running[pool.submit(one, t)] = t
            if not running:
                raise Fatal("constants: tasks wait for each other: " + ", ".join(t[0] for t in pending))
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                result[running.pop(f)[0]] = f.result()
    for task in tasks:
        summary = result[task[0]]
        if task[0] in units:
            n = sum(summary["not_constants"].values())
            progress.step(f"  {task[0]}: {summary['constants']} constants ({summary['syscalls']} syscall numbers, "
                          f"{summary['strings']} strings), {n} macros that are not")
    # In the tasks' order, not the order the threads finished in: report.json is byte-stable.
    return {task[0]: result[task[0]] for task in tasks}
