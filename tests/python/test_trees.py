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


def _files(d):
    out = {}
    for dirpath, _, files in os.walk(d):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p) as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out


def test_copy_headers_links_reuses_and_swaps(tmp_path):
    """copy_headers writes only what differs, and a per-commit run's before side takes the last
    run's after directory; either way each directory holds exactly its install's files."""
    def install(name, files):
        root = tmp_path / name
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        return str(root)

    one = install("i1", {"linux/a.h": "a1", "linux/b.h": "b", "asm/c.h": "c", "README": "r"})
    two = install("i2", {"linux/a.h": "a2", "linux/b.h": "b", "scsi/d.h": "d"})
    three = install("i3", {"linux/a.h": "a3", "linux/b.h": "b", "scsi/d.h": "d"})
    out = str(tmp_path / "out")
    before = trees.copy_headers(one, out, "before")
    after = trees.copy_headers(two, out, "after")
    assert _files(before) == _files(one) and _files(after) == _files(two)
    assert trees.list_headers(after) == ["linux/a.h", "linux/b.h", "scsi/d.h"]
    # Hard links to the install where the file system allows it.
    assert os.path.samefile(os.path.join(after, "linux/b.h"), os.path.join(two, "linux/b.h"))
    ino = os.stat(os.path.join(after, "scsi/d.h")).st_ino
    # The next commit: before is the last after (the directory moves), after is new.
    before = trees.copy_headers(two, out, "before")
    after = trees.copy_headers(three, out, "after")
    assert os.stat(os.path.join(before, "scsi/d.h")).st_ino == ino
    assert _files(before) == _files(two) and _files(after) == _files(three)
    assert trees.list_headers(before) == ["linux/a.h", "linux/b.h", "scsi/d.h"]
    # A file changed in place under a copy (not a link) is found by its bytes.
    os.unlink(os.path.join(after, "linux/b.h"))
    with open(os.path.join(after, "linux/b.h"), "w") as f:
        f.write("x")
    after = trees.copy_headers(three, out, "after")
    assert _files(after) == _files(three)
    assert sorted(os.listdir(os.path.join(out, "include"))) == [".after.source", ".before.source",
                                                                "after", "before"]


def test_copy_headers_one_install_for_both_sides(tmp_path):
    """An empty series installs one set of headers for both sides: after must not take the
    directory that before was just synced into (the pristine-6.1 pipeline test caught it)."""
    root = tmp_path / "i1"
    (root / "linux").mkdir(parents=True)
    (root / "linux" / "a.h").write_text("a")
    out = str(tmp_path / "out")
    for _ in range(2):      # a first run, then the same check again over its outputs
        before = trees.copy_headers(str(root), out, "before")
        after = trees.copy_headers(str(root), out, "after", keep=("before",))
        assert _files(before) == _files(after) == {"linux/a.h": "a"}
    # Without keep, the second name trades for the first one: what the fix prevents.
    trees.copy_headers(str(root), str(tmp_path / "o2"), "before")
    trees.copy_headers(str(root), str(tmp_path / "o2"), "after")
    assert not os.path.isdir(tmp_path / "o2" / "include" / "before")
