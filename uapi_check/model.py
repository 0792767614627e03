"""The data that flows between the steps of a run. Each step returns one of these; nothing is
shared through a mutable bag. `to_json` gives the form report.json has always had."""
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .arch import ARCHES, DEFAULT as DEFAULT_ARCH, Arch
from .config import LANGS, REVS, unit_key


@dataclass(frozen=True)
class Options:
    """What the command line asked for."""
    kernel: str
    patches: Optional[str]
    old: Optional[str]
    new: Optional[str]
    out: str
    jobs: int
    quiet: bool
    fail_on: str = "break"              # drift: break, or review too
    waivers: Optional[str] = None       # files (waivers.py)
    baseline: Optional[str] = None
    arch: Arch = ARCHES[DEFAULT_ARCH]   # --arch (arch.py)
    compat: Optional[Arch] = None       # --compat ARCH32: its 32-bit architecture (compat.py)
    git: Optional[str] = None           # --git DIR: old and new are revisions of it (git.py)
    full: bool = False                  # --full: read no cache (results are still stored)
    constants: bool = True              # step 3c, the #define constants (--no-constants: off)
    cflags: tuple = ()                  # --cflags: extra flags for every compile (in every key)
    each: Optional[str] = None          # --each-commit BASE..TIP
    wait: bool = True                   # another run holds --out: wait (else --no-wait: exit 2)
    show: Optional[str] = None          # --show TYPE (show.py)
    show_format: str = "text"
    sarif_safe: bool = False            # --sarif-safe: report.sarif has the safe findings too

    @property
    def drift(self):
        return bool(self.old) or bool(self.git)

    @property
    def mode(self):
        """series (a patch series), drift (two releases) or commit (two revisions of a git tree)."""
        return "commit" if self.git else "drift" if self.old else "series"

    @property
    def work(self):
        return os.path.join(self.out, "work")


@dataclass(frozen=True)
class Compiler:
    lang: str
    path: str
    version: str

    def to_json(self):
        return {"path": self.path, "version": self.version}


@dataclass
class Series:
    dir: str            # relative to the repository
    patches: List[str]

    def to_json(self):
        return {"dir": self.dir, "patches": self.patches}


@dataclass
class Revision:
    """One side of the run (before, after): the tree make runs in, its cache key (None: not
    cacheable), where its files are looked up, and its installed headers."""
    name: str
    tree: str
    key: Optional[str]
    dirs: List[str]
    include: str = ""
    build_in_tree: bool = False     # headers_install keeps its build directory in the tree (git.py)
    base: Optional[str] = None      # a tree whose build directory this one starts from (trees.py)

    def file(self, rel):
        """A file of the revision: the patched copy when the series made or kept it there, else
        the pristine tree (a sparse copy holds only the files the series touches)."""
        for tree in self.dirs:
            path = os.path.join(tree, rel)
            if os.path.exists(path):
                return path
        return os.path.join(self.dirs[-1], rel)


@dataclass
class Trees:
    revisions: Dict[str, Revision]
    series: Optional[Series]
    installed: Dict[str, int]   # headers installed per revision
    cached: Dict[str, bool] = field(default_factory=dict)  # headers_install came from the cache
    git: Optional[tuple] = None  # --git: the (old, new) git.Side

    def to_json(self):
        return {"trees": {r: self.revisions[r].tree for r in REVS},
                "series": self.series.to_json() if self.series else None,
                "installed": dict(self.installed),
                "headers_install_cached": dict(self.cached),
                "git": {r: {"ref": s.ref, "commit": s.commit, "key": s.key, "subject": s.subject}
                        for r, s in zip(REVS, self.git)} if self.git else None}


@dataclass
class RevHeaders:
    """Step 2's results for one revision."""
    tested: List[str]
    skipped: Dict[str, str]                 # header -> why it is not tested
    no_header_test: List[str]               # the tree's own patterns
    failed: Dict[str, Dict[str, str]]       # lang -> header -> first error (tested headers only)
    compiles: Dict[str, List[str]]          # lang -> every header that compiles alone, sorted
    extra_ok: Dict[str, List[str]]          # lang -> no-header-test headers that compile alone
    reused: int = 0                         # after: results kept from before (nothing they read changed)
    reuse: tuple = (0, 0)                   # (results not compiled in this run, results)
    deps: Dict[str, Dict[str, list]] = field(default_factory=dict, compare=False)
    #                                         lang -> header -> the files it read alone (-MD), as
    #                                         [root (0 include dir, 1 dummy dir, -1 none), path]

    def to_json(self):
        return {
            "installed": len(self.tested) + len(self.skipped),
            "tested": len(self.tested),
            "skipped": {reason: sum(1 for r in self.skipped.values() if r == reason)
                        for reason in sorted(set(self.skipped.values()))},
            "no_header_test": self.no_header_test,
            "compiled": {lang: len(self.tested) - len(self.failed[lang]) for lang in LANGS},
            "failed": {lang: self.failed[lang] for lang in LANGS},
            "no_header_test_compiled": {lang: sorted(self.extra_ok[lang]) for lang in LANGS},
            "reused_from_before": self.reused,
            "reused": {"results": self.reuse[1], "reused": self.reuse[0]},
        }


