"""The bench/ scripts start from anywhere: each imports the checkout's uapi_check (not one that
PYTHONPATH or the working directory happens to give) and answers an unknown option with a
message, not a traceback. bench/uapi-check-cpu and bench/step-processes once failed with
ModuleNotFoundError unless run with PYTHONPATH set.
Run: python3 -m pytest -q tests/python/test_bench.py
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")


def _python(name):
    path = os.path.join(BENCH, name)
    if not os.path.isfile(path):
        return False
    with open(path, errors="replace") as f:
        first = f.readline()
    return first.startswith("#!") and "python" in first


SCRIPTS = sorted(filter(_python, os.listdir(BENCH)))


def test_there_are_python_benches():
    assert {"git-commit", "uapi-check-cpu", "step-processes", "scaling", "planted"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_bench_starts_from_another_folder(name, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["ABIDIFF_UAPI_CACHE"] = str(tmp_path / "cache")     # nothing a bench writes lands in the user's
    p = subprocess.run([sys.executable, os.path.join(BENCH, name), "--no-such-option"], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=120)
    assert "No module named" not in p.stderr, p.stderr
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode != 0, (p.stdout[-500:], p.stderr[-500:])
