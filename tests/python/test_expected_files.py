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
