"""Step 4b: ioctl request numbers. Each all-headers unit gets an ioctl unit of the same headers,
in which the compiler computes every `_IO`/`_IOR`/`_IOW`/`_IOWR` request (ioctls.py); the tool
reads the numbers back from DWARF and compares them (--strict: a number has no evolution idioms).
For --git and a series the numbers are compiled in groups by header instead, each group cached by
the bytes of what it read (ioctl_groups.py), and the unit holds them as literals: the same
numbers, the same diff, and a one-header commit compiles a group or two, not every header.
Each number that differs becomes a finding of the base comparison it belongs to, with its
argument type and the tool's finding for that type, which says why the number moved.

What a changed number means comes from the tool's severities, never from decoding it:
- drift: a number that moved because its argument grew at the tail (the argument's finding is
  review or safe) is review: the kernel must keep accepting the old size (DRM and KFD do, by
  ioctl nr); any other moved number breaks every program built against OLD;
- the series and C/C++ comparisons: any difference fails (C++ before/after only notes it, as for
  layouts: the cross comparisons check that C++ ends up equal to C).
"""
import json
import os
import shutil
import tempfile
import threading

from . import ioctl_groups, ioctls
from .config import UNIT_FLAGS, cache_dir
from .headers import dir_digest
from .judge import FAIL, NOTE, REVIEW
from .model import Finding
from .util import Fatal, in_background, object_key, parallel, publish_dir, write_atomic

CHECK = {"drift": "drift", "series-c": "c-layout-unchanged", "series-cxx": "cxx-layout",
         "cross": "c-cxx-same-layout", "cross-series": "c-cxx-same-layout"}


def cache_key(unit_obj, compiler_version, flags, content, by_header=False):
    """The main unit's object and content, a digest of the bytes of the headers it reads: the
    object alone is not enough, as a request macro that no type uses leaves it as it was
    (`_IO(UINPUT_IOCTL_BASE, 1)` renumbered to 99 gives the same object)."""
    return object_key(unit_obj, compiler_version, *flags, content, "ioctls-v4",
                      *(["by-header"] if by_header else []))


_LOCKS = {}
_LOCKS_LOCK = threading.Lock()


def build_ioctl_unit(compiler, unit, include, out, full=False, known_bad=frozenset(), tool=None, content=None):
    """obj/ioctls-KEY.o for one unit, and {name: Ioctl} of its numbered requests, {name: reason}
    of those whose number does not compile there. Cached by the unit's own object and the bytes of
    its include dir. Two such units (revisions that differ only in what this architecture does not
    install) share the key: the second waits for the first and copies its result. known_bad: the names
    whose number did not compile on the other side (ioctls.number_ioctls starts from them).
    tool: a callable that gives the abidiff-uapi binary; with it the numbers are compiled by
    header (ioctl_groups.py), and the object holds them as literals (ioctls.literal_unit_source).
    content: headers.dir_digest(include), when the caller has it."""
    flags = UNIT_FLAGS[unit.lang]
    key = cache_key(os.path.join(out, unit.object), compiler.version, flags, content or dir_digest(include),
                    tool is not None)
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        return _build_ioctl_unit(compiler, unit, include, out, full, flags, key, known_bad, tool)


def _number(compiler, unit, include, flags, found, obj, known_bad, tool, full):
    """(kept, {name: reason} skipped) of found, their numbers compiled into obj: by header
    with tool (ioctl_groups.py: what it leaves, with all the unit's headers), else all with all
    the unit's headers (ioctls.number_ioctls)."""
    if tool is None:
        return ioctls.number_ioctls(compiler.path, include, unit.included, flags, found, obj, known_bad)
    numbers, skipped, left = ioctl_groups.number_by_header(compiler, unit.lang, include, found, unit.included,
                                                           tool, full)
    if left:
        rest = os.path.join(os.path.dirname(obj), "rest.o")
        kept, more = ioctls.number_ioctls(compiler.path, include, unit.included, flags, left, rest, known_bad)
        if kept:    # none: the unit has no enum to read (everything left failed there too)
            numbers.update(ioctls.read_ioctl_numbers(tool(), rest))
        skipped.update(more)
    lost = [x.name for x in found if x.name not in numbers and x.name not in skipped]
    if lost:
        raise ioctls.IoctlError(f"no number and no reason for {len(lost)} requests: {', '.join(lost[:5])}")
    kept = [x for x in found if x.name in numbers]
    ioctls.compile_literal_unit(compiler.path, flags, {x.name: numbers[x.name] for x in kept}, obj)
    return kept, {x.name: skipped[x.name] for x in found if x.name in skipped}


def _build_ioctl_unit(compiler, unit, include, out, full, flags, key, known_bad, tool):
    cache = os.path.join(cache_dir(), "ioctls", key)
    obj = os.path.join(out, "obj", f"ioctls-{unit.key}.o")
    if full or not all(os.path.isfile(os.path.join(cache, f)) for f in ("ioctls.json", "ioctls.o")):
        try:
            found = ioctls.find_ioctls(compiler.path, include, unit.included, flags)
            # A directory of its own: another run may be writing the same key.
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            tmp = tempfile.mkdtemp(prefix=os.path.basename(cache) + ".tmp.", dir=os.path.dirname(cache))
            kept, skipped = _number(compiler, unit, include, flags, found, os.path.join(tmp, "ioctls.o"),
                                    known_bad, tool, full)
        except ioctls.IoctlError as e:
            raise Fatal(f"ioctl numbers of {unit.key}: {e}")
        write_atomic(os.path.join(tmp, "ioctls.json"), json.dumps(
            {"kept": [vars(x) for x in kept], "skipped": skipped}, separators=(",", ":")))
        # Keyed by content: an entry another run published first stays (it may be reading it).
        publish_dir(tmp, cache, lambda d: all(os.path.isfile(os.path.join(d, f)) for f in ('ioctls.json', 'ioctls.o')))
    with open(os.path.join(cache, "ioctls.json")) as f:
        data = json.load(f)
    shutil.copyfile(os.path.join(cache, "ioctls.o"), obj)
    kept = {d["name"]: ioctls.Ioctl(**d) for d in data["kept"]}
    return obj, kept, data["skipped"]


