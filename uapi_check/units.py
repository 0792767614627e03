"""Step 3: one translation unit per language and revision with every header that compiles
there (-g -fno-eliminate-unused-debug-types), leaving out headers that collide in one unit.
Step 3b: each header left out of a main unit, in a unit of its own."""
import functools
import hashlib
import json
import os
import re
import shutil

from .collisions import blame, parse_first_collision, relpath_in
from .config import DEBUG_FLAGS, LANG_NAME, LANGS, REVS, UNIT_FLAGS, cache_dir, unit_key
from .headers import dir_digest, first_error, parse_deps, relative_deps, reusable
from .matrix import base_matrix
from .model import AlonePair, AloneUnit, Collision, ExtraUnits, Unit, UnitCoverage, all_unit_keys
from .util import Fatal, by_stat, copy_atomic, parallel, run, write_atomic


def unit_command(compiler, lang, unit, obj, rel_inc, out):
    """The compile command of a unit, run in the out dir with every path under it mapped to .
    (-ffile-prefix-map: DWARF and __FILE__), so an object names include/after/linux/x.h
    wherever the out dir is, and the same inputs give the same bytes."""
    return [compiler, *UNIT_FLAGS[lang], *DEBUG_FLAGS, "-fdiagnostics-plain-output",
            "-w", "-fmax-errors=10", "-fdiagnostics-column-unit=byte", f"-ffile-prefix-map={out}=.",
            "-I", rel_inc, "-c", os.path.relpath(unit, out), "-o", os.path.relpath(obj, out)]


def parse_command(cmd):
    """A unit's command cut down to finding its next collision: parse only (no code, no DWARF)
    and stop at the first error, whose notes still follow it. The rounds that leave colliding
    headers out are most of a cold run's step 3 (14 rounds per before unit on 6.1); each now
    costs a fraction of a full compile, and the round that parses cleanly is followed by the
    one full compile whose object is kept. The first error is the same either way: every
    diagnostic before it is the same."""
    out = [a for a in cmd if a != "-c" and not a.startswith("-fmax-errors=")]
    i = out.index("-o")
    return out[:i] + out[i + 2:] + ["-fsyntax-only", "-fmax-errors=1"]


def unit_cache_key(ident, lang, headers, inc):
    """A unit's object depends only on the compiler, the flags and the headers it is offered (and
    their bytes): a warm run copies the object instead of compiling the unit again. The names
    DWARF records (c-after.c, include/after/linux/x.h) are not in the key: a side's units serve
    it as before and as after (a commit's after is the next commit's before), since comparisons
    name both include dirs (--headers) and show each file relative to the one it lies in."""
    h = hashlib.sha256()
    for part in ("unit-2", ident, lang, list(headers), dir_digest(inc), UNIT_FLAGS[lang], DEBUG_FLAGS):
        h.update(json.dumps(part, sort_keys=True).encode() + b"\0")
    return h.hexdigest()[:24]


def by_header(collisions):
    """Collisions in the order of their headers: the rounds find them in an order that depends on
    what was seeded and what was cached, and reports must be byte-stable."""
    return sorted(collisions, key=lambda c: (c.header, c.symbol or "", c.message))


def load_unit(key, lang, rev, out, obj):
    """The cached Unit for key, its object copied to obj; None when not cached."""
    d = os.path.join(cache_dir(), "units", key)
    try:
        with open(os.path.join(d, "unit.json")) as f:
            meta = json.load(f)
        copy_atomic(os.path.join(d, "unit.o"), obj)
    except (OSError, ValueError):
        return None
    return Unit(lang, rev, os.path.relpath(obj, out), meta["included"],
                by_header([Collision(**c) for c in meta["collisions"]]), os.path.getsize(obj), cached=True)


def save_unit(key, unit, obj):
    d = os.path.join(cache_dir(), "units", key)
    copy_atomic(obj, os.path.join(d, "unit.o"))
    write_atomic(os.path.join(d, "unit.json"), json.dumps(
        {"included": unit.included, "collisions": [c.to_json() for c in unit.collisions]}))


