"""Step 3c: the #define constants of every unit, evaluated by the compiler (constants.py).

For each object the matrix compares (the four main units, each left-out header's own units) a
constants object is compiled from the same headers with the same compiler and flags, and put
beside the unit's object in an archive, obj/NAME.a, which the matrix compares instead of
obj/NAME.o: abidiff-uapi reads both members into one model, so a constant is compared with the
constants and the enums of the same side (a renamed enumerator kept as a #define of the same value
is safe; a syscall number that moved breaks). The driver judges none of it: every verdict comes
from the tool's severities, as for layouts.

Cached by the unit's own object, compiler and flags and the bytes of the headers it reads (a
commit that changes nothing a unit reads reuses its constants; the object alone would keep a
#define that no type uses at its old value); the self-contained constants (literals only, nine
in ten) also by their own text, in sixteen objects per unit, so that a commit that changes one
header recompiles about one sixteenth of them; the others, which name types or enumerators,
with their own headers only, in sixteen objects cached by the bytes of every file their compile
read (_header_objects), and only what does not compile there with all the unit's headers (in a
drift of two releases, all of them: see step_constants). A unit of one header compiles all its
constants, the self-contained ones too, in one object, with no check first (_compile_single).
The macro scan is the ioctl step's (macros.scan). What is not a constant is counted with its
reason, never dropped silently. A commit that changes no directive (its macro scan is the
parent's, from the scan store, with the moved lines taken again) starts from the parent's
constants and only places them again (_from_prior): no macro is judged twice.
"""
import concurrent.futures
import functools
import hashlib
import json
import operator
import os
import re
import shutil
import tempfile
import threading
import zlib

from . import constants, macros, units
from .config import UNIT_FLAGS, cache_dir
from .util import Fatal, by_stat, object_key, publish_dir, replaceable, run, write_atomic

_LOCKS = {}
_LOCKS_LOCK = threading.Lock()


def cache_key(unit_obj, compiler_version, flags, content, known):
    """The unit's object and content, a digest of the bytes of the headers it reads: a header's
    macros that no type uses leave the object as it was (a #define that changes its value, or
    moves, gives the same object). known: _known_digest of the C side's rejections that a C++
    unit starts from, whose verdicts it takes."""
    return object_key(unit_obj, compiler_version, *flags, content, known, "constants-v11")


def _known_digest(known_bad):
    return hashlib.sha256(json.dumps(known_bad, sort_keys=True).encode()).hexdigest()[:24]


_BUCKETS = 16


def _group_key(parts, group):
    """A digest of parts and of each constant's header, line, name, kind and expansion."""
    h = hashlib.sha256("".join(p + "\0" for p in parts).encode())
    h.update("".join(f"{k.header}\0{k.line}\0{k.name}\0{int(k.string)}\0{k.text}\n" for k in group).encode())
    return h.hexdigest()[:24]


def _groups(compiler, lang, rel_inc, consts, tag):
    """consts by the bucket of their header, each group with its key (the compiler, the flags,
    where the headers are named, tag, and each constant) and a lock of its own."""
    groups = {}
    for k in consts:
        groups.setdefault(_bucket(k.header), []).append(k)
    for _, group in sorted(groups.items()):
        key = _group_key((compiler.version, lang, *UNIT_FLAGS[lang], *constants.DEBUG_FLAGS, rel_inc, tag), group)
        with _LOCKS_LOCK:
            lock = _LOCKS.setdefault((tag, key), threading.Lock())
        yield group, key, lock


@functools.lru_cache(maxsize=None)
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
    objs, kept, bad = [], [], {}
    for group, key, lock in _groups(compiler, lang, rel_inc, consts, "self-contained-v1"):
        cache = os.path.join(cache_dir(), "constants-self", key)
        with lock:
            _self_contained_object(compiler, lang, flags, rel_inc, out, group, key, cache, full)
        with open(os.path.join(cache, "bad.json")) as f:
            failed = json.load(f)
        objs.append(os.path.join(cache, f"{key}.o"))
        kept += [k for k in group if k.name not in failed]
        bad.update(failed)
    return objs, kept, bad


def _lang_flags(lang, flags):
    """The compiler arguments that pick the unit's language, then its flags."""
    return ["-x", "c++" if lang == "cxx" else "c", *flags]


