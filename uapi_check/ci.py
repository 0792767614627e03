"""report.sarif and report.junit.xml, rendered from the run's verdict items (verdict.py): the same
items, after waivers and the baseline, that report.txt's first screen and report.html show, so
the counts agree with them and with the exit status.

SARIF 2.1.0 (validated against the OASIS schema, abidiff-uapi/schema/sarif-schema-2.1.0.json):
one run of the tool "uapi-check"; one rule per reason, from the tool's own table (each base
comparison's diff/NAME.sarif, which the tool writes from conventions.c), and one per check the
driver adds (a header that stopped compiling, an ioctl number); one result per item:

  fail      level error;
  accepted  the level it would have, with a suppression (kind external, status accepted, the
            waiver's reason or "in baseline" as its justification);
  review    level warning;
  note      level note, only with --sarif-safe (safe changes, and changes a check allows).

Locations are the files of the kernel tree the headers were installed from
(include/uapi/linux/elf.h, arch/x86/include/uapi/asm/kvm.h) relative to uriBaseId %SRCROOT%,
the top of the kernel tree, which is what code scanning places them against.

JUnit XML: one testsuite per check; a failing item is a testcase with a <failure>, an accepted
one a testcase <skipped> with its justification, a review item a passing testcase whose
system-out says "review"; a check with none of those is one passing testcase."""
import hashlib
import json
import os
import xml.etree.ElementTree as ET

from .trees import SourceMap
from .util import Fatal, write_atomic
from .verdict import ACCEPTED, FAILS, NOTE, OUTCOMES, REVIEW, items, tally

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVEL = {"break": "error", "review": "warning", "safe": "note"}
RANK = {"break": 2, "review": 1, "safe": 0}
# Rules of the driver's own (the tool's come from its table): a change the tool gave no reason for.
OTHER_RULE = ("changed", "break", "a layout or constant change the tool gave no reason for")
IOCTL_RULE = ("ioctl-number", "break",
              "an ioctl request number differs: its argument type's size or its direction changed "
              "(the message names the argument and the tool's finding for it)")


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        raise Fatal(f"{path}: cannot read ({e.strerror})")


def tool_rules(out, comparisons):
    """The tool's table of reasons, [(id, severity, meaning)] in its order, from the first base
    comparison's diff/NAME.sarif (the tool writes every reason as a rule)."""
    for name, comp in comparisons.items():
        if comp.base:
            continue
        path = os.path.join(out, "diff", f"{name}.sarif")
        try:
            doc = json.loads(_read(path))
            rules = doc["runs"][0]["tool"]["driver"]["rules"]
            return [(r["id"], r["properties"]["severity"], r["shortDescription"]["text"]) for r in rules]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise Fatal(f"{path}: not the tool's SARIF ({e.__class__.__name__}: {e})")
    return []


class Rules:
    """The run's rules: the tool's reasons, then the driver's; index by id."""

    def __init__(self, reasons, checks):
        self.rows = list(reasons)
        self.rows += [(c.check, "break", c.description) for c in checks or () if c.check.endswith("headers-compile")]
        self.rows += [IOCTL_RULE, OTHER_RULE]
        self.index = {r[0]: i for i, r in enumerate(self.rows)}
        self.severity = {r[0]: r[1] for r in self.rows}

    def of(self, item):
        """The rule an item is filed under: its check for a header, the ioctl rule for a number,
        else its most severe reason (the first in the tool's table among equals)."""
        if item.kind == "header":
            return item.check if item.check in self.index else OTHER_RULE[0]
        if item.kind == "ioctl":
            return IOCTL_RULE[0]
        known = [r for r in item.reasons if r in self.index]
        if not known:
            return OTHER_RULE[0]
        return min(known, key=lambda r: (-RANK.get(self.severity[r], 0), self.index[r]))

    def to_json(self):
        return [{"id": rid, "name": rid.replace("-", " "),
                 "shortDescription": {"text": meaning},
                 "fullDescription": {"text": f"{rid}: {meaning}. The tool's severity of this reason: {sev}."},
                 "help": {"text": f"{meaning}.\n\nSeverity {sev}: " + SEVERITY_HELP[sev],
                          "markdown": f"**{rid}**: {meaning}.\n\nSeverity **{sev}**: " + SEVERITY_HELP[sev]},
                 "defaultConfiguration": {"level": LEVEL[sev]},
                 "properties": {"severity": sev}} for rid, sev, meaning in self.rows]