def build_unit(compiler, lang, rev, headers, inc, out, max_rounds=80, ident=None, full=False, seed=(),
               compiling=None):
    """Compile one unit with every header; leave out colliding headers one at a time until it
    compiles. With ident (the compiler's identity), reuse a cached object of the same inputs
    (unless full), and store the result. seed: collisions known to hold here (see
    seed_collisions); their headers are left out from the first compile on, which saves one
    failing compile each, and the rounds go on from there for any collision the seed missed.
    compiling: called when the unit is not cached, with the headers it will most likely keep:
    at the first compile of a seeded unit (its collisions are known), else when the rounds end
    (a scan of the first compile's headers, which the unit then leaves, is wasted: 0.5 CPU-s),
    and again if a seeded unit's rounds end with other headers."""
    ext = "c" if lang == "c" else "cc"
    work = os.path.join(out, "work")
    unit = os.path.join(work, f"{lang}-{rev}.{ext}")
    obj = os.path.join(out, "obj", f"{lang}-{rev}.o")
    tmp_obj = os.path.join(work, f"{lang}-{rev}.o")
    rel_inc = os.path.relpath(inc, out)
    key = unit_cache_key(ident, lang, headers, inc) if ident is not None else None
    if key and not full:
        cached = load_unit(key, lang, rev, out, obj)
        if cached:
            write_atomic(unit, "".join(f"#include <{h}>\n" for h in cached.included))
            return cached
    seeded = {c.header for c in seed}
    included = [h for h in headers if h not in seeded]
    collisions = [c for c in seed if c.header in headers]
    announced = None

    def announce():
        nonlocal announced
        if compiling and announced != included:
            announced = list(included)
            compiling(list(included))

    if seed:
        announce()
    hunting = False   # after a failed compile: rounds that only parse, up to the first error
    for _ in range(max_rounds):
        write_atomic(unit, "".join(f"#include <{h}>\n" for h in included))
        cmd = unit_command(compiler, lang, unit, tmp_obj, rel_inc, out)
        rc, _, err = run(parse_command(cmd) if hunting else cmd, cwd=out)
        if rc == 0 and hunting:
            hunting = False   # the unit parses: the next round compiles it, with its DWARF
            announce()
            continue
        if rc == 0:
            announce()
            os.rename(tmp_obj, obj)
            built = Unit(lang, rev, os.path.relpath(obj, out), included, by_header(collisions),
                         os.path.getsize(obj))
            if key:
                save_unit(key, built, obj)
            return built
        col = parse_first_collision(err, os.path.relpath(unit, out), out)
        culprit = blame(col, included, rel_inc, os.path.relpath(unit, out)) if col else None
        if not culprit:
            raise Fatal(f"{LANG_NAME[lang]} unit ({rev}) fails and no header can be blamed: "
                        + first_error(err, inc))
        collisions.append(Collision(culprit, col.symbol, col.message, relpath_in(col.at, rel_inc),
                                    relpath_in(col.other, rel_inc)))
        included.remove(culprit)
        hunting = True
    raise Fatal(f"{LANG_NAME[lang]} unit ({rev}): more than {max_rounds} collisions")


def _file(path):
    """The file of a diagnostic's place (path:line), None for none."""
    return re.sub(r":\d+$", "", path) if path else None


def seed_collisions(before, after_headers, before_deps, changed, added):
    """The collisions of the before unit that hold in the after unit without a compile each:
    the left-out header is offered after too, the files it reads alone (-MD, from step 2) are
    unchanged and no added file could shadow one of them, and neither definition's file changed.
    A header whose collision the series may have touched is not seeded: the rounds decide."""
    seed = []
    offered = set(after_headers)
    for c in before.collisions:
        files = {_file(c.at), _file(c.other)} - {None}
        if (c.header in offered and reusable(before_deps.get(c.header), changed, added)
                and not files & changed[0]):
            seed.append(c)
    return seed


def step_units(opts, compilers, trees, headers, progress, compiling=None):
    """Step 3: one object per language and revision, with every header that compiles there.
    Returns {unit key: Unit}. The before units come first; each after unit starts from the
    collisions of its language's before unit that the series cannot have changed (not with
    --full), so a commit that touches one header costs one compile per language, not one per
    collision. compiling(lang, rev, headers): called as a unit that is not cached starts to
    compile (the driver starts its macro scan then)."""
    progress.step("step 3: one unit per language and revision (-g -fno-eliminate-unused-debug-types)")
    os.makedirs(os.path.join(opts.out, "obj"), exist_ok=True)
    os.makedirs(opts.work, exist_ok=True)
    revs = [rev for rev in REVS if not (headers.same and rev == "after")]
    seeds = {}

    def one(combo):
        lang, rev = combo
        return build_unit(compilers[lang].path, lang, rev, headers.revs[rev].compiles[lang],
                          trees.revisions[rev].include, opts.out, ident=compilers[lang].to_json(),
                          full=opts.full, seed=seeds.get(lang, ()),
                          compiling=functools.partial(compiling, lang, rev) if compiling else None)

    built = []
    for rev in revs:  # before, then after (seeded from before)
        combos = [(lang, rev) for lang in LANGS]
        built += parallel(opts.jobs, one, combos)
        if rev == "before" and "after" in revs and headers.changes is not None:
            for u in built:
                seeds[u.lang] = seed_collisions(u, headers.revs["after"].compiles[u.lang],
                                                headers.revs["before"].deps.get(u.lang, {}), *headers.changes)
    if headers.same:  # identical headers (an empty series): the after objects are copies
        for lang in LANGS:
            u = next(x for x in built if x.lang == lang and x.rev == "before")
            after = os.path.join("obj", f"{lang}-after.o")
            shutil.copyfile(os.path.join(opts.out, u.object), os.path.join(opts.out, after))
            built.append(Unit(lang, "after", after, u.included, u.collisions, u.size, cached=True))
    units = {}
    for u in built:
        units[u.key] = u
        progress.step(f"  {u.key}: {len(u.included)} headers in one unit"
                      + (f", {len(u.collisions)} left out for collisions" if u.collisions else "")
                      + (" (cached)" if u.cached else ""))
    return units


