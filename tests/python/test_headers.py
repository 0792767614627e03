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