SEVERITY_HELP = {
    "break": "existing programs stop working or stop compiling; a drift check fails on it, and a "
             "series check fails on any change. Accept a known one with a waiver "
             "(--waivers: TYPE[.MEMBER]  reason) or a baseline (--baseline OLD/report.json).",
    "review": "safe only under a condition a person must confirm (a size-versioned struct, an ioctl "
              "whose number changes); --fail-on=review makes it fail a drift check.",
    "safe": "one of the kernel's own ways of extending an ABI; reported with --sarif-safe only.",
}


def fingerprint(item, rule):
    key = "\0".join([item.comparison, item.name, rule])
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def item_message(item):
    texts = "; ".join(item.texts[:3]) + (f"; and {len(item.texts) - 3} more" if len(item.texts) > 3 else "")
    if item.kind == "header":
        return texts
    also = f", also in {', '.join(item.also)}" if item.also else ""
    body = texts if texts.startswith(item.name) else f"{item.name}: {texts}"
    return f"{body} [{item.comparison}{also}]"


def location(item, smap, srcarch):
    """A physical location code scanning can place: the item's file in the (new) kernel tree, its
    line when the tool gave one; for a generated header, or a file the new tree no longer has,
    the Kbuild file (asm/) or usr/include/Makefile, which decide what headers_install installs."""
    removed = item.group is not None and item.group.status == "removed"
    src = smap.source(item.file, new_only=True) if smap else None
    gone = smap.source(item.file) if smap and not src else None   # a file the new tree lost
    region = None
    if src:
        line = (smap.define_line(item.file, item.name.split(" ", 1)[1]) if item.kind == "ioctl"
                else smap.line(item.file, item.line, old=removed))
        region = {"startLine": line} if line else None
    else:
        src = f"arch/{srcarch}/include/uapi/asm/Kbuild" if (item.file or "").startswith("asm/") else "usr/include/Makefile"
    phys = {"artifactLocation": {"uri": src, "uriBaseId": SRCROOT}}
    if region:
        phys["region"] = region
    loc = {"physicalLocation": phys}
    if gone:
        loc["message"] = {"text": f"{gone} is not in the new tree (removed or moved)"}
    if item.kind != "header":
        loc["logicalLocations"] = [{"fullyQualifiedName": item.name,
                                    "kind": "variable" if item.kind == "constant" else "type"}]
    return loc


def sarif_result(item, rules, smap, srcarch):
    rule = rules.of(item)
    level = LEVEL[item.severity if item.outcome != NOTE else "safe"]
    res = {"ruleId": rule, "ruleIndex": rules.index[rule], "level": level,
           "message": {"text": item_message(item)},
           "locations": [location(item, smap, srcarch)],
           "partialFingerprints": {"uapiCheckFinding/v1": fingerprint(item, rule)},
           "properties": {"outcome": item.outcome, "comparison": item.comparison, "also": item.also,
                          "check": item.check, "installed_header": item.file,
                          "tool_severity": item.tool_severity, "reasons": item.reasons}}
    if item.outcome == ACCEPTED:
        res["suppressions"] = [{"kind": "external", "status": "accepted",
                                "justification": item.justification or "accepted"}]
    return res


