import hashlib
import os
import shutil

import pytest

from uapi_check import headers
from uapi_check.model import Compiler

NEEDS_GCC = pytest.mark.skipif(not shutil.which("gcc") or not shutil.which("g++"), reason="needs gcc and g++")


def test_make_pattern_match():
    assert headers.make_pattern_match("linux/%.h", "linux/a.h")
    assert headers.make_pattern_match("asm/%", "asm/x/y.h")
    assert not headers.make_pattern_match("linux/%.h", "linux/a.c")
    assert not headers.make_pattern_match("ab%ba", "aba")
    assert headers.make_pattern_match("linux/kvm.h", "linux/kvm.h")
    assert not headers.make_pattern_match("linux/kvm.h", "linux/kvm_para.h")


@pytest.mark.parametrize("header, reason", [
    ("asm-generic/int-ll64.h", "asm-generic (included by asm/*.h, not directly)"),
    ("asm/posix_types_64.h", "32/64/x32 variant"),
    ("asm/unistd_x32.h", "32/64/x32 variant"),
    ("linux/byteorder/big_endian.h", "byteorder variant (chosen by asm/byteorder.h)"),
    ("drm/foo.h", "no-header-test"),
    ("linux/kvm.h", None),
])
def test_skip_reason(header, reason):
    assert headers.skip_reason(header, ["drm/%.h", "linux/x.h"]) == reason


def test_select_headers(tree):
    inc = tree({"linux/a.h": "", "linux/x.h": "", "asm-generic/g.h": ""})
    tested, skipped = headers.select_headers(inc, ["linux/x.h"])
    assert tested == ["linux/a.h"]
    assert skipped == {"asm-generic/g.h": "asm-generic (included by asm/*.h, not directly)",
                       "linux/x.h": "no-header-test"}


def test_first_error_relative_and_first():
    err = ("/t/inc/linux/a.h:3:1: warning: meh\n"
           "/t/inc/linux/a.h:4:9: error: unknown type name 'u32'\n"
           "/t/inc/linux/b.h:1:1: error: second\n")
    assert headers.first_error(err, "/t/inc/") == "linux/a.h:4:9: error: unknown type name 'u32'"
    assert headers.first_error("just this\n", "/t/inc") == "just this"
    assert headers.first_error("", "/t/inc") == "failed"


def test_no_header_test_reads_the_makefile(tree):
    t = tree({"usr/include/Makefile": "no-header-test += linux/a.h\nno-header-test += drm/%.h\n"}, name="k")
    assert headers.no_header_test(t + "/usr/include/Makefile") == ["linux/a.h", "drm/%.h"]


@NEEDS_GCC
def test_compile_alone_c_and_cxx(tree):
    inc = tree({"linux/ok.h": "#ifndef OK\n#define OK\nstruct ok { int a; };\n#endif\n",
                "linux/noguard.h": "struct twice { int a; };\n",
                "linux/cxx.h": "#ifndef C\n#define C\nstruct k { int class; };\n#endif\n"})
    dummy = tree({"x": ""}, name="dummy")
    assert headers.compile_alone("gcc", "c", inc, dummy, "linux/ok.h") is None
    # Included twice: a header without an include guard fails.
    assert "redefinition of 'struct twice'" in headers.compile_alone("gcc", "c", inc, dummy, "linux/noguard.h").replace("‘", "'").replace("’", "'")
    assert headers.compile_alone("gcc", "c", inc, dummy, "linux/cxx.h") is None
    err = headers.compile_alone("g++", "cxx", inc, dummy, "linux/cxx.h")
    assert err.startswith("linux/cxx.h:3:") and "error" in err


def test_sweep_key_changes_with_inputs():
    cc = {"c": Compiler("c", "/usr/bin/gcc", "gcc 12"), "cxx": Compiler("cxx", "/usr/bin/g++", "g++ 12")}
    k = headers.sweep_key(cc, "d1", ["a.h"], [], "dd")
    assert k == headers.sweep_key(cc, "d1", ["a.h"], [], "dd")
    assert k != headers.sweep_key(cc, "d2", ["a.h"], [], "dd")
    assert k != headers.sweep_key(cc, "d1", ["a.h"], ["b.h"], "dd")
    other = dict(cc, c=Compiler("c", "/usr/bin/clang", "clang 14"))
    assert k != headers.sweep_key(other, "d1", ["a.h"], [], "dd")


def test_parse_deps_and_relative():
    text = "null.o: /dev/null /i/linux/a.h \\\n /i/linux/../asm/b.h /d/asm/x.h /usr/include/stdio.h\n"
    deps = headers.parse_deps(text)
    assert deps == ["/i/linux/a.h", "/i/asm/b.h", "/d/asm/x.h", "/usr/include/stdio.h"]
    assert headers.relative_deps(deps, ("/i", "/d")) == [[0, "linux/a.h"], [0, "asm/b.h"], [1, "asm/x.h"],
                                                          [-1, "/usr/include/stdio.h"]]


