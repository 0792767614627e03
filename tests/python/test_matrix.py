import json
import os

import pytest

from uapi_check import matrix
from uapi_check.model import AlonePair
from uapi_check.util import Fatal


def test_base_matrix_roles():
    assert [(m.name, m.role, m.common_only) for m in matrix.base_matrix(False)] == [
        ("c-before_c-after", "series-c", False), ("cxx-before_cxx-after", "series-cxx", True),
        ("c-after_cxx-after", "cross", True), ("c-before_cxx-after", "cross-series", True)]
    assert [m.role for m in matrix.base_matrix(True)] == ["drift", "drift"]
    # The series and C/C++ comparisons keep one ABI; only drift allows the evolution idioms.
    assert [m.strict for m in matrix.base_matrix(False)] == [True] * 4
    assert [m.strict for m in matrix.base_matrix(True)] == [False] * 2


def test_fail_on_review_reaches_the_tool_in_drift_only():
    drift = matrix.plan(True, [], "review")
    assert [matrix.comparison_args(c)[-1] for c in drift] == ["--fail-on=review"] * 2
    series = matrix.plan(False, [], "review")
    assert not any("--fail-on=review" in matrix.comparison_args(c) for c in series)


def test_plan_adds_left_out_headers_after_the_base_lines():
    pairs = [AlonePair("c-after_cxx-after", "linux/uio.h", "c-after", "cxx-after",
                       "c-after+linux-uio", "cxx-after+linux-uio")]
    comps = matrix.plan(False, pairs)
    assert [c.name for c in comps][-1] == "c-after_cxx-after+linux-uio"
    last = comps[-1]
    assert (last.base, last.header, last.role, last.common_only) == ("c-after_cxx-after", "linux/uio.h", "cross", True)
    assert matrix.comparison_args(last) == ["obj/c-after+linux-uio.o", "obj/cxx-after+linux-uio.o",
                                            "--headers", "include/before", "--headers", "include/after",
                                            "--common-only", "--strict"]
    assert last.to_json()["old_object"] == "obj/c-after+linux-uio.o"


def test_write_matrix_and_stale_outputs(tmp_path):
    (tmp_path / "diff").mkdir()
    for f in ("c-before_c-after.json", "c-before_c-after+gone.json", "c-before_c-after+gone.txt"):
        (tmp_path / "diff" / f).write_text("{}")
    comps = matrix.plan(True, [])
    matrix.write_matrix(str(tmp_path), comps)
    assert (tmp_path / "matrix.txt").read_text().splitlines() == [
        "c-before_c-after obj/c-before.o obj/c-after.o --headers include/before --headers include/after",
        "cxx-before_cxx-after obj/cxx-before.o obj/cxx-after.o --headers include/before --headers include/after --common-only"]
    assert sorted(os.listdir(tmp_path / "diff")) == ["c-before_c-after.json"]


def fake_tool(tmp_path, body):
    path = tmp_path / "fake-tool"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def test_run_comparison_keeps_raw_outputs(tmp_path):
    """One run of the tool per comparison: JSON on its standard output, the text (and with ci the
    SARIF) written by the tool itself with --report, into diff/."""
    doc = {"verdict": "compatible", "counts": {"unchanged": 3}, "types": []}
    tool = fake_tool(tmp_path, f"""echo "$*" >> {tmp_path}/calls
for a; do case "$a" in --report=*) r=${{a#--report=}}; echo "${{r%%:*}}" > "${{r#*:}}" ;; esac; done
case "$*" in *--format=json*) echo '{json.dumps(doc)}' ;; *) echo text ;; esac
""")
    rc, data = matrix.run_comparison(tool, str(tmp_path), "x", ["a.o", "b.o"])
    assert (rc, data) == (0, doc)
    assert (tmp_path / "diff" / "x.txt").read_text() == "text\n"
    assert json.loads((tmp_path / "diff" / "x.json").read_text()) == doc
    assert not (tmp_path / "diff" / "x.sarif").exists()
    rc, data = matrix.run_comparison(tool, str(tmp_path), "y", ["a.o", "b.o"], ci=True)
    assert (tmp_path / "diff" / "y.sarif").read_text() == "sarif\n"
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["diff a.o b.o --format=json --report=text:diff/x.txt",
                     "diff a.o b.o --format=json --report=text:diff/y.txt --report=sarif:diff/y.sarif"]


def test_run_comparison_errors(tmp_path):
    tool = fake_tool(tmp_path, "echo 'obj/a.o: not an ELF file' >&2; exit 2\n")
    with pytest.raises(Fatal, match="obj/a.o: not an ELF file"):
        matrix.run_comparison(tool, str(tmp_path), "x", ["obj/a.o", "b.o"])
    tool = fake_tool(tmp_path, "echo 'not json'; exit 0\n")
    with pytest.raises(Fatal, match="output is not JSON"):
        matrix.run_comparison(tool, str(tmp_path), "x", ["a.o", "b.o"])
