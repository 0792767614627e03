import os

import pytest

from uapi_check import trees
from uapi_check.model import Revision
from uapi_check.util import Fatal


def test_series_patches_in_order_without_comments(tree):
    d = tree({"series": "# a comment\n0002-b.patch\n\n0001-a.patch\n", "0001-a.patch": "", "0002-b.patch": ""})
    assert trees.series_patches(d) == ["0002-b.patch", "0001-a.patch"]


def test_series_patches_errors(tree):
    d = tree({"series": "0001-gone.patch\n"})
    with pytest.raises(Fatal, match="0001-gone.patch: listed in series but missing"):
        trees.series_patches(d)
    with pytest.raises(Fatal, match="no series file"):
        trees.series_patches(tree({"x": ""}, name="noseries"))


def test_series_digest_follows_names_and_bytes(tree):
    d = tree({"a.patch": "1", "b.patch": "2"})
    one = trees.series_digest(d, ["a.patch", "b.patch"])
    assert one == trees.series_digest(d, ["a.patch", "b.patch"])
    assert one != trees.series_digest(d, ["b.patch", "a.patch"])
    assert len(one) == 16


def test_touched_files(tree):
    d = tree({"p.patch": "--- a/include/uapi/linux/x.h\n+++ b/include/uapi/linux/x.h\n"
                         "--- a/new.h\n+++ b/other.h\n-- not this\n"})
    assert trees.touched_files(d, ["p.patch"]) == {"include/uapi/linux/x.h", "new.h", "other.h"}


def test_list_headers_only_h_sorted(tree):
    d = tree({"linux/b.h": "", "linux/a.h": "", "asm/x.h": "", "linux/README": ""})
    assert trees.list_headers(d) == ["asm/x.h", "linux/a.h", "linux/b.h"]


def test_resolve_tree_errors(tree):
    with pytest.raises(Fatal, match="not a kernel source tree"):
        trees.resolve_tree(tree({"x": ""}))
    with pytest.raises(Fatal, match="neither a directory nor a linux-source version"):
        trees.resolve_tree("/nonexistent/tree")
    ok = tree({"usr/include/Makefile": ""}, name="kernel")
    assert trees.resolve_tree(ok) == ok


def test_pristine_tree_is_partial_unless_the_series_edits_other_files(monkeypatch):
    asked = []
    monkeypatch.setattr(trees, "resolve_tree", lambda spec, headers_only=True: asked.append((spec, headers_only)))
    trees.pristine_tree("6.1", {"include/uapi/linux/x.h", "usr/include/Makefile", "arch/x86/include/uapi/asm/y.h"})
    trees.pristine_tree("6.1", {"include/uapi/linux/x.h", "Documentation/userspace-api/x.rst"})
    trees.pristine_tree("6.12", set())
    assert asked == [("6.1", True), ("6.1", False), ("6.12", True)]


def test_tree_key_only_for_extracted_trees(tmp_path, monkeypatch):
    monkeypatch.setenv("ABIDIFF_UAPI_TREES", str(tmp_path))
    (tmp_path / "linux-source-6.1-x").mkdir()
    assert trees.tree_key(str(tmp_path / "linux-source-6.1-x")) == "linux-source-6.1-x"
    assert trees.tree_key("/somewhere/else") is None


def test_revision_file_prefers_patched_copy(tree):
    patched = tree({"usr/include/Makefile": "patched"}, name="patched")
    pristine = tree({"usr/include/Makefile": "pristine", "usr/dummy-include/x": ""}, name="pristine")
    r = Revision("after", patched, None, [patched, pristine])
    assert open(r.file("usr/include/Makefile")).read() == "patched"
    assert r.file("usr/dummy-include") == os.path.join(pristine, "usr/dummy-include")
    assert r.file("nowhere") == os.path.join(pristine, "nowhere")
