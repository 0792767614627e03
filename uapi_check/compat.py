"""uapi-check --compat ARCH32: one revision's 64-bit ABI against its 32-bit ABI (x86_64 against
i386, arm64 against arm), which is what a 64-bit kernel's compat layer must translate.

  1. the pristine linux-source-KERNEL tree, `make headers_install` for both architectures
     (cached per architecture, trees.py);
  2. the headers that compile alone as C on both (the kernel's own list, and its no-header-test
     headers that compile with the unit flags), compiled with each architecture's compiler;
  3. the same all-headers C unit for both (a header that collides on either side is left out of
     both, so the two units hold the same headers);
  4. `abidiff-uapi diff --compat OBJ64 OBJ32 --format=json`: the tool finds the types whose
     layout differs and says why (causes: long-width, pointer-width, size_t-width, time-width,
     align8, arch-ifdef, member-type, other); the driver only sorts and prints them;
  5. the ioctl request numbers of both units (requests.py), and those that differ, each with
     its argument type and that type's causes;
  6. the #define constants of both units (defines.py), and those whose values differ (a
     sizeof, a __BITS_PER_LONG), or that one ABI does not define.

It lists what differs so that a kernel developer can walk it, header by header; it does not know
which ioctls have compat handlers and does not say. Informational: exit 0 when it ran, 2 when it
cannot run."""
import json
import os
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from . import ioctls
from .arch import Arch
from .config import UNIT_FLAGS, cache_dir
from .env import check_packages, find_compilers
from .headers import compile_alone, dir_digest, no_header_test, select_headers
from .defines import build_constants
from .requests import build_ioctl_unit
from .trees import copy_headers, headers_install, resolve_tree, tree_key
from .units import build_unit
from .util import Fatal, parallel, run, write_atomic

CAUSES = ("long-width", "pointer-width", "size_t-width", "time-width", "align8", "arch-ifdef",
          "member-type", "other")
NO_COMPAT = "the tool does not support --compat"


@dataclass
class CompatType:
    name: str
    header: Optional[str]
    line: int
    status: str
    size64: Optional[int]
    size32: Optional[int]
    causes: List[dict]

    def cause_names(self) -> List[str]:
        return sorted({c.get("cause", "other") for c in self.causes})

    def to_json(self):
        return {"name": self.name, "header": self.header, "line": self.line, "status": self.status,
                "size64": self.size64, "size32": self.size32, "causes": self.causes}


@dataclass
class CompatIoctl:
    name: str
    header: Optional[str]
    number64: int
    number32: int
    argument: Optional[str]
    argument_causes: List[dict]

    def to_json(self):
        return {"ioctl": self.name, "header": self.header, "number64": f"0x{self.number64:08x}",
                "number32": f"0x{self.number32:08x}", "argument": self.argument,
                "argument_causes": self.argument_causes}


@dataclass
class CompatConstant:
    name: str                       # the macro
    header: Optional[str]
    value64: Optional[object]       # int, or a string; None when the ABI does not define it
    value32: Optional[object]

    def to_json(self):
        return {"constant": self.name, "header": self.header, "value64": self.value64, "value32": self.value32}


def constant_value(v):
    """A constant's value from the tool's JSON ({"value": N} or {"string": S}), or None."""
    if not isinstance(v, dict):
        return None
    return v["string"] if "string" in v else v.get("value")


