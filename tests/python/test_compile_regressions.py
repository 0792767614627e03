"""A header that compiled alone before and fails after breaks a drift check (--old/--new) as it
does a --git one, and every output names it: report.txt's first screen, SARIF, JUnit and HTML.
A header that already failed, or that is new, is not the drift's fault."""
import json
import types
import xml.etree.ElementTree as ET

from uapi_check import ci, screen
from uapi_check.judge import evaluate_checks
from uapi_check.model import Headers, RevHeaders


def headers(before_ok, before_failed, after_failed):
    def rev(ok, failed):
        tested = sorted(set(ok) | set(failed))
        return RevHeaders(tested, {}, [], {"c": {}, "cxx": dict(failed)}, {"c": tested, "cxx": sorted(ok)},
                          {"c": [], "cxx": []})
    return Headers({"before": rev(before_ok, before_failed), "after": rev([], after_failed)}, False)


ERR = "linux/a.h:3:1: error: invalid conversion from 'void*' to 'int*'"


def checks():
    h = headers(["linux/a.h", "linux/b.h"], {"linux/old.h": "error: was broken"},
                {"linux/a.h": ERR, "linux/old.h": "error: was broken", "linux/new.h": "error: new"})
    return {c.check: c for c in evaluate_checks("drift", h, {})}


def test_drift_fails_on_a_header_that_stopped_compiling():
    c = checks()
    assert not c["cxx-headers-compile"].passed
    assert [(f.header, f.error) for f in c["cxx-headers-compile"].failures] == [("linux/a.h", ERR)]
    assert c["c-headers-compile"].passed and c["drift"].passed


def test_every_output_names_it():
    cs = list(checks().values())
    report = types.SimpleNamespace(checks=cs)
    lines = screen.compile_lines(report)
    assert lines[0] == "Headers that stopped compiling alone in C++: 1" and ERR in lines[1]
    run = ci.compile_sarif_run(cs)
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in run["results"]] == [("cxx-headers-compile", "error", "linux/a.h")]
    suite = ci.compile_junit_suite(cs)
    assert suite.get("failures") == "1" and suite.find("testcase").get("name") == "linux/a.h"
    assert ERR in ET.tostring(suite, encoding="unicode")
    json.dumps(run)


def test_sarif_and_junit_files_carry_it(tmp_path):
    cs = list(checks().values())
    (tmp_path / "diff").mkdir()
    ci.write_ci_reports(str(tmp_path), {}, cs)
    sarif = json.loads((tmp_path / "report.sarif").read_text())
    assert any(r["ruleId"] == "cxx-headers-compile" for run in sarif["runs"] for r in run["results"])
    junit = ET.fromstring((tmp_path / "report.junit.xml").read_text())
    assert junit.get("failures") == "1"
