"""tests/expected_files.py: an expected file written after the run's start is found; one written
before is not (the fixtures tests fail on the former)."""
import os
import sys
import time

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
import expected_files  # noqa: E402


def test_written_during_the_run_is_found(tmp_path):
    before = tmp_path / "before.txt"
    before.write_text("old\n")
    time.sleep(0.05)    # past the filesystem clock's tick
    t0 = expected_files.start()
    during = tmp_path / "during.txt"
    during.write_text("new\n")
    assert expected_files.written(t0, [str(before), str(during), str(tmp_path / "gone.txt")]) == [str(during)]
    lines = []
    assert expected_files.verdict(t0, [str(before), str(during)], str(tmp_path), lines.append) == 1
    assert lines[0].startswith("FAIL during.txt: written during this run")


def test_a_checkout_predates_the_run():
    """The repository's own expected files were written before any run starts."""
    t0 = expected_files.start()
    path = os.path.join(ROOT, "fixtures", "cases", "sentinel", "expected.json")
    assert expected_files.written(t0, [path]) == []


def test_update_is_refused_under_ci(monkeypatch):
    """The four tests that keep expected files exit 2 with one line for --update under CI, before
    they build, run or write anything."""
    import subprocess
    scripts = ["tests/fixtures.py", "tests/compat-fixtures.py", "tests/ioctls-uapi.py",
               "tests/drift/check-screen.py"]
    env = dict(os.environ, CI="1", PYTHONPATH=ROOT)
    for script in scripts:
        p = subprocess.run([sys.executable, os.path.join(ROOT, script), "--update", "/nonexistent"],
                           env=env, capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert p.returncode == 2, (script, p.stderr)
        assert p.stderr.splitlines() == [f"{os.path.join(ROOT, script)}: --update refuses to run under CI (CI is set)"], p.stderr
    monkeypatch.delenv("CI", raising=False)
    assert not expected_files.update_refused(True)
    monkeypatch.setenv("CI", "true")
    assert expected_files.update_refused(True) and not expected_files.update_refused(False)