def _prefix_maps(out, tmp):
    """DWARF paths relative to the out dir and the compile's temporary dir, so that an object's
    bytes do not depend on where it was made."""
    return (f"-fdebug-prefix-map={out}=.", f"-fdebug-prefix-map={tmp}=.")


_MADE = set()   # the cache entries of objects this process compiled (--full compiles each once)


def _self_contained_object(compiler, lang, flags, rel_inc, out, group, key, cache, full):
    """Compile one self-contained object into its cache entry, unless it is there (made by this
    process, under --full)."""
    if cache in _MADE or not full and all(os.path.isfile(os.path.join(cache, f)) for f in ("bad.json", f"{key}.o")):
        return
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=key + ".tmp.", dir=os.path.dirname(cache))
    _, failed = constants.compile_self_contained(
        compiler.path, _lang_flags(lang, flags), group, rel_inc,
        os.path.join(tmp, f"{key}.o"), out, extra=_prefix_maps(out, tmp))
    write_atomic(os.path.join(tmp, "bad.json"), json.dumps(failed, sort_keys=True))
    publish_dir(tmp, cache, lambda d: all(os.path.isfile(os.path.join(d, f)) for f in ("bad.json", f"{key}.o")))
    _MADE.add(cache)


def _header_objects(compiler, lang, include, rel_inc, out, consts, unit_headers, full=False):
    """The constants that name something (types, enumerators), compiled from their expansions
    with only their own headers included, in up to 16 objects (by header name, as the
    self-contained ones), each cached with the files its compile read (-MD) and reused while every
    one of them has the same bytes: a commit that changes one header compiles again only the
    objects whose headers read it, not all 930 headers. The expansions are the all-headers unit's
    and every name they leave is declared once in a unit, so a constant gets the value it has
    there. One that does not compile there (it names what its own headers do not declare), or a
    group whose headers do not compile together, is left to the all-headers unit. Returns (object
    paths, the constants left)."""
    flags = UNIT_FLAGS[lang]
    objs, left = [], []
    for group, gid, lock in _groups(compiler, lang, rel_inc, consts, "by-header-v1"):
        cache = os.path.join(cache_dir(), "constants-hdr", gid)
        with lock:
            key = None if full and cache not in _MADE else units.content_entry(cache, include)
            if key is None:
                key = _header_object(compiler, lang, flags, include, rel_inc, out, group, cache, gid, unit_headers)
                _MADE.add(cache)
        if key is None:
            left += group
            continue
        with open(os.path.join(cache, key + ".json")) as f:
            failed = set(json.load(f))
        if len(failed) < len(group):
            objs.append(os.path.join(cache, f"{key}-{gid}.o"))   # a name of its own in the archive
        left += [k for k in group if k.name in failed]
    return objs, left


def _header_object(compiler, lang, flags, include, rel_inc, out, group, cache, gid, unit_headers):
    """Compile one group of _header_objects into its cache folder; its content key, or None when
    its headers do not compile together. A constant that names what its own headers do not
    declare (`(1 << (IP_CT_NUMBER + 1))` in xt_state.h) is tried once more with the unit's
    headers that spell that name as well; the compiler, not the search, decides."""
    os.makedirs(cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="tmp.", dir=cache)
    try:
        obj, dep = os.path.join(tmp, "constants.o"), os.path.join(tmp, "constants.d")

        def attempt(headers):
            try:
                return constants.compile_expansions(
                    compiler.path, _lang_flags(lang, flags), group, rel_inc, obj, out,
                    headers, extra=(*_prefix_maps(out, tmp), "-MD", "-MF", dep))[1]
            except constants.MacroError:
                return None

        own = sorted({k.header for k in group})
        failed = attempt(own)
        missing = {m.group(1) or m.group(2) for r in (failed or {}).values() for m in [_NAMED.search(r)] if m}
        more = _spelling_headers(missing, include, unit_headers, set(own)) if missing else []
        if more:
            second = attempt(own + more)
            failed = second if second is not None else attempt(own)
        if failed is None:
            return None
        files = units.files_read(dep, out, os.path.splitext(obj)[0] + (".cc" if lang == "cxx" else ".c"), include)
        write_atomic(os.path.join(tmp, "failed.json"), json.dumps(sorted(failed)))
        return units.save_content_entry(cache, include, files, {f"-{gid}.o": obj, ".json": os.path.join(tmp, "failed.json")})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# What a constant names that its own headers do not declare: an identifier, or a tag of an
