"""pytest setup for the driver's unit tests: import the uapi_check package from the source tree,
and small fixtures (tiny include directories, hand-written tool JSON), never a kernel tree."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "abidiff-uapi"))
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
