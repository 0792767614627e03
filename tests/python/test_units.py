import os
import shutil
import subprocess

import pytest

from uapi_check import units

NEEDS_GCC = pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")


def test_header_slug_unique():
    taken = {}
    assert units.header_slug("linux/uio.h", taken) == "linux-uio"
    assert units.header_slug("linux/uio.h", taken) == "linux-uio"
    assert units.header_slug("linux-uio.h", taken) == "linux-uio-2"
    assert units.header_slug("linux/a+b.h", taken) == "linux-a-b"


def test_unit_command_is_relative_to_the_out_dir():
    cmd = units.unit_command("gcc", "c", "/o/work/c-after.c", "/o/work/c-after.o", "include/after", "/o")
    assert cmd[:2] == ["gcc", "-std=gnu11"]
    assert "-ffile-prefix-map=/o=." in cmd
    assert cmd[-4:] == ["-c", "work/c-after.c", "-o", "work/c-after.o"]


def unit_in(out, tree):
    """A one-header unit built by unit_command in out (include/after holds linux/x.h)."""
    tree({"include/after/linux/x.h": "struct x_req { int a; };\nstatic const char *x_file = __FILE__;\n"},
         name=os.path.basename(out))
    os.makedirs(os.path.join(out, "work"))
    with open(os.path.join(out, "work", "c-after.c"), "w") as f:
        f.write("#include <linux/x.h>\n")
    obj = os.path.join(out, "work", "c-after.o")
    subprocess.run(units.unit_command("gcc", "c", os.path.join(out, "work", "c-after.c"), obj,
                                      "include/after", out), cwd=out, check=True)
    return obj


def test_a_unit_object_does_not_depend_on_where_it_was_built(tmp_path, tree, tool):
    """Item 4 of issue 27, the driver's side: no path of the out dir in the object (DWARF or
    __FILE__), the same bytes from two out dirs, and the tool's --headers finds its types."""
    a = unit_in(str(tmp_path / "out-a"), tree)
    b = unit_in(str(tmp_path / "somewhere-else"), tree)
    with open(a, "rb") as f:
        data = f.read()
    assert str(tmp_path).encode() not in data
    with open(b, "rb") as f:
        assert f.read() == data
    out = str(tmp_path / "out-a")
    p = subprocess.run([tool, "dump", "work/c-after.o", "--headers", "include/after"], cwd=out,
                       capture_output=True, text=True)
    assert p.returncode == 0 and "struct x_req" in p.stdout, p.stderr


@pytest.mark.parametrize("spelling", ["ABS", "./include/after/"])
def test_headers_takes_any_spelling_of_the_include_dir(tmp_path, tree, tool, spelling):
    out = str(tmp_path / "out-a")
    unit_in(out, tree)
    inc = os.path.join(out, "include", "after") if spelling == "ABS" else spelling
    p = subprocess.run([tool, "dump", "work/c-after.o", "--headers", inc], cwd=out,
                       capture_output=True, text=True)
    assert p.returncode == 0 and "struct x_req" in p.stdout, (p.stdout, p.stderr)


@NEEDS_GCC
def test_build_unit_leaves_out_the_colliding_header(tmp_path):
    out = tmp_path / "out"
    inc = out / "include" / "after"
    for rel, text in {
        "linux/a.h": "#ifndef A\n#define A\nstruct a { int x; };\n#endif\n",
        "linux/b.h": "#ifndef B\n#define B\nstruct a { long y; };\nstruct b { int z; };\n#endif\n",
        "linux/c.h": "#ifndef C_\n#define C_\nstruct c { char q; };\n#endif\n",
    }.items():
        (inc / rel).parent.mkdir(parents=True, exist_ok=True)
        (inc / rel).write_text(text)
    (out / "obj").mkdir()
    (out / "work").mkdir()
    u = units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/b.h", "linux/c.h"], str(inc), str(out))
    assert u.key == "c-after"
    assert u.included == ["linux/a.h", "linux/c.h"]
    assert [(c.header, c.symbol) for c in u.collisions] == [("linux/b.h", "a")]
    assert u.collisions[0].at == "linux/b.h:3"
    assert u.collisions[0].other == "linux/a.h:3"
    assert u.object == "obj/c-after.o" and os.path.getsize(out / u.object) == u.size > 0
    assert u.to_json()["headers"] == 2