@dataclass
class CompatReport:
    what: str
    kernel: str
    arch64: Arch
    arch32: Arch
    headers: int                            # headers in both units
    left_out: Dict[str, str]                # header -> why it is in neither unit
    types: List[CompatType]
    tool_causes: Dict[str, int]             # the tool's own count, by cause
    ioctls: List[CompatIoctl]
    ioctl_counts: Dict[str, int]            # compared, differ, only64, only32
    compilers: Dict[str, str]
    elapsed_s: float = 0.0
    objects: Dict[str, str] = field(default_factory=dict)
    constants: List[CompatConstant] = field(default_factory=list)
    constant_counts: Dict[str, int] = field(default_factory=dict)   # per ABI: its constants
    tree: Optional[str] = None              # the kernel tree (report.sarif's locations)

    def cause_counts(self) -> Dict[str, int]:
        """Types per cause (a type with two causes counts under both)."""
        out = {c: 0 for c in CAUSES}
        for t in self.types:
            for c in t.cause_names():
                out[c] = out.get(c, 0) + 1
        return {c: n for c, n in out.items() if n}

    def to_json(self):
        return {"tool": "uapi-check", "mode": "compat", "what": self.what, "kernel": self.kernel,
                "arch64": self.arch64.to_json(), "arch32": self.arch32.to_json(),
                "handlers": "not known: this report does not say which ioctls have compat handlers",
                "headers": self.headers, "left_out": self.left_out,
                "counts": {"types": len(self.types), "by_cause": self.cause_counts(),
                           "tool_causes": self.tool_causes, "ioctls": dict(self.ioctl_counts)},
                "types": [t.to_json() for t in self.types],
                "ioctls": [i.to_json() for i in self.ioctls],
                "constants": {"counts": self.constant_counts, "differ": [k.to_json() for k in self.constants]},
                "compilers": self.compilers, "objects": self.objects, "elapsed_s": self.elapsed_s}


def sort_key(header, name):
    return (header or "~", name)


def parse_tool_output(text: str, source: str):
    """(types, the tool's cause counts) from `diff --compat --format=json`; Fatal when it is not
    the compat form (a tool without --compat, or a broken one)."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise Fatal(f"{source}: unreadable JSON ({e})") from None
    if not isinstance(data, dict) or data.get("compat") is not True or not isinstance(data.get("types"), list):
        raise Fatal(f"{source}: not a --compat diff ({NO_COMPAT}?)")
    types = []
    for t in data["types"]:
        causes = t.get("causes")
        if not isinstance(causes, list):
            raise Fatal(f"{source}: finding {t.get('name')!r} has no causes")
        types.append(CompatType(t.get("name", "?"), t.get("file"), t.get("line", 0), t.get("status", "?"),
                                t.get("old_size"), t.get("new_size"), causes))
    types.sort(key=lambda t: sort_key(t.header, t.name))
    counts = data.get("causes") if isinstance(data.get("causes"), dict) else {}
    return types, counts


def run_tool(tool: str, obj64: str, obj32: str, headers: List[str], out: str):
    """The tool's compat diff, its JSON kept in diff/compat.json."""
    args = [tool, "diff", "--compat", obj64, obj32, "--format=json"]
    for h in headers:
        args += ["--headers", h]
    rc, js, err = run(args, cwd=out)
    if rc not in (0, 1):
        msg = (err.strip().splitlines() or [f"exit {rc}"])[-1]
        if "compat" in err and ("unrecognized" in err or "unknown" in err or "invalid" in err):
            raise Fatal(f"{NO_COMPAT} ({tool}: {msg})")
        raise Fatal(f"{tool} diff --compat: {msg}")
    write_atomic(os.path.join(out, "diff", "compat.json"), js)
    return parse_tool_output(js, f"{tool} diff --compat")


def candidates(tree: str, inc: str, arch: Arch):
    """The headers to put in the unit: those the kernel tests, and its no-header-test ones (they
    may compile with the unit flags)."""
    tested, skipped = select_headers(inc, no_header_test(os.path.join(tree, "usr", "include", "Makefile"),
                                                         arch.srcarch))
    return sorted(tested + [h for h, why in skipped.items() if why == "no-header-test"])


def alone_sweep(jobs, compiler, arch, tree, inc, headers, progress):
    """{header: first error or None}, every header compiled alone as C with the unit flags; cached
    by the installed headers, the list, the compiler and the architecture."""
    import hashlib
    h = hashlib.sha256(json.dumps([dir_digest(inc), headers, compiler.to_json(), UNIT_FLAGS["c"],
                                   arch.debian, "compat-v1"]).encode()).hexdigest()[:24]
    path = os.path.join(cache_dir(), "sweeps", f"compat-{h}.json")
    try:
        with open(path) as f:
            progress.step(f"  {arch.debian}: per-header results reused")
            return json.load(f)
    except (OSError, ValueError):
        pass
    dummy = os.path.join(tree, "usr", "dummy-include")
    results = parallel(jobs, lambda hd: compile_alone(compiler.path, "c", inc, dummy, hd, True), headers,
                       progress, f"compiling headers alone for {arch.debian}")
    out = dict(zip(headers, results))
    write_atomic(path, json.dumps(out))
    return out


