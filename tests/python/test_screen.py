"""report.txt's opening screen, from hand-written tool outputs (fixtures/drift*.json)."""
from types import SimpleNamespace

from conftest import judged
from uapi_check import screen, trees
from uapi_check.model import HeaderChange, Revision, Trees


def drift_report(header_changes=(), waivers=()):
    c = judged("c-before_c-after", "drift", "drift.json")
    cxx = judged("cxx-before_cxx-after", "drift", "drift-cxx.json")
    return SimpleNamespace(comparisons={c.name: c, cxx.name: cxx}, header_changes=list(header_changes),
                           waivers=list(waivers))


def section(lines, title):
    start = next(i for i, l in enumerate(lines) if l.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] == ""), len(lines))
    return lines[start:end]


def test_breaks_by_header_removed_header_as_one_line_and_cxx_folded():
    lines = screen.detail_lines(drift_report([HeaderChange("linux/gone.h")]))
    breaks = section(lines, "Breaks:")
    assert breaks[0] == "Breaks: 5 types in 3 headers"
    assert breaks[1] == "  linux/gone.h removed: 2 types"
    assert not any("struct gone" in l for l in breaks)
    heads = [l for l in breaks if l.startswith("  ") and not l.startswith("   ")]
    assert heads == ["  linux/gone.h removed: 2 types", "  linux/cxx.h", "  linux/kvm.h"]
    kvm_run = next(l for l in breaks if l.startswith("    struct kvm_run:"))
    assert kvm_run.endswith("[c-before_c-after, also in C++]")
    assert "member u.p.x: offset 8 -> 12" in kvm_run
    assert next(l for l in breaks if l.startswith("    struct cxx_only:")).endswith("[cxx-before_cxx-after]")
    assert next(l for l in breaks if l.startswith("    enum {KVM_STAT_A}:")).endswith("also in C++]")


def test_side_by_side_layouts_mark_the_rows_that_differ():
    lines = screen.detail_lines(drift_report())
    i = next(i for i, l in enumerate(lines) if l.startswith("    struct kvm_run:"))
    assert lines[i + 1].split() == ["OLD", "NEW"]
    differing = [l for l in lines[i + 2:i + 8] if l.startswith("      |")]
    assert len(differing) == 1
    assert "/* 8 4 */" in differing[0] and differing[0].endswith("/* 12 4 */")


def test_review_then_safe_counts():
    lines = screen.detail_lines(drift_report())
    assert section(lines, "Review:") == [
        "Review: 2 types",
        "  struct clone_args: size: 64 -> 88 bytes [tail-growth] [c-before_c-after, also in C++]",
        "  struct ovl: member _or added, overlapping or with another size or type, so no alias (__u16, offset 0, size 2) "
        "[overlap] [c-before_c-after]"]
    assert section(lines, "Safe:") == ["Safe: 2 types: enumerator-added 1, reserved-reuse 1, sentinel 1"]


def test_counts():
    assert screen.counts(drift_report()) == {"breaks": 5, "headers": 3, "review": 2, "accepted": 0, "compile": 0}


def test_side_by_side_is_bounded():
    old = ["struct big {"] + [f"\tint a{i}; /* {4 * i} 4 */" for i in range(40)] + ["};"]
    new = ["struct big {"] + [f"\tint a{i}; /* {4 * i + 4} 4 */" for i in range(40)] + ["};"]
    out = screen.side_by_side(old, new)
    assert len(out) == 1 + screen.LAYOUT_ROWS + 1
    assert out[-1].strip() == "... 29 more rows differ (report.json has both layouts)"


def test_header_changes(tree):
    before = tree({"linux/a.h": "", "linux/old.h": "", "asm/gone.h": "", "asm/arm_only.h": "", "linux/x.h": ""}, "b")
    after = tree({"linux/a.h": "", "asm-generic/old.h": ""}, "a")
    new_tree = tree({"arch/arm64/include/uapi/asm/arm_only.h": ""}, "t")
    t = Trees({"before": Revision("before", "/b", None, ["/b"], before),
               "after": Revision("after", new_tree, None, [new_tree], after)}, None, {})
    assert [(h.header, h.moved_to) for h in trees.header_changes(t)] == [
        ("asm/arm_only.h", "arch/arm64/include/uapi/asm/arm_only.h"), ("asm/gone.h", None),
        ("linux/old.h", "asm-generic/old.h"), ("linux/x.h", None)]