def header_slug(header, taken):
    """A file-name-safe, unique name for a header: linux/uio.h -> linux-uio."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "-", header[:-2] if header.endswith(".h") else header)
    slug, n = base, 2
    while taken.get(slug, header) != header:
        slug, n = f"{base}-{n}", n + 1
    taken[slug] = header
    return slug


def _alone_cache(ident, lang, header, rel_inc):
    """rel_inc (include/after) is in the key, unlike a main unit's: the object's DWARF names the
    files under it, and a left-out header's object is checked against its own side's include
    dir (dump OBJ --headers include/after), so a side never takes the other side's object."""
    h = hashlib.sha256(json.dumps(["alone-3", ident, lang, header, rel_inc, UNIT_FLAGS[lang], DEBUG_FLAGS],
                                  sort_keys=True).encode())
    return os.path.join(cache_dir(), "alone", h.hexdigest()[:24])


_DIGESTS = {}   # path -> (stamp, sha256 of its bytes): a unit's groups share most files (util.by_stat)


def _digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).digest()


def _file_digest(path):
    return by_stat(_DIGESTS, path, _digest)


def _content_key(files, inc):
    """A digest of the bytes of files (relative_deps over (inc,)), None if one is gone."""
    h = hashlib.sha256()
    for root, path in files:
        try:
            h.update(f"{root}:{path}".encode() + b"\0" + _file_digest(os.path.join(inc, path) if root == 0 else path))
        except OSError:
            return None
    return h.hexdigest()[:24]


def content_entry(cache, inc):
    """The key of an entry in cache (a folder of entries, each made by save_content_entry) whose
    every file read has the same bytes now, or None."""
    try:
        with open(os.path.join(cache, "deps.json")) as f:
            lists = json.load(f)
    except (OSError, ValueError):
        return None
    for files in lists:
        key = _content_key(files, inc)
        if key and os.path.isfile(os.path.join(cache, key + ".done")):
            return key
    return None


def save_content_entry(cache, inc, files, outputs):
    """Keep outputs ({suffix: file}) in cache under the digest of the bytes of files (what their
    compile read, relative_deps over (inc,)), for content_entry. Returns the key, or None when
    a file is gone."""
    key = _content_key(files, inc)
    if not key:
        return None
    for suffix, src in outputs.items():
        copy_atomic(src, os.path.join(cache, key + suffix))
    write_atomic(os.path.join(cache, key + ".done"), "")
    try:
        with open(os.path.join(cache, "deps.json")) as f:
            lists = json.load(f)
    except (OSError, ValueError):
        lists = []
    lists = [files] + [x for x in lists if x != files][:7]   # the newest dependency lists
    write_atomic(os.path.join(cache, "deps.json"), json.dumps(lists))
    return key


def _load_alone(cache, inc, obj):
    """A cached object of the same header whose every file read (-MD) has the same bytes now:
    its content key, or None."""
    key = content_entry(cache, inc)
    if key is not None:
        copy_atomic(os.path.join(cache, key + ".o"), obj)
    return key


def build_alone_unit(compiler, lang, key, header, inc, out, ident=None, full=False):
    """One left-out header in a unit of its own, compiled as the main units are. Returns
    (object path, None, content) or (None, the first error, None); content is a digest of the
    bytes of every file the compile read (-MD): what the object, and the header's #define
    constants (defines.py), follow from. With ident (the compiler's identity), an object is
    cached with the list of those files, and reused while every one of them has the same bytes
    (not with full): a commit that does not touch what a left-out header reads does not
    compile it again."""
    ext = "c" if lang == "c" else "cc"
    unit = os.path.join(out, "work", f"{key}.{ext}")
    obj = os.path.join(out, "obj", f"{key}.o")
    tmp_obj = os.path.join(out, "work", f"{key}.o")
    rel_inc = os.path.relpath(inc, out)
    cache = _alone_cache(ident, lang, header, rel_inc) if ident is not None else None
    write_atomic(unit, f"#include <{header}>\n")
    content = _load_alone(cache, inc, obj) if cache and not full else None
    if content:
        return obj, None, content
    depfile = os.path.join(out, "work", f"{key}.d")
    rc, _, err = run(unit_command(compiler, lang, unit, tmp_obj, rel_inc, out) + ["-MD", "-MF", depfile],
                     cwd=out)
    if rc != 0:
        return None, first_error(err, inc), None
    os.rename(tmp_obj, obj)
    files = files_read(depfile, out, unit, inc)
    content = save_content_entry(cache, inc, files, {".o": obj}) if cache else _content_key(files, inc)
    if content is None:
        raise Fatal(f"{header}: a file its compile read is gone")
    return obj, None, content


