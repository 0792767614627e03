"""Tests of the #define constants: uapi_check/constants.py (what is a constant, compiled into a
constants unit) and the tool's reading and judging of them (abidiff-uapi diff of archives that hold
a layout unit and its constants unit, as uapi-check's step 3c makes them).

The headers are fixtures/constants/{old,new}, with planted changes: two removed flags, a
renumbered syscall, a changed generic-netlink name, a renamed enumerator kept as a #define and a
#define turned into an enumerator, a sentinel, a version that grows, and a value that only C++
sees differently. Every value the tool reads is checked against an independent instrument: a
compiled program that prints each constant (constants.print_constants).
The tool is $ABIDIFF_UAPI_TOOL, else build/abidiff-uapi/abidiff-uapi; a missing tool fails.
"""
import json
import os
import subprocess

import pytest

from conftest import ROOT
from uapi_check import constants

TOOL = os.environ.get("ABIDIFF_UAPI_TOOL", os.path.join(ROOT, "build", "abidiff-uapi", "abidiff-uapi"))
FIXTURE = os.path.join(ROOT, "fixtures", "constants")
HEADERS = ["linux/mydefs.h", "asm/unistd_my.h"]
COMPILERS = {"c": ("gcc", ["-std=gnu11"], "c"), "cxx": ("g++", ["-std=gnu++17"], "c++")}


@pytest.fixture(scope="module")
def tool():
    assert os.access(TOOL, os.X_OK), f"{TOOL} is missing: build it first (meson compile -C build)"
    return TOOL


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    """Per (version, lang): the constants found, kept and rejected, the archive, the printed values."""
    out = tmp_path_factory.mktemp("constants")
    result = {}
    for version in ("old", "new"):
        inc = os.path.join(FIXTURE, version)
        for lang, (cc, flags, x) in COMPILERS.items():
            found, rejected = constants.find_constants(cc, inc, HEADERS, flags)
            kept, skipped = constants.check_constants(cc, inc, HEADERS, flags, found)
            base = os.path.join(out, f"{version}-{lang}")
            unit = base + ".unit." + ("c" if lang == "c" else "cc")
            with open(unit, "w") as f:
                f.write("".join(f"#include <{h}>\n" for h in HEADERS))
            subprocess.run([cc, *flags, "-g", "-fno-eliminate-unused-debug-types", "-I", inc, "-x", x, "-c",
                            unit, "-o", base + ".o"], check=True)
            constants.compile_constants_unit(cc, inc, HEADERS, flags, kept, base + ".defines.o")
            subprocess.run(["ar", "rcSD", base + ".a", base + ".o", base + ".defines.o"], check=True)
            result[(version, lang)] = {
                "found": found, "kept": kept, "rejected": {**rejected, **skipped}, "archive": base + ".a",
                "defines": base + ".defines.o", "inc": inc,
                "printed": constants.print_constants(cc, inc, HEADERS, flags, kept)}
    return result


