"""report.sarif and report.junit.xml (ci.py): the real abidiff-uapi run on two small objects
compiled here, each base comparison's SARIF and JUnit merged; the SARIF validated against the
project's own SARIF 2.1.0 subset schema (tests/schema.py), the JUnit parsed with xml.etree."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT
from uapi_check import ci, matrix
from uapi_check.model import Comparison
from uapi_check.util import Fatal

sys.path.insert(0, os.path.join(ROOT, "tests"))
import schema  # noqa: E402  (tests/schema.py: the validators of abidiff-uapi/schema)

OLD = "struct kept { int a; };\nstruct moves { int a; int b; };\nstruct gone { int a; };\n"
NEW = "struct kept { int a; };\nstruct moves { int b; int a; };\n"


def build(tmp_path):
    for rev, text in (("before", OLD), ("after", NEW)):
        inc = tmp_path / "include" / rev / "linux"
        inc.mkdir(parents=True)
        (inc / "t.h").write_text(text)
        src = tmp_path / f"{rev}.c"
        src.write_text("#include <linux/t.h>\n")
        (tmp_path / "obj").mkdir(exist_ok=True)
        for key in (f"c-{rev}", f"cxx-{rev}"):
            subprocess.run(["gcc", "-g", "-fno-eliminate-unused-debug-types", "-c", "-x", "c", str(src),
                            "-I", str(tmp_path / "include" / rev), "-o", str(tmp_path / "obj" / f"{key}.o")],
                           check=True)
    comps = matrix.plan(True, [])
    for c in comps:
        rc, data = matrix.run_comparison(TOOL[0], str(tmp_path), c.name, matrix.comparison_args(c), ci=True)
        c.types = data["types"]
    return {c.name: c for c in comps}


TOOL = []


@pytest.fixture
def comps(tmp_path, tool):
    TOOL[:] = [tool]
    return build(tmp_path)


def test_sarif_one_run_per_comparison_valid_against_the_schema(tmp_path, comps):
    ci.write_ci_reports(str(tmp_path), comps)
    with open(tmp_path / "report.sarif") as f:
        sarif = json.load(f)
    v = schema.validators()["sarif-subset"]
    assert schema.errors(v, sarif) == []
    assert [r["properties"]["comparison"] for r in sarif["runs"]] == list(comps)
    for run, comp in zip(sarif["runs"], comps.values()):
        assert len(run["results"]) == len(comp.types)
        assert {r["level"] for r in run["results"]} == {"error"}     # moved and removed both break
        uris = {l["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"] for l in r["locations"]}
        assert uris == {"linux/t.h"}


def test_junit_one_testsuite_per_comparison(tmp_path, comps):
    ci.write_ci_reports(str(tmp_path), comps)
    root = ET.parse(tmp_path / "report.junit.xml").getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name").split()[1] for s in suites] == list(comps)
    # --common-only (C++) does not compare a type that only one side has.
    want = {"c-before_c-after": ["struct gone", "struct moves"], "cxx-before_cxx-after": ["struct moves"]}
    for s, (name, comp) in zip(suites, comps.items()):
        cases = s.findall("testcase")
        failing = sorted(c.get("name") for c in cases if c.find("failure") is not None)
        assert failing == want[name] == sorted(t["name"] for t in comp.types if t["severity"] == "break")
        assert int(s.get("tests")) == len(cases) and int(s.get("failures")) == len(failing)
        assert "struct kept" in {c.get("name") for c in cases}
    assert int(root.get("failures")) == 3 and int(root.get("tests")) == 5


def test_missing_or_damaged_outputs_are_fatal(tmp_path, comps):
    (tmp_path / "diff" / "c-before_c-after.junit.xml").write_text("<testsuites>")
    with pytest.raises(Fatal, match="c-before_c-after.junit.xml: not XML"):
        ci.merged_junit(str(tmp_path), comps)
    os.unlink(tmp_path / "diff" / "c-before_c-after.sarif")
    with pytest.raises(Fatal, match="c-before_c-after.sarif: cannot read"):
        ci.merged_sarif(str(tmp_path), comps)
