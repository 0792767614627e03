"""Tests of uapi_check/ioctl_groups.py: ioctl numbers compiled by header, cached by the bytes of
what each group's compile read, and of the literal units they end in (ioctls.py).

The reference is the all-headers unit of ioctls.py (check_ioctls, compile_ioctl_unit), whose
numbers tests/python/test_ioctls.py checks against a compiled program; here the groups must give
the same numbers and the same reasons, and a compiled program the same numbers again.
Run: python3 -m pytest -q tests/python/test_ioctl_groups.py
"""

import os
import types

import pytest

from uapi_check import ioctl_groups, ioctls, requests
from uapi_check.ioctls import Ioctl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.environ.get("ABIDIFF_UAPI_TOOL", os.path.join(ROOT, "build", "abidiff-uapi", "abidiff-uapi"))
FIXTURE = os.path.join(ROOT, "fixtures", "ioctl")
HEADERS = ["linux/mydrv.h", "linux/mydrv_ext.h"]
COMPILERS = {"c": ("gcc", ["-std=gnu11"]), "cxx": ("g++", ["-std=gnu++17"])}


def compiler(lang):
    return types.SimpleNamespace(path=COMPILERS[lang][0], version=f"test {COMPILERS[lang][0]}")


def tool():
    assert os.access(TOOL, os.X_OK), f"{TOOL}: not built (meson compile -C build)"
    return TOOL


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """A cache of the test's own, and no memory of groups compiled by an earlier test."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(ioctl_groups, "_MADE", set())
    return tmp_path / "cache"


@pytest.fixture
def compiles(monkeypatch):
    """The header lists of every group compile (ioctls.compile_numbers) of the test."""
    seen = []
    real = ioctls.compile_numbers

    def counted(cc, flags, group, include, headers, *a, **k):
        seen.append(list(headers))
        return real(cc, flags, group, include, headers, *a, **k)
    monkeypatch.setattr(ioctls, "compile_numbers", counted)
    return seen


def by_unit(lang, inc, headers, tmp_path):
    """The reference: the all-headers unit's kept, skipped and numbers."""
    cc, flags = COMPILERS[lang]
    found = ioctls.find_ioctls(cc, inc, headers, flags)
    kept, skipped = ioctls.check_ioctls(cc, inc, headers, flags, found)
    obj = str(tmp_path / f"unit-{lang}.o")
    ioctls.compile_ioctl_unit(cc, inc, headers, flags, kept, obj)
    return found, kept, skipped, obj


def number(lang, inc, headers, tmp_path, name="by-header"):
    """requests._number: the groups, what they leave compiled with every header, the literal
    unit. Returns (kept, skipped, object)."""
    cc, flags = COMPILERS[lang]
    found = ioctls.find_ioctls(cc, inc, headers, flags)
    unit = types.SimpleNamespace(lang=lang, included=list(headers))
    obj = str(tmp_path / f"{name}-{lang}.o")
    kept, skipped = requests._number(compiler(lang), unit, inc, flags, found, obj, frozenset(), tool, False)
    return kept, skipped, obj


@pytest.mark.parametrize("version", ["old", "new"])
@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_groups_give_the_units_numbers_and_reasons(tmp_path, version, lang):
    inc = os.path.join(FIXTURE, version)
    found, kept, skipped, obj = by_unit(lang, inc, HEADERS, tmp_path)
    numbers, final, left = ioctl_groups.number_by_header(compiler(lang), lang, inc, found, HEADERS, tool)
    assert left == []        # every failure names what no other header declares
    assert final == skipped and len(final) >= 3
    assert numbers == ioctls.read_ioctl_numbers(TOOL, obj) and len(numbers) >= 15
    # The same through requests._number, whose literal unit the tool reads back, and as a
    # compiled program prints them.
    kept2, skipped2, obj2 = number(lang, inc, HEADERS, tmp_path)
    assert kept2 == kept and list(skipped2) == [x.name for x in found if x.name in skipped]
    assert ioctls.read_ioctl_numbers(TOOL, obj2) == numbers
    cc, flags = COMPILERS[lang]
    assert ioctls.print_ioctl_numbers(cc, inc, HEADERS, flags, kept) == numbers


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_literal_units_diff_as_the_named_units(tmp_path, lang):
    """The tool's strict diff of two literal units reports what it reports for the all-headers
    units with the names; a literal unit against the named unit of the same side: nothing."""
    (tmp_path / "o").mkdir()
    (tmp_path / "n").mkdir()
    old = by_unit(lang, os.path.join(FIXTURE, "old"), HEADERS, tmp_path / "o")[3]
    new = by_unit(lang, os.path.join(FIXTURE, "new"), HEADERS, tmp_path / "n")[3]
    lit_old = number(lang, os.path.join(FIXTURE, "old"), HEADERS, tmp_path, "old")[2]
    lit_new = number(lang, os.path.join(FIXTURE, "new"), HEADERS, tmp_path, "new")[2]
    changes = ioctls.ioctl_number_changes(TOOL, old, new)
    assert changes and ioctls.ioctl_number_changes(TOOL, lit_old, lit_new) == changes
    assert ioctls.ioctl_number_changes(TOOL, old, lit_old) == {}
    assert ioctls.ioctl_number_changes(TOOL, lit_new, new) == {}


