"""Waivers and baselines, for CI: accept known changes without hiding them.

Waiver file (--waivers FILE), one waiver a line, `#` starts a comment line:

    TYPE[.MEMBER]  reason text

TYPE is a type as the tool names it (`struct kvm_run`, `union x`, `enum foo`, `enum {FIRST}` for an
anonymous enum, a typedef name, `ioctl NAME` for an ioctl request number, or `#define NAME` for a
constant: a line that starts with `#define ` is a waiver, not a comment); MEMBER is a member, a dotted path inside anonymous members
(`u.p.x`), or an enumerator. The reason is mandatory. A waived finding is reported as waived, with
its reason, and does not fail. A waiver for TYPE covers every finding of that type, one for
TYPE.MEMBER the findings about that member (and what lies inside it).

Baseline (--baseline OLD/report.json): an earlier report of uapi-check. A finding fails only when
the baseline has no finding with the same identity: comparison, type, change kind, member (or
enumerator) and the tool's severity. Texts are never compared.
"""
import json
import re
from dataclasses import dataclass

from .judge import BASELINED, FAIL, WAIVED
from .util import Fatal

# Words that begin a two-word name: the tool's types, and "ioctl NAME" for a request number.
AGGREGATES = ("struct", "union", "enum", "ioctl", "#define")
TYPE_NAME = re.compile(r"[A-Za-z_]\w*|\{[A-Za-z_]\w*\}")
MEMBER_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass
class Waiver:
    type: str
    member: object      # str or None
    reason: str
    where: str          # FILE:LINE
    used: int = 0

    def matches(self, f):
        if f.type != self.type:
            return False
        if self.member is None:
            return True
        m = f.member or ""
        return m == self.member or m.startswith(self.member + ".")

    def to_json(self):
        return {"type": self.type, "member": self.member, "reason": self.reason,
                "where": self.where, "used": self.used}


def parse_waiver_line(text, where):
    """One non-comment line: a Waiver, or Fatal('FILE:LINE: reason')."""
    m = re.match(r"\s*(\S+)(?:\s+(\S+))?", text)
    first, second = m.group(1), m.group(2)
    if first in AGGREGATES:
        if not second:
            raise Fatal(f"{where}: '{first}' without a name (format: TYPE[.MEMBER]  reason)")
        target, rest = f"{first} {second}", text[m.end():]
        name = second
    else:
        target, rest = first, text[m.end(1):]
        name = first
    base, dot, member = name.partition(".")
    if not TYPE_NAME.fullmatch(base):
        raise Fatal(f"{where}: '{target}' is not a type name (format: TYPE[.MEMBER]  reason)")
    if dot and not MEMBER_PATH.fullmatch(member):
        raise Fatal(f"{where}: '{target}': '{member}' is not a member name or path")
    reason = rest.strip()
    if not reason:
        raise Fatal(f"{where}: no reason given for {target} (format: TYPE[.MEMBER]  reason)")
    type_name = f"{first} {base}" if first in AGGREGATES else base
    return Waiver(type_name, member if dot else None, reason, where)


def load_waivers(path, shown=None):
    """The waivers of a file; messages name it as `shown` (default: path)."""
    real, path = path, shown or path
    try:
        with open(real, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Fatal(f"{path}: cannot read ({e.strerror})")
    except UnicodeDecodeError:
        raise Fatal(f"{path}: not UTF-8 text")
    waivers = []
    for n, line in enumerate(lines, 1):
        text = line.lstrip()
        if text and (not text.startswith("#") or text.startswith("#define ")):
            waivers.append(parse_waiver_line(line, f"{path}:{n}"))
    return waivers


def identity(comparison, f):
    """What makes a finding the same finding in two reports (f: a finding as report.json has it)."""
    change = f.get("change") or {}
    return (comparison, f.get("type"), change.get("change") or f.get("status"),
            change.get("member") or change.get("enumerator"), f.get("tool_severity"))


@dataclass
class Baseline:
    path: str
    findings: set       # identities
    headers: set        # (check, header) of headers that failed to compile


def not_a_report(path, why):
    return Fatal(f"{path}: not a uapi-check report ({why})")


def load_baseline(path, shown=None):
    real, path = path, shown or path
    try:
        with open(real, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise Fatal(f"{path}: cannot read ({e.strerror})")
    except (ValueError, UnicodeDecodeError) as e:
        raise not_a_report(path, str(e))
    if not isinstance(data, dict) or data.get("tool") != "uapi-check":
        raise not_a_report(path, 'no "tool": "uapi-check"')
    compare = (data.get("steps") or {}).get("compare") if isinstance(data.get("steps"), dict) else None
    if not isinstance(compare, dict):
        raise not_a_report(path, "no steps.compare")
    found = set()
    for name, comp in compare.items():
        fs = comp.get("findings") if isinstance(comp, dict) else None
        if not isinstance(fs, list) or not all(isinstance(f, dict) for f in fs):
            raise not_a_report(path, f"steps.compare.{name}.findings is not a list of findings")
        found.update(identity(name, f) for f in fs)
    headers = set()
    checks = data.get("checks")
    if not isinstance(checks, list):
        raise not_a_report(path, "no checks")
    for c in checks:
        for f in (c.get("findings") or []) if isinstance(c, dict) else []:
            if isinstance(f, dict) and "header" in f:
                headers.add((c.get("check"), f["header"]))
    return Baseline(path, found, headers)


def apply(comparisons, waivers=(), baseline=None):
    """Mark failing findings that a waiver or the baseline accepts. Returns how many of each."""
    counts = {WAIVED: 0, BASELINED: 0}
    for name, comp in comparisons.items():
        for f in comp.findings:
            if f.severity != FAIL:
                continue
            w = next((w for w in waivers if w.matches(f)), None)
            if w:
                w.used += 1
                f.severity, f.waiver, f.justification = WAIVED, f"{w.reason} ({w.where})", w.reason
            elif baseline and identity(name, f.to_json()) in baseline.findings:
                f.severity, f.waiver, f.justification = BASELINED, f"in the baseline {baseline.path}", "in baseline"
            else:
                continue
            counts[f.severity] += 1
    return counts
