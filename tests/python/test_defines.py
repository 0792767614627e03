"""Step 3c's objects by header (uapi_check/defines.py): the constants that name a type or an
enumerator are compiled with their own headers, each group cached with the files its compile read,
so that a commit that changes one header compiles again only what read it; a constant whose own
headers do not declare what it names is tried with the headers that spell the name, and one that
still fails goes to the all-headers unit. Every value the tool reads from the archive is checked
against a compiled program that prints the constants (constants.print_constants).
The tool is $ABIDIFF_UAPI_TOOL, else build/abidiff-uapi/abidiff-uapi; a missing tool fails."""
import json
import os
import shutil
import subprocess
import types

import pytest

from conftest import ROOT, write_tree
from uapi_check import constants, defines, macros, scans
from uapi_check import headers as headers_mod
from uapi_check.config import UNIT_FLAGS

TOOL = os.environ.get("ABIDIFF_UAPI_TOOL", os.path.join(ROOT, "build", "abidiff-uapi", "abidiff-uapi"))

HEADERS = {
    "a/types.h": "#ifndef A_TYPES_H\n#define A_TYPES_H\nstruct a_s { int x[3]; };\n"
                 "#define A_SIZE sizeof(struct a_s)\n#define A_FLAG 0x10\n#endif\n",
    "b/b.h": "#include <a/types.h>\n#define B_SIZE (sizeof(struct a_s) * 2)\n",
    "c/c.h": "enum c_e { C_ONE = 1, C_TWO };\n",
    # Names C_TWO without including c/c.h: compiles in the all-headers unit only.
    "d/d.h": "#define D_USES_C (C_TWO + 1)\n",
    # f/f.h declares zz_thing by token pasting: no header spells it, so only the all-headers unit
    # gives E_HIDDEN a value.
    "e/e.h": "#define E_HIDDEN (zz_thing + 1)\n",
    "f/f.h": "#define F_MK(x) x ## _thing\nenum { F_MK(zz) = 5 };\n",
    # The size of a struct that g/g.h does not define (linux/atm.h's SO_CIRANGE and atmdev.h).
    "g/g.h": "#define G_SIZE sizeof(struct h_s)\n",
    "h/h.h": "struct h_s { char c[7]; };\n",
}
UNIT = ["a/types.h", "b/b.h", "c/c.h", "d/d.h", "e/e.h", "f/f.h", "g/g.h", "h/h.h"]
NAMED = {"A_SIZE", "B_SIZE", "D_USES_C", "E_HIDDEN", "G_SIZE"}    # the constants that name something


def tool_path():
    assert os.access(TOOL, os.X_OK), f"{TOOL} is missing: build it first (meson compile -C build)"
    return TOOL


def build(out, inc, name, lang, monkeypatch, calls, prior=None, by_header=True, headers=UNIT, **kw):
    """build_constants for a unit of headers, its layout object compiled first as step 3
    does; kw: build_constants' other arguments."""
    cc = "gcc" if lang == "c" else "g++"
    os.makedirs(os.path.join(out, "obj"), exist_ok=True)
    unit = os.path.join(out, f"{name}.{'c' if lang == 'c' else 'cc'}")
    with open(unit, "w") as f:
        f.write("".join(f"#include <{h}>\n" for h in headers))
    subprocess.run([cc, *UNIT_FLAGS[lang], "-g", "-fno-eliminate-unused-debug-types", "-I", inc, "-c", unit,
                    "-o", os.path.join(out, "obj", f"{name}.o")], check=True)
    real = constants.compile_expansions

    def spy(cc_, flags, consts, include_dir, obj, cwd, headers=(), *a, **k):
        if headers:
            calls.append(sorted(headers))
        return real(cc_, flags, consts, include_dir, obj, cwd, headers, *a, **k)

    monkeypatch.setattr(constants, "compile_expansions", spy)
    compiler = types.SimpleNamespace(path=cc, version=f"{cc} test")
    return defines.build_constants(compiler, lang, inc, out, name, headers, content=headers_mod.dir_digest(inc),
                                   prior=prior, by_header=by_header, **kw)


