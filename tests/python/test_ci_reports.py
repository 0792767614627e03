"""One verdict, rendered everywhere (ci.py, verdict.py): small reports built from fixtures (the
real abidiff-uapi run on objects compiled here, and the hand-written tool outputs of fixtures/),
after waivers and the baseline, rendered in all five forms by the renderers a run uses; then
tests/agree.py checks that report.txt's first screen, report.html's summary, the JUnit counts,
the SARIF results (valid against OASIS's SARIF 2.1.0 schema, placeable by code scanning) and the
exit status agree. The pipeline tests run the same check on real runs (tests/pipeline/lib.sh)."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, judged, write_tree
from uapi_check import ci, matrix
from uapi_check.html import render_html
from uapi_check.judge import evaluate_checks
from uapi_check.model import ExtraUnits, Headers, Report, RevHeaders, Revision, Trees
from uapi_check.render import render_text
from uapi_check.util import Fatal
from uapi_check.waivers import Baseline, Waiver, apply, identity

sys.path.insert(0, os.path.join(ROOT, "tests"))
import agree  # noqa: E402  (tests/agree.py)

OLD = "struct kept { int a; };\nstruct moves { int a; int b; };\nstruct gone { int a; };\n"
NEW = "struct kept { int a; };\nstruct moves { int b; int a; };\n"


@pytest.fixture(scope="session")
def tool_sarif(tool, tmp_path_factory):
    """The tool's own SARIF of a small drift: the table of reasons ci.py takes its rules from."""
    base = tmp_path_factory.mktemp("objs")
    comps = build(base, tool)
    return (base / "diff" / "c-before_c-after.sarif").read_text(), comps


def build(base, tool):
    """Two small objects a side, the drift matrix run on them by the real tool."""
    for rev, text in (("before", OLD), ("after", NEW)):
        inc = base / "include" / rev / "linux"
        inc.mkdir(parents=True)
        (inc / "t.h").write_text(text)
        src = base / f"{rev}.c"
        src.write_text("#include <linux/t.h>\n")
        (base / "obj").mkdir(exist_ok=True)
        for key in (f"c-{rev}", f"cxx-{rev}"):
            subprocess.run(["gcc", "-g", "-fno-eliminate-unused-debug-types", "-c", "-x", "c", str(src),
                            "-I", str(base / "include" / rev), "-o", str(base / "obj" / f"{key}.o")], check=True)
    comps = matrix.plan(True, [])
    for c in comps:
        rc, data = matrix.run_comparison(tool, str(base), c.name, matrix.comparison_args(c), ci=True)
        c.types = data["types"]
        c.findings = matrix.judge_comparison(c.role, c.types, c.fail_on)
    return {c.name: c for c in comps}


def no_headers(after_failed=None, before_ok=()):
    def rev(failed, ok):
        return RevHeaders(sorted(set(ok) | set(failed)), {}, [], {"c": {}, "cxx": dict(failed)},
                          {"c": sorted(ok), "cxx": sorted(set(ok) - set(failed))}, {"c": [], "cxx": []})
    return Headers({"before": rev({}, before_ok), "after": rev(after_failed or {}, before_ok)}, True)


def kernel_tree(base):
    """A kernel tree's uapi files for the fixtures' headers, and the installed copies."""
    files = {"include/uapi/linux/kvm.h": "struct kvm_run {\n\tint x;\n};\n",
             "include/uapi/linux/t.h": NEW, "arch/x86/include/uapi/asm/kvm.h": "struct kvm_regs {};\n",
             "usr/include/Makefile": ""}
    tree = write_tree(base / "linux", files)
    inc = write_tree(base / "installed", {"linux/kvm.h": files["include/uapi/linux/kvm.h"], "linux/t.h": NEW})
    return Trees({r: Revision(r, tree, None, [tree], inc) for r in ("before", "after")}, None, {"before": 2, "after": 2})


def make_report(out, mode, comps, headers=None, waivers=(), baseline=None, sarif=None, safe=False):
    """A Report as cli.check leaves it, its five reports written into out; returns (report, exit)."""
    headers = headers or no_headers()
    apply(comps, list(waivers), baseline)
    checks = evaluate_checks(mode, headers, comps, baseline.headers if baseline else frozenset())
    report = Report(mode=mode, what=f"fixture {mode}", checks=checks, compilers={}, trees=kernel_tree(out),
                    headers=headers, units={}, extra=ExtraUnits([], {}, {}, []), comparisons=comps, coverage={},
                    waivers=list(waivers))
    os.makedirs(out / "diff", exist_ok=True)
    first = next(n for n, c in comps.items() if not c.base) if comps else "c-before_c-after"
    (out / "diff" / f"{first}.sarif").write_text(sarif)
    (out / "report.json").write_text(json.dumps(report.to_json()))
    (out / "report.txt").write_text(render_text(report))
    (out / "report.html").write_text(render_html(report))
    ci.write_ci_reports(str(out), report, safe)
    return report, 0 if report.verdict == "pass" else 1


