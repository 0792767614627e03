import os
import shutil

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
    assert "-fdebug-prefix-map=/o=." in cmd
    assert cmd[-4:] == ["-c", "work/c-after.c", "-o", "work/c-after.o"]


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
    obj, err = units.build_alone_unit("gcc", "c", "c-after+linux-ok", "linux/ok.h", str(inc), str(out))
    assert err is None and os.path.isfile(obj)
    obj, err = units.build_alone_unit("gcc", "c", "c-after+linux-bad", "linux/bad.h", str(inc), str(out))
    assert obj is None and err.startswith("include/linux/bad.h:1:") and "u32" in err


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
    assert len(calls) == 2      # a collision round, then the unit without b.h
    (inc / "linux" / "a.h").write_text("struct a { int x, z; };\n")
    changed = units.build_unit("gcc", "c", "after", ["linux/a.h", "linux/b.h"], str(inc), str(out), ident=ident)
    assert len(calls) == 4 and (out / changed.object).read_bytes() != data