def same_units(compilers, incs, headers, out, arches):
    """Build the C unit of both architectures with the same headers: a header that collides on
    one side is left out of both. Returns ({debian: Unit}, {header: why left out})."""
    left = {}
    included = list(headers)
    for _ in range(4):
        units = {}
        for a in arches:
            u = build_unit(compilers[a.debian].path, "c", a.debian, included, incs[a.debian], out)
            for col in u.collisions:
                left[col.header] = f"collides in the {a.debian} unit: {col.message}"
            units[a.debian] = u
        common = [h for h in included if all(h in u.included for u in units.values())]
        if all(u.included == common for u in units.values()):
            return units, left
        included = common
    raise Fatal("the 64-bit and 32-bit units do not settle on the same headers")


def step_ioctls(compilers, units, incs, tool, out, arches, types):
    """The request numbers that differ between the two units, each with its argument's causes."""
    built = {a.debian: build_ioctl_unit(compilers[a.debian], units[a.debian], incs[a.debian], out)
             for a in arches}
    (obj64, kept64, _), (obj32, kept32, _) = built[arches[0].debian], built[arches[1].debian]
    try:
        changes = ioctls.ioctl_number_changes(tool, obj64, obj32, compat=True)
    except ioctls.IoctlError as e:
        raise Fatal(str(e))
    by_name = {t.name: t for t in types}
    found = []
    counts = {"compared": len(set(kept64) & set(kept32)), "differ": 0, "only64": 0, "only32": 0}
    for name, c in changes.items():
        if c["new"] is None:
            counts["only64"] += 1
            continue
        if c["old"] is None:
            counts["only32"] += 1
            continue
        io = kept64.get(name) or kept32.get(name)
        arg = io.arg_type if io else None
        t = by_name.get(arg) if arg else None
        found.append(CompatIoctl(name, io.header if io else None, c["old"], c["new"], arg,
                                 t.causes if t else []))
    counts["differ"] = len(found)
    found.sort(key=lambda i: sort_key(i.header, i.name))
    return found, counts


def step_constants(compilers, units, incs, tool, out, arches, jobs):
    """The #define constants whose values differ between the two units (or that one lacks)."""
    names = {a.debian: os.path.splitext(os.path.basename(units[a.debian].object))[0] for a in arches}
    built = parallel(jobs, lambda a: build_constants(compilers[a.debian], "c", incs[a.debian], out, names[a.debian],
                                                     list(units[a.debian].included),
                                                     content=dir_digest(incs[a.debian]), alone=True), arches)
    defines = [b["defines"] for b in built]
    args = [tool, "diff", *defines, "--strict", "--format=json", "--compat"]
    for a in arches:
        args += ["--headers", os.path.relpath(incs[a.debian], out)]
    rc, js, err = run(args, cwd=out)
    if rc not in (0, 1):
        raise Fatal(f"{tool} diff of the constants: {(err.strip().splitlines() or [f'exit {rc}'])[-1]}")
    write_atomic(os.path.join(out, "diff", "compat-constants.json"), js)
    try:
        types = json.loads(js)["types"]
    except (ValueError, KeyError, TypeError) as e:
        raise Fatal(f"{tool} diff of the constants: unreadable JSON ({e})") from None
    found = []
    for t in types:
        if t.get("kind") != "constant":
            continue
        name = t["name"][len("#define "):]
        if t.get("status") == "removed":
            v64, v32 = constant_value(t.get("constant")), None
        elif t.get("status") == "added":
            v64, v32 = None, constant_value(t.get("constant"))
        else:
            c = next((c for c in t.get("changes", []) if c.get("change") == "constant_value"), None)
            if not c:
                continue
            v64, v32 = constant_value(c.get("old")), constant_value(c.get("new"))
        found.append(CompatConstant(name, t.get("file"), v64, v32))
    found.sort(key=lambda k: sort_key(k.header, k.name))
    return found, {a.debian: b["constants"] for a, b in zip(arches, built)}


