"""Tests of the macro scans kept between runs (uapi_check/scans.py): a stored scan is reused only
when the headers differ in no directive, and then equals a new scan of them (macros._scan, two
passes of the real preprocessor), line numbers included. Every change that could alter what the
preprocessor defines makes a new scan."""
import json
import os
import shutil

import pytest

from uapi_check import macros, scans

CC, FLAGS = "gcc", ["-std=gnu11"]
HEADERS = ["linux/a.h", "linux/b.h"]
A_H = """\
#ifndef _LINUX_A_H
#define _LINUX_A_H
#include <linux/b.h>
#define A_ONE 1
#ifndef B_FLAG
#define A_TWO 2
#else
#define A_TWO 3
#endif
#define A_LONG (A_ONE + \\
\tB_FLAG)
struct a {
\tint x;
};
enum a_e {
\tA_E1 = (A_ONE + 1),
\tA_E2 = (A_LONG),
};
#define A_LAST 9
#endif
"""
B_H = "#define B_FLAG 4\nstruct b { int y; };\n"


def write(inc, rel, text):
    path = os.path.join(inc, rel)
    if os.path.exists(path):
        os.unlink(path)      # a new inode, as an install writes a changed header
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


@pytest.fixture
def tree(tmp_path):
    inc = str(tmp_path / "inc")
    write(inc, "linux/a.h", A_H)
    write(inc, "linux/b.h", B_H)
    store = scans.Store(str(tmp_path / "cache"), {CC: {"path": CC, "version": "test"}})
    store.save(CC, inc, HEADERS, FLAGS, macros._scan(CC, inc, HEADERS, FLAGS))
    return inc, store


def fields(sc):
    return {f: getattr(sc, f) for f in ("defs", "function_like", "files", "expansions", "enums", "enum_expansions")}


def test_a_struct_change_reuses_the_scan_with_the_new_lines(tree):
    inc, store = tree
    write(inc, "linux/a.h", A_H.replace("\tint x;\n", "\tint x;\n\tint z;\n\tint w;\n"))
    got = store.load(CC, inc, HEADERS, FLAGS)
    assert got is not None
    new = macros._scan(CC, inc, HEADERS, FLAGS)
    assert fields(got) == fields(new)
    # Moved by the two lines: a definition after them, the second of two `#define A_TWO` (the one
    # B_FLAG makes active) before them, and the enumerator candidates.
    assert got.defs["A_LAST"] == ("linux/a.h", 21) and got.defs["A_TWO"] == ("linux/a.h", 8)
    assert got.enums["A_E1"][:2] == ("linux/a.h", 18)


def test_unchanged_headers_in_another_folder_reuse_the_scan(tree, tmp_path):
    inc, store = tree
    other = str(tmp_path / "other")
    shutil.copytree(inc, other)     # other inodes: the files are hashed, and equal
    got = store.load(CC, other, HEADERS, FLAGS)
    assert got is not None and fields(got) == fields(macros._scan(CC, other, HEADERS, FLAGS))


@pytest.mark.parametrize("what, edit", [
    ("a value", lambda t: t.replace("#define A_ONE 1", "#define A_ONE 5")),
    ("a new definition", lambda t: t.replace("#define A_LAST 9", "#define A_LAST 9\n#define A_MORE 10")),
    ("a comment", lambda t: t.replace("struct a {", "/* a */\nstruct a {")),
    ("a line a backslash continues", lambda t: t.replace("\tB_FLAG)", "\tB_FLAG + 1)")),
    ("an enumerator's expression", lambda t: t.replace("A_E1 = (A_ONE + 1)", "A_E1 = (A_ONE + 2)")),
    ("a new enumerator", lambda t: t.replace("\tA_E2 = (A_LONG),\n", "\tA_E2 = (A_LONG),\n\tA_E3 = (A_ONE),\n")),
])
def test_a_change_that_can_move_a_macro_or_a_candidate_scans_again(tree, what, edit):
    inc, store = tree
    write(inc, "linux/a.h", edit(A_H))
    assert store.load(CC, inc, HEADERS, FLAGS) is None, what


def test_a_new_file_in_the_include_dir_scans_again(tree):
    inc, store = tree
    write(inc, "linux/c.h", "#define C 1\n")    # an include could now find it
    assert store.load(CC, inc, HEADERS, FLAGS) is None


def test_full_reads_nothing_and_another_compiler_keeps_nothing(tree, tmp_path):
    inc, store = tree
    assert scans.Store(store.root, store.idents, read=False).load(CC, inc, HEADERS, FLAGS) is None
    assert store.load("clang", inc, HEADERS, FLAGS) is None
    other = scans.Store(str(tmp_path / "c2"), {CC: {"path": CC, "version": "other"}})
    assert other.load(CC, inc, HEADERS, FLAGS) is None


