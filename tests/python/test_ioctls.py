"""Tests of uapi_check/ioctls.py on the fixture headers in fixtures/ioctl/{old,new}.

The expected ioctls, types and skip reasons are written out here; the numbers are checked against
an independent instrument (a compiled program that printf()s each macro) and, for a few, against
values worked out by hand from _IOC's layout (dir << 30 | size << 16 | type << 8 | nr).
The tool is $ABIDIFF_UAPI_TOOL, else build/abidiff-uapi/abidiff-uapi; a missing tool fails.
Run: python3 -m pytest -q tests/python/test_ioctls.py
"""

import dataclasses
import json
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from uapi_check import ioctls, macros
from uapi_check.ioctls import Ioctl

TOOL = os.environ.get("ABIDIFF_UAPI_TOOL", os.path.join(ROOT, "build", "abidiff-uapi", "abidiff-uapi"))
FIXTURE = os.path.join(ROOT, "fixtures", "ioctl")
HEADERS = ["linux/mydrv.h", "linux/mydrv_ext.h"]
COMPILERS = {"c": ("gcc", ["-std=gnu11"]), "cxx": ("g++", ["-std=gnu++17"])}


def expected(version):
    """The request macros of the fixture (new/ has one line more before them)."""
    d = 0 if version == "old" else 1
    return [
        Ioctl("MYDRV_RESET", "linux/mydrv.h", 29 + d, None),
        Ioctl("MYDRV_GET_INFO", "linux/mydrv.h", 30 + d, "struct mydrv_info"),
        Ioctl("MYDRV_GET_INFO_COUNT", "linux/mydrv.h", 31 + d, "struct mydrv_info"),
        Ioctl("MYDRV_MAP", "linux/mydrv.h", 32 + d, "struct mydrv_buf"),
        Ioctl("MYDRV_GET_VERSION", "linux/mydrv.h", 33 + d, "__u32"),
        Ioctl("MYDRV_MAP_COMPAT", "linux/mydrv.h", 34 + d, "struct mydrv_buf"),
        Ioctl("MYDRV_GET_PAGE", "linux/mydrv.h", 37 + d, "struct mydrv_page"),
        Ioctl("MYDRV_READ_PAGE", "linux/mydrv.h", 38 + d, "char[PAGE_SIZE]"),
        Ioctl("MYDRV_ALL_ONES", "linux/mydrv.h", 39 + d, "char[0x3fff]"),
        Ioctl("MYDRV_SET_RANGE", "linux/mydrv_ext.h", 23, "struct mydrv_range*"),
        Ioctl("MYDRV_SET_ITEMS", "linux/mydrv_ext.h", 24, "struct mydrv_flex"),
        Ioctl("MYDRV_VERSION_ALIAS", "linux/mydrv_ext.h", 25, "__u32"),
        Ioctl("MYDRV_FLUSH", "linux/mydrv_ext.h", 26, None),
        Ioctl("MYDRV_SYNC", "linux/mydrv_ext.h", 28, None),
        Ioctl("MYDRV_RAW_BUF", "linux/mydrv_ext.h", 29, "struct mydrv_buf"),
        Ioctl("MYDRV_RAW_16", "linux/mydrv_ext.h", 30, None),
        Ioctl("MYDRV_ENUM_GET_INFO", "linux/mydrv_ext.h", 34, "struct mydrv_info", "enumerator"),
        Ioctl("MYDRV_ENUM_MAP", "linux/mydrv_ext.h", 35, "struct mydrv_buf", "enumerator"),
        # Proposed by the enumerator scan from an #if 0 block: the compiler rejects it below.
        Ioctl("MYDRV_NOT_COMPILED", "linux/mydrv_ext.h", 43, "__u32", "enumerator"),
    ]


SKIPPED = {
    "c": {"MYDRV_GET_PAGE": "invalid application of 'sizeof' to incomplete type 'struct mydrv_page'",
          "MYDRV_READ_PAGE": "'PAGE_SIZE' undeclared here (not in a function)",
          "MYDRV_NOT_COMPILED": "'MYDRV_NOT_COMPILED' undeclared here (not in a function)"},
    "cxx": {"MYDRV_GET_PAGE": "invalid application of 'sizeof' to incomplete type 'mydrv_page'",
            "MYDRV_READ_PAGE": "'PAGE_SIZE' was not declared in this scope",
            "MYDRV_NOT_COMPILED": "'MYDRV_NOT_COMPILED' was not declared in this scope",
            # A parse error whose follow-on errors land on the next lines: only this one goes.
            "MYDRV_SET_RANGE": "using typedef-name 'mydrv_range' after 'struct'"},
}

