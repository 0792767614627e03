"""tests/run-all's counting: a SKIP is counted apart, never as a pass."""
import json
import os
import subprocess
import sys

from conftest import ROOT

COUNT = os.path.join(ROOT, "tests", "count-testlog.py")


def make_testlog(tmp_path, results):
    path = tmp_path / "testlog.json"
    path.write_text("".join(json.dumps({"name": f"t{i}", "result": r}) + "\n" for i, r in enumerate(results)))
    return str(path)


def test_counts_pass_fail_skip(tmp_path):
    path = make_testlog(tmp_path, ["OK", "SKIP", "FAIL", "EXPECTEDFAIL", "TIMEOUT", "SKIP", "OK"])
    p = subprocess.run([sys.executable, COUNT, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0
    assert p.stdout == "3 2 2\n"
    assert p.stderr.splitlines() == ["skipped: t1", "failed: t2 (FAIL)", "failed: t4 (TIMEOUT)", "skipped: t5"]


def test_run_all_prints_the_three_counts():
    with open(os.path.join(ROOT, "tests", "run-all")) as f:
        text = f.read()
    assert 'echo "$passed passed, $failed failed, $skipped skipped"' in text
    assert "count-testlog.py" in text


def pytest_run(tmp_path, name):
    """A real pytest run with JUnit XML: two passed, two skipped (skipif and pytest.skip), as
    tests/meson.build runs the suites. Returns its testlog.json entry."""
    src = tmp_path / f"{name}_src"
    src.mkdir()
    (src / "test_some.py").write_text(
        "import pytest\n"
        "def test_a():\n    assert True\n"
        "def test_b():\n    assert True\n"
        "@pytest.mark.skipif(True, reason='needs a thing')\n"
        "def test_c():\n    pass\n"
        "def test_d():\n    pytest.skip('not here')\n")
    junit = tmp_path / f"{name}.xml"
    start = os.stat(tmp_path).st_mtime - 5
    command = [sys.executable, "-m", "pytest", "-q", "-rs", f"--junitxml={junit}", "-p", "no:cacheprovider", str(src)]
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path))
    assert p.returncode == 0, p.stdout
    return {"name": name, "result": "OK", "starttime": start, "command": command}


def run_count(tmp_path, entries):
    path = tmp_path / "testlog.json"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return subprocess.run([sys.executable, COUNT, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def test_counts_pytest_skips_as_skipped(tmp_path):
    """A pytest run is one meson test, passed; its skipped tests count as skipped, with reasons."""
    entries = [pytest_run(tmp_path, "py"), {"name": "plain", "result": "OK"}, {"name": "gone", "result": "SKIP"}]
    p = run_count(tmp_path, entries)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "2 0 3\n"
    skips = [x for x in p.stderr.splitlines() if x.startswith("skipped: py: ")]
    assert len(skips) == 2
    assert any("needs a thing" in x for x in skips) and any("not here" in x for x in skips)


def test_pytest_run_without_fresh_junit_is_a_failure(tmp_path):
    """Its skips cannot be known: a passed run with no XML, or XML older than the run, fails."""
    e = pytest_run(tmp_path, "py")
    junit = next(x for x in e["command"] if x.startswith("--junitxml="))[len("--junitxml="):]
    stale = dict(e, name="stale", starttime=os.stat(junit).st_mtime + 60)
    missing = dict(e, name="missing", command=[x.replace("py.xml", "none.xml") for x in e["command"]])
    p = run_count(tmp_path, [stale, missing])
    assert p.returncode == 0, p.stderr
    assert p.stdout == "0 2 0\n"
    assert [x.split(" (")[0] for x in p.stderr.splitlines()] == ["failed: stale", "failed: missing"]


def test_unreadable_junit_is_exit_2(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<testsuites><testsuite")
    p = run_count(tmp_path, [{"name": "x", "result": "OK", "starttime": 0, "command": ["pytest", f"--junitxml={bad}"]}])
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and "bad.xml" in p.stderr