def argument_finding(comp, arg_type):
    """The tool's finding for an ioctl's argument type in the same comparison, if any."""
    for t in comp.types:
        if t.get("name") == arg_type:
            return t
    return None


def judge_number(comp, name, change, ioctl):
    """The Finding for one request number that differs between the two sides."""
    arg = ioctl.arg_type if ioctl else None
    t = argument_finding(comp, arg) if arg else None
    sizes = " -> ".join(str(t[k]) for k in ("old_size", "new_size") if t and t.get(k) is not None)
    why = (f"{t['name']}{' ' + sizes + ' bytes' if sizes else ''}, {t.get('severity') or 'no severity'}"
           f" ({', '.join(t.get('reasons') or [])})") if t else "no finding for its argument"
    text = f"0x{change['old']:08x} -> 0x{change['new']:08x}, argument {arg or '(none)'}: {why}"
    role = comp.role
    if role == "drift":
        grew = t is not None and t.get("severity") in ("review", "safe")
        verdict = FAIL if not grew or comp.fail_on == "review" else REVIEW
        tool_severity = "review" if grew else "break"
    elif role == "series-cxx":
        verdict, tool_severity = NOTE, change.get("severity")
    else:
        verdict, tool_severity = FAIL, change.get("severity")
    finding = Finding(f"ioctl {name}", "ioctl", "changed", ioctl.header if ioctl else None, None, None,
                      verdict, CHECK[role], text, None, tool_severity=tool_severity,
                      reasons=list(t.get("reasons") or []) if t else [])
    record = {"ioctl": name, "header": ioctl.header if ioctl else None, "old": change["old"],
              "new": change["new"], "old_hex": f"0x{change['old']:08x}", "new_hex": f"0x{change['new']:08x}",
              "argument": arg, "argument_severity": t.get("severity") if t else None,
              "verdict": verdict, "text": f"ioctl {name}: {text}"}
    return finding, record


def build_requests(opts, compilers, trees, units, tool=None, digests=None):
    """The ioctl units of step 4b, before any comparison: ({unit key: build_ioctl_unit's result},
    [progress lines]). It needs only the units, so the driver runs it beside steps 3b, 3c and 4
    (start_requests): on two cores the C++ side of each step leaves one idle. tool: a callable
    that gives the abidiff-uapi binary. The numbers are compiled by header where a later unit
    reads mostly the same bytes, as the constants are (defines.step_constants): the next commit
    (--git) and a series' after side; a drift of two releases compiles each unit's at once.
    digests: Headers.digests."""
    built, lines = {}, []
    by_header = tool is not None and (bool(opts.git) or not opts.drift)

    def one(key):
        u = units[key]
        other = built.get(key.replace("-after", "-before")) if u.rev == "after" else None
        return build_ioctl_unit(compilers[u.lang], u, trees.revisions[u.rev].include, opts.out, opts.full,
                                frozenset(other[2]) if other else frozenset(), tool if by_header else None,
                                (digests or {}).get(u.rev))

    # The before units first: each after unit starts from what did not compile before.
    for after in (False, True):
        keys = sorted(k for k in units if (units[k].rev == "after") == after)
        for key, result in zip(keys, parallel(opts.jobs, one, keys)):
            built[key] = result
            lines.append(f"  {key}: {len(result[1])} ioctl numbers"
                         + (f", {len(result[2])} that do not compile in the unit" if result[2] else ""))
    return built, lines


def start_requests(opts, compilers, trees, units, tool=None, digests=None):
    """build_requests in a thread of its own; step_requests takes its result."""
    return in_background(build_requests, opts, compilers, trees, units, tool, digests)


def step_requests(opts, compilers, trees, units, comparisons, tool, progress, started=None):
    """Step 4b: number every unit's ioctls, compare them per base comparison, add the findings.
    started: start_requests' future, when the ioctl units are being built already."""
    progress.step("step 4b: ioctl request numbers, computed by the compiler, read back from DWARF")
    built, lines = started.result() if started else build_requests(opts, compilers, trees, units, lambda: tool)
    for line in lines:
        progress.step(line)
    skipped = {k: v[2] for k, v in built.items() if v[2]}
    for comp in comparisons.values():
        if comp.base:
            continue
        old_obj, old_kept, _ = built[comp.old]
        new_obj, new_kept, _ = built[comp.new]
        try:
            # Units with no request on either side have no ioctl enum for the tool to select.
            changes = ioctls.ioctl_number_changes(tool, old_obj, new_obj) if old_kept or new_kept else {}
        except ioctls.IoctlError as e:
            raise Fatal(str(e))
        gone = sum(1 for c in changes.values() if c["new"] is None)
        moved = 0
        for name, change in sorted(changes.items()):
            if change["old"] is None or change["new"] is None:
                continue
            finding, record = judge_number(comp, name, change, new_kept.get(name) or old_kept.get(name))
            comp.findings.append(finding)
            comp.ioctls.append(record)
            moved += 1
        progress.step(f"  {comp.name}: {moved} ioctl numbers differ"
                      + (f", {gone} only in {comp.old}" if gone else ""))
    return skipped