# Worked out by hand: _IOR = 2, _IOW = 1, _IOWR = 3 in bits 31..30; size in 29..16; 'M' = 0x4d.
BY_HAND = {
    ("old", "c", "MYDRV_RESET"): 0x00004d00,
    ("old", "c", "MYDRV_SYNC"): 0x00004d0a,
    ("old", "c", "MYDRV_RAW_BUF"): 0x80104d0b,
    ("old", "c", "MYDRV_RAW_16"): 0x40104d0c,
    ("old", "c", "MYDRV_ENUM_GET_INFO"): 0x80084d0d,
    ("new", "cxx", "MYDRV_ENUM_GET_INFO"): 0x80104d0d,
    ("old", "c", "MYDRV_ENUM_MAP"): 0xc0104d0e,
    ("old", "c", "MYDRV_GET_INFO"): 0x80084d01,   # sizeof(struct mydrv_info) == 8
    ("new", "c", "MYDRV_GET_INFO"): 0x80104d01,   # 16 once it has grown
    ("old", "c", "MYDRV_MAP"): 0xc0104d02,
    ("old", "c", "MYDRV_ALL_ONES"): 0xffffffff,
    ("old", "c", "MYDRV_SET_ITEMS"): 0x40044d07,    # the empty struct is 0 bytes in C
    ("old", "cxx", "MYDRV_SET_ITEMS"): 0x40084d07,  # 1 in C++, then padding to 4
    ("old", "cxx", "MYDRV_ALL_ONES"): 0xffffffff,
    ("old", "c", "MYDRV_SET_RANGE"): 0x40084d08,    # a pointer: fine in C, the tag is incomplete
}


def inc(version):
    return os.path.join(FIXTURE, version)


@pytest.fixture(scope="module")
def tool():
    assert os.access(TOOL, os.X_OK), f"{TOOL}: not built (meson compile -C build)"
    return TOOL


@pytest.fixture(scope="module")
def units(tmp_path_factory, tool):
    """For each version and language: the ioctls found, kept and skipped, the object, and the
    numbers read by the tool and printed by the program."""
    out = tmp_path_factory.mktemp("ioctls")
    result = {}
    for version in ("old", "new"):
        for lang, (cc, flags) in COMPILERS.items():
            found = ioctls.find_ioctls(cc, inc(version), HEADERS, flags)
            kept, skipped = ioctls.check_ioctls(cc, inc(version), HEADERS, flags, found)
            obj = str(out / f"{version}-{lang}.o")
            ioctls.compile_ioctl_unit(cc, inc(version), HEADERS, flags, kept, obj)
            result[(version, lang)] = {
                "found": found, "kept": kept, "skipped": skipped, "obj": obj,
                "dwarf": ioctls.read_ioctl_numbers(tool, obj),
                "printed": ioctls.print_ioctl_numbers(cc, inc(version), HEADERS, flags, kept),
            }
    return result


@pytest.mark.parametrize("version", ["old", "new"])
@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_find_ioctls(units, version, lang):
    found = units[(version, lang)]["found"]
    assert [dataclasses.replace(x, text="") for x in found] == expected(version)
    # Each request's text is its expansion with the probe's marks turned back (ioctls.expression).
    for x in found:
        assert x.text.lstrip("(").startswith("_IOC(") and macros.IOC_MARK not in x.text, x
        assert macros.TYPE_MARK not in x.text, x
    text = {x.name: x.text for x in found}
    assert text["MYDRV_RESET"] == "_IOC(0U, ('M'), (0x00), 0)"
    assert "_IOC_TYPECHECK(struct mydrv_info)" in text["MYDRV_GET_INFO"]


@pytest.mark.parametrize("version", ["old", "new"])
@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_skipped_with_reason(units, version, lang):
    u = units[(version, lang)]
    assert u["skipped"] == SKIPPED[lang]
    assert [x.name for x in u["kept"]] == [x.name for x in u["found"] if x.name not in SKIPPED[lang]]


@pytest.mark.parametrize("version", ["old", "new"])
@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_dwarf_numbers_equal_printer(units, version, lang):
    u = units[(version, lang)]
    assert len(u["printed"]) == {"c": 16, "cxx": 15}[lang]
    assert u["dwarf"] == u["printed"]


def test_numbers_by_hand(units):
    for (version, lang, name), value in BY_HAND.items():
        assert units[(version, lang)]["dwarf"][name] == value, (version, lang, name)


