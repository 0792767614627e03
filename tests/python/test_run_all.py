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