@dataclass
class Headers:
    revs: Dict[str, RevHeaders]
    same: bool        # before and after installed the same headers
    changes: Optional[tuple] = field(default=None, compare=False)
    #                 headers.rev_changes: (changed, added) paths per root; None with --full
    digests: Optional[dict] = field(default=None, compare=False)
    #                 {rev: headers.dir_digest of its include dir}, taken in step 2: the later
    #                 steps' cache keys (the include dirs are not written again in a run)

    def compiles(self, key):
        """Headers that compile alone for a unit key (c-before...)."""
        lang, rev = key.split("-")
        return self.revs[rev].compiles[lang]

    def to_json(self):
        return {rev: self.revs[rev].to_json() for rev in REVS}


@dataclass
class Collision:
    header: str
    symbol: Optional[str]
    message: str
    at: str
    other: Optional[str]

    def to_json(self):
        return {"header": self.header, "symbol": self.symbol, "message": self.message,
                "at": self.at, "other": self.other}


@dataclass
class Unit:
    """One all-headers translation unit and its object."""
    lang: str
    rev: str
    object: str         # relative to the out dir
    included: List[str]
    collisions: List[Collision]
    size: int
    cached: bool = field(default=False, compare=False)  # its object came from the cache

    @property
    def key(self):
        return unit_key(self.lang, self.rev)

    def to_json(self):
        return {"object": self.object, "headers": len(self.included), "size": self.size,
                "collisions": [c.to_json() for c in self.collisions], "cached": self.cached}


@dataclass
class AloneUnit:
    """A header left out of a main unit, compiled in a unit of its own."""
    unit: str                   # the main unit it stands in for
    header: str
    error: Optional[str]
    object: Optional[str]       # relative to the out dir
    size: int
    content: Optional[str] = None   # digest of the bytes its compile read (units.build_alone_unit)

    def to_json(self):
        return {"unit": self.unit, "header": self.header, "error": self.error,
                "object": self.object, "size": self.size}


@dataclass
class UnitCoverage:
    compile_alone: int
    main_unit: int
    own_unit: int
    checked: int
    without: Dict[str, str]

    def to_json(self):
        return {"compile_alone": self.compile_alone, "main_unit": self.main_unit,
                "own_unit": self.own_unit, "checked": self.checked, "without": self.without}


@dataclass
class AlonePair:
    """A base comparison replayed on one left-out header's own units."""
    base: str
    header: str
    old: str            # unit keys
    new: str
    old_object: str     # object names (obj/NAME.o)
    new_object: str


@dataclass
class ExtraUnits:
    left_out: List[str]
    units: Dict[str, AloneUnit]
    coverage: Dict[str, UnitCoverage]
    pairs: List[AlonePair]

    def to_json(self):
        return {"left_out": self.left_out, "units": {k: u.to_json() for k, u in self.units.items()},
                "coverage": {k: c.to_json() for k, c in self.coverage.items()}}


@dataclass
class Finding:
    """What the driver concluded from one change of one type in one comparison."""
    type: str
    kind: Optional[str]
    status: Optional[str]
    file: Optional[str]
    old_size: Optional[int]
    new_size: Optional[int]
    severity: str           # the driver's verdict: fail, review, ok, note, waived, baselined
    check: str
    text: str
    change: Optional[dict] = None
    tool_severity: Optional[str] = None     # the tool's: break, review, safe
    reasons: List[str] = field(default_factory=list)
    waiver: Optional[str] = None            # why it is waived or baselined
    justification: Optional[str] = None     # the waiver's reason, or "in baseline" (SARIF, JUnit)

    def to_json(self):
        d = {"type": self.type, "kind": self.kind, "status": self.status, "file": self.file,
             "old_size": self.old_size, "new_size": self.new_size,
             "severity": self.severity, "check": self.check, "text": self.text}
        if self.change is not None:
            d["change"] = self.change
        if self.tool_severity is not None:
            d["tool_severity"] = self.tool_severity
            d["reasons"] = self.reasons
        if self.waiver is not None:
            d["waiver"] = self.waiver
        if self.justification is not None:
            d["justification"] = self.justification
        return d

    @property
    def member(self):
        """The member or enumerator a change is about (None for the type itself)."""
        c = self.change or {}
        return c.get("member") or c.get("enumerator")

    @property
    def change_kind(self):
        return (self.change or {}).get("change") or self.status