def diff_json(tool, old, new, *opts):
    p = subprocess.run([tool, "diff", old, new, "--format=json", "--type",
                        f"enum {ioctls.ENUM_NAME}", *opts], capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def enumerator_changes(data):
    return sorted((c["enumerator"], c["old"], c["new"]) for t in data["types"]
                  for c in t.get("changes", []) if c["change"] == "enumerator_value")


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_diff_old_new_reports_the_grown_ioctls(units, tool, lang):
    rc, data = diff_json(tool, units[("old", lang)]["obj"], units[("new", lang)]["obj"])
    assert rc == 1
    assert enumerator_changes(data) == [("AU_IOCTL__MYDRV_ENUM_GET_INFO", 0x80084d0d, 0x80104d0d),
                                        ("AU_IOCTL__MYDRV_GET_INFO", 0x80084d01, 0x80104d01),
                                        ("AU_IOCTL__MYDRV_GET_INFO_COUNT", 0x80084d02, 0x80104d02)]
    assert [c["change"] for t in data["types"] for c in t.get("changes", [])] == ["enumerator_value"] * 3
    # What ioctl_number_changes reads (--strict): each one a break.
    assert ioctls.ioctl_number_changes(tool, units[("old", lang)]["obj"], units[("new", lang)]["obj"]) == {
        "MYDRV_ENUM_GET_INFO": {"old": 0x80084d0d, "new": 0x80104d0d, "severity": "break"},
        "MYDRV_GET_INFO": {"old": 0x80084d01, "new": 0x80104d01, "severity": "break"},
        "MYDRV_GET_INFO_COUNT": {"old": 0x80084d02, "new": 0x80104d02, "severity": "break"}}


def test_without_strict_a_count_named_ioctl_looks_like_a_sentinel(units, tool):
    """Why ioctl_number_changes passes --strict: MYDRV_GET_INFO_COUNT is one past the number
    before it, and its name has COUNT, so the tool's convention table would call it a sentinel."""
    _, data = diff_json(tool, units[("old", "c")]["obj"], units[("new", "c")]["obj"])
    sev = {c["enumerator"]: c["severity"] for t in data["types"] for c in t["changes"]}
    assert sev["AU_IOCTL__MYDRV_GET_INFO"] == "break"
    assert sev["AU_IOCTL__MYDRV_GET_INFO_COUNT"] != "break"


def test_diff_c_cxx_reports_the_flexible_struct(units, tool):
    rc, data = diff_json(tool, units[("old", "c")]["obj"], units[("old", "cxx")]["obj"])
    assert rc == 1
    assert enumerator_changes(data) == [("AU_IOCTL__MYDRV_SET_ITEMS", 0x40044d07, 0x40084d07)]
    # MYDRV_SET_RANGE has no number in C++ (skipped there): removed.
    assert ioctls.ioctl_number_changes(tool, units[("old", "c")]["obj"], units[("old", "cxx")]["obj"]) == {
        "MYDRV_SET_ITEMS": {"old": 0x40044d07, "new": 0x40084d07, "severity": "break"},
        "MYDRV_SET_RANGE": {"old": 0x40084d08, "new": None, "severity": "break"}}


def test_diff_same_is_compatible(units, tool):
    obj = units[("new", "c")]["obj"]
    rc, data = diff_json(tool, obj, obj)
    assert rc == 0 and enumerator_changes(data) == []


def test_unit_source_shape():
    x = [Ioctl("A_B", "linux/a.h", 3, None), Ioctl("C", "linux/a.h", 4, "int")]
    src = ioctls.ioctl_unit_source(x, ["linux/a.h"])
    assert src.splitlines() == [
        "#include <linux/a.h>", "",
        "/* ioctl request numbers, computed by the compiler (abidiff-uapi) */",
        "enum abidiff_uapi_ioctl {", "\tAU_IOCTL__A_B = A_B,", "\tAU_IOCTL__C = C,", "};",
        # The anchor: with plain -g the enum is in DWARF because a variable uses it.
        "enum abidiff_uapi_ioctl abidiff_uapi_ioctl_anchor;"]
    assert ioctls.ioctl_unit_source([], ["linux/a.h"]) == "#include <linux/a.h>\n"


def test_headers_that_do_not_compile_raise(tmp_path):
    (tmp_path / "bad.h").write_text("#define BAD_IOCTL _IO('b', 1)\nstruct { int x; } y z;\n")
    with pytest.raises(ioctls.IoctlError, match="outside its enumerators"):
        ioctls.check_ioctls("gcc", str(tmp_path), ["bad.h"], ["-std=gnu11"],
                            [Ioctl("BAD_IOCTL", "bad.h", 1, None)])


def test_command_line_print(units):
    p = subprocess.run([sys.executable, "-m", "uapi_check.ioctls",
                        "--print", "--cc", "g++", inc("new"), *HEADERS], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    printed = dict(line.split() for line in p.stdout.splitlines())
    assert {k: int(v, 16) for k, v in printed.items()} == units[("new", "cxx")]["printed"]
    assert sorted(p.stderr.splitlines()) == sorted(f"skipped {k}: {v}" for k, v in SKIPPED["cxx"].items())


def test_only_the_include_dirs_macros():
    """The fixture includes the system's <linux/random.h>; its RNDGETENTCNT is found when
    /usr/include is the include dir, so only the directory filter keeps it out above."""
    found = {x.name: x for x in ioctls.find_ioctls("gcc", "/usr/include", ["linux/random.h"], ["-std=gnu11"])}
    assert found["RNDGETENTCNT"].header == "linux/random.h" and found["RNDGETENTCNT"].arg_type == "int"


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_number_ioctls_from_known_bad_equals_the_rounds(units, tmp_path, lang):
    """Starting from the other side's failures gives the same kept, skipped (with the same
    reasons) and numbers as the rounds: the old side's failures seed the new side. A name in
    known_bad that now compiles is kept; a failure that known_bad misses is still found."""
    cc, flags = COMPILERS[lang]
    u = units[("new", lang)]
    seed = set(units[("old", lang)]["skipped"])
    for known_bad in (seed, seed - {"MYDRV_READ_PAGE"}, seed | {"MYDRV_RESET", "NO_SUCH"}):
        obj = str(tmp_path / f"seeded-{lang}.o")
        kept, skipped = ioctls.number_ioctls(cc, inc("new"), HEADERS, flags, u["found"], obj, frozenset(known_bad))
        assert skipped == u["skipped"] == SKIPPED[lang]
        assert kept == u["kept"]
        assert ioctls.read_ioctl_numbers(TOOL, obj) == u["dwarf"]


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_check_with_obj_compiles_instead_of_a_last_round(units, tmp_path, lang, monkeypatch):
    """check_ioctls(obj=...) keeps and skips what the rounds alone do (the same reasons) and
    leaves the same numbers in obj, with one syntax check fewer where no failure was an
    undeclared name that gcc names only once (C++ here; C's PAGE_SIZE keeps its round)."""
    cc, flags = COMPILERS[lang]
    u = units[("new", lang)]
    checks = []
    real = ioctls._failing_lines
    monkeypatch.setattr(ioctls, "_failing_lines", lambda *a: checks.append(len(a[4])) or real(*a))
    plain = ioctls.check_ioctls(cc, inc("new"), HEADERS, flags, u["found"])
    rounds = len(checks)
    checks.clear()
    obj = str(tmp_path / f"checked-{lang}.o")
    kept, skipped = ioctls.check_ioctls(cc, inc("new"), HEADERS, flags, u["found"], obj=obj)
    assert (kept, skipped) == plain and skipped == SKIPPED[lang]
    assert ioctls.read_ioctl_numbers(TOOL, obj) == u["dwarf"]
    assert len(checks) == (rounds if lang == "c" else rounds - 1), (rounds, checks)


def test_prefetch_scans_once_and_a_later_call_waits_for_it(monkeypatch):
    """macros.prefetch (step 3 starts a unit's scan beside its compile) preprocesses the unit in a
    thread of its own; the steps' own scan() of the same unit then gets that result without
    preprocessing again; a unit of other headers is scanned anew."""
    calls = []
    real = macros._scan

    def counting(cc, include_dir, headers, flags):
        calls.append(list(headers))
        return real(cc, include_dir, headers, flags)

    monkeypatch.setattr(macros, "_scan", counting)
    macros._SCANS.clear()
    inc = os.path.join(FIXTURE, "new")
    macros.prefetch("gcc", inc, HEADERS, ["-std=gnu11"])
    deadline = time.monotonic() + 60
    while not macros._SCANS and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == [HEADERS]       # scanned by the prefetch's thread, before any step asked
    got = macros.scan("gcc", inc, HEADERS, ["-std=gnu11"])
    assert calls == [HEADERS]       # and not again
    assert got.defs["MYDRV_RESET"] == ("linux/mydrv.h", 30)
    macros.scan("gcc", inc, HEADERS[:1], ["-std=gnu11"])
    assert calls == [HEADERS, HEADERS[:1]]
