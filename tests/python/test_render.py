from uapi_check import render
from uapi_check.model import Comparison, Failure, Finding


def finding(t, old_size, new_size, text="x", severity="fail"):
    return Finding(t, "struct", "changed", "linux/x.h", old_size, new_size, severity, "c-cxx-same-layout", text)


def test_group_findings_one_line_per_type_and_comparison():
    fs = [Failure("size 8 -> 12", finding("struct a", 8, 12), "cross"),
          Failure("member b moved", finding("struct a", 8, 12), "cross"),
          Failure("linux/h.h: error", header="linux/h.h", error="error")]
    assert render.group_findings(fs) == ["struct a: size 8 -> 12; member b moved [cross]", "linux/h.h: error"]


def test_size_differences_left_out_headers_add_only_new_types():
    base = Comparison("c-after_cxx-after", "c-after", "cxx-after", True, "cross", "c-after", "cxx-after")
    base.findings = [finding("struct b", 8, 12), finding("struct a", 4, 4)]
    alone = Comparison("c-after_cxx-after+h", "c-after", "cxx-after", True, "cross", "c-after+h", "cxx-after+h",
                       base="c-after_cxx-after", header="h.h")
    alone.findings = [finding("struct b", 8, 12), finding("struct c", 1, 2)]
    series = Comparison("c-before_c-after", "c-before", "c-after", False, "series-c", "c-before", "c-after")
    series.findings = [finding("struct z", 1, 2)]
    got = render.size_differences({c.name: c for c in (base, alone, series)})
    assert got == {"c-after_cxx-after": [{"type": "struct b", "file": "linux/x.h", "c": 8, "cxx": 12}],
                   "c-after_cxx-after+h": [{"type": "struct c", "file": "linux/x.h", "c": 1, "cxx": 2}]}


def test_counts_text():
    assert render.counts_text({"old_types": 3, "new_types": 4, "unchanged": 2, "added": 1, "changed": 1}) == \
        "3 / 4, unchanged 2, changed 1, added 1"
