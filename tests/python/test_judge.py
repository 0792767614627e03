"""The judge on hand-written tool findings (the shapes abidiff-uapi's diff --format=json gives)."""
import pytest

from uapi_check import judge
from uapi_check.model import Comparison, Headers, RevHeaders


def member(name, offset, size, type_, bit_size=None):
    m = {"name": name, "offset": offset, "bit_offset": offset * 8, "size": size, "type": type_}
    if bit_size is not None:
        m["bit_size"] = bit_size
    return m


def entry(status, changes, name="struct x", old_size=8, new_size=8):
    return {"name": name, "kind": "struct", "status": status, "file": "linux/x.h",
            "old_size": old_size, "new_size": new_size, "changes": changes}


CASES = [
    ("an alias added in C is fine", "series-c",
     entry("aliased", [{"change": "alias_added", "new": member("_class", 0, 1, "__u8"), "alias_of": "class"}]),
     [("ok", "aliases-share-layout")]),
    ("a member added in C that is not an alias fails", "series-c",
     entry("extended", [{"change": "member_added", "new": member("_class", 0, 2, "__u16")}]),
     [("fail", "aliases-share-layout")]),
    ("a renamed C member fails: the old name must remain", "series-c",
     entry("renamed", [{"change": "renamed", "old": member("class", 0, 1, "__u8"),
                        "new": member("_class", 0, 1, "__u8")}]),
     [("fail", "c-names-kept")]),
    ("a removed C type fails", "series-c", entry("removed", []), [("fail", "c-names-kept")]),
    ("an added C type is fine", "series-c", entry("added", []), [("ok", "added")]),
    ("a C size change fails", "series-c",
     entry("changed", [{"change": "size", "old": 8, "new": 12}], old_size=8, new_size=12),
     [("fail", "c-layout-unchanged")]),
    ("a keyword member renamed across C and C++ is fine", "cross-series",
     entry("renamed", [{"change": "renamed", "old": member("class", 0, 1, "__u8"),
                        "new": member("_class", 0, 1, "__u8")}]),
     [("ok", "aliases-share-layout")]),
    ("a keyword rename that moves the member fails", "cross",
     entry("renamed", [{"change": "renamed", "old": member("class", 0, 1, "__u8"),
                        "new": member("_class", 4, 1, "__u8")}]),
     [("fail", "c-cxx-same-layout")]),
    ("a C/C++ size difference fails", "cross",
     entry("changed", [{"change": "size", "old": 8, "new": 12},
                       {"change": "member", "member": "entries", "what": ["offset"],
                        "old": member("entries", 8, 0, "struct e[]"),
                        "new": member("entries", 12, 0, "struct e[]")}], old_size=8, new_size=12),
     [("fail", "c-cxx-same-layout"), ("fail", "c-cxx-same-layout")]),
    ("an alias only C has is fine across C and C++", "cross",
     entry("aliased", [{"change": "alias_removed", "old": member("class", 0, 1, "__u8"), "alias_of": "_class"}]),
     [("ok", "c-cxx-same-layout")]),
    ("a C++ member removed by the series fails", "series-cxx",
     entry("changed", [{"change": "member_removed", "old": member("virt", 8, 8, "void *")}]),
     [("fail", "cxx-names-kept")]),
    ("a C++ size change by the series is a note (checked against C elsewhere)", "series-cxx",
     entry("changed", [{"change": "size", "old": 12, "new": 8}], old_size=12, new_size=8),
     [("note", "cxx-layout")]),
]


@pytest.mark.parametrize("what, role, e, want", CASES, ids=[c[0] for c in CASES])
def test_judge_type(what, role, e, want):
    assert [(f.severity, f.check) for f in judge.judge_type(role, e)] == want


def test_checks_dedupe_left_out_repeats_and_list_failing_headers():
    failed = {"c": {}, "cxx": {"linux/a.h": "linux/a.h:1: error: x"}}
    rev = RevHeaders(["linux/a.h"], {}, [], failed, {"c": [], "cxx": []}, {"c": [], "cxx": []})
    headers = Headers({"before": rev, "after": rev}, False)
    t = entry("removed", [])
    base = Comparison("c-before_c-after", "c-before", "c-after", False, "series-c", "c-before", "c-after")
    alone = Comparison("c-before_c-after+linux-a", "c-before", "c-after", False, "series-c",
                       "c-before+linux-a", "c-after+linux-a", base="c-before_c-after", header="linux/a.h")
    base.findings = judge.judge_comparison("series-c", [t])
    alone.findings = judge.judge_comparison("series-c", [t])
    checks = {c.check: c for c in judge.evaluate_checks("series", headers, {base.name: base, alone.name: alone})}
    assert [f.comparison for f in checks["c-names-kept"].failures] == ["c-before_c-after"]
    assert [f.to_json() for f in checks["cxx-headers-compile"].failures] == [
        {"header": "linux/a.h", "error": "linux/a.h:1: error: x", "text": "linux/a.h: linux/a.h:1: error: x"}]
    assert checks["c-layout-unchanged"].passed and not checks["c-names-kept"].passed
