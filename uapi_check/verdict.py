"""One verdict, rendered everywhere: what a run reports, computed once from its Report after the
waivers and the baseline are applied. report.txt's first screen, report.html's summary,
report.sarif, report.junit.xml and the exit status are all rendered from these items, so they
cannot disagree.

An item is one type, constant or ioctl number in one comparison (groups(): a later
comparison that repeats it is folded in, "also in C++"), or one header that stopped compiling
alone in a language. Its outcome comes from the driver's verdicts of its findings (judge.py,
waivers.py), never from a layout:

  fail      a finding fails a check: the run fails;
  accepted  it would fail, and a waiver or the baseline accepts it (with that justification);
  review    no finding fails, and the tool's severity of one is review;
  note      the rest: safe changes, and changes a check allows (C++ layouts a series fixes).
"""
from collections import Counter
from dataclasses import dataclass, field
from typing import List, Optional

from .judge import BASELINED, FAIL, WAIVED

FAILS, ACCEPTED, REVIEW, NOTE = "fail", "accepted", "review", "note"
OUTCOMES = (FAILS, ACCEPTED, REVIEW, NOTE)
IN_BASELINE = "in baseline"


@dataclass
class Item:
    outcome: str
    kind: str                   # type, constant, ioctl, header
    name: str                   # "struct kvm_run", "#define FOO", "ioctl KVM_RUN", a header
    comparison: str             # the comparison (or the headers-compile check) that found it
    check: Optional[str]        # the named check it belongs to
    file: Optional[str]         # the installed header (linux/kvm.h)
    line: Optional[int]         # its line there
    tool_severity: Optional[str]
    reasons: List[str]
    texts: List[str]            # what changed, one text a change
    justification: Optional[str] = None     # accepted: the waiver's reason, or "in baseline"
    also: List[str] = field(default_factory=list)   # comparisons that repeat it
    group: object = None        # the Group of a type, constant or ioctl

    @property
    def severity(self):
        """What the item would do to the run: break (fails, or would without its acceptance),
        review or safe."""
        if self.outcome in (FAILS, ACCEPTED):
            return "break"
        return REVIEW if self.outcome == REVIEW else "safe"


@dataclass
class Group:
    """One type in one comparison: its findings, and the comparisons that repeat them."""
    comparison: object
    type: str
    file: Optional[str]
    status: Optional[str]
    findings: list
    entry: dict                     # the tool's finding for the type
    also: List[str] = field(default_factory=list)

    @property
    def identity(self):
        return (self.type, self.status, frozenset((f.change_kind, f.member, f.tool_severity) for f in self.findings))

    def worst(self):
        sevs = {f.severity for f in self.findings}
        for s in (FAIL, REVIEW, WAIVED, BASELINED):
            if s in sevs:
                return s
        return None


def groups(comparisons):
    """Groups of findings per type and comparison, repeats folded into the first."""
    out, first = [], {}
    for comp in comparisons.values():
        entries = {t.get("name"): t for t in comp.types}
        per_type = {}
        for f in comp.findings:
            per_type.setdefault(f.type, []).append(f)
        for tname, fs in per_type.items():
            g = Group(comp, tname, fs[0].file, fs[0].status, fs, entries.get(tname, {}))
            earlier = first.get(g.identity)
            if earlier is None:
                first[g.identity] = g
                out.append(g)
            elif (comp.base or comp.name) != (earlier.comparison.base or earlier.comparison.name):
                earlier.also.append(comp.name)   # a left-out header repeating its base: silent
    return out


def is_constant(g):
    return (g.entry.get("kind") == "constant") or str(g.type).startswith("#define ")


def group_outcome(g):
    worst = g.worst()
    if worst == FAIL:
        return FAILS
    if worst in (WAIVED, BASELINED):
        return ACCEPTED
    if any(f.tool_severity == "review" for f in g.findings):
        return REVIEW
    return NOTE


def justification(f):
    """A waived finding's reason (without its FILE:LINE), or "in baseline"."""
    if f.severity == BASELINED:
        return IN_BASELINE
    return getattr(f, "justification", None) or f.waiver


def group_item(g):
    outcome = group_outcome(g)
    wanted = {FAILS: lambda f: f.severity == FAIL,
              ACCEPTED: lambda f: f.severity in (WAIVED, BASELINED),
              REVIEW: lambda f: f.tool_severity == "review"}.get(outcome, lambda f: True)
    fs = [f for f in g.findings if wanted(f)] or g.findings
    reasons = list(dict.fromkeys(r for f in fs for r in f.reasons))
    kind = "constant" if is_constant(g) else "ioctl" if str(g.type).startswith("ioctl ") else "type"
    return Item(outcome, kind, g.type, g.comparison.name, fs[0].check, g.file, g.entry.get("line"),
                fs[0].tool_severity, reasons, [f.text for f in fs],
                justification(fs[0]) if outcome == ACCEPTED else None, list(g.also), g)


def header_items(checks):
    """A header that stopped compiling alone: failing, or accepted by the baseline."""
    out = []
    for c in checks or ():
        if not c.check.endswith("headers-compile"):
            continue
        for outcome, failures in ((FAILS, c.failures), (ACCEPTED, c.accepted)):
            for f in failures:
                if f.header:
                    out.append(Item(outcome, "header", f.header, c.check, c.check, f.header, None, "break",
                                    [], [f"{f.header} no longer compiles alone: {f.error}"],
                                    IN_BASELINE if outcome == ACCEPTED else None))
    return out


def items(report):
    """Every item of a run, headers first, then types in the order of groups()."""
    return header_items(getattr(report, "checks", None)) + [group_item(g) for g in groups(report.comparisons)]


def tally(its):
    """{fail, accepted, review, note, types, constants, headers, compile}: the counts every output
    gives. types/constants/headers are those of the failing types and constants (ioctl numbers
    count as types), compile the headers that stopped compiling."""
    n = {o: sum(1 for i in its if i.outcome == o) for o in OUTCOMES}
    fails = [i for i in its if i.outcome == FAILS and i.kind != "header"]
    n["constants"] = sum(1 for i in fails if i.kind == "constant")
    n["types"] = len(fails) - n["constants"]
    n["headers"] = len({i.file or "(no file)" for i in fails})
    n["compile"] = sum(1 for i in its if i.outcome == FAILS and i.kind == "header")
    return n


def verdict(its):
    return "fail" if any(i.outcome == FAILS for i in its) else "pass"


def safe_counts(comps):
    """(number, Counter of reasons) of the types the tool calls safe in the base comparisons
    (a left-out header's own unit repeats its base: not counted again)."""
    safe, n = Counter(), 0
    for comp in comps.values():
        if comp.base:
            continue
        for t in comp.types:
            if t.get("severity") == "safe":
                n += 1
                safe.update(t.get("reasons") or ["(no reason)"])
    return n, safe