def test_a_removed_header_whose_types_live_on():
    lines = screen.detail_lines(drift_report([HeaderChange("misc/old.h", None),
                                                HeaderChange("asm/x.h", "arch/arm64/include/uapi/asm/x.h")]))
    breaks = section(lines, "Breaks:")
    assert breaks[1:3] == ["  misc/old.h removed, no type removed with it",
                           "  asm/x.h moved to arch/arm64/include/uapi/asm/x.h (its types are compared under the new name)"]


def test_waivers_that_matched_nothing_are_named():
    from uapi_check.waivers import Waiver
    lines = screen.detail_lines(drift_report(waivers=[Waiver("struct nothing", None, "r", "w:3")]))
    assert "  waivers that matched nothing: w:3" in lines


def test_constants_count_apart_and_fold_per_header():
    """Constants: counted apart from types; those removed from a header that stays are one line;
    a changed one is one line with its values and no layout box; a syscall number says so."""
    c = judged("c-before_c-after", "drift", "drift.json")
    c.types = c.types + [
        {"name": "#define FOO_A", "kind": "constant", "status": "removed", "severity": "break",
         "reasons": ["constant-removed"], "file": "linux/kvm.h", "line": 3, "changes": [],
         "constant": {"value": 1, "unsigned": False}},
        {"name": "#define FOO_B", "kind": "constant", "status": "removed", "severity": "break",
         "reasons": ["constant-removed"], "file": "linux/kvm.h", "line": 4, "changes": [],
         "constant": {"value": 2, "unsigned": False}},
        {"name": "#define __NR_x", "kind": "constant", "status": "changed", "severity": "break",
         "reasons": ["constant-value"], "file": "asm/unistd_64.h", "line": 9, "syscall": True,
         "old_layout": ["#define __NR_x 1"], "new_layout": ["#define __NR_x 3"],
         "changes": [{"change": "constant_value", "breaking": True, "severity": "break",
                      "reasons": ["constant-value"], "old": {"value": 1, "unsigned": False},
                      "new": {"value": 3, "unsigned": False}, "text": "value 1 -> 3"}]}]
    from uapi_check.judge import judge_comparison
    c.findings = judge_comparison(c.role, c.types, c.fail_on)
    lines = screen.detail_lines(SimpleNamespace(comparisons={c.name: c}, header_changes=[], waivers=[]))
    breaks = section(lines, "Breaks:")
    assert breaks[0].startswith("Breaks: ") and " and 3 constants in " in breaks[0]
    assert "    2 constants removed: FOO_A, FOO_B" in breaks
    syscall = [l for l in breaks if "__NR_x" in l]
    assert syscall == ["    #define __NR_x (syscall number): value 1 -> 3 [constant-value] [c-before_c-after]"]


# The first screen (opening_screen): it fits, whatever the run.

def changed_type(name, file="linux/many.h"):
    return {"name": name, "kind": "struct", "status": "changed", "severity": "break", "reasons": ["moved"],
            "file": file, "old_size": 16, "new_size": 16, "old_layout": [], "new_layout": [],
            "changes": [{"change": "member", "breaking": True, "severity": "break", "reasons": ["moved"],
                         "member": "a_member_with_a_rather_long_name_" * 3, "what": ["offset"],
                         "old": {"name": "x", "offset": 0, "size": 4, "type": "int"},
                         "new": {"name": "x", "offset": 4, "size": 4, "type": "int"}}]}


def filler_type(name):
    """A C++ type as 6.1 -> 6.12 left it: __DECLARE_FLEX_ARRAY's 1-byte filler gone before flex
    (the tool gives its removal the reason flex-filler too)."""
    return {"name": name, "kind": "struct", "status": "changed", "severity": "break",
            "reasons": ["moved", "member-removed", "flex-filler"], "file": "linux/flex.h", "old_size": 8, "new_size": 4,
            "changes": [{"change": "member", "severity": "break", "reasons": ["moved"], "member": "flex",
                         "what": ["offset"], "old": {"name": "flex", "offset": 8, "size": 0, "flexible": True},
                         "new": {"name": "flex", "offset": 4, "size": 0, "flexible": True}},
                        {"change": "member_removed", "severity": "break", "reasons": ["member-removed", "flex-filler"],
                         "old": {"name": "__empty_flex", "offset": 4, "size": 1, "key": "struct {}"}}]}