def fixture_drift():
    c = judged("c-before_c-after", "drift", "drift.json")
    cxx = judged("cxx-before_cxx-after", "drift", "drift-cxx.json")
    return {c.name: c, cxx.name: cxx}


def sarif_of(out):
    return json.loads((out / "report.sarif").read_text())


def results(out):
    return sarif_of(out)["runs"][0]["results"]


def junit_of(out):
    return ET.parse(out / "report.junit.xml").getroot()


def agreed(out, rc):
    problems = agree.problems(str(out), rc)
    assert problems == []


def test_a_passing_series_whose_cxx_layouts_the_series_fixes_has_no_error(tmp_path, tool_sarif):
    """The known disagreement: C++ before/after changes a series fixes (here the
    __DECLARE_FLEX_ARRAY filler going) are no failure in any output."""
    cxx = judged("cxx-before_cxx-after", "series-cxx", "series-cxx.json")
    cxx.types = [t for t in cxx.types if t["name"] == "struct fc_nl_event"]
    from uapi_check.judge import judge_comparison
    cxx.findings = judge_comparison(cxx.role, cxx.types)
    report, rc = make_report(tmp_path, "series", {cxx.name: cxx}, sarif=tool_sarif[0])
    assert rc == 0 and cxx.types[0]["severity"] == "break"     # the tool's raw verdict
    agreed(tmp_path, rc)
    assert results(tmp_path) == [] and junit_of(tmp_path).get("failures") == "0"
    make_report(tmp_path / "safe", "series", {cxx.name: cxx}, sarif=tool_sarif[0], safe=True)
    assert [r["level"] for r in results(tmp_path / "safe")] == ["note"]