def test_literal_unit_source():
    src = ioctls.literal_unit_source({"A": 5, "B": 0xc0104d02, "C": 1 << 40, "D": -1})
    assert src.splitlines()[1:] == [
        "enum abidiff_uapi_ioctl {", "\tAU_IOCTL__A = 5,", "\tAU_IOCTL__B = 3222293762u,",
        "\tAU_IOCTL__C = 1099511627776ull,", "\tAU_IOCTL__D = (-1),", "};",
        "enum abidiff_uapi_ioctl abidiff_uapi_ioctl_anchor;"]
    assert ioctls.literal_unit_source({}) == ""


def tree(tmp_path, files):
    inc = tmp_path / "inc"
    for name, text in files.items():
        (inc / os.path.dirname(name)).mkdir(parents=True, exist_ok=True)
        (inc / name).write_text(text)
    return str(inc)


A_H = "#include <linux/ioctl.h>\n#define A_GET _IOR('A', 1, struct b_info)\n#define A_SET _IOW('A', 2, int)\n"


def test_a_group_is_reused_while_what_it_read_keeps_its_bytes(tmp_path, compiles):
    inc = tree(tmp_path, {"a.h": A_H, "b.h": "struct b_info { int x[3]; };\n", "c.h": "struct c { int y; };\n"})
    headers = ["a.h", "b.h", "c.h"]
    first = number("c", inc, headers, tmp_path)
    assert compiles == [["a.h"], ["a.h", "b.h"]]    # A_GET needs b.h, which spells b_info
    assert ioctls.read_ioctl_numbers(TOOL, first[2]) == {"A_GET": 0x800c4101, "A_SET": 0x40044102}
    compiles.clear()
    assert number("c", inc, headers, tmp_path) == first and compiles == []
    # c.h is no file the group read: it stays.
    with open(os.path.join(inc, "c.h"), "a") as f:
        f.write("struct d { int z; };\n")
    assert number("c", inc, headers, tmp_path) == first and compiles == []
    # b.h is: the group is compiled again, and its number follows.
    with open(os.path.join(inc, "b.h"), "w") as f:
        f.write("struct b_info { int x[4]; };\n")
    kept, skipped, obj = number("c", inc, headers, tmp_path)
    assert compiles and ioctls.read_ioctl_numbers(TOOL, obj)["A_GET"] == 0x80104101


def test_a_failure_is_final_only_while_no_other_header_spells_its_name(tmp_path, compiles):
    inc = tree(tmp_path, {"a.h": A_H, "b.h": "struct other { int x; };\n"})
    kept, skipped, obj = number("c", inc, ["a.h", "b.h"], tmp_path)
    assert skipped == {"A_GET": "invalid application of 'sizeof' to incomplete type 'struct b_info'"}
    assert [x.name for x in kept] == ["A_SET"]
    # A new header of the unit defines it. a.h, all the group read, is the same, so its entry
    # is found; but it lacks a provider of the name it failed for, and is compiled again.
    with open(os.path.join(inc, "c.h"), "w") as f:
        f.write("struct b_info { int x[2]; };\n")
    compiles.clear()
    cc, flags = COMPILERS["c"]
    found = ioctls.find_ioctls(cc, inc, ["a.h", "b.h", "c.h"], flags)
    numbers, final, left = ioctl_groups.number_by_header(compiler("c"), "c", inc, found, ["a.h", "b.h", "c.h"], tool)
    assert compiles == [["a.h"], ["a.h", "c.h"]] and final == {} and left == []
    assert numbers == {"A_GET": 0x80084101, "A_SET": 0x40044102}
    # Without the recompile (an entry judged on its own), the request would go to the
    # all-headers unit on every run: the unit agrees.
    kept, skipped, obj = number("c", inc, ["a.h", "b.h", "c.h"], tmp_path)
    assert skipped == {} and ioctls.read_ioctl_numbers(TOOL, obj)["A_GET"] == 0x80084101