@NEEDS_GCC
def test_build_alone_unit_reports_the_first_error(tmp_path):
    out = tmp_path
    inc = out / "include"
    (inc / "linux").mkdir(parents=True)
    (inc / "linux" / "ok.h").write_text("struct ok { int a; };\n")
    (inc / "linux" / "bad.h").write_text("struct bad { u32 a; };\n")
    (out / "obj").mkdir()
    (out / "work").mkdir()
    obj, err, content = units.build_alone_unit("gcc", "c", "c-after+linux-ok", "linux/ok.h", str(inc), str(out))
    assert err is None and os.path.isfile(obj) and content
    obj, err, content = units.build_alone_unit("gcc", "c", "c-after+linux-bad", "linux/bad.h", str(inc), str(out))
    assert obj is None and err.startswith("include/linux/bad.h:1:") and "u32" in err and content is None


@NEEDS_GCC
def test_build_unit_cache_hits_only_on_the_same_inputs(tmp_path, monkeypatch):
    """A second build with the same compiler identity and header bytes copies the cached object
    (same Unit, same bytes, no compile); a changed header or compiler identity compiles again."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    inc = out / "include" / "after"
    (inc / "linux").mkdir(parents=True)
    (inc / "linux" / "a.h").write_text("struct a { int x; };\n")
    (inc / "linux" / "b.h").write_text("struct a { long y; };\n")
    (out / "obj").mkdir()
    (out / "work").mkdir()
    ident = {"path": "gcc", "version": "gcc 12"}
    first = units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/b.h"], str(inc), str(out), ident=ident)
    data = (out / first.object).read_bytes()
    calls = []
    real_run = units.run
    monkeypatch.setattr(units, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    (out / first.object).unlink()
    again = units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/b.h"], str(inc), str(out), ident=ident)
    assert calls == []
    assert again == first and (out / again.object).read_bytes() == data
    assert again.cached and not first.cached
    assert (out / "work" / "c-after.c").read_text() == "#include <linux/a.h>\n"
    units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/b.h"], str(inc), str(out),
                     ident={"path": "gcc", "version": "gcc 13"})
    # a failed compile, a parse-only round without b.h that passes, then the unit compiled
    assert [("-fsyntax-only" in c[0]) for c in calls] == [False, True, False]
    (inc / "linux" / "a.h").write_text("struct a { int x, z; };\n")
    changed = units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/b.h"], str(inc), str(out), ident=ident)
    assert len(calls) == 6 and (out / changed.object).read_bytes() != data


def collision(header, at, other):
    from uapi_check.model import Collision
    return Collision(header, "a", "redefinition of 'struct a'", at, other)


def test_seed_collisions_keeps_only_what_nothing_changed_can_touch():
    from uapi_check.model import Unit
    before = Unit("c", "before", "obj/c-before.o", ["linux/a.h"],
                  [collision("linux/b.h", "linux/b.h:3", "linux/a.h:3"),
                   collision("linux/m.h", "/usr/include/netinet/in.h:9", "linux/in.h:4"),
                   collision("linux/gone.h", "linux/gone.h:1", "linux/a.h:3")], 1)
    deps = {"linux/b.h": [[0, "linux/b.h"]],
            "linux/m.h": [[0, "linux/m.h"], [-1, "/usr/include/netinet/in.h"]],
            "linux/gone.h": [[0, "linux/gone.h"]]}
    offered = ["linux/a.h", "linux/b.h", "linux/m.h", "linux/in.h"]
    nothing = [set(), set()], [set(), set()]
    assert [c.header for c in units.seed_collisions(before, offered, deps, *nothing)] == ["linux/b.h", "linux/m.h"]
    # A file the left-out header reads changed: the rounds decide again.
    got = units.seed_collisions(before, offered, deps, [{"linux/b.h"}, set()], [set(), set()])
    assert [c.header for c in got] == ["linux/m.h"]
    # The earlier definition's file changed (it may have lost the clashing name).
    got = units.seed_collisions(before, offered, deps, [{"linux/in.h"}, set()], [set(), set()])
    assert [c.header for c in got] == ["linux/b.h"]
    # An added file that could shadow a C library header the left-out header read.
    got = units.seed_collisions(before, offered, deps, [{"netinet/in.h"}, set()], [{"netinet/in.h"}, set()])
    assert [c.header for c in got] == ["linux/b.h"]
    # No dependencies on record (an old cache): never seeded.
    assert units.seed_collisions(before, offered, {}, *nothing) == []


@NEEDS_GCC
def test_seeded_unit_equals_the_rounds_and_still_finds_new_collisions(tmp_path, monkeypatch):
    out = tmp_path / "out"
    inc = out / "include" / "after"
    files = {
        "linux/a.h": "#ifndef A\n#define A\nstruct a { int x; };\n#endif\n",
        "linux/b.h": "#ifndef B\n#define B\nstruct a { long y; };\nstruct b { int z; };\n#endif\n",
        "linux/c.h": "#ifndef C_\n#define C_\nstruct c { char q; };\n#endif\n",
        "linux/d.h": "#ifndef D\n#define D\nstruct c { char r; };\n#endif\n",
    }
    for rel, text in files.items():
        (inc / rel).parent.mkdir(parents=True, exist_ok=True)
        (inc / rel).write_text(text)
    (out / "obj").mkdir()
    (out / "work").mkdir()
    headers = ["linux/a.h", "linux/b.h", "linux/c.h", "linux/d.h"]
    plain = units.build_unit("gcc", "c", "after", headers, str(inc), str(out))
    calls = []
    real_run = units.run
    monkeypatch.setattr(units, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))
    seeded = units.build_unit("gcc", "c", "after", headers, str(inc), str(out), seed=plain.collisions)
    assert len(calls) == 1          # one compile instead of three
    assert seeded.included == plain.included == ["linux/a.h", "linux/c.h"]
    assert seeded.collisions == plain.collisions
    # A seed that misses a collision: the rounds go on from it and find the other one.
    calls.clear()
    partial = units.build_unit("gcc", "c", "after", headers, str(inc), str(out), seed=plain.collisions[:1])
    assert len(calls) == 3 and partial.included == plain.included
    assert [c.header for c in partial.collisions] == ["linux/b.h", "linux/d.h"]


@NEEDS_GCC
def test_the_macro_scan_starts_with_the_headers_the_unit_keeps(tmp_path):
    """compiling (the driver's scan) hears of the headers the unit ends with: not those of a
    first compile that collides (a scan of them is wasted), and early for a seeded unit."""
    out = tmp_path / "out"
    inc = out / "include" / "after"
    files = {"linux/a.h": "struct a { int x; };\n", "linux/b.h": "struct a { long y; };\n",
             "linux/c.h": "struct c { char q; };\n"}
    for rel, text in files.items():
        (inc / rel).parent.mkdir(parents=True, exist_ok=True)
        (inc / rel).write_text(text)
    (out / "obj").mkdir()
    (out / "work").mkdir()
    headers = ["linux/a.h", "linux/b.h", "linux/c.h"]
    heard = []
    plain = units.build_unit("gcc", "c", "after", headers, str(inc), str(out), compiling=heard.append)
    assert heard == [["linux/a.h", "linux/c.h"]] == [plain.included]
    heard.clear()
    units.build_unit("gcc", "c", "after", headers, str(inc), str(out), seed=plain.collisions, compiling=heard.append)
    assert heard == [["linux/a.h", "linux/c.h"]]
    heard.clear()
    units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/c.h"], str(inc), str(out), compiling=heard.append)
    assert heard == [["linux/a.h", "linux/c.h"]]


@NEEDS_GCC
@pytest.mark.parametrize("compiler,lang", [("gcc", "c"), ("g++", "cxx")])
def test_parse_only_rounds_find_what_full_compiles_find(tmp_path, monkeypatch, compiler, lang):
    """The rounds after a failed compile only parse, up to the first error: they leave out the
    same headers, with the same collision records, as full compiles would, and the object kept
    is the full compile's (DWARF included)."""
    files = {
        "linux/a.h": "struct a { int x; };\nstruct t { char c; };\n",
        "linux/b.h": "struct a { long y; };\nstruct b { int z; };\n",
        "linux/c.h": "struct b { short s; };\nstruct c { int k; };\n",
        "linux/d.h": "struct c { char r; };\nstruct t { int i; };\n",
        "linux/e.h": "struct e { int ok; };\n",
    }
    headers = sorted(files)

    def build(name, parse):
        out = tmp_path / name
        inc = out / "include" / "after"
        for rel, text in files.items():
            (inc / rel).parent.mkdir(parents=True, exist_ok=True)
            (inc / rel).write_text(text)
        (out / "obj").mkdir()
        (out / "work").mkdir()
        if not parse:
            monkeypatch.setattr(units, "parse_command", lambda cmd: cmd)
        built = units.build_unit(compiler, lang, "after", headers, str(inc), str(out))
        monkeypatch.undo()
        return built, (out / built.object).read_bytes()

    full, full_obj = build("full", False)
    parsed, parsed_obj = build("parsed", True)
    assert [c.header for c in full.collisions] == ["linux/b.h", "linux/d.h"]
    assert parsed == full and parsed_obj == full_obj and b".debug_info" in parsed_obj


def alone_tree(tmp_path, a_h, t_h, other_h):
    """An out dir whose after side holds linux/a.h (which includes linux/t.h) and linux/other.h;
    returns (out, its include dir, a builder of linux/a.h's own unit: (object bytes, content))."""
    out = tmp_path / "out"
    inc = out / "include" / "after"
    (inc / "linux").mkdir(parents=True)
    for name, text in (("a.h", a_h), ("t.h", t_h), ("other.h", other_h)):
        (inc / "linux" / name).write_text(text)
    (out / "obj").mkdir()
    (out / "work").mkdir()

    def build(ident, **kw):
        obj, err, content = units.build_alone_unit("gcc", "c", "c-after+linux-a", "linux/a.h", str(inc), str(out),
                                                   ident=ident, **kw)
        assert err is None
        return open(obj, "rb").read(), content
    return out, inc, build


@NEEDS_GCC
def test_alone_unit_cache_follows_the_files_it_reads(tmp_path, monkeypatch):
    """A left-out header's own unit is reused while every file it read has the same bytes; a
    change to a file it includes compiles it again; another header's change does not."""
    out, inc, build_a = alone_tree(tmp_path, "#include <linux/t.h>\nstruct a { t x; };\n", "typedef int t;\n",
                                   "struct o { int y; };\n")
    ident = {"path": "gcc", "version": "gcc 12"}
    calls = []
    real_run = units.run
    monkeypatch.setattr(units, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))

    def build(**kw):
        return build_a(ident, **kw)[0]
    first = build()
    assert build() == first and len(calls) == 1
    (inc / "linux" / "other.h").write_text("struct o { long y; };\n")
    assert build() == first and len(calls) == 1
    (inc / "linux" / "t.h").write_text("typedef long t;\n")
    changed = build()
    assert len(calls) == 2 and changed != first
    (inc / "linux" / "t.h").write_text("typedef int t;\n")      # back: the first object again
    assert build() == first and len(calls) == 2
    build(full=True)
    assert len(calls) == 3