def test_a_failing_drift(tmp_path, tool_sarif):
    report, rc = make_report(tmp_path, "drift", fixture_drift(), sarif=tool_sarif[0])
    assert rc == 1
    agreed(tmp_path, rc)
    levels = [r["level"] for r in results(tmp_path)]
    assert levels.count("error") == 5 and levels.count("warning") == 2 and "note" not in levels
    kvm = next(r for r in results(tmp_path) if r["message"]["text"].startswith("struct kvm_run"))
    loc = kvm["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "include/uapi/linux/kvm.h", "uriBaseId": "%SRCROOT%"}
    assert kvm["ruleId"] == "moved" and "also in cxx-before_cxx-after" in kvm["message"]["text"]
    rules = {r["id"]: r for r in sarif_of(tmp_path)["runs"][0]["tool"]["driver"]["rules"]}
    assert "an existing member's offset changed" in rules["moved"]["help"]["text"]
    assert {"tail-growth", "sentinel", "cxx-keyword", "c-headers-compile"} <= set(rules)


def test_waived_and_baselined_findings_are_suppressed_and_skipped(tmp_path, tool_sarif):
    first = fixture_drift()
    known = {identity(n, f.to_json()) for n, c in first.items() for f in c.findings}
    base = Baseline("old/report.json", known, set())
    waivers = [Waiver("struct kvm_run", None, "the kernel moved it on purpose", "w:1")]
    report, rc = make_report(tmp_path, "drift", fixture_drift(), waivers=waivers, baseline=base, sarif=tool_sarif[0])
    assert rc == 0
    agreed(tmp_path, rc)
    sup = {r["message"]["text"].split(":")[0]: r["suppressions"] for r in results(tmp_path) if "suppressions" in r}
    assert sup["struct kvm_run"] == [{"kind": "external", "status": "accepted",
                                      "justification": "the kernel moved it on purpose"}]
    assert sup["struct cxx_only"][0]["justification"] == "in baseline"
    assert len(sup) == 5
    skipped = [c for c in junit_of(tmp_path).iter("testcase") if c.find("skipped") is not None]
    assert {c.find("skipped").get("message") for c in skipped} == {"the kernel moved it on purpose", "in baseline"}
    assert junit_of(tmp_path).get("failures") == "0" and junit_of(tmp_path).get("skipped") == "5"


ERR = "linux/t.h:3:1: error: invalid conversion from 'void*' to 'int*'"


def test_a_header_that_stopped_compiling_is_a_finding_everywhere(tmp_path, tool_sarif):
    h = no_headers({"linux/t.h": ERR}, before_ok=["linux/t.h"])
    report, rc = make_report(tmp_path, "drift", {}, headers=h, sarif=tool_sarif[0])
    assert rc == 1
    agreed(tmp_path, rc)
    [r] = results(tmp_path)
    assert r["ruleId"] == "cxx-headers-compile" and r["level"] == "error" and ERR in r["message"]["text"]
    assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "include/uapi/linux/t.h"
    assert "linux/t.h" in (tmp_path / "report.html").read_text()
    # ... and the baseline accepts it like any other finding.
    base = Baseline("b", set(), {("cxx-headers-compile", "linux/t.h")})
    report, rc = make_report(tmp_path / "b", "drift", {}, headers=h, baseline=base, sarif=tool_sarif[0])
    assert rc == 0
    agreed(tmp_path / "b", rc)
    [r] = results(tmp_path / "b")
    assert r["suppressions"][0]["justification"] == "in baseline"


def test_constants_are_findings_and_waivable(tmp_path, tool_sarif):
    c = judged("c-before_c-after", "drift", "drift.json")
    c.types = [{"name": "#define KVM_X", "kind": "constant", "status": "changed", "severity": "break",
                "reasons": ["constant-value"], "file": "linux/kvm.h", "line": 2,
                "changes": [{"change": "constant_value", "severity": "break", "reasons": ["constant-value"],
                             "old": {"value": 1}, "new": {"value": 2}}]}]
    from uapi_check.judge import judge_comparison
    c.findings = judge_comparison(c.role, c.types)
    report, rc = make_report(tmp_path, "drift", {c.name: c}, sarif=tool_sarif[0])
    assert rc == 1
    agreed(tmp_path, rc)
    assert [(r["ruleId"], r["level"]) for r in results(tmp_path)] == [("constant-value", "error")]
    c.findings = judge_comparison(c.role, c.types)
    report, rc = make_report(tmp_path / "w", "drift", {c.name: c}, sarif=tool_sarif[0],
                             waivers=[Waiver("#define KVM_X", None, "renumbered on purpose", "w:1")])
    assert rc == 0
    agreed(tmp_path / "w", rc)


def test_the_real_tool_run(tmp_path, tool_sarif):
    """The comparisons of the real tool's run on small objects: valid, placed, agreeing."""
    report, rc = make_report(tmp_path, "drift", tool_sarif[1], sarif=tool_sarif[0])
    agreed(tmp_path, rc)
    assert rc == 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results(tmp_path)}
    assert uris == {"include/uapi/linux/t.h"}


def test_agree_notices_a_disagreement(tmp_path, tool_sarif):
    """The check can fail: a JUnit file that lost a failure, a SARIF result that lost its
    suppression, an installed path as the location, an exit status that says pass."""
    make_report(tmp_path, "drift", fixture_drift(), sarif=tool_sarif[0])
    assert any("exit status 0" in p for p in agree.problems(str(tmp_path), 0))
    junit = (tmp_path / "report.junit.xml").read_text()
    (tmp_path / "report.junit.xml").write_text(junit.replace("<failure ", "<skipped ", 1).replace("</failure>", "</skipped>", 1))
    assert any(p.startswith("JUnit failures") for p in agree.problems(str(tmp_path), 1))
    (tmp_path / "report.junit.xml").write_text(junit)
    sarif = sarif_of(tmp_path)
    sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] = {"uri": "linux/kvm.h"}
    (tmp_path / "report.sarif").write_text(json.dumps(sarif))
    assert any("not relative to a uriBaseId" in p for p in agree.problems(str(tmp_path), 1))
    sarif["runs"][0]["results"][0]["level"] = "fatal"
    (tmp_path / "report.sarif").write_text(json.dumps(sarif))
    assert any(p.startswith("sarif: ") and "fatal" in p for p in agree.problems(str(tmp_path), 1))


def test_missing_or_damaged_tool_sarif_is_fatal(tmp_path, tool_sarif):
    comps = fixture_drift()
    (tmp_path / "diff").mkdir()
    with pytest.raises(Fatal, match="c-before_c-after.sarif: cannot read"):
        ci.tool_rules(str(tmp_path), comps)
    (tmp_path / "diff" / "c-before_c-after.sarif").write_text("{}")
    with pytest.raises(Fatal, match="c-before_c-after.sarif: not the tool's SARIF"):
        ci.tool_rules(str(tmp_path), comps)