def files_read(depfile, cwd, source, inc):
    """The files a compile run in cwd read, from its -MD file, as relative_deps over (inc,): all
    but the source itself, whose text is in the caller's cache key."""
    with open(depfile) as f:
        read = [os.path.normpath(os.path.join(cwd, d)) for d in parse_deps(f.read())]
    own = os.path.normpath(os.path.abspath(source))
    return relative_deps([d for d in read if d != own], (os.path.normpath(os.path.abspath(inc)),))


def step_extra_units(opts, compilers, trees, headers, units, progress):
    """Step 3b: every header left out of a main unit (a collision in the all-headers unit), in a
    unit of its own for each side of each comparison where it is not in both main units, so that
    every header that compiles alone has its layouts compared. One small compile each, in parallel."""
    out = opts.out
    main = {k: set(u.included) for k, u in units.items()}
    alone = {k: set(headers.compiles(k)) for k in all_unit_keys()}
    left_out = sorted(set().union(*(alone[k] - main[k] for k in main)))
    taken = {}
    slugs = {h: header_slug(h, taken) for h in left_out}
    pairs = {}    # (comparison name, header) -> (old key, new key)
    needed = set()  # (unit key, header)
    for line in base_matrix(opts.drift):
        o, n = line.old, line.new
        for h in left_out:
            if h in alone[o] and h in alone[n] and not (h in main[o] and h in main[n]):
                pairs[(line.name, h)] = (o, n)
                needed.update({(o, h), (n, h)})
    tasks = sorted(t for t in needed if not (headers.same and t[0].endswith("-after")))
    if tasks:
        progress.step(f"step 3b: {len(left_out)} left-out headers, each in a unit of its own "
                      f"({len(tasks)} units)")

    def one(task):
        key, h = task
        lang, rev = key.split("-")
        return build_alone_unit(compilers[lang].path, lang, f"{key}+{slugs[h]}", h,
                                trees.revisions[rev].include, out, ident=compilers[lang].to_json(),
                                full=opts.full)

    results = dict(zip(tasks, parallel(opts.jobs, one, tasks)))
    if headers.same:  # identical headers: the after objects are copies of the before ones
        for key, h in sorted(needed):
            if key.endswith("-after"):
                obj, err, content = results[(key.replace("-after", "-before"), h)]
                if obj:
                    obj_after = os.path.join(out, "obj", f"{key}+{slugs[h]}.o")
                    shutil.copyfile(obj, obj_after)
                    obj = obj_after
                results[(key, h)] = (obj, err, content)
    # Objects of headers no longer left out, from an earlier run, would be shipped to the guest.
    keep = {f"{key}+{slugs[h]}.o" for (key, h), (obj, _, _) in results.items() if obj}
    for f in os.listdir(os.path.join(out, "obj")):
        if "+" in f and f.endswith(".o") and f not in keep:
            os.unlink(os.path.join(out, "obj", f))
    alone_units = {}
    for (key, h), (obj, err, content) in sorted(results.items()):
        alone_units[f"{key}+{slugs[h]}"] = AloneUnit(key, h, err, os.path.relpath(obj, out) if obj else None,
                                                     os.path.getsize(obj) if obj else 0, content)
    comparisons = [AlonePair(name, h, o, n, f"{o}+{slugs[h]}", f"{n}+{slugs[h]}")
                   for (name, h), (o, n) in sorted(pairs.items())
                   if results[(o, h)][0] and results[(n, h)][0]]
    coverage = {}
    for key in (unit_key(lang, rev) for lang in LANGS for rev in REVS):
        own = {h for (k, h), (obj, _, _) in results.items() if k == key and obj}
        without = {h: results.get((key, h), (None, None, None))[1] or "?" for h in sorted(alone[key] - main[key] - own)}
        # A left-out header with no own unit here has no counterpart to compare with.
        for h in list(without):
            if (key, h) not in results:
                without[h] = "left out of the unit here, and fails alone on the other side of its comparisons"
        coverage[key] = UnitCoverage(len(alone[key]), len(main[key]), len(own), len(main[key] | own), without)
        progress.step(f"  {key}: {len(main[key] | own)} of {len(alone[key])} headers with a layout check"
                      f" ({len(own)} in units of their own)")
    return ExtraUnits(left_out, alone_units, coverage, comparisons)