def source_map(report):
    """The report's SourceMap (kept on it: locate() fills it while the trees exist), or None."""
    smap = getattr(report, "source_map", None)
    trees = getattr(report, "trees", None)
    if smap is None and trees and getattr(trees, "revisions", None):
        arch = getattr(report, "arch", None)
        smap = SourceMap(trees.revisions, arch.srcarch if arch else "x86")
        try:
            report.source_map = smap
        except AttributeError:
            pass
    return smap


def locate(report):
    """Resolve every item's location now, while the run's trees exist (a series' patched copy
    is removed before the reports are written); render_sarif reads them from the map's memory."""
    smap = source_map(report)
    arch = getattr(report, "arch", None)
    for item in items(report):
        location(item, smap, arch.srcarch if arch else "x86")


def render_sarif(report, reasons, its=None, safe=False):
    """The SARIF log of a report (a dict); reasons: tool_rules()."""
    its = items(report) if its is None else its
    rules = Rules(reasons, report.checks)
    arch = getattr(report, "arch", None)
    srcarch = arch.srcarch if arch else "x86"
    smap = source_map(report)
    shown = [i for i in its if safe or i.outcome != NOTE]
    n = tally(its)
    run = {"tool": {"driver": {"name": "uapi-check", "rules": rules.to_json()}},
           "originalUriBaseIds": {SRCROOT: {"description": {
               "text": "the top of the kernel source tree the headers were installed from"}}},
           "invocations": [{"executionSuccessful": True, "exitCode": 1 if report.verdict == "fail" else 0}],
           "results": [sarif_result(i, rules, smap, srcarch) for i in shown],
           "properties": {"what": report.what, "mode": report.mode, "verdict": report.verdict,
                          "counts": {o: n[o] for o in OUTCOMES}, "notes_included": bool(safe)}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_junit(report, its=None):
    """The JUnit XML of a report (text)."""
    its = items(report) if its is None else its
    root = ET.Element("testsuites", name=f"uapi-check: {report.what}")
    suites, cases = {}, {}

    def suite(check, description):
        if check not in suites:
            suites[check] = ET.SubElement(root, "testsuite", name=f"uapi-check {check}: {description}")
            cases[check] = []
        return check

    described = {}
    for c in report.checks:
        suite(c.check, c.description)
        described[c.check] = c.description
    for i in its:
        if i.outcome == NOTE:
            continue
        s = suite(i.check or "other", i.check or "other findings")
        case = ET.Element("testcase", classname=f"{i.check or 'other'}.{i.file or '(no file)'}",
                          name=i.name + (f" [{i.comparison}]" if i.kind != "header" else ""))
        text = "\n".join(i.texts)
        if i.outcome == FAILS:
            ET.SubElement(case, "failure", message=item_message(i), type=i.tool_severity or "break").text = text
        elif i.outcome == ACCEPTED:
            ET.SubElement(case, "skipped", message=i.justification or "accepted")
            ET.SubElement(case, "system-out").text = f"accepted ({i.justification}): {text}"
        elif i.outcome == REVIEW:
            ET.SubElement(case, "system-out").text = f"review: {text}"
        cases[s].append(case)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for check, s in suites.items():
        mine = cases[check] or [ET.Element("testcase", classname=check, name=described.get(check, check))]
        for case in mine:
            s.append(case)
        counts = {"tests": len(mine), "failures": sum(1 for c in mine if c.find("failure") is not None),
                  "errors": 0, "skipped": sum(1 for c in mine if c.find("skipped") is not None)}
        for k, v in counts.items():
            s.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_ci_reports(out, report, safe=False):
    """report.sarif and report.junit.xml of a report, each written atomically; the rules are the
    tool's reasons, from its SARIF of the base comparisons (diff/NAME.sarif)."""
    its = items(report)
    sarif = render_sarif(report, tool_rules(out, report.comparisons), its, safe)
    write_atomic(os.path.join(out, "report.sarif"), json.dumps(sarif, indent=1) + "\n")
    write_atomic(os.path.join(out, "report.junit.xml"), render_junit(report, its))