def test_a_damaged_entry_is_not_read_and_a_new_scan_replaces_it(tree):
    inc, store = tree
    [d] = os.listdir(os.path.join(store.root, "scans"))
    folder = os.path.join(store.root, "scans", d)
    for name in os.listdir(folder):
        if name.endswith(".scan.json"):
            with open(os.path.join(folder, name), "w") as f:
                f.write('{"defs": ')
    write(inc, "linux/a.h", A_H.replace("\tint x;\n", "\tint x;\n\tint z;\n"))
    assert store.load(CC, inc, HEADERS, FLAGS) is None
    macros.use_store(store)
    try:
        macros._SCANS.clear()
        sc = macros.scan(CC, inc, HEADERS, FLAGS)      # scans, and keeps it
    finally:
        macros.use_store(None)
    assert fields(store.load(CC, inc, HEADERS, FLAGS)) == fields(sc)


def test_the_store_keeps_the_newest_entries_of_a_unit(tree):
    inc, store = tree
    for i in range(scans._KEEP + 2):
        write(inc, "linux/a.h", A_H.replace("#define A_ONE 1", f"#define A_ONE {i + 10}"))
        store.save(CC, inc, HEADERS, FLAGS, macros._scan(CC, inc, HEADERS, FLAGS))
    [d] = os.listdir(os.path.join(store.root, "scans"))
    entries = sorted(os.listdir(os.path.join(store.root, "scans", d)))
    assert len(entries) == 2 * scans._KEEP
    got = store.load(CC, inc, HEADERS, FLAGS)
    assert got.expansions["A_ONE"] == str(scans._KEEP + 11)


def test_skeleton_keeps_directives_comments_and_continued_lines():
    text = "int a;\n#define X \\\n  1\n/* c\n plain\n*/\n#define Y \\ \n  2\nint b;\n"
    same = text.replace("int a;", "long a;").replace(" plain", " other")
    assert scans.skeleton_digest(text) == scans.skeleton_digest(same)
    for changed in (text.replace("  1", "  3"), text.replace("  2", "  4"), text.replace("*/\n", "*/ int c;\n")):
        assert scans.skeleton_digest(text) != scans.skeleton_digest(changed)


def test_an_entry_names_its_files_by_digest_and_stat(tree):
    inc, store = tree
    [d] = os.listdir(os.path.join(store.root, "scans"))
    folder = os.path.join(store.root, "scans", d)
    [meta] = [n for n in os.listdir(folder) if n.endswith(".files.json")]
    with open(os.path.join(folder, meta)) as f:
        files = json.load(f)["files"]
    assert sorted(files) == ["linux/a.h", "linux/b.h"]
    assert all(len(rec) == 6 for rec in files.values())


def test_a_unit_of_one_header_is_not_kept(tree):
    inc, store = tree
    store.save(CC, inc, ["linux/b.h"], FLAGS, macros._scan(CC, inc, ["linux/b.h"], FLAGS))
    assert len(os.listdir(os.path.join(store.root, "scans"))) == 1    # the fixture's unit alone


def test_only_the_include_dirs_to_keep_are_kept(tree, tmp_path):
    inc, store = tree
    other = str(tmp_path / "other")
    shutil.copytree(inc, other)
    write(other, "linux/a.h", A_H.replace("#define A_ONE 1", "#define A_ONE 2"))
    picky = scans.Store(store.root, store.idents, keep=[inc])
    picky.save(CC, other, HEADERS, FLAGS, macros._scan(CC, other, HEADERS, FLAGS))
    [d] = os.listdir(os.path.join(store.root, "scans"))
    assert len(os.listdir(os.path.join(store.root, "scans", d))) == 2    # the fixture's entry alone


def test_a_new_entry_computes_skeletons_only_for_files_no_entry_has(tree, monkeypatch):
    inc, store = tree
    write(inc, "linux/a.h", A_H.replace("#define A_ONE 1", "#define A_ONE 2"))
    seen = []
    real = scans.skeleton_digest
    monkeypatch.setattr(scans, "skeleton_digest", lambda text: seen.append(text) or real(text))
    store.save(CC, inc, HEADERS, FLAGS, macros._scan(CC, inc, HEADERS, FLAGS))
    assert len(seen) == 1 and "A_ONE 2" in seen[0]      # b.h's came from the fixture's entry
    write(inc, "linux/a.h", A_H.replace("#define A_ONE 1", "#define A_ONE 2").replace("\tint x;\n", "\tint x;\n\tint y;\n"))
    got = store.load(CC, inc, HEADERS, FLAGS)
    assert got is not None and fields(got) == fields(macros._scan(CC, inc, HEADERS, FLAGS))


@pytest.mark.parametrize("field, value", [("dup", [1]), ("defs", []), ("enums", {"A_E1": 3})])
def test_an_entry_of_another_shape_is_not_read(tree, field, value):
    inc, store = tree
    [d] = os.listdir(os.path.join(store.root, "scans"))
    folder = os.path.join(store.root, "scans", d)
    for name in os.listdir(folder):
        if name.endswith(".scan.json"):
            with open(os.path.join(folder, name)) as f:
                entry = json.load(f)
            entry[field] = value
            with open(os.path.join(folder, name), "w") as f:
                json.dump(entry, f)
    write(inc, "linux/a.h", A_H.replace("\tint x;\n", "\tint x;\n\tint z;\n"))
    assert store.load(CC, inc, HEADERS, FLAGS) is None
