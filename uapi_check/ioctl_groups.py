"""Step 4b by header: a unit's ioctl numbers compiled in sixteen groups, each after its own
headers only, and each group cached by the bytes of every file its compile read.

An all-headers unit of requests parses every header (0.2 CPU-s in gcc, 0.35 in g++), and a commit
that changes one header changed its bytes, so each commit compiled it again, with a check before
it. Here each request is compiled from its expansion (ioctls.expression: the text the all-headers
unit's preprocessor gave, every macro but _IOC and _IOC_TYPECHECK expanded) after the headers
that define its group's requests, in the groups of the constants step (by header name). Every
name such a text leaves is declared once in the unit, so it gets the number it has there. A
group's entry is reused while every file its compile read (-MD) has the same bytes: a commit that
changes one header compiles the groups whose headers read it, not all 930 headers.

A request that fails in its group because it names what the group's headers do not declare
(`size_t`, a struct of another header) is tried once more with the unit's headers that provide
the names the failures give (_providers). What still fails is judged by its reason:
  - it names an identifier, a tag or a typedef, and every unit header that spells that name, or
    includes one that does, was in the compile: no header of the unit declares it otherwise, so
    the request fails in the unit too, with this reason (`struct kvm_s390_psw` on x86, `bool` in
    C). The names are looked up again on every run: a group whose cached entry lacks a provider
    the unit now has, or took a header the unit no longer has, is compiled again;
  - anything else, and every request of a group whose headers do not compile together, is left
    to the all-headers unit (requests.py), as before.
tests/ioctls-uapi.py compares both ways, numbers and reasons, on Debian's 6.1 and 6.12 headers,
and the numbers with a compiled program's.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading

from . import ioctls, units
from .config import UNIT_FLAGS, cache_dir
from .defines import _bucket
from .trees import list_headers

_VERSION = "ioctl-groups-v1"
_LOCKS = {}
_LOCKS_LOCK = threading.Lock()
_MADE = set()   # the groups this process compiled (--full compiles each once)

# What a failing request names: an undeclared identifier (gcc, g++), the tag of an incomplete
# type, a typedef name written after `struct` (g++: agp.h's `struct agp_info`).
_NAMED = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)' (?:undeclared|was not declared)"
                    r"|incomplete type '(?:struct |union |enum )?([A-Za-z_][A-Za-z0-9_]*)'"
                    r"|using typedef-name '([A-Za-z_][A-Za-z0-9_]*)'")
_LEVELS = 4     # how many #include levels a provider is looked for above a header that spells a name


def named(reason):
    """The identifier a compiler error gives as the cause, or None."""
    m = _NAMED.search(reason)
    return next(g for g in m.groups() if g) if m else None


def _group_key(compiler, lang, group):
    """The compiler, language, flags and each request's header, name, kind and expansion (not
    its line: a commit that moves it keeps the group)."""
    h = hashlib.sha256("\0".join((_VERSION, compiler.version, lang, *UNIT_FLAGS[lang],
                                  *ioctls.DEBUG_FLAGS)).encode())
    h.update("".join(f"{x.header}\0{x.name}\0{x.kind}\0{x.text}\n" for x in group).encode())
    return h.hexdigest()[:24]


def _providers(names, include, unit_headers):
    """{name: the unit headers that spell name as a word, or include (through up to _LEVELS
    levels) a header under include that does}. grep finds the words (-w: letters, digits and
    `_`, an identifier's characters) in every header at once: a Python search of 2,000 headers
    for 34 names took 1 CPU-s."""
    unit = set(unit_headers)
    everything = set(list_headers(include))
    spelt = {name: set() for name in names}
    for path, word in _grep(["-owF"], sorted(names), include):
        if path in everything and word in spelt:
            spelt[word].add(path)
    result = {}
    for name, frontier in spelt.items():
        found, seen = set(), set(frontier)
        for _ in range(_LEVELS):
            found |= unit & frontier
            outside = frontier - unit
            if not outside:
                break
            frontier = _includers(outside, include, everything) - seen
            seen |= frontier
        result[name] = found
    return result


def _includers(targets, include, everything):
    """The headers under include with an #include of one of targets (<dir/x.h>, or "x.h" in a
    header beside it)."""
    patterns = sorted({f"<{t}>" for t in targets} | {f'"{os.path.basename(t)}"' for t in targets})
    found = set()
    for path, text in _grep(["-oF"], patterns, include):
        if path not in everything:
            continue
        if text.startswith("<") or os.path.join(os.path.dirname(path), text[1:-1]) in targets:
            found.add(path)
    return found


def _grep(options, patterns, include):
    """(header relative to include, the text matched) of every match of patterns (grep -r)."""
    proc = subprocess.run(["grep", "-r", *options, "--include=*.h", "-f", "-", "."], cwd=include,
                          input="\n".join(patterns) + "\n", capture_output=True, text=True,
                          errors="surrogateescape", env={**os.environ, "LC_ALL": "C"})
    if proc.returncode not in (0, 1):
        raise ioctls.IoctlError(f"grep in {include}: {proc.stderr.strip() or f'exit {proc.returncode}'}")
    for line in proc.stdout.splitlines():
        path, _, text = line.partition(":")
        yield os.path.normpath(path), text


def number_by_header(compiler, lang, include, found, unit_headers, tool, full=False):
    """The numbers of found (ioctls.find_ioctls of the unit) by group. Returns ({name: number},
    {name: reason} of those that fail in the unit, as judged above, [the requests left to the
    all-headers unit]). tool: a callable that gives the abidiff-uapi binary (it reads a new
    group's numbers from its DWARF)."""
    groups = {}
    for x in found:
        groups.setdefault(_bucket(x.header), []).append(x)
    left, loaded = [], []
    for _, group in sorted(groups.items()):
        data = _entry(compiler, lang, include, group, unit_headers, tool, full)
        if data is None:
            left += group
        else:
            loaded.append((group, data))
    providers = _providers(_names(d for _, d in loaded), include, unit_headers)
    unit = set(unit_headers)
    numbers, skipped, undecided = {}, {}, set()
    for group, data in loaded:
        if not _holds(group, data, providers, unit):
            # It took a header the unit no longer has, or a header of the unit now provides a
            # name it failed for: compiled again, once.
            data = _entry(compiler, lang, include, group, unit_headers, tool, full, again=True)
            if data is None:
                left += group
                continue
            providers.update(_providers(_names([data]) - set(providers), include, unit_headers))
        numbers.update(data["numbers"])
        used = set(data["headers"])
        for name, reason in data["failed"].items():
            n = named(reason)
            if n and providers[n] <= used:
                skipped[name] = reason
            else:
                undecided.add(name)
    left += [x for x in found if x.name in undecided]
    return numbers, skipped, left


def _names(entries):
    """The names the failures of group entries give."""
    return {n for d in entries for r in d["failed"].values() if (n := named(r))}


def _holds(group, data, providers, unit):
    """Whether a group's cached entry still says what a compile now would: every header it took
    beyond its own is in the unit, and it had every provider of each name it failed for."""
    used = set(data["headers"])
    if not used - {x.header for x in group} <= unit:
        return False
    return all(providers[n] <= used for r in data["failed"].values() if (n := named(r)))


def _entry(compiler, lang, include, group, unit_headers, tool, full, again=False):
    """A group's entry ({"numbers", "failed", "headers"}): the cached one whose files have the same
    bytes, else compiled (once per process under --full; again: compiled whatever the cache
    holds). None when the group's headers do not compile together."""
    gid = _group_key(compiler, lang, group)
    cache = os.path.join(cache_dir(), "ioctls-hdr", gid)
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(gid, threading.Lock())
    with lock:
        key = None if again or full and cache not in _MADE else units.content_entry(cache, include)
        if key is None:
            key = _compile_group(compiler, lang, include, group, cache, unit_headers, tool)
            _MADE.add(cache)
    if key is None:
        return None
    with open(os.path.join(cache, key + ".json")) as f:
        return json.load(f)


def _compile_group(compiler, lang, include, group, cache, unit_headers, tool):
    """Compile one group into its cache folder; its content key, or None when its headers do not
    compile together (the group is then left to the all-headers unit)."""
    flags = UNIT_FLAGS[lang]
    os.makedirs(cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="tmp.", dir=cache)
    try:
        obj, dep = os.path.join(tmp, "numbers.o"), os.path.join(tmp, "numbers.d")

        def attempt(headers):
            try:
                return ioctls.compile_numbers(compiler.path, flags, group, include, headers, obj,
                                              extra=("-MD", "-MF", dep))
            except ioctls.IoctlError:
                return None

        used = sorted({x.header for x in group})
        result = attempt(used)
        if result is None:
            return None
        wanted = {n for r in result[1].values() if (n := named(r))}
        more = sorted(set().union(*_providers(wanted, include, unit_headers).values()) - set(used)) if wanted else []
        if more:
            second = attempt(used + more)
            if second is not None:
                result, used = second, used + more
            else:
                result = attempt(used)   # the first compile's object and dependencies again
                if result is None:
                    return None
        kept, failed = result
        values = ioctls.read_numbers(tool(), obj)
        if set(values) != {x.name for x in kept}:
            raise ioctls.IoctlError(f"{obj}: {len(values)} numbers in its DWARF for {len(kept)} requests")
        files = units.files_read(dep, tmp, os.path.splitext(obj)[0] + (".cc" if lang == "cxx" else ".c"), include)
        path = os.path.join(tmp, "numbers.json")
        with open(path, "w") as f:
            json.dump({"numbers": {x.name: values[x.name] for x in kept}, "failed": failed, "headers": used}, f,
                      separators=(",", ":"))
        return units.save_content_entry(cache, include, files, {".json": path})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
