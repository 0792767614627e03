"""pytest setup for the driver's unit tests (pyproject.toml puts the checkout's top, and so the
uapi_check package, on the path): small fixtures (tiny include directories, hand-written tool JSON), never a kernel tree."""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Scripts the tests start (qemu/report.py...) import the package too.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def write_tree(base, files):
    """Write {relative path: text} under base; return base."""
    for rel, text in files.items():
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return str(base)


@pytest.fixture
def tree(tmp_path):
    def make(files, name="inc"):
        return write_tree(tmp_path / name, files)
    return make


def tool_json(name):
    """A hand-written abidiff-uapi diff output from fixtures/."""
    import json
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def judged(name, role, fixture, fail_on="break", old=None, new=None, base=None, header=None):
    """A Comparison as matrix.step_compare leaves it, from a fixture instead of a tool run."""
    from uapi_check.judge import judge_comparison
    from uapi_check.model import Comparison
    default_old, default_new = name.split("+")[0].split("_")
    old, new = old or default_old, new or default_new
    c = Comparison(name, old, new, role != "series-c", role, old, new, base=base, header=header,
                   strict=role != "drift", fail_on=fail_on)
    doc = tool_json(fixture)
    c.verdict, c.counts, c.types = doc["verdict"], doc["counts"], doc["types"]
    c.findings = judge_comparison(role, c.types, fail_on)
    return c


@pytest.fixture(scope="session")
def tool():
    """The real abidiff-uapi (ABIDIFF_UAPI_TOOL, or the meson build): tests that need it fail
    without it, they do not skip."""
    path = os.environ.get("ABIDIFF_UAPI_TOOL") or os.path.join(ROOT, "build", "abidiff-uapi", "abidiff-uapi")
    assert os.access(path, os.X_OK), f"{path}: not built (meson compile -C build)"
    return path


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Every test gets an empty cache of its own: nothing a test stores (a faked package check,
    a unit built from a fixture) reaches a real run's cache or another test."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