# incomplete type (`sizeof(struct atm_cirange)` in atm.h, defined in atmdev.h).
_NAMED = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)' (?:undeclared|was not declared)|"
                    r"incomplete type '(?:struct |union |enum )?([A-Za-z_][A-Za-z0-9_]*)'")


def _spelling_headers(names, include, unit_headers, taken):
    """The unit's headers (not in taken) whose text has one of names as a word, sorted. A plain
    substring test picks the few headers the word search then looks at (the alternation costs
    0.17 s over a unit's 930 headers, the substrings 0.02)."""
    names = sorted(names)
    words = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
    found = []
    for h in unit_headers:
        if h in taken:
            continue
        text = _header_text(os.path.join(include, h))
        if text is not None and any(n in text for n in names) and words.search(text):
            found.append(h)
    return sorted(found)


_TEXTS = {}   # path -> (stamp, text): a cold run asks for a unit's 930 headers 8 times (util.by_stat)


def _read_text(path):
    with open(path, errors="replace") as f:
        return f.read()


def _header_text(path):
    """A header's text (None when unreadable), read again only when its stat changes."""
    try:
        return by_stat(_TEXTS, path, _read_text)
    except OSError:
        return None


def _compile(compiler, flags, lang, kept, headers, rel_inc, out, tmp):
    """The constants unit of kept into tmp/constants.o, compiled in the out dir with the include
    dir as the layout unit names it, so that DWARF names each constant's header as the unit
    names its types (include/after/linux/x.h). MacroError when it does not compile."""
    constants.compile_constants_unit(compiler.path, rel_inc, headers, _lang_flags(lang, flags),
                                     kept, os.path.join(tmp, "constants.o"),
                                     extra=_prefix_maps(out, tmp), cwd=out)


def _compile_single(compiler, flags, lang, consts, headers, rel_inc, out, tmp):
    """A unit of one header: all its candidate constants in tmp/constants.o, from their
    expansions, after the header, with no syntax check first. The compile's own rounds judge:
    a constant that fails is taken out with the compiler's first error and the rest compiled
    again (with one header, an error is cheap, and the check's own processes cost more than
    the rounds). Returns (kept, {name: reason})."""
    if not consts:
        return [], {}
    return constants.compile_expansions(
        compiler.path, _lang_flags(lang, flags), consts, rel_inc,
        os.path.join(tmp, "constants.o"), out, headers, extra=_prefix_maps(out, tmp))


def _complete(cache):
    """Whether a cache entry and the objects it names are all there (the entry is then read
    once for the process: data_of)."""
    try:
        data = _DATA.get(cache)
        if data is None:
            with open(os.path.join(cache, "constants.json")) as f:
                data = json.load(f)
        names = data["objects"]
    except (OSError, ValueError, KeyError):
        return False
    if not all(os.path.isfile(os.path.join(cache_dir(), o)) for o in names):
        return False
    _DATA[cache] = data
    return True


def _build(compiler, lang, include, out, unit_obj, headers, full, key, known_bad, known, prior, by_header,
           speculate=False):
    """The cached {constants.json, constants.o} for key, made when missing.

    Nine in ten constants are self-contained (literals only): they compile without the headers,
    in objects cached by their own text (_self_contained_objects), so a change to one header
    recompiles few of them. The others need the unit's headers (_place).

    prior: the other side of the comparison (the before side, the parent commit): {"failed":
    {name: [expansion, reason]}, "cache": its entry}. Where both sides' macro scans come from one
    entry of the scan store and the other side kept every constant it started from, this side's
    constants are the other side's, only placed again (_from_prior). Else they are evaluated
    (_evaluate). by_header: see _place (a unit of one header takes its own path there, whatever
    by_header says). speculate: the other side's constants or nothing (None): no evaluation."""
    cache = os.path.join(cache_dir(), "constants", key)
    flags = UNIT_FLAGS[lang]
    if not full and _complete(cache):
        return cache
    rel_inc = os.path.relpath(include, out)
    single = len(headers) == 1
    try:
        sc = macros.scan(compiler.path, include, headers, flags)
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        # A directory of its own: another run may be writing the same key.
        tmp = tempfile.mkdtemp(prefix=os.path.basename(cache) + ".tmp.", dir=os.path.dirname(cache))
        try:
            basis = _basis(sc, rel_inc, known)
            data = None
            if prior is not None and by_header and not single and not full and basis:
                data = _from_prior(compiler, lang, include, rel_inc, out, headers, sc, basis, prior["cache"], tmp)
            if data is None and speculate:
                shutil.rmtree(tmp, ignore_errors=True)
                return None
            if data is None:
                data = _evaluate(compiler, lang, include, rel_inc, out, headers, full, sc, basis, known_bad, prior,
                                 by_header, tmp)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    except constants.MacroError as e:
        raise Fatal(f"constants of {os.path.basename(unit_obj)}: {e}")
    write_atomic(os.path.join(tmp, "constants.json"), json.dumps(data, separators=(",", ":"), sort_keys=True))
    # Keyed by content: an entry another run published first stays (it may be reading it), and
    # _complete has then read that one.
    publish_dir(tmp, cache, _complete)
    _DATA.setdefault(cache, data)
    return cache