@dataclass
class Comparison:
    """One line of the matrix: the tool run on two objects, and the findings judged from it."""
    name: str
    old: str                    # unit keys
    new: str
    common_only: bool
    role: str
    old_object: str             # object names (obj/NAME.o)
    new_object: str
    base: Optional[str] = None  # for a left-out header alone: its base comparison
    header: Optional[str] = None
    verdict: Optional[str] = None
    exit: Optional[int] = None
    counts: Dict[str, int] = field(default_factory=dict)
    strict: bool = False        # the tool's --strict: one ABI on both sides
    fail_on: str = "break"
    types: List[dict] = field(default_factory=list)     # the tool's findings, as it wrote them
    findings: List[Finding] = field(default_factory=list)
    # ioctl request numbers that differ between the two sides (ioctls.py fills it; the report
    # lists them after the layout findings).
    ioctls: List[dict] = field(default_factory=list)
    ext: str = "o"              # obj/NAME.a (with #define constants, step 3c) or obj/NAME.o

    def to_json(self):
        d = {"old": self.old, "new": self.new, "common_only": self.common_only, "role": self.role,
             "strict": self.strict, "verdict": self.verdict, "exit": self.exit, "counts": self.counts,
             "findings": [f.to_json() for f in self.findings], "ioctls": self.ioctls}
        if self.base:
            d.update({"base": self.base, "header": self.header,
                      "old_object": f"obj/{self.old_object}.o", "new_object": f"obj/{self.new_object}.o"})
        return d


@dataclass
class Failure:
    """One reason a check fails: a finding of a comparison, or a header that does not compile."""
    text: str
    finding: Optional[Finding] = None
    comparison: Optional[str] = None
    header: Optional[str] = None
    error: Optional[str] = None

    @property
    def who(self):
        return (self.finding.type if self.finding else self.header) or ""

    def to_json(self):
        if self.finding:
            return dict(self.finding.to_json(), comparison=self.comparison)
        return {"header": self.header, "error": self.error, "text": self.text}


@dataclass
class CheckResult:
    check: str
    description: str
    failures: List[Failure]
    accepted: List[Failure] = field(default_factory=list)   # waived or in the baseline

    @property
    def passed(self):
        return not self.failures

    def to_json(self):
        return {"check": self.check, "description": self.description, "pass": self.passed,
                "findings": [f.to_json() for f in self.failures],
                "accepted": [f.to_json() for f in self.accepted]}


def all_unit_keys():
    return [unit_key(lang, rev) for lang in LANGS for rev in REVS]


@dataclass
class HeaderChange:
    """A header OLD installs and NEW does not: removed, or moved (to another directory of the
    install, or to another architecture's directory, which an x86 install does not have)."""
    header: str
    moved_to: Optional[str] = None

    def to_json(self):
        return {"header": self.header, "status": "moved" if self.moved_to else "removed",
                "moved_to": self.moved_to}


@dataclass
class Report:
    """Everything a run found; report.json is its to_json()."""
    mode: str                   # series, drift or commit
    what: str
    checks: List[CheckResult]
    compilers: Dict[str, Compiler]
    trees: Trees
    headers: Headers
    units: Dict[str, Unit]
    extra: ExtraUnits
    comparisons: Dict[str, Comparison]
    coverage: Dict[str, dict]
    summary: List[tuple] = field(default_factory=list)
    size_differences: Dict[str, list] = field(default_factory=dict)
    elapsed_s: float = 0.0
    fail_on: str = "break"
    header_changes: List[HeaderChange] = field(default_factory=list)
    # Per unit: the ioctl requests whose number does not compile there, with the compiler's reason.
    ioctls_skipped: Dict[str, Dict[str, str]] = field(default_factory=dict)
    # Per object (c-after, c-after+linux-uio...): its #define constants (defines.py): how many, and
    # the macros that are not constants, counted by reason.
    constants: Dict[str, dict] = field(default_factory=dict)
    waivers: list = field(default_factory=list)         # waivers.Waiver
    baseline: Optional[str] = None
    arch: Arch = ARCHES[DEFAULT_ARCH]
    # (comparison, type) -> the tool's `show` VIEW of it (layouts.py), drawn by report.html only.
    layouts: Dict[tuple, dict] = field(default_factory=dict)

    @property
    def verdict(self):
        return "pass" if all(c.passed for c in self.checks) else "fail"

    def to_json(self):
        return {
            "tool": "uapi-check",
            "mode": self.mode,
            "what": self.what,
            "arch": self.arch.to_json(),
            "verdict": self.verdict,
            "checks": [c.to_json() for c in self.checks],
            "summary": [list(r) for r in self.summary],
            "size_differences": self.size_differences,
            "compilers": {k: c.to_json() for k, c in self.compilers.items()},
            "fail_on": self.fail_on,
            "removed_headers": [h.to_json() for h in self.header_changes],
            "waivers": [w.to_json() for w in self.waivers],
            "baseline": self.baseline,
            "ioctls": {k: c.ioctls for k, c in self.comparisons.items() if c.ioctls},
            "ioctls_skipped": self.ioctls_skipped,
            "constants": {k: {x: v[x] for x in ("object", "constants", "strings", "syscalls", "not_constants")}
                          for k, v in self.constants.items()},
            "steps": {
                "trees": self.trees.to_json(),
                "headers": self.headers.to_json(),
                "units": {k: u.to_json() for k, u in self.units.items()},
                "extra_units": self.extra.to_json(),
                "compare": {k: c.to_json() for k, c in self.comparisons.items()},
                "coverage": self.coverage,
            },
        }