def test_reusable_only_when_nothing_read_changed():
    deps = [[0, "linux/a.h"], [0, "linux/types.h"], [-1, "/usr/include/stdio.h"]]
    none = [set(), set()]
    assert headers.reusable(deps, none, none)
    assert not headers.reusable(deps, [{"linux/types.h"}, set()], none)
    assert headers.reusable(deps, [{"linux/other.h"}, set()], none)
    # A file after adds may shadow a system header read by the same include name.
    assert not headers.reusable(deps, [{"stdio.h"}, set()], [{"stdio.h"}, set()])
    # No dependency list (the compiler stopped early): compile again.
    assert not headers.reusable(None, none, none)
    assert not headers.reusable([], none, none)


class _Progress:
    def step(self, _):
        pass

    def count(self, *_):
        pass


@NEEDS_GCC
def test_sweep_reuses_only_headers_whose_includes_are_unchanged(tree):
    """The after sweep compiles again a header whose include changed (and it now fails), and
    keeps the before result of a header that reads nothing that changed."""
    from uapi_check.model import Revision
    import os
    base = {"linux/types.h": "#ifndef T\n#define T\ntypedef int s32;\n#endif\n",
            "linux/a.h": "#ifndef A\n#define A\n#include <linux/types.h>\nstruct a { s32 x; };\n#endif\n",
            "linux/b.h": "#ifndef B\n#define B\nstruct b { int y; };\n#endif\n"}
    before = tree(dict(base), name="before/usr/include")
    changed = dict(base)
    changed["linux/types.h"] = "#ifndef T\n#define T\ntypedef int s32;\nstruct t { int class; };\n#endif\n"
    after = tree(changed, name="after/usr/include")
    tree({"x.h": ""}, name="before/usr/dummy-include")
    tree({"x.h": ""}, name="after/usr/dummy-include")
    revs = {r: Revision(r, os.path.dirname(os.path.dirname(inc)), None,
                        [os.path.dirname(os.path.dirname(inc))], inc)
            for r, inc in (("before", before), ("after", after))}
    cc = {"c": Compiler("c", shutil.which("gcc"), "gcc"), "cxx": Compiler("cxx", shutil.which("g++"), "g++")}
    tested = ["linux/a.h", "linux/b.h", "linux/types.h"]
    selection = {"before": (tested, []), "after": (tested, [])}
    os.environ["ABIDIFF_UAPI_CACHE"] = os.path.join(os.path.dirname(os.path.dirname(before)), "cache")
    try:
        same, results, reuse, reused, deps = headers.sweep(2, cc, revs, selection, _Progress(), "amd64")
        # Run again: both sweeps come whole from the cache; with full, nothing is reused.
        _, again, reuse_again, _, deps_again = headers.sweep(2, cc, revs, selection, _Progress(), "amd64")
        _, _, reuse_full, reused_full, _ = headers.sweep(2, cc, revs, selection, _Progress(), "amd64", full=True)
    finally:
        del os.environ["ABIDIFF_UAPI_CACHE"]
    assert reuse == {"before": (0, 6), "after": (2, 6)}
    assert reuse_again == {"before": (6, 6), "after": (6, 6)} and sorted(again, key=repr) == sorted(results, key=repr)
    assert reuse_full == {"before": (0, 6), "after": (0, 6)} and reused_full == 0
    assert not same
    got = {(t.rev, t.lang, t.header): err for t, err in results}
    assert len(got) == 12
    # b.h reads nothing that changed: both languages reused; a.h and types.h read types.h.
    assert reused == 2
    assert got[("after", "cxx", "linux/a.h")] is not None and got[("after", "cxx", "linux/types.h")] is not None
    assert got[("before", "cxx", "linux/a.h")] is None
    assert got[("after", "c", "linux/a.h")] is None and got[("after", "cxx", "linux/b.h")] is None
    # The files each header read (the seed of step 3's after unit), the same from the cache.
    read = {(t.rev, t.lang, t.header): sorted(p for r, p in d if r == 0) for t, d in deps.items()}
    assert read[("before", "c", "linux/a.h")] == ["linux/a.h", "linux/types.h"]
    assert read[("after", "c", "linux/b.h")] == ["linux/b.h"]
    assert {(t.rev, t.lang, t.header): d for t, d in deps_again.items()} == \
        {(t.rev, t.lang, t.header): d for t, d in deps.items()}


def test_dir_digest_reads_again_only_what_changed_on_disk(tmp_path, monkeypatch):
    inc = tmp_path / "inc"
    (inc / "linux").mkdir(parents=True)
    (inc / "linux" / "a.h").write_text("struct a { int x; };\n")
    (inc / "linux" / "b.h").write_text("struct b { int y; };\n")

    def plain():
        h = hashlib.sha256()
        for rel in ("linux/a.h", "linux/b.h"):
            h.update(rel.encode() + b"\0" + (inc / rel).read_bytes())
        return h.hexdigest()

    first = headers.dir_digest(str(inc))
    assert first == plain()
    opened = []
    monkeypatch.setattr(headers, "open", lambda *a, **k: opened.append(a[0]) or open(*a, **k), raising=False)
    assert headers.dir_digest(str(inc)) == first and opened == []
    os.unlink(inc / "linux" / "b.h")                      # a new file, as an install writes it
    (inc / "linux" / "b.h").write_text("struct b { long y; };\n")
    assert headers.dir_digest(str(inc)) == plain() != first and len(opened) == 2