def _basis(sc, rel_inc, known):
    """What an entry's constants follow from, for _from_prior: the scan's origin (its entry in the
    scan store, and the files whose bytes differ from it), where the unit names its headers, and
    the C side's rejections (known: _known_digest of a C++ unit's known_bad); None when the scan
    is not kept."""
    if not sc.origin:
        return None
    entry, changed = sc.origin
    return {"changed": dict(changed), "known_bad": known, "rel_inc": rel_inc,
            "scan": entry, "settled": True}


def _from_prior(compiler, lang, include, rel_inc, out, headers, sc, basis, prior_cache, tmp):
    """The data of _evaluate, without evaluating a macro again, when the other side's entry has
    the same basis and was settled (it kept every candidate it started from: nothing it checked
    failed). The two scans are then one scan-store entry's: the same macros, expansions and
    verdicts (the same known_bad; the other side's rejections, which _evaluate would take for
    the same expansions), and the same lines but in the files whose bytes differ between the
    two. So the kept constants are the other side's, with those files' lines from this scan,
    and only their objects are made again (each cached by its content: a commit that changes
    one header compiles what that header's constants or bytes decide). None when the bases
    differ, or when a constant the other side kept does not compile here (a type it names
    changed): _evaluate then judges them all."""
    old = data_of(prior_cache)
    was = old.get("basis")
    if not was or not was["settled"] or any(was[k] != basis[k] for k in ("scan", "rel_inc", "known_bad")):
        return None
    moved = {f for f in set(was["changed"]) | set(basis["changed"])
             if was["changed"].get(f) != basis["changed"].get(f)}
    defs = sc.defs
    rows = old["kept"]
    if moved:
        rows = [list(r) for r in rows]
        for r in rows:
            if r[1] in moved:
                where = defs.get(r[0])
                if where is None or where[0] != r[1]:
                    return None
                r[2] = where[1]
        rows.sort(key=_FOUND_ORDER)
    kept = list(map(constants.Constant._make, rows))
    selfc, rest = [], []
    for k in kept:
        (selfc if constants.self_contained(k) else rest).append(k)
    # The two kinds of objects compile at once (a commit recompiles about one of each).
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        literal = pool.submit(_self_contained_objects, compiler, lang, rel_inc, out, selfc)
        try:
            hdr_objs = _place(compiler, lang, include, rel_inc, out, rest, headers, False, True, tmp) if rest else []
        except constants.MacroError:
            hdr_objs = None
        self_objs, _, bad = literal.result()
    if hdr_objs is None or bad:
        if os.path.lexists(os.path.join(tmp, "constants.o")):
            os.unlink(os.path.join(tmp, "constants.o"))
        return None
    return {"basis": basis, "failed": old["failed"], "kept": rows,
            "objects": [os.path.relpath(o, cache_dir()) for o in hdr_objs + self_objs],
            "rejected": old["rejected"], "strings": old["strings"], "syscalls": old["syscalls"]}


_FOUND_ORDER = operator.itemgetter(1, 2, 0)     # a kept row's header, line and name: found's order


def _place(compiler, lang, include, rel_inc, out, trial, headers, full, by_header, tmp):
    """The objects of trial: by header (_header_objects) where they compile there, the rest in
    tmp/constants.o with all the unit's headers (MacroError when that does not compile).
    by_header False: all of them in constants.o, one compile (see step_constants)."""
    objs, left = (_header_objects(compiler, lang, include, rel_inc, out, trial, headers, full)
                  if by_header else ([], trial))
    if left:
        _compile(compiler, UNIT_FLAGS[lang], lang, left, headers, rel_inc, out, tmp)
    return objs