def run_compat(opts, tool_fn, progress) -> CompatReport:
    """The whole --compat run; tool_fn gives the tool (built when missing)."""
    started = time.monotonic()
    a64, a32 = opts.arch, opts.compat
    arches = (a64, a32)
    check_packages(opts)
    compilers = {a.debian: find_compilers(arch=a)["c"] for a in arches}
    progress.step(f"compat step 1: linux-source-{opts.kernel}, headers_install for {a64.debian} and {a32.debian}")
    tree = resolve_tree(opts.kernel)
    key = tree_key(tree)
    os.makedirs(opts.work, exist_ok=True)
    installed = parallel(2, lambda a: headers_install(tree, key, max(1, opts.jobs // 2), opts.work, a), arches)
    incs = {}
    for a, (inc, cached) in zip(arches, installed):
        incs[a.debian] = copy_headers(inc, opts.out, a.debian, keep=list(incs))  # DWARF names include/ARCH/...
        progress.step(f"  headers_install ARCH={a.kernel}" + (" (cached)" if cached else ""))
    progress.step("compat step 2: every header compiled alone as C for both architectures")
    lists = {a.debian: candidates(tree, incs[a.debian], a) for a in arches}
    both = sorted(set(lists[a64.debian]) & set(lists[a32.debian]))
    left = {h: f"installed for {a.debian} only" for a in arches for h in lists[a.debian] if h not in both}
    ok = list(both)
    for a in arches:
        res = alone_sweep(opts.jobs, compilers[a.debian], a, tree, incs[a.debian], both, progress)
        for h in both:
            if res.get(h) and h not in left:
                left[h] = f"does not compile alone for {a.debian}: {res[h]}"
        ok = [h for h in ok if not res.get(h)]
    progress.step(f"compat step 3: one C unit of {len(ok)} headers for each architecture")
    os.makedirs(os.path.join(opts.out, "obj"), exist_ok=True)
    units, collided = same_units(compilers, incs, ok, opts.out, arches)
    left.update(collided)
    tool = tool_fn(progress)
    progress.step(f"compat step 4: abidiff-uapi diff --compat {a64.debian} {a32.debian}")
    obj = {a.debian: os.path.join(opts.out, units[a.debian].object) for a in arches}
    # Relative to the out dir, as the units' DWARF names their headers (include/ARCH/...).
    types, tool_causes = run_tool(tool, os.path.relpath(obj[a64.debian], opts.out),
                                  os.path.relpath(obj[a32.debian], opts.out),
                                  [os.path.relpath(incs[a.debian], opts.out) for a in arches], opts.out)
    progress.step(f"  {len(types)} types differ")
    progress.step("compat step 5: ioctl request numbers of both units")
    found, counts = step_ioctls(compilers, units, incs, tool, opts.out, arches, types)
    progress.step(f"  {counts['differ']} of {counts['compared']} ioctl numbers differ")
    consts, const_counts = [], {}
    if getattr(opts, "constants", True):
        progress.step("compat step 6: #define constants of both units")
        consts, const_counts = step_constants(compilers, units, incs, tool, opts.out, arches, opts.jobs)
        progress.step(f"  {len(consts)} constants differ or are defined for one ABI only")
    what = f"linux-source-{opts.kernel}, {a64.describe()} against {a32.describe()}"
    return CompatReport(what, opts.kernel, a64, a32, len(units[a64.debian].included),
                        dict(sorted(left.items())), types, tool_causes, found, counts,
                        {a.debian: compilers[a.debian].version for a in arches},
                        time.monotonic() - started,
                        {a.debian: units[a.debian].object for a in arches}, consts, const_counts, tree)