@NEEDS_GCC
@pytest.mark.parametrize("ident", [None, {"path": "gcc", "version": "gcc 12"}])
def test_an_alone_units_content_is_the_bytes_its_compile_read(tmp_path, monkeypatch, ident):
    """The content digest of a unit of one header (what its #define constants are keyed by, with
    the object): the same while the files it reads keep their bytes, compiled or from the cache,
    another when one of them changes, even where the object does not (a macro that no type
    uses), and not moved by a header it does not read."""
    monkeypatch.setenv("ABIDIFF_UAPI_CACHE", str(tmp_path / "cache"))
    out, inc, build_a = alone_tree(tmp_path, "#include <linux/t.h>\nstruct a { int x; };\n", "#define T_FLAG 1\n",
                                   "#define O_FLAG 1\n")

    def build():
        return build_a(ident)
    first, key = build()
    assert build() == (first, key)
    (inc / "linux" / "other.h").write_text("#define O_FLAG 2\n")
    assert build() == (first, key)
    (inc / "linux" / "t.h").write_text("#define T_FLAG 2\n")
    obj, changed = build()
    assert obj == first and changed != key


def test_alone_unit_cache_keeps_each_side_in_its_own_include_dir(tmp_path):
    """The same header with the same bytes on both sides: the after side does not take the
    before side's object, whose DWARF names include/before (dump --headers include/after of
    it would find nothing)."""
    out = tmp_path / "out"
    for side in ("before", "after"):
        (out / "include" / side / "linux").mkdir(parents=True)
        (out / "include" / side / "linux" / "a.h").write_text("struct a { int x; };\n")
    (out / "obj").mkdir()
    (out / "work").mkdir()
    ident = {"path": "gcc", "version": "gcc 12"}
    for side in ("before", "after"):
        obj, err, _ = units.build_alone_unit("gcc", "c", f"c-{side}+linux-a", "linux/a.h",
                                             str(out / "include" / side), str(out), ident=ident)
        assert err is None
        data = open(obj, "rb").read()
        assert f"include/{side}".encode() in data
        assert f"include/{'after' if side == 'before' else 'before'}".encode() not in data