def _evaluate(compiler, lang, include, rel_inc, out, headers, full, sc, basis, known_bad, prior, by_header, tmp):
    """The data of an entry (constants.json), its macros judged by the compiler.

    prior: what the other side made of its macros. A macro that expands to the same text here
    keeps its verdict: a rejected one without a compile, a kept one straight into the objects;
    only the new and changed ones are checked. Compiler errors cost about 25 ms each in gcc and
    140 ms in g++ when the headers are there, and a whole UAPI has a few hundred. Only when the
    objects do not compile do the rounds of constants.check_constants run over all."""
    flags = UNIT_FLAGS[lang]
    found, rejected = constants.find_constants(compiler.path, include, headers, flags, sc)
    skipped = {}
    if known_bad:
        skipped = {k.name: f"{known_bad[k.name]} (in C; not checked again in C++)"
                   for k in found if k.name in known_bad}
    if prior:
        failed = prior["failed"]
        skipped.update({k.name: failed[k.name][1] for k in found
                        if k.name not in skipped and k.name in failed and failed[k.name][0] == k.text})
    started = len(skipped)
    candidates = [k for k in found if k.name not in skipped]
    selfc, rest = [], []
    for k in candidates:
        (selfc if constants.self_contained(k) else rest).append(k)
    candidates = rest
    # A unit of one header (step 3b's) compiles all its constants in one constants.o: an
    # object and a compile of their own, or a check, cost it more than its few hundred
    # constants, and no other unit reuses them.
    single = len(headers) == 1
    self_objs, self_kept, kept, hdr_objs = [], [], None, []
    if single:
        kept, bad = _compile_single(compiler, flags, lang, selfc + candidates, headers, rel_inc, out, tmp)
        skipped.update(bad)
    else:
        self_objs, self_kept, self_bad = _self_contained_objects(compiler, lang, rel_inc, out, selfc, full)
        skipped.update(self_bad)

    def place(trial):
        return _place(compiler, lang, include, rel_inc, out, trial, headers, full, by_header, tmp)

    if prior is not None and not single:
        # Only what is new here, or expands to other text, is checked (few errors); what
        # compiled on the other side goes straight into the objects with it.
        same = _kept_texts(prior["cache"])
        suspects = [k for k in candidates if same.get(k.name) != k.text]
        ok, bad = constants.check_constants(compiler.path, include, headers, flags, suspects,
                                            verify=by_header) if suspects else ([], {})
        skipped.update(bad)
        trial = [k for k in candidates if k.name not in bad]
        try:
            hdr_objs = place(trial) if trial else []
            kept = trial
        except constants.MacroError:
            kept = None     # a change broke a constant the other side kept: every round
    if kept is None:
        kept, more = constants.check_constants(compiler.path, include, headers, flags,
                                               [k for k in candidates if k.name not in skipped],
                                               verify=by_header)
        skipped.update(more)
        try:
            hdr_objs = place(kept) if kept else []
        except constants.MacroError:
            if by_header:
                raise
            # The check's last round was not verified, and the compile of all that it kept
            # (which stands in for that round) failed: the rounds go on, verifying.
            kept, more = constants.check_constants(compiler.path, include, headers, flags, kept)
            skipped.update(more)
            hdr_objs = place(kept) if kept else []
    texts = {k.name: k.text for k in found}
    names = {k.name for k in kept} | {k.name for k in self_kept}
    kept = [k for k in found if k.name in names]    # found's order: header, line, name
    # Its dicts in the order json.load gives them back (sort_keys): the data this process keeps
    # for the entry (data_of) is what a later process reads from it, without reading it back.
    data = {"failed": {n: [texts[n], skipped[n]] for n in sorted(skipped)},
            "kept": list(map(list, kept)),     # [name, header, line, string, text]
            "objects": [os.path.relpath(o, cache_dir()) for o in hdr_objs + self_objs],
            "rejected": dict(sorted({**rejected, **skipped}.items())),
            "strings": sum(map(_STRING, kept)), "syscalls": sum(map(_SYSCALL, map(_NAME, kept)))}
    if basis:
        # Settled: every candidate it started from kept (no check or compile failed one).
        data = {"basis": {**basis, "settled": len(skipped) == started}, **data}
    return data