def test_an_entry_that_took_a_header_the_unit_lost_is_compiled_again(tmp_path, compiles):
    """b.h provided b_info; then the unit leaves b.h out (a collision, say), though it stays in
    the include dir: the all-headers unit no longer declares b_info, and neither may the group."""
    inc = tree(tmp_path, {"a.h": A_H, "b.h": "struct b_info { int x[3]; };\n"})
    kept, skipped, obj = number("c", inc, ["a.h", "b.h"], tmp_path)
    assert skipped == {} and compiles == [["a.h"], ["a.h", "b.h"]]
    compiles.clear()
    kept, skipped, obj = number("c", inc, ["a.h"], tmp_path)
    assert compiles == [["a.h"]]
    assert skipped == {"A_GET": "invalid application of 'sizeof' to incomplete type 'struct b_info'"}
    assert by_unit("c", inc, ["a.h"], tmp_path)[2] == skipped


def test_a_provider_through_an_include(tmp_path, compiles):
    """b_info is spelt in sub/e.h, which no unit header lists: the unit header that includes it
    (d.h) provides it, as a.h, which spells it, does."""
    inc = tree(tmp_path, {"a.h": A_H, "d.h": "#include <sub/e.h>\n", "sub/e.h": "struct b_info { char c[5]; };\n"})
    assert ioctl_groups._providers({"b_info", "nowhere"}, inc, ["a.h", "d.h"]) == {"b_info": {"a.h", "d.h"}, "nowhere": set()}
    kept, skipped, obj = number("c", inc, ["a.h", "d.h"], tmp_path)
    assert skipped == {} and ioctls.read_ioctl_numbers(TOOL, obj)["A_GET"] == 0x80054101
    assert compiles == [["a.h"], ["a.h", "d.h"]]
    # A quoted include beside the header counts too.
    inc2 = tree(tmp_path / "q", {"x/f.h": '#include "g.h"\n', "x/g.h": "struct b_info { int i; };\n"})
    assert ioctl_groups._providers({"b_info"}, inc2, ["x/f.h"]) == {"b_info": {"x/f.h"}}


def test_a_group_whose_headers_do_not_compile_is_left_to_the_unit(tmp_path):
    inc = tree(tmp_path, {"bad.h": "#include <linux/ioctl.h>\n#define BAD_IOCTL _IO('b', 1)\nstruct { int x; } y z;\n"})
    found = ioctls.find_ioctls("gcc", inc, ["bad.h"], ["-std=gnu11"])
    numbers, final, left = ioctl_groups.number_by_header(compiler("c"), "c", inc, found, ["bad.h"], tool)
    assert numbers == {} and final == {} and [x.name for x in left] == ["BAD_IOCTL"]


def test_a_reason_that_names_nothing_is_left_to_the_unit(tmp_path, monkeypatch):
    inc = tree(tmp_path, {"a.h": A_H})
    found = ioctls.find_ioctls("gcc", inc, ["a.h"], ["-std=gnu11"])
    real = ioctls.compile_numbers

    def odd(cc, flags, group, *a, **k):
        kept, bad = real(cc, flags, group, *a, **k)
        return kept, {n: "some other error" for n in bad}
    monkeypatch.setattr(ioctls, "compile_numbers", odd)
    numbers, final, left = ioctl_groups.number_by_header(compiler("c"), "c", inc, found, ["a.h"], tool)
    assert final == {} and [x.name for x in left] == ["A_GET"] and set(numbers) == {"A_SET"}


def test_what_is_left_and_fails_in_the_unit_too_is_skipped(tmp_path, monkeypatch):
    """The all-headers unit decides what the groups leave; when all of that fails there as well,
    its object has no enum to read, and the requests are skipped with the unit's reasons (s390x's
    6.12 headers leave some so)."""
    inc = tree(tmp_path, {"a.h": A_H})
    real = ioctls.compile_numbers

    def odd(cc, flags, group, *a, **k):
        kept, bad = real(cc, flags, group, *a, **k)
        return kept, {n: "some other error" for n in bad}
    monkeypatch.setattr(ioctls, "compile_numbers", odd)
    kept, skipped, obj = number("c", inc, ["a.h"], tmp_path)
    assert [x.name for x in kept] == ["A_SET"]
    assert skipped == {"A_GET": "invalid application of 'sizeof' to incomplete type 'struct b_info'"}
    assert ioctls.read_ioctl_numbers(TOOL, obj) == {"A_SET": 0x40044102}


def test_named():
    assert ioctl_groups.named("'bool' undeclared here (not in a function)") == "bool"
    assert ioctl_groups.named("'compat_ulong_t' was not declared in this scope") == "compat_ulong_t"
    assert ioctl_groups.named("invalid application of 'sizeof' to incomplete type 'struct kvm_pv_cmd'") == "kvm_pv_cmd"
    assert ioctl_groups.named("invalid application of 'sizeof' to incomplete type 'kvm_pv_cmd'") == "kvm_pv_cmd"
    assert ioctl_groups.named("using typedef-name 'agp_info' after 'struct'") == "agp_info"
    assert ioctl_groups.named("expected expression before ')' token") is None