def dump(tool, path):
    p = subprocess.run([tool, "dump", path, "--format=json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return {t["name"]: t for t in json.loads(p.stdout)["types"] if t["kind"] == "constant"}


def diff(tool, old, new, *opts):
    p = subprocess.run([tool, "diff", old, new, "--format=json", *opts], capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, {t["name"]: t for t in json.loads(p.stdout)["types"]}


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_what_is_a_constant(sides, lang):
    s = sides[("old", lang)]
    kept = {k.name for k in s["kept"]}
    assert {"MYDEFS_API_VERSION", "MYDEFS_F_READ", "MYDEFS_F_LEGACY", "MYDEFS_ATTR_MAX", "MYDEFS_GENL_NAME",
            "MYDEFS_LEVEL_HIGH", "MYDEFS_EMPTY_SIZE", "MYDEFS_F_ALL", "__NR_mycall"} <= kept
    strings = {k.name for k in s["kept"] if k.string}
    assert strings == {"MYDEFS_GENL_NAME"}
    r = s["rejected"]
    assert r["_LINUX_MYDEFS_H"] == constants.EMPTY
    assert r["MYDEFS_MAKE"] == constants.FUNCTION_LIKE
    assert "PAGE_SIZE" in r["MYDEFS_PAGE"]          # the compiler's own reason
    assert "MYDEFS_HALF" in r                        # a float: the enum rejects it
    assert not kept & set(r)
    # Nothing dropped: every object-like macro of the fixture is kept or has a reason.
    assert "MYDEFS_HALF" not in kept and "MYDEFS_PAGE" not in kept


@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_the_check_suggests_no_macro(sides, lang):
    """The check compiles each candidate from its expansion with every macro #undef'd: otherwise
    gcc searches all of them for a spelling on every error (1.3 of 3 s in a whole UAPI's first
    check) and suggests one (`did you mean 'MYDEFS_NSIG'`). The verdict is the compiler's still."""
    s = sides[("old", lang)]
    reason = s["rejected"]["MYDEFS_SIGS"]
    assert "'_MYDEFS_NSIG'" in reason and "did you mean" not in reason, reason
    assert "MYDEFS_NSIG" in {k.name for k in s["kept"]}


@pytest.mark.parametrize("version", ["old", "new"])
@pytest.mark.parametrize("lang", ["c", "cxx"])
def test_values_agree_with_a_compiled_program(sides, tool, version, lang):
    s = sides[(version, lang)]
    read = dump(tool, s["defines"])
    assert len(read) == len(s["kept"]) == len(s["printed"])
    for name, value in s["printed"].items():
        t = read[f"#define {name}"]
        if isinstance(value, bytes):
            assert bytes.fromhex(t["bytes"]) == value, name
        else:
            assert t["value"] == value, name


def test_declaring_header_and_line(sides, tool):
    t = dump(tool, sides[("old", "c")]["defines"])["#define __NR_mycall"]
    assert t["file"].endswith("asm/unistd_my.h") and t["line"] == 5 and t.get("syscall") is True


def test_drift_verdicts(sides, tool):
    rc, types = diff(tool, sides[("old", "c")]["archive"], sides[("new", "c")]["archive"])
    assert rc == 1

    def one(name):
        t = types[name]
        return t["status"], t["severity"], t["reasons"]

    assert one("#define MYDEFS_F_LEGACY") == ("removed", "break", ["constant-removed"])
    assert one("#define MYDEFS_F_OLDSYNC") == ("removed", "break", ["constant-removed"])
    assert one("#define __NR_mycall") == ("changed", "break", ["constant-value"])
    assert types["#define __NR_mycall"]["syscall"] is True
    change = types["#define __NR_mycall"]["changes"][0]
    assert (change["old"]["value"], change["new"]["value"]) == (1, 3)
    assert one("#define MYDEFS_GENL_NAME") == ("changed", "break", ["constant-value"])
    g = types["#define MYDEFS_GENL_NAME"]["changes"][0]
    assert (g["old"]["string"], g["new"]["string"]) == ("mydefs", "mydefs2")
    assert one("#define MYDEFS_ATTR_MAX") == ("changed", "safe", ["sentinel"])
    assert one("#define MYDEFS_API_VERSION") == ("changed", "review", ["version-increased"])
    assert one("#define MYDEFS_ATTR_C") == ("added", "safe", ["constant-added"])
    # A renamed enumerator whose old name stays as a #define of the same value, and the reverse.
    mode = types["enum mydefs_mode"]
    assert mode["severity"] == "safe"
    moved = [c for c in mode["changes"] if c["change"] == "enumerator_removed"]
    assert moved and moved[0]["reasons"] == ["constant-moved"] and moved[0]["now_in"] == "#define MYDEFS_MODE_OLD"
    assert one("#define MYDEFS_LEVEL_HIGH") == ("aliased", "safe", ["constant-moved"])
    assert types["#define MYDEFS_LEVEL_HIGH"]["changes"][0]["now_in"] == "enum mydefs_level"
    # A sentinel-named #define that follows an enum's sentinel, and a mask of a family's flags.
    assert one("#define MYDEFS_X_MAX") == ("changed", "safe", ["sentinel"])
    assert one("#define MYDEFS_G_ALL") == ("changed", "safe", ["sentinel"])
    # Masks that gain bits, reserved bits put to use, a range's end, N<FAMILY> counts, an ABI's patch.
    assert one("#define MYDEFS_H_VALID_FLAGS") == ("changed", "safe", ["sentinel"])
    assert one("#define MYDEFS_CAP_RESERVED") == ("changed", "safe", ["reserved-reuse"])
    assert one("#define MYDEFS_CMD_END") == ("changed", "safe", ["sentinel"])
    assert one("#define MYDEFS_OP_START") == ("changed", "break", ["constant-value"])
    assert one("#define MYDEFS_OP_END") == ("changed", "break", ["constant-value"])
    assert one("#define NMYSIG") == ("changed", "safe", ["sentinel"])
    assert one("#define MYDEFS_ABI_PATCH") == ("changed", "review", ["version-increased"])
    # Syscall numbers are never counts or masks, whatever their values look like.
    assert one("#define __NR_mythree") == ("changed", "break", ["constant-value"])
    # Nothing else breaks.
    assert {n for n, t in types.items() if t["severity"] == "break"} == {
        "#define MYDEFS_F_LEGACY", "#define MYDEFS_F_OLDSYNC", "#define __NR_mycall", "#define MYDEFS_GENL_NAME",
        "#define __NR_mytwo", "#define __NR_mythree", "#define MYDEFS_OP_START", "#define MYDEFS_OP_END"}


def test_strict_has_no_idioms(sides, tool):
    """--strict (a series, C against C++): a sentinel or version that moves breaks."""
    _, types = diff(tool, sides[("old", "c")]["archive"], sides[("new", "c")]["archive"], "--strict")
    assert types["#define MYDEFS_ATTR_MAX"]["severity"] == "break"
    assert types["#define MYDEFS_API_VERSION"]["severity"] == "break"


def test_c_against_cxx(sides, tool):
    """One revision in C and in C++: only the constant built on an empty struct differs."""
    rc, types = diff(tool, sides[("old", "c")]["archive"], sides[("old", "cxx")]["archive"], "--strict",
                     "--common-only")
    constants_differ = {n for n in types if n.startswith("#define ")}
    assert constants_differ == {"#define MYDEFS_EMPTY_SIZE"}
    change = types["#define MYDEFS_EMPTY_SIZE"]["changes"][0]
    assert (change["old"]["value"], change["new"]["value"]) == (0, 1)
    assert rc == 1


def test_text_report_names_syscalls(sides, tool):
    p = subprocess.run([tool, "diff", sides[("old", "c")]["archive"], sides[("new", "c")]["archive"]],
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "#define __NR_mycall: changed" in p.stdout and "syscall number" in p.stdout
    assert 'value "mydefs" -> "mydefs2"' in p.stdout


def test_outputs_follow_the_schemas(sides, tool):
    """dump and diff of constants validate against abidiff-uapi/schema/."""
    import jsonschema
    schemas = {}
    for name in ("dump", "diff"):
        with open(os.path.join(ROOT, "abidiff-uapi", "schema", f"{name}.schema.json")) as f:
            schemas[name] = json.load(f)
    store = {s["$id"]: s for s in schemas.values()}

    def validator(name):
        s = schemas[name]
        return jsonschema.Draft202012Validator(s, resolver=jsonschema.RefResolver(s["$id"], s, store=store))

    old, new = sides[("old", "c")]["archive"], sides[("new", "c")]["archive"]
    d = subprocess.run([tool, "dump", old, "--format=json"], capture_output=True, text=True)
    errors = list(validator("dump").iter_errors(json.loads(d.stdout)))
    assert not errors, errors[0].message
    p = subprocess.run([tool, "diff", old, new, "--format=json"], capture_output=True, text=True)
    errors = list(validator("diff").iter_errors(json.loads(p.stdout)))
    assert not errors, errors[0].message


def test_sarif_names_syscalls(sides, tool):
    p = subprocess.run([tool, "diff", sides[("old", "c")]["archive"], sides[("new", "c")]["archive"],
                        "--format=sarif"], capture_output=True, text=True)
    assert p.returncode == 1
    results = {r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]: r for run in json.loads(p.stdout)["runs"]
               for r in run["results"]}
    assert "(syscall number)" in results["#define __NR_mycall"]["message"]["text"]
    assert results["#define MYDEFS_F_LEGACY"]["level"] == "error"


def run_step(monkeypatch, fake_build, jobs, full=False, drift=False, alone=False):
    """defines.step_constants over the four main units (and, with alone, a left-out header's unit
    beside each), fake_build standing in for build_constants."""
    import types
    from uapi_check import defines
    from uapi_check.util import Progress

    monkeypatch.setattr(defines, "build_constants", fake_build)
    units = {k: types.SimpleNamespace(lang=k.split("-")[0], rev=k.split("-")[1], included=["linux/a.h"])
             for k in ("c-before", "c-after", "cxx-before", "cxx-after")}
    extra = {f"{k}+linux-x": types.SimpleNamespace(object=f"obj/{k}+linux-x.o", unit=k, header="linux/x.h",
                                                    content="x")
             for k in units} if alone else {}
    opts = types.SimpleNamespace(out="/nonexistent", full=full, jobs=jobs, git=None, drift=drift)
    trees = types.SimpleNamespace(revisions={"before": types.SimpleNamespace(include="b"),
                                             "after": types.SimpleNamespace(include="a")})
    return defines.step_constants(opts, {"c": "gcc", "cxx": "g++"}, trees, units, types.SimpleNamespace(units=extra),
                                  Progress(True), {"before": "b", "after": "a"})


def summary(name):
    return {"name": name, "constants": 1, "syscalls": 0, "strings": 0, "not_constants": {}}


def test_step_constants_keeps_the_units_order_whatever_thread_ends_first(monkeypatch):
    """report.json's constants summaries come in the units' order, not in the order the
    threads finish (a warm run once listed c-after before cxx-before, the next run not)."""
    import threading
    released = threading.Event()

    def fake_build(compiler, lang, include, out, name, headers, *, content, full, c_result, prior, by_header,
                   speculate=False):
        if name == "cxx-before":       # finishes before c-after, which waits for it
            released.set()
        elif name == "c-after":
            assert released.wait(10)
        return None if speculate else summary(name)

    got = run_step(monkeypatch, fake_build, 2)
    assert list(got) == ["c-after", "c-before", "cxx-after", "cxx-before"]


def test_step_constants_starts_the_main_units_before_the_left_out_headers(monkeypatch):
    """With one worker, the order tasks start in: a main unit whenever one is ready (C before,
    then C after and C++ before, then C++ after), the left-out headers' units after them, each
    after the units it starts from. Before, the left-out headers queued ahead of C after."""
    started = []

    def fake_build(compiler, lang, include, out, name, headers, *, content, full, c_result, prior, by_header,
                   speculate=False):
        started.append(name)
        return summary(name)

    run_step(monkeypatch, fake_build, 1, alone=True)
    assert started[:4] == ["c-before", "c-after", "cxx-before", "cxx-after"], started
    assert sorted(started[4:]) == sorted(f"{k}+linux-x" for k in started[:4]), started
    assert started.index("c-before+linux-x") < started.index("c-after+linux-x"), started


@pytest.mark.parametrize("full, drift, guessed", [(False, False, True), (True, False, False), (False, True, False)])
def test_step_constants_guesses_cxx_after_beside_c_after(monkeypatch, full, drift, guessed):
    """With two workers, C++ after starts beside C after as a guess, from C before's result
    (build_constants' speculate); its own task still waits for C after and is given C after's.
    Not under --full, and not in a drift (no objects by header: nothing to start from)."""
    import threading
    calls, lock, go = [], threading.Lock(), threading.Event()

    def fake_build(compiler, lang, include, out, name, headers, *, content, full, c_result, prior, by_header,
                   speculate=False):
        with lock:
            calls.append((name, speculate, c_result and c_result["name"]))
        if speculate:
            go.set()
            return None
        if name == "c-after":
            go.wait(1)
        return summary(name)

    run_step(monkeypatch, fake_build, 2, full, drift)
    guesses = [c for c in calls if c[1]]
    assert guesses == ([("cxx-after", True, "c-before")] if guessed else []), calls
    assert ("cxx-after", False, "c-after") in calls and calls[-1] == ("cxx-after", False, "c-after"), calls