def build_constants(compiler, lang, include, out, name, headers, *, content, full=False, c_result=None, prior=None,
                    alone=False, by_header=True, speculate=False):
    """obj/NAME.a (obj/NAME.o and its constants) and a summary of the constants. content: a
    digest of the bytes of every header the unit reads (headers.dir_digest of the include dir,
    or a unit of one header's own: units.build_alone_unit). alone: also obj/NAME.defines.a, the
    constants without the unit (--compat compares those). c_result: for a C++ object,
    build_constants' result for the same headers in C. prior: the result for the other side of
    its comparisons. by_header: see _build (a unit of one header takes its own path there,
    whatever by_header says). speculate: make the cache entry only, and only from prior
    (_from_prior), for a c_result that may not be the one the unit will be given (step_constants
    starts a C++ after unit from its C side's before while its C after is being made); the
    entry's key holds what the unit started from, so a call with the true c_result finds it
    only when that is the same. Returns the entry's folder or None, and writes nothing in out."""
    unit_obj = os.path.join(out, "obj", f"{name}.o")
    known_bad = c_result["rejected"] if c_result else None
    # The key is the unit's: where a C++ object or an after object started from gives the same
    # verdicts, so a commit's after objects serve the next commit as its before objects.
    known = _known_digest(known_bad)
    key = cache_key(unit_obj, compiler.version, UNIT_FLAGS[lang], content, known)
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        cache = _build(compiler, lang, include, out, unit_obj, headers, full, key, known_bad, known,
                       {"failed": prior["failed"], "cache": prior["cache"]} if prior else None, by_header,
                       speculate)
        if cache is None:
            return None
        # The constants compiled with all headers, then those compiled with their own headers and
        # the self-contained ones (objects named by their keys).
        members = [os.path.join(cache_dir(), o) for o in data_of(cache)["objects"]]
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
    if speculate:
        return cache
    data = data_of(cache)
    _copy(cached, os.path.join(out, "obj", f"{name}.a"))
    defines_o = os.path.join(out, "obj", f"{name}.defines.o")
    if os.path.isfile(os.path.join(cache, "constants.o")):
        _copy(os.path.join(cache, "constants.o"), defines_o)
    elif os.path.isfile(defines_o) and not os.path.islink(defines_o):
        os.unlink(defines_o)    # an earlier run's, which this run's constants no longer need
    if alone:
        _archive(os.path.join(out, "obj", f"{name}.defines.a"), members, out)
    kept = data["kept"]
    return {"key": key, "cache": cache, "object": os.path.join("obj", f"{name}.a"), "constants": len(kept),
            "defines": os.path.join("obj", f"{name}.defines.a"),
            "strings": data["strings"], "syscalls": data["syscalls"],
            "not_constants": constants.reason_counts(data["rejected"]),
            "rejected": data["rejected"], "failed": data.get("failed", {})}


def _kept_texts(cache):
    """{name: expansion} of a cache entry's constants: what a prior side kept (only the before
    units serve as one, so only they pay for it)."""
    return {k[0]: k[4] for k in data_of(cache)["kept"]}


_NAME, _STRING = operator.attrgetter("name"), operator.attrgetter("string")
_SYSCALL = operator.methodcaller("startswith", "__NR_")
_DATA = {}   # cache entry -> its constants.json, read once per process (entries never change)


def data_of(cache):
    if cache not in _DATA:
        with open(os.path.join(cache, "constants.json")) as f:
            _DATA[cache] = json.load(f)
    return _DATA[cache]


def _copy(src, dst):
    """dst, a regular file or nothing (else Fatal), replaced by src in one rename: a hard link to
    the cache entry, which is never written again once published (a 5 MB archive per unit is not
    copied each run), or a copy where the two are on different file systems."""
    replaceable(dst)
    if os.path.exists(dst) and os.path.samefile(src, dst):
        return
    tmp = dst + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    try:
        os.link(src, tmp)
    except OSError:
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