def big_report(n_changed=80, header_changes=()):
    from uapi_check.judge import judge_comparison
    c = judged("c-before_c-after", "drift", "drift.json")
    cxx = judged("cxx-before_cxx-after", "drift", "drift-cxx.json")
    c.types = c.types + [changed_type(f"struct t{i:03}", f"linux/h{i % 7}.h") for i in range(n_changed)]
    cxx.types = cxx.types + [filler_type(f"struct flex{i}") for i in range(30)]
    for x in (c, cxx):
        x.findings = judge_comparison(x.role, x.types, x.fail_on)
    return SimpleNamespace(comparisons={c.name: c, cxx.name: cxx}, header_changes=list(header_changes), waivers=[])


def test_the_first_screen_fits_60_lines_of_120_characters():
    lines = screen.opening_screen(big_report())
    assert len(lines) + 2 <= screen.SCREEN_LINES            # + the report's title and a blank line
    assert max(len(l) for l in lines) <= screen.WIDTH
    assert lines[0] == "Breaks: 115 types in 11 headers"
    more = [l for l in lines if l.startswith("  ... and ")]
    assert more and more[0].endswith(f'more changed, in "{screen.DETAILS}"')
    assert lines == screen.opening_screen(big_report())     # the same bytes for the same run


def test_each_changed_break_on_one_line_grouped_by_header():
    lines = screen.opening_screen(big_report(n_changed=2))
    assert "  linux/h0.h: struct t000: `" in "\n".join(lines)
    t0 = next(l for l in lines if "struct t000" in l)
    assert t0.endswith("... [C]") and len(t0) == screen.WIDTH      # cut, and where it was found kept
    kvm = lines.index("  linux/kvm.h")
    assert lines[kvm + 1:kvm + 3] == ["    enum {KVM_STAT_A}: KVM_STAT_B 5 -> 37 [C, C++]",
                                      "    struct kvm_run: `u.p.x` moved 8 -> 12 [C, C++]"]


def test_cxx_filler_on_one_line_and_pointers_at_the_end():
    lines = screen.opening_screen(big_report(n_changed=0))
    filler = [l for l in lines if l.startswith("C++ only, __DECLARE_FLEX_ARRAY")]
    assert len(filler) == 1 and "30 types" in filler[0]
    assert not any("struct flex1" in l for l in lines if not l.startswith(("C++ only", "    struct flex")))
    assert lines[-4].startswith(f'Read on: "{screen.DETAILS}"')


def test_moved_and_accepted_headers_read_as_a_person_would():
    from uapi_check.judge import BASELINED
    r = drift_report([HeaderChange("linux/gone.h"), HeaderChange("misc/old.h", "drm/new.h")])
    for f in r.comparisons["c-before_c-after"].findings:
        if f.type in ("struct gone", "struct gone_too"):
            f.severity, f.waiver = BASELINED, "in the baseline"
    lines = screen.opening_screen(r)
    assert "  linux/gone.h removed: 2 types accepted (waived or in the baseline)" in lines
    assert "  misc/old.h moved to drm/new.h (its types are compared under the new name)" in lines


def test_a_member_holding_a_changed_type_is_marked():
    old = ["union u {", "\tstruct s in; /* 0 40 */", "\tstruct o out; /* 0 16 */", "};"]
    out = screen.side_by_side(old, old, holders={"in"})
    assert any(l.lstrip().startswith("* ") and " in; " in l for l in out)
    assert not any(" out; " in l for l in out)


def test_a_header_moved_under_another_name(tree):
    names = "#define A 1\n#define B 2\nstruct hl_x { int a; };\n"
    before = tree({"misc/old.h": names, "linux/gone.h": "#define G 1\n"}, "b")
    after = tree({"drm/new_accel.h": names + "#define C 3\n", "linux/other.h": "#define G 1\n#define H 2\n"}, "a")
    t = Trees({"before": Revision("before", "/b", None, ["/b"], before),
               "after": Revision("after", "/a", None, ["/a"], after)}, None, {})
    assert [(h.header, h.moved_to) for h in trees.header_changes(t)] == [
        ("linux/gone.h", "linux/other.h"), ("misc/old.h", "drm/new_accel.h")]