def tool_values(out, summary):
    p = subprocess.run([tool_path(), "dump", os.path.join(out, summary["object"]), "--format=json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return {t["name"].split(" ", 1)[1]: t["value"] for t in json.loads(p.stdout)["types"] if t["kind"] == "constant"}


def members(out, summary):
    p = subprocess.run(["ar", "t", os.path.join(out, summary["object"])], capture_output=True, text=True, check=True)
    return p.stdout.split()


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_by_header_values_and_where_they_come_from(tmp_path, monkeypatch, lang):
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    inc = write_tree(tmp_path / "include" / "before", HEADERS)
    out = str(tmp_path)
    calls = []
    summary = build(out, inc, f"{lang}-before", lang, monkeypatch, calls)
    got = tool_values(out, summary)
    cc = "gcc" if lang == "c" else "g++"
    kept = [constants.Constant(name, header, line, string, text) for name, header, line, string, text
            in defines.data_of(os.path.join(str(tmp_path / "cache"), "constants", summary["key"]))["kept"]]
    printed = constants.print_constants(cc, inc, UNIT, UNIT_FLAGS[lang], kept)
    assert NAMED | {"A_FLAG"} <= set(got)
    assert got == {k: v for k, v in printed.items()}
    assert got["A_SIZE"] == 12 and got["B_SIZE"] == 24 and got["D_USES_C"] == 3 and got["E_HIDDEN"] == 6
    assert got["G_SIZE"] == 7
    # D_USES_C was tried with its own header, then with c/c.h, which spells C_TWO; G_SIZE with
    # h/h.h, which spells h_s.
    assert any("c/c.h" in c and "d/d.h" in c for c in calls)
    assert any("g/g.h" in c and "h/h.h" in c for c in calls)
    # E_HIDDEN alone is left to the all-headers unit (constants.o), the others are in objects by header.
    remainder = subprocess.run([tool_path(), "dump", os.path.join(out, "obj", f"{lang}-before.defines.o"),
                                "--format=json"], capture_output=True, text=True, check=True)
    assert {t["name"] for t in json.loads(remainder.stdout)["types"] if t["kind"] == "constant"} == {"#define E_HIDDEN"}
    assert "constants.o" in members(out, summary)


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_without_objects_by_header_the_same_values_in_one_compile(tmp_path, monkeypatch, lang):
    """A drift of two releases (by_header=False): every constant that names something is compiled
    in constants.o with all the unit's headers, none with its own headers, and each gets the
    value a compiled program prints, as with the objects by header."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    inc = write_tree(tmp_path / "include" / "before", HEADERS)
    out = str(tmp_path)
    calls = []
    summary = build(out, inc, f"{lang}-before", lang, monkeypatch, calls, by_header=False)
    assert calls == []
    got = tool_values(out, summary)
    cc = "gcc" if lang == "c" else "g++"
    kept = [constants.Constant(name, header, line, string, text) for name, header, line, string, text
            in defines.data_of(os.path.join(str(tmp_path / "cache"), "constants", summary["key"]))["kept"]]
    assert got == constants.print_constants(cc, inc, UNIT, UNIT_FLAGS[lang], kept)
    assert got["A_SIZE"] == 12 and got["D_USES_C"] == 3 and got["E_HIDDEN"] == 6 and got["G_SIZE"] == 7
    remainder = subprocess.run([tool_path(), "dump", os.path.join(out, "obj", f"{lang}-before.defines.o"),
                                "--format=json"], capture_output=True, text=True, check=True)
    assert {t["name"] for t in json.loads(remainder.stdout)["types"]
            if t["kind"] == "constant"} == {f"#define {n}" for n in NAMED}


def test_without_objects_by_header_the_compile_verifies_the_check(tmp_path, monkeypatch):
    """by_header=False: the check stops after its first round with errors (the compile of all it
    kept, with the same headers, stands in for the round that would verify it). When that compile
    fails, because the round missed an error, the rounds go on, verifying, and the constant that
    fails is rejected all the same. The check is made to miss one: its first answer keeps
    everything."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    tree = {**HEADERS, "k/k.h": "#define K_KERNEL_ONLY (PAGE_SIZE + 1)\n#define K_FINE (C_ONE + 4)\n"}
    inc = write_tree(tmp_path / "include" / "before", tree)
    real = constants.check_constants
    asked = []

    def check(cc, inc_, headers, flags, consts, *a, verify=True, **k):
        asked.append(verify)
        if len(asked) == 1:
            return list(consts), {}      # the missed error
        return real(cc, inc_, headers, flags, consts, *a, verify=verify, **k)

    monkeypatch.setattr(constants, "check_constants", check)
    out = str(tmp_path)
    summary = build(out, inc, "c-before", "c", monkeypatch, [], by_header=False, headers=UNIT + ["k/k.h"])
    assert asked == [False, True], asked
    assert "'PAGE_SIZE' undeclared" in summary["rejected"]["K_KERNEL_ONLY"], summary["rejected"]
    got = tool_values(out, summary)
    assert "K_KERNEL_ONLY" not in got and got["K_FINE"] == 5 and got["D_USES_C"] == 3, got


def test_the_check_stops_after_its_first_round_with_errors_when_told(tmp_path, monkeypatch):
    """verify=False: one round with errors (and the rounds that confirm its suspects), not the
    round after it that finds no error; verify=True (the default) runs that one too. The same
    verdicts either way."""
    inc = write_tree(tmp_path / "include", HEADERS)
    found, _ = constants.find_constants("gcc", inc, UNIT, UNIT_FLAGS["c"])
    bad = constants.Constant("Z_BAD", "c/c.h", 1, False, "(PAGE_SIZE + 1)")
    consts = [k for k in found if not constants.self_contained(k)] + [bad]
    real = constants._failing_lines
    rounds = []
    monkeypatch.setattr(constants, "_failing_lines", lambda *a: rounds.append(len(a[4])) or real(*a))
    unverified = constants.check_constants("gcc", inc, UNIT, UNIT_FLAGS["c"], consts, verify=False)
    assert rounds == [len(consts)], rounds
    rounds.clear()
    verified = constants.check_constants("gcc", inc, UNIT, UNIT_FLAGS["c"], consts)
    assert rounds == [len(consts), len(consts) - 1], rounds
    assert unverified == verified and set(verified[1]) == {"Z_BAD"}, (unverified, verified)


def test_a_changed_header_compiles_again_only_what_read_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    out = str(tmp_path)
    first = []
    inc = write_tree(tmp_path / "include" / "after", HEADERS)
    before = build(out, inc, "c-after", "c", monkeypatch, first)
    assert tool_values(out, before)["D_USES_C"] == 3
    # The same headers again, as the next run: every object by header comes from the cache.
    again = []
    defines._DATA.clear()
    build(out, inc, "c-after", "c", monkeypatch, again, prior=before)
    assert again == []
    # c/c.h changes: only the group that read it (d/d.h's, through the retry) is compiled again,
    # and the value follows the header.
    write_tree(tmp_path / "include" / "after", {"c/c.h": "enum c_e { C_ONE = 1, C_MID, C_TWO };\n"})
    later = []
    after = build(out, inc, "c-after", "c", monkeypatch, later, prior=before)
    assert tool_values(out, after)["D_USES_C"] == 4
    assert later and all("d/d.h" in c for c in later), later
    assert not any("a/types.h" in c or "b/b.h" in c for c in later if "d/d.h" not in c)


def test_the_entry_a_run_keeps_is_the_one_a_later_run_reads(tmp_path, monkeypatch):
    """_build keeps the data it wrote (data_of) instead of reading it back: it must be the same,
    key order included (report.json lists what comes from it), as what json.load gives."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    inc = write_tree(tmp_path / "include" / "before", HEADERS)
    out = str(tmp_path)
    defines._DATA.clear()
    summary = build(out, inc, "c-before", "c", monkeypatch, [])
    cache = os.path.join(str(tmp_path / "cache"), "constants", summary["key"])
    kept = defines._DATA[cache]
    with open(os.path.join(cache, "constants.json")) as f:
        read = json.load(f)
    assert kept == read
    assert json.dumps(kept) == json.dumps(read)     # the same order, nested dicts too
    assert kept["rejected"] and kept["kept"]
    # A later process, which reads the entry, gives the same summary.
    defines._DATA.clear()
    assert build(out, inc, "c-before", "c", monkeypatch, []) == summary


def test_a_one_header_unit_compiles_its_constants_once(tmp_path, monkeypatch):
    """Step 3b's units of one header: the literals of every header it reads and the constants
    that name something go to one object, constants.o, with no syntax check first, where a unit
    of several headers spreads them over its buckets and checks the others; the values, and the
    reason of a literal that is no constant, are the same. gcc names an undeclared identifier
    once per unit: the seven constants that expand to it fail in the one-header unit's first
    round all the same (its compile gives up after five)."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    parts = {f"n/n{i}.h": f"#define N{i}_VALUE {i * 3 + 1}\n" for i in range(6)}
    assert len({defines._bucket(h) for h in parts}) > 1
    tree = {**parts, "m/m.h": "".join(f"#include <{h}>\n" for h in parts) + "#define M_VALUE 0x40\nstruct m_s { int a; };\n"
                                  "#define M_SIZE sizeof(struct m_s)\n#define M_BAD (1 / 0)\n"
                                  + "".join(f"#define M_KERNEL_{i} (PAGE_SIZE + {i})\n" for i in range(7))}
    inc = write_tree(tmp_path / "include" / "before", tree)
    out = str(tmp_path)
    compiler = types.SimpleNamespace(path="gcc", version="gcc test")
    checked = []
    real = constants.check_constants
    monkeypatch.setattr(constants, "check_constants", lambda cc, inc_, headers, *a, **k: checked.append(headers) or real(
        cc, inc_, headers, *a, **k))
    results = {}
    for name, unit in (("one", ["m/m.h"]), ("many", sorted(tree))):
        os.makedirs(os.path.join(out, "obj"), exist_ok=True)
        src = os.path.join(out, f"{name}.c")
        with open(src, "w") as f:
            f.write("".join(f"#include <{h}>\n" for h in unit))
        subprocess.run(["gcc", *UNIT_FLAGS["c"], "-g", "-fno-eliminate-unused-debug-types", "-I", inc, "-c", src, "-o",
                        os.path.join(out, "obj", f"{name}.o")], check=True)
        summary = defines.build_constants(compiler, "c", inc, out, name, unit, content=headers_mod.dir_digest(inc))
        objects = defines.data_of(summary["cache"])["objects"]
        results[name] = (tool_values(out, summary), [o for o in objects if o.startswith("constants-self")],
                         summary["rejected"].get("M_BAD"), members(out, summary),
                         {n: r for n, r in summary["rejected"].items() if n.startswith("M_KERNEL_")})
    assert results["one"][0] == results["many"][0] == {**{f"N{i}_VALUE": i * 3 + 1 for i in range(6)},
                                                       "M_VALUE": 64, "M_SIZE": 4}
    assert results["one"][2] == results["many"][2] and "not an integer constant" in results["one"][2], results
    assert results["one"][1] == [] and len(results["many"][1]) > 1, results
    assert results["one"][3] == ["unit.o", "constants.o"], results
    assert results["one"][4] == results["many"][4], results
    assert sorted(results["one"][4]) == [f"M_KERNEL_{i}" for i in range(7)], results
    assert all("'PAGE_SIZE' undeclared" in r for r in results["one"][4].values()), results
    assert checked == [sorted(tree)], checked


def test_a_define_no_type_uses_is_evaluated_again_when_it_changes(tmp_path, monkeypatch):
    """A #define that no type uses changes its value: the unit's object is the same bytes, and
    the entry is another one all the same (its key has the bytes of the headers), with the new
    value. Keyed by the object alone, the old entry, and the old value, came back."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    out = str(tmp_path)
    inc = write_tree(tmp_path / "include" / "after", HEADERS)
    first = build(out, inc, "c-after", "c", monkeypatch, [])
    unit = open(os.path.join(out, "obj", "c-after.o"), "rb").read()
    write_tree(tmp_path / "include" / "after", {"a/types.h": HEADERS["a/types.h"].replace("0x10", "0x20")})
    defines._DATA.clear()
    second = build(out, inc, "c-after", "c", monkeypatch, [], prior=first)
    assert open(os.path.join(out, "obj", "c-after.o"), "rb").read() == unit
    assert second["key"] != first["key"]
    values = tool_values(out, second)
    assert values["A_FLAG"] == 0x20 and values == printed(inc, "c", second), values


def printed(inc, lang, summary, headers=UNIT):
    """The values a compiled program prints for the constants an entry kept."""
    kept = [constants.Constant(*k) for k in defines.data_of(summary["cache"])["kept"]]
    return constants.print_constants("gcc" if lang == "c" else "g++", inc, headers, UNIT_FLAGS[lang], kept)


# A commit that changes no macro (no directive, only lines between them): step 3c takes the
# other side's constants and places them again (_from_prior), instead of judging every macro.
FROM_PRIOR = defines._from_prior


@pytest.fixture
def store(tmp_path, monkeypatch):
    """The scan store of a run whose after side is tmp_path/include/after."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    inc = str(tmp_path / "include" / "after")
    monkeypatch.setattr(macros, "_STORE", scans.Store(str(tmp_path / "cache"), {"gcc": "gcc test", "g++": "g++ test"},
                                                      keep=[inc]))
    macros._SCANS.clear()
    defines._DATA.clear()
    return inc


def placed_again(monkeypatch):
    """Spy on _from_prior: the list of what each call returned (None: it declined)."""
    got = []

    def spy(*a, **k):
        got.append(FROM_PRIOR(*a, **k))
        return got[-1]
    monkeypatch.setattr(defines, "_from_prior", spy)
    return got


def evaluated(out, inc, name, lang, monkeypatch, summary, prior, c_result=None, headers=UNIT):
    """The entry of summary made again by _evaluate alone (the fast path off): its data and the
    members of its archive, with the same prior."""
    shutil.rmtree(summary["cache"])
    defines._DATA.pop(summary["cache"], None)
    monkeypatch.setattr(defines, "_from_prior", lambda *a, **k: None)
    again = rebuild(out, inc, name, lang, monkeypatch, prior, c_result, headers)
    monkeypatch.setattr(defines, "_from_prior", FROM_PRIOR)
    assert again["cache"] == summary["cache"]
    return defines.data_of(again["cache"]), members(out, again)


def rebuild(out, inc, name, lang, monkeypatch, prior, c_result=None, headers=UNIT):
    """build() with a C result for a C++ unit."""
    return build(out, inc, name, lang, monkeypatch, [], prior=prior, headers=headers, c_result=c_result)



def row(summary, name):
    return next(k for k in defines.data_of(summary["cache"])["kept"] if k[0] == name)


def test_a_commit_that_changes_no_macro_places_the_same_constants_again(tmp_path, monkeypatch, store):
    """A member added to a struct moves the lines after it and the size that names the struct:
    the entry takes the other side's constants with the new lines, its objects are made again,
    and it is the entry a full evaluation makes, byte for byte (data and archive). A later
    commit that changes another header takes the first header's lines from the scan again."""
    out, inc = str(tmp_path), store
    write_tree(tmp_path / "include" / "after", HEADERS)
    first = build(out, inc, "c-after", "c", monkeypatch, [])
    basis = defines.data_of(first["cache"])["basis"]
    assert basis["settled"] and basis["changed"] == {}, basis
    assert row(first, "A_FLAG")[2] == 5
    # The same directives, a line more in struct a_s: A_FLAG moves to line 6, A_SIZE grows.
    write_tree(tmp_path / "include" / "after",
               {"a/types.h": HEADERS["a/types.h"].replace("int x[3]; };", "int x[3];\n  int y; };")})
    got = placed_again(monkeypatch)
    second = build(out, inc, "c-after", "c", monkeypatch, [], prior=first)
    assert len(got) == 1 and got[0] is not None
    assert row(second, "A_FLAG")[2] == 6 and list(defines.data_of(second["cache"])["basis"]["changed"]) == ["a/types.h"]
    values = tool_values(out, second)
    assert values == printed(inc, "c", second) and values["A_SIZE"] == 16 and values["B_SIZE"] == 32, values
    data, parts = defines.data_of(second["cache"]), members(out, second)
    assert evaluated(out, inc, "c-after", "c", monkeypatch, second, first) == (data, parts)
    # Then a line more in b/b.h, a/types.h as it first was: its lines are the entry's again.
    write_tree(tmp_path / "include" / "after", {"a/types.h": HEADERS["a/types.h"],
                                                "b/b.h": "\n" + HEADERS["b/b.h"]})
    got = placed_again(monkeypatch)
    third = build(out, inc, "c-after", "c", monkeypatch, [], prior=second)
    assert len(got) == 1 and got[0] is not None
    assert row(third, "A_FLAG")[2] == 5 and row(third, "B_SIZE")[2] == 3
    assert tool_values(out, third)["A_SIZE"] == 12
    data, parts = defines.data_of(third["cache"]), members(out, third)
    assert evaluated(out, inc, "c-after", "c", monkeypatch, third, second) == (data, parts)


def test_a_changed_directive_or_a_constant_that_fails_is_evaluated_again(tmp_path, monkeypatch, store):
    """A changed #define makes a new scan (another scan-store entry): every macro is judged. A
    struct that goes away breaks a constant the other side kept: _from_prior declines, and the
    evaluation, which finds the failure, leaves an entry that is not settled, from which the next
    commit does not start either. Each entry is the one a full evaluation makes."""
    out, inc = str(tmp_path), store
    write_tree(tmp_path / "include" / "after", HEADERS)
    first = build(out, inc, "c-after", "c", monkeypatch, [])
    unit = open(os.path.join(out, "obj", "c-after.o"), "rb").read()
    write_tree(tmp_path / "include" / "after", {"a/types.h": HEADERS["a/types.h"].replace("0x10", "0x20")})
    got = placed_again(monkeypatch)
    second = build(out, inc, "c-after", "c", monkeypatch, [], prior=first)
    # No type uses A_FLAG: the unit's object is the same bytes, its constants are not.
    assert open(os.path.join(out, "obj", "c-after.o"), "rb").read() == unit
    assert got == [None] and tool_values(out, second)["A_FLAG"] == 0x20
    assert defines.data_of(second["cache"])["basis"]["scan"] != defines.data_of(first["cache"])["basis"]["scan"]
    data = defines.data_of(second["cache"]), members(out, second)
    assert evaluated(out, inc, "c-after", "c", monkeypatch, second, first) == data
    # struct h_s renamed (no directive changes): G_SIZE no longer compiles.
    write_tree(tmp_path / "include" / "after", {"h/h.h": "struct h_gone { char c[7]; };\n"})
    got = placed_again(monkeypatch)
    third = build(out, inc, "c-after", "c", monkeypatch, [], prior=second)
    assert got == [None]
    assert "G_SIZE" in third["failed"] and "G_SIZE" not in tool_values(out, third)
    assert not defines.data_of(third["cache"])["basis"]["settled"]
    data = defines.data_of(third["cache"]), members(out, third)
    assert evaluated(out, inc, "c-after", "c", monkeypatch, third, second) == data
    # The next commit (a blank line in a/types.h) starts from an entry that is not settled.
    write_tree(tmp_path / "include" / "after", {"a/types.h": "\n" + HEADERS["a/types.h"].replace("0x10", "0x20")})
    got = placed_again(monkeypatch)
    fourth = build(out, inc, "c-after", "c", monkeypatch, [], prior=third)
    assert got == [None]
    data = defines.data_of(fourth["cache"]), members(out, fourth)
    assert evaluated(out, inc, "c-after", "c", monkeypatch, fourth, third) == data


Y_HEADER = ("#ifdef __cplusplus\nstruct y_s { int a; };\n#else\nstruct y_s { int a; };\n#endif\n"
            "#define Y_SIZE sizeof(struct y_s)\n")


def test_a_cxx_unit_starts_from_its_other_side_only_with_the_same_c_rejections(tmp_path, monkeypatch, store):
    """A C++ unit's rejections start from C's (known_bad). A change that breaks Y_SIZE in C only
    (the struct of the C branch renamed) changes them: the C++ unit then evaluates again and
    takes C's verdict, as a full evaluation does, although its own scan and the other side's
    are one entry's."""
    out, inc = str(tmp_path), store
    headers = UNIT + ["y/y.h"]
    write_tree(tmp_path / "include" / "after", {**HEADERS, "y/y.h": Y_HEADER})
    c1 = build(out, inc, "c-after", "c", monkeypatch, [], headers=headers)
    x1 = rebuild(out, inc, "cxx-after", "cxx", monkeypatch, None, c1, headers)
    assert "Y_SIZE" not in c1["failed"] and "Y_SIZE" not in x1["failed"]
    write_tree(tmp_path / "include" / "after",
               {"y/y.h": Y_HEADER.replace("#else\nstruct y_s", "#else\nstruct y_gone")})
    c2 = build(out, inc, "c-after", "c", monkeypatch, [], prior=c1, headers=headers)
    assert "Y_SIZE" in c2["failed"]
    got = placed_again(monkeypatch)
    x2 = rebuild(out, inc, "cxx-after", "cxx", monkeypatch, x1, c2, headers)
    assert got == [None]
    assert x2["failed"]["Y_SIZE"][1].endswith("(in C; not checked again in C++)"), x2["failed"]
    cxx = defines.data_of(x2["cache"])
    assert defines.data_of(x1["cache"])["basis"]["scan"] == cxx["basis"]["scan"]
    shutil.rmtree(x2["cache"])
    defines._DATA.pop(x2["cache"], None)
    monkeypatch.setattr(defines, "_from_prior", lambda *a, **k: None)
    assert defines.data_of(rebuild(out, inc, "cxx-after", "cxx", monkeypatch, x1, c2, headers)["cache"]) == cxx


def test_a_cxx_guess_from_cs_before_side_serves_only_the_same_c_rejections(tmp_path, monkeypatch, store):
    """step_constants starts C++ after from C before's result while C after is made (speculate):
    the guess makes an entry only by _from_prior and writes nothing in the out dir. Where C after
    rejects what C before did, the C++ unit's own call, given C after's result, takes the
    guess's entry (the same key), which is _evaluate's; where C after rejects more (Y_SIZE), it
    is another key, and the unit takes C's verdict. A guess that _from_prior declines (a
    changed directive) makes nothing and evaluates nothing."""
    out, inc = str(tmp_path), store
    headers = UNIT + ["y/y.h"]
    write_tree(tmp_path / "include" / "after", {**HEADERS, "y/y.h": Y_HEADER})
    c1 = build(out, inc, "c-after", "c", monkeypatch, [], headers=headers)
    x1 = rebuild(out, inc, "cxx-after", "cxx", monkeypatch, None, c1, headers)
    archive = os.path.join(out, "obj", "cxx-after.a")
    # A member added: C's rejections stay.
    write_tree(tmp_path / "include" / "after",
               {"a/types.h": HEADERS["a/types.h"].replace("int x[3]; };", "int x[3];\n  int y; };")})
    c2 = build(out, inc, "c-after", "c", monkeypatch, [], prior=c1, headers=headers)
    assert c2["rejected"] == c1["rejected"]
    before = open(archive, "rb").read()
    guess = build(out, inc, "cxx-after", "cxx", monkeypatch, [], prior=x1, headers=headers, c_result=c1,
                  speculate=True)
    assert guess and open(archive, "rb").read() == before
    evaluations = []
    real = defines._evaluate
    monkeypatch.setattr(defines, "_evaluate", lambda *a, **k: evaluations.append(1) or real(*a, **k))
    x2 = rebuild(out, inc, "cxx-after", "cxx", monkeypatch, x1, c2, headers)
    assert x2["cache"] == guess and evaluations == []
    assert tool_values(out, x2) == printed(inc, "cxx", x2, headers)
    assert evaluated(out, inc, "cxx-after", "cxx", monkeypatch, x2, x1, c2, headers)[0] == defines.data_of(guess)
    # Y_SIZE breaks in C only: the guess from C before's rejections is not the unit's entry.
    write_tree(tmp_path / "include" / "after",
               {"y/y.h": Y_HEADER.replace("#else\nstruct y_s", "#else\nstruct y_gone")})
    c3 = build(out, inc, "c-after", "c", monkeypatch, [], prior=c2, headers=headers)
    guess = build(out, inc, "cxx-after", "cxx", monkeypatch, [], prior=x2, headers=headers, c_result=c2,
                  speculate=True)
    x3 = rebuild(out, inc, "cxx-after", "cxx", monkeypatch, x2, c3, headers)
    assert guess and x3["cache"] != guess
    assert x3["failed"]["Y_SIZE"][1].endswith("(in C; not checked again in C++)")
    # A changed directive: the guess declines.
    write_tree(tmp_path / "include" / "after", {"a/types.h": HEADERS["a/types.h"].replace("0x10", "0x30")})
    c4 = build(out, inc, "c-after", "c", monkeypatch, [], prior=c3, headers=headers)
    evaluations.clear()
    assert build(out, inc, "cxx-after", "cxx", monkeypatch, [], prior=x3, headers=headers, c_result=c3,
                 speculate=True) is None
    assert evaluations == [] and c4["rejected"] == c3["rejected"]