def step_constants(opts, compilers, trees, units, extra, progress, digests):
    """Step 3c: every object of the matrix gets its archive with constants. digests: {rev:
    headers.dir_digest of its include dir} (Headers.digests). Returns {object name: summary}."""
    progress.step("step 3c: #define constants, evaluated by the compiler into each unit's archive")
    tasks = [(k, u.lang, u.rev, list(u.included), digests[u.rev]) for k, u in sorted(units.items())]
    for key, a in sorted(extra.units.items()):
        if a.object:
            obj = os.path.splitext(os.path.basename(a.object))[0]
            lang, rev = a.unit.split("-", 1)
            tasks.append((obj, lang, rev, [a.header], a.content))

    result = {}
    names = {t[0] for t in tasks}
    # The objects by header pay where a later unit reads mostly the same bytes: the next commit
    # (--git), and a series' after side, which the series leaves mostly as it was. Two releases
    # (--old, --new) share few headers' bytes: there each unit's constants that name something
    # compile at once, with all its headers (16 compiles of a group's own headers cost 2.5x one
    # compile of them all, and none serves the other side).
    by_header = bool(opts.git) or not opts.drift

    def twins(task):
        """What a task starts from: an after object from its before twin (the same expansions
        keep their verdicts, so only new and changed macros are checked), and a C++ object from
        its C twin too (C's rejections are not checked again: g++ spends 140 ms on an error,
        and a release's new macros bring dozens)."""
        name, lang, rev = task[:3]
        before = name.replace("-after", "-before", 1) if rev == "after" else None
        c_twin = "c-" + name.split("-", 1)[1] if lang == "cxx" else None
        return (before if before in names else None), (c_twin if c_twin in names else None)

    def deps(task):
        return [d for d in twins(task) if d]

    def one(task, speculate=False):
        """build_constants for a task; speculate: from its C twin's before side (guess)."""
        name, lang, rev, headers, content = task
        before, c_twin = twins(task)
        c_side = c_twin.replace("-after", "-before", 1) if speculate else c_twin
        return build_constants(compilers[lang], lang, trees.revisions[rev].include, opts.out, name, headers,
                               content=content, full=opts.full, c_result=result.get(c_side),
                               prior=result.get(before), by_header=by_header, speculate=speculate)

    # A C++ after unit takes C's rejections from C after, the longest link of the step's chain
    # (C before, C after, C++ after). Where its constants come from its before side alone
    # (_from_prior), those rejections are C before's as long as C after is made from its own
    # before side as well: so it starts beside C after, from C before's, as a guess. Its entry's
    # key holds the rejections it started from, so the unit's own task, which still waits for C
    # after, takes that entry only when the guess was right (build_constants' speculate).
    guessing = by_header and not opts.full

    def guessable(task):
        name, lang, rev = task[:3]
        before, c_twin = twins(task)
        return (guessing and name in units and lang == "cxx" and rev == "after" and before in result
                and c_twin and c_twin not in result and c_twin.replace("-after", "-before", 1) in result)

    def guess(task):
        try:
            one(task, speculate=True)
        except (Fatal, OSError):
            pass    # a guess only: the unit's own task runs next, and says what went wrong

    # Each task starts as soon as those it starts from are done: C before; then C after beside
    # C++ before; then C++ after. A task is handed to a worker only when one is free: first the
    # main units (the chain), then the guesses, then the left-out headers' units. When every
    # ready task was queued at once, 48 small ones queued ahead of C after delayed the chain by
    # their sum.
    pending, guessed = list(tasks), set()
    workers = max(1, opts.jobs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        running = {}
        while pending or running:
            ready = [t for t in pending if all(d in result for d in deps(t))]
            starts = ([(one, t) for t in ready if t[0] in units]
                      + [(guess, t) for t in pending if t[0] not in guessed and guessable(t)]
                      + [(one, t) for t in ready if t[0] not in units])
            for fn, t in starts[:workers - len(running)]:
                if fn is one:
                    pending.remove(t)
                else:
                    guessed.add(t[0])
                running[pool.submit(fn, t)] = (fn, t)
            if not running:
                raise Fatal("constants: tasks wait for each other: " + ", ".join(t[0] for t in pending))
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                fn, t = running.pop(f)
                if fn is one:
                    result[t[0]] = f.result()
    for task in tasks:
        summary = result[task[0]]
        if task[0] in units:
            n = sum(summary["not_constants"].values())
            progress.step(f"  {task[0]}: {summary['constants']} constants ({summary['syscalls']} syscall numbers, "
                          f"{summary['strings']} strings), {n} macros that are not")
    # In the tasks' order, not the order the threads finished in: report.json is byte-stable.
    return {task[0]: result[task[0]] for task in tasks}
